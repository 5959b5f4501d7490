"""What one seat may know: the view a computer player decides from.

A :class:`SeatView` holds only what the seat to move can know (RULES.md rules 3, 6, 12-17):
its own hand as dealt and what is left of it, every card played in order and who played it,
trump, the first player (whose team is the playing team) and the chooser, the rules, the hand
roem declared before play (rule 17) and the legal cards (rules 8-9a).  No card of another
hand is stored in it, so a bot given a view cannot peek: peeking is impossible by
construction.  :func:`seat_view` builds the view of the seat to move from a whole deal.

A :class:`TrumpView` is what the chooser knows before naming trump: its 8 cards, the rules,
who leads (:func:`trump_view`).  A :class:`CheatView` is a view with the whole deal beside it;
the table hands one only to a bot that declares ``sees_all = True`` (the ``dd`` bot: it
cheats, and says so in its name).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np

from ..errors import KrakenError
from ..game.cards import (FULL_DECK, SEATS, SUITS, as_seat, card_str, cards_of, hand_text,
                          sort_for_display)
from ..game.deal import Deal, as_deal
from ..game.rules import Rules, as_rules
from ..kernels import moves
from ..playerview.observation import trick_winner_index

__all__ = [
    "CheatView",
    "SeatView",
    "TrumpView",
    "cheat_view",
    "seat_view",
    "trump_view",
    "view_seed",
]


@dataclass(frozen=True)
class SeatView:
    """What the seat to move knows (module docstring); immutable, and equal for two deals that
    look the same from the seat.

    - ``seat`` 0..3 (N E S W): the seat to move; ``hand``: its hand as dealt (32-bit card
      mask); ``holding``: the cards it still holds (mask).
    - ``played``: the cards played since the first lead (card indices 0..31, in order);
      ``who``: the seat that played each.
    - ``trump`` 0..3 (S H D C); ``first``: the first player (its team is the playing team,
      rule 3); ``chooser``: the seat that named trump; ``rules``: :class:`Rules`.
    - ``declared``: (HR_D, HR_O), the hand roem declared before play in points, the playing
      team first (rule 17); ``None`` when the rules have no hand roem.
    - ``size``: cards a hand as dealt (1..8); ``cards``: every card of the deal (a mask; all 32
      in a full deal: which cards a smaller deal holds is known to the table).
    - ``legal``: the legal cards of the seat (indices, by suit then power; rules 8-9a).
    """

    seat: int
    hand: int
    holding: int
    played: tuple
    who: tuple
    trump: int
    first: int
    chooser: int
    rules: Rules
    declared: tuple | None
    size: int
    cards: int
    legal: tuple

    # -- derived, from the fields alone
    @property
    def trick(self) -> tuple:
        """The cards of the trick on the table, in play order (empty at a lead)."""
        n = len(self.played) % 4
        return self.played[len(self.played) - n:] if n else ()

    @property
    def leader(self) -> int:
        """The seat that led the trick on the table (or leads the next)."""
        n = len(self.played) % 4
        return self.who[len(self.played) - n] if n else self.seat

    @property
    def tricks(self) -> list:
        """The completed tricks: ``(leader, cards, winner)`` each, cards in play order."""
        out = []
        for t in range(len(self.played) // 4):
            cards = self.played[4 * t:4 * t + 4]
            leader = self.who[4 * t]
            out.append((leader, cards, self.who[4 * t + trick_winner_index(cards, self.trump)]))
        return out

    @property
    def playing(self) -> bool:
        """The seat is on the playing team (the first player's team, rule 3)."""
        return (self.seat & 1) == (self.first & 1)

    @property
    def trick_number(self) -> int:
        """The trick being played, 1-based."""
        return len(self.played) // 4 + 1

    @property
    def unseen(self) -> int:
        """The cards the seat has not seen: the deal's cards less its hand and the play."""
        gone = 0
        for c in self.played:
            gone |= 1 << c
        return self.cards & ~self.hand & ~gone

    def legal_cards(self) -> list[str]:
        """The legal cards as texts (``"HK"``)."""
        return [card_str(c) for c in self.legal]

    def digest(self) -> bytes:
        """16 bytes that identify the view: two views are equal exactly when their digests
        are (up to a hash collision).  A bot's seeded decisions hang on it (:func:`view_seed`)."""
        text = repr((self.seat, self.hand, self.played, self.trump, self.first, self.chooser,
                     self.rules.name, self.declared, self.size, self.cards))
        return hashlib.blake2b(text.encode(), digest_size=16).digest()

    def __str__(self) -> str:
        return (f"{SEATS[self.seat]} to play, trump {SUITS[self.trump]}, first "
                f"{SEATS[self.first]}, holding {hand_text(self.holding)}, played "
                f"{' '.join(card_str(c) for c in self.played) or '-'}")


@dataclass(frozen=True)
class TrumpView:
    """What the chooser knows before trump is named: ``seat`` (the chooser), ``hand`` (its
    cards, a mask), ``first`` (who leads; its team is the playing team), ``rules``, ``size``
    (cards a hand) and ``cards`` (the deal's cards, a mask)."""

    seat: int
    hand: int
    first: int
    rules: Rules
    size: int = 8
    cards: int = FULL_DECK

    def digest(self) -> bytes:
        """16 bytes that identify the view (see :meth:`SeatView.digest`)."""
        text = repr(("trump", self.seat, self.hand, self.first, self.rules.name, self.size,
                     self.cards))
        return hashlib.blake2b(text.encode(), digest_size=16).digest()


@dataclass(frozen=True)
class CheatView:
    """A view with the whole deal beside it, for a bot that sees every hand (``sees_all``):
    ``view`` (:class:`SeatView` or :class:`TrumpView`) and ``deal`` (the hands as dealt)."""

    view: object
    deal: Deal

    def __getattr__(self, name):
        # the view's fields and properties, read through (seat, legal, played, ...)
        if name in ("view", "deal"):
            raise AttributeError(name)
        return getattr(self.view, name)


def view_seed(seed: int, view) -> np.random.SeedSequence:
    """The SeedSequence of one decision: from the bot's ``seed`` and the view's digest only,
    so that a bot given the same view and seed decides the same whatever else happened."""
    words = [int.from_bytes(view.digest()[i:i + 4], "little") for i in range(0, 16, 4)]
    return np.random.SeedSequence([int(seed) & (2**64 - 1), *words])


def seat_view(deal, trump, first, played=(), rules=None, declared=None,
              chooser=None) -> SeatView:
    """The :class:`SeatView` of the seat to move after ``played``.

    ``deal``: Deal or PBN text (every hand: the seat to move's is kept, the others only say
    which seat played what, which the table saw); ``trump``, ``first``, ``rules``, ``played``:
    as :func:`~kraken_solver.engine.solver.solve`; ``declared``: (HR_D, HR_O) in points, the
    hand roem declared (rule 17); None: what the hands declare; ``chooser``: who named trump
    (default the first player, rule 3).  Raises the errors of
    :class:`~kraken_solver.game.position.Position` for bad input, and KrakenError for a deal
    that is over or a ``declared`` that is not what the hands declare."""
    from ..game.position import Position
    from ..game.roem import hand_roem
    from ..playerview.observation import check_declared

    d = as_deal(deal)
    pos = Position(d, trump, first, rules, played)
    if pos.over:
        raise KrakenError("the deal is over: no seat is to move")
    return _view_of_position(pos, d, declared, chooser, check_declared, hand_roem)


def _view_of_position(pos, deal: Deal, declared, chooser, check_declared, hand_roem):
    rules = pos.rules
    if rules.hand_roem:
        own = tuple(hand_roem(deal, pos.trump, pos.first, rules=rules))
        if declared is None:
            declared = own
        elif check_declared(declared) != own:
            raise KrakenError(f"the declared hand roem {declared[0]} {declared[1]} is not what "
                              f"the hands declare ({own[0]} {own[1]}, playing team first)")
    else:
        declared = None
    seat = pos.to_move
    who = []
    for t in pos.tricks:
        who.extend((t.leader + i) % 4 for i in range(4))
    who.extend((pos.leader + i) % 4 for i in range(pos.tlen))
    return SeatView(seat=seat, hand=deal.hands[seat], holding=int(pos.hands[seat]),
                    played=tuple(pos.played), who=tuple(who), trump=pos.trump,
                    first=pos.first, chooser=pos.first if chooser is None else as_seat(chooser),
                    rules=rules, declared=None if declared is None else tuple(declared),
                    size=deal.size, cards=deal.all_cards,
                    legal=tuple(sort_for_display(cards_of(pos.legal_mask()), pos.trump)))


def view_of_position(pos, declared=None, chooser=None) -> SeatView:
    """The :class:`SeatView` of the seat to move in ``pos`` (a
    :class:`~kraken_solver.game.position.Position` not over): as :func:`seat_view`, without
    replaying the play (the table's loop)."""
    from ..game.roem import hand_roem
    from ..playerview.observation import check_declared
    return _view_of_position(pos, pos.deal, declared, chooser, check_declared, hand_roem)


def trump_view(deal, chooser, first=None, rules=None) -> TrumpView:
    """The :class:`TrumpView` of ``chooser`` (a seat) before trump is named; ``first``: who
    leads (default the chooser, rule 3).  Raises DealError or CardParseError for bad input."""
    d = as_deal(deal)
    seat = as_seat(chooser)
    return TrumpView(seat=seat, hand=d.hands[seat],
                     first=seat if first is None else as_seat(first), rules=as_rules(rules),
                     size=d.size, cards=d.all_cards)


def cheat_view(view, deal) -> CheatView:
    """``view`` with the whole ``deal`` beside it (for a bot with ``sees_all``)."""
    return CheatView(view, as_deal(deal))


def observation_of(view: SeatView):
    """The :class:`~kraken_solver.playerview.observation.Observation` of ``view``: what the
    hint's layouts are drawn from (the plays, the hand sizes, the declared roem)."""
    from ..playerview.observation import Observation
    return Observation(seat=view.seat, hand=view.hand, size=view.size, cards=view.cards,
                       trump=view.trump, first=view.first, rules=view.rules,
                       played=view.played, declared=view.declared)


def legal_of_holding(view: SeatView) -> int:
    """The legal cards of ``view`` recomputed from its own fields (mask): the holding, the
    trick on the table and the rules (a check that the view needs nothing hidden)."""
    _, pw, higher = moves.card_tables(view.trump, bool(view.rules.double_spades))
    trick = np.zeros(4, dtype=np.int64)
    for i, c in enumerate(view.trick):
        trick[i] = c
    r = view.rules
    return int(moves.legal_mask(view.holding, trick, len(view.trick), view.leader, view.trump,
                                r.trump_rule == "amsterdam", r.undertrump == "forced", pw,
                                higher))

