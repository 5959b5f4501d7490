"""The card-play bots that need no layouts: ``random``, ``heuristic`` and ``dd`` (the cheater).

Every bot has ``name`` (its spec, as :func:`~kraken_solver.bots.registry.make_bot` reads it),
``description``, ``seed``, ``sees_all`` and ``choose_card(view) -> "HK"`` (a legal card of
the :class:`~kraken_solver.bots.view.SeatView`); the trump-choice side is in
:mod:`kraken_solver.bots.trump_bots`.  A bot's randomness for a decision comes from its seed
and the view alone (:func:`~kraken_solver.bots.view.view_seed`).
"""

from __future__ import annotations

import numpy as np

from ..game.cards import card_points, card_power, card_str
from ..kernels import moves
from ..playerview.observation import trick_winner_index
from .trump_bots import HEURISTIC_RULE, dd_trump, random_trump, rule_trump
from .view import view_seed

__all__ = ["DoubleDummyBot", "HeuristicBot", "RandomBot", "seeded_pick"]


def seeded_pick(seed: int, view, options):
    """One of ``options`` (a sequence), uniformly, from the decision's SeedSequence: the same
    for the same ``seed`` and view."""
    if len(options) == 1:
        return options[0]
    rng = np.random.default_rng(view_seed(seed, view))
    return options[int(rng.integers(0, len(options)))]


class RandomBot:
    """``random``: a legal card drawn uniformly, seeded by the bot's seed and the view; as
    chooser, a uniformly random trump."""

    sees_all = False
    description = "a uniformly random legal card (and trump)"

    def __init__(self, seed: int = 0):
        self.seed = int(seed)
        self.name = self.label = "random"

    def choose_card(self, view) -> str:
        return card_str(seeded_pick(self.seed, view, view.legal))

    def choose_trump(self, view) -> str:
        return random_trump(self.seed, view)


def _low_key(card: int, trump: int) -> tuple:
    """Sort key of a card to throw away: fewest points, then a plain card before a trump, then
    the lowest power."""
    return (card_points(card, trump), (card >> 3) == trump, card_power(card, trump))


def _beats(card: int, best: int, led: int, trump: int) -> bool:
    """Whether ``card`` beats ``best`` (the card winning so far) in a trick led in ``led``."""
    cs, bs = card >> 3, best >> 3
    if cs == bs:
        return card_power(card, trump) > card_power(best, trump)
    return cs == trump


class HeuristicBot:
    """``heuristic``: the rule-based card play of a club player, from its own view only.

    Leading a trick (the first card that applies):

    1. *Pull trumps*: on the playing team, holding the highest trump still out (the jack,
       then the nine once the jack has gone, ...) while trumps the seat has not seen are still
       out (in other hands), lead that trump.
    2. *Cash winners*: lead a plain-suit card that is the highest of its suit still out (an
       ace, or the ten once the ace has gone), the one of most points first.  A defender
       does this at once: it leads its aces.
    3. *Lead low*: else the lowest plain card (fewest points, then lowest power) of the
       longest plain suit; with trumps only, the lowest trump.

    Following (the legal cards only, rules 8-9a):

    4. *Last to play*: the card that makes the trick worth most to the seat's team: the
       trick's card points (and the last trick's 10) plus its roem (rules 10-11) when the
       team wins it, minus them when it loses it; ties: the lowest card (fewest points).
       This is where the bot is roem-aware: it does not hand the opponents roem it can keep
       out of the trick, and it adds roem to a trick its team wins.
    5. *Partner winning* (not last): discard low: the card of fewest points, a plain card
       before a trump, then the lowest.
    6. *Partner not winning* (not last): if a legal card beats the card winning the trick,
       play the highest such card (the winner); else discard low (rule 5's order).

    As chooser it names trump by the rule ``"jack and nine"``
    (:func:`~kraken_solver.bots.trump_bots.rule_trump`).  It draws nothing: the seed is kept
    for the record only.
    """

    sees_all = False
    description = ("rule-based club play: pull trumps, cash aces, win or discard low; "
                   "trump by jack and nine")

    def __init__(self, seed: int = 0):
        self.seed = int(seed)
        self.name = self.label = "heuristic"

    def choose_trump(self, view) -> str:
        return rule_trump(view, HEURISTIC_RULE)

    def choose_card(self, view) -> str:
        legal = list(view.legal)
        if len(legal) == 1:
            return card_str(legal[0])
        trick = view.trick
        card = self._lead(view, legal) if not trick else self._follow(view, legal, trick)
        return card_str(card)

    # -- leading
    @staticmethod
    def _out(view) -> int:
        """The cards still out in other hands (mask): not played, not in the seat's hand."""
        return view.unseen

    def _lead(self, view, legal) -> int:
        trump = view.trump
        out = self._out(view)
        mine = view.holding
        if view.playing:
            trumps_out = [c for c in range(8 * trump, 8 * trump + 8) if out >> c & 1]
            my_trumps = [c for c in legal if c >> 3 == trump]
            if trumps_out and my_trumps:
                top = max(my_trumps, key=lambda c: card_power(c, trump))
                if all(card_power(top, trump) > card_power(c, trump) for c in trumps_out):
                    return top
        winners = []
        for c in legal:
            s = c >> 3
            if s == trump:
                continue
            higher_out = [x for x in range(8 * s, 8 * s + 8)
                          if out >> x & 1 and card_power(x, trump) > card_power(c, trump)]
            if not higher_out:
                winners.append(c)
        if winners:
            return max(winners, key=lambda c: (card_points(c, trump), card_power(c, trump),
                                               -c))
        plain = [c for c in legal if c >> 3 != trump]
        if plain:
            length = {s: (mine >> (8 * s) & 0xFF).bit_count() for s in range(4)}
            return min(plain, key=lambda c: (-length[c >> 3],) + _low_key(c, trump) + (c,))
        return min(legal, key=lambda c: _low_key(c, trump) + (c,))

    # -- following
    def _follow(self, view, legal, trick) -> int:
        trump = view.trump
        led = trick[0] >> 3
        win_i = trick_winner_index(list(trick), trump)
        winner_seat = (view.leader + win_i) % 4
        partner_winning = (winner_seat & 1) == (view.seat & 1)
        if len(trick) == 3:
            return max(legal, key=lambda c: (self._trick_worth(view, trick, c),)
                       + tuple(-x for x in _low_key(c, trump)) + (-c,))
        if partner_winning:
            return min(legal, key=lambda c: _low_key(c, trump) + (c,))
        best = trick[win_i]
        beating = [c for c in legal if _beats(c, best, led, trump)]
        if beating:
            return max(beating, key=lambda c: ((c >> 3) != trump, card_power(c, trump), -c))
        return min(legal, key=lambda c: _low_key(c, trump) + (c,))

    @staticmethod
    def _trick_worth(view, trick, card) -> int:
        """What the trick completed by ``card`` is worth to the seat's team (points): its card
        points, the last trick's bonus and its roem, plus if the team wins it, minus if not."""
        cards = list(trick) + [card]
        trump = view.trump
        pts, _, _ = moves.card_tables(trump, bool(view.rules.double_spades))
        worth = int(sum(int(pts[c]) for c in cards))
        if len(view.played) + 1 == 4 * view.size:
            worth += 20 if (view.rules.double_spades and trump == 0) else 10
        if view.rules.trick_roem:
            worth += int(moves.trick_roem(sum(1 << c for c in cards), trump))
        winner = (view.leader + trick_winner_index(cards, trump)) % 4
        return worth if (winner & 1) == (view.seat & 1) else -worth


class DoubleDummyBot:
    """``dd`` (CHEATS: sees all four hands): a double-dummy best card (RULES.md rule 26, the
    objective ``score``), a seeded choice among the best cards when several are; a forced
    card is played without a search.  The upper bound of card play, never a fair opponent.
    As chooser (CHEATS too) it names the double-dummy best trump of the deal."""

    sees_all = True
    description = "CHEATS (sees all four hands): a double-dummy best card and trump"

    def __init__(self, seed: int = 0):
        self.seed = int(seed)
        self.name = "dd"
        self.label = "dd (CHEATS: sees all four hands)"
        self._searcher = None

    def choose_trump(self, cheat) -> str:
        return dd_trump(cheat, self.searcher)

    @property
    def searcher(self):
        if self._searcher is None:
            from ..engine.solver import Searcher
            self._searcher = Searcher()
        return self._searcher

    def card_values(self, cheat) -> dict:
        """The double-dummy ``score`` value of every legal card: card text -> points."""
        from ..engine.solver import card_values_of
        from ..game.position import Position
        view = cheat.view
        pos = Position(cheat.deal, view.trump, view.first, view.rules, view.played)
        return card_values_of(pos, "score", self.searcher)

    def choose_card(self, cheat) -> str:
        view = cheat.view
        if len(view.legal) == 1:
            return card_str(view.legal[0])
        values = self.card_values(cheat)
        top = max(values.values()) if view.playing else min(values.values())
        best = [c for c, v in values.items() if v == top]
        return seeded_pick(self.seed, view, best)
