"""A deal in play: the cards played so far, the trick on the table, the tricks taken, and the
legal cards of the player to move (RULES.md rules 5-9, 22), with the value of a finished deal
(rules 18-19, 24).  The legality and a trick's winner and roem come from the compiled rules of
play (:mod:`kraken_solver.kernels.moves`); there is no search here.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import CardParseError, IllegalCardError, KrakenError
from ..kernels import moves
from .cards import SEATS, as_seat, as_suit, card_str, cards_of, parse_card, sort_for_display
from .deal import as_deal
from .roem import hand_roem_masks
from .rules import as_rules

OBJECTIVES = ("score", "points")


def as_played(played) -> list:
    """The cards played so far as a list: ``None`` -> ``[]``; a string -> its words (cards
    separated by spaces, ``"SA S9 SQ"``); any other iterable but a set (no order) -> its
    items.  Raises CardParseError for anything else."""
    if played is None:
        return []
    if isinstance(played, str):
        return played.split()
    if isinstance(played, (bytes, bytearray, memoryview)):
        # iterating bytes gives numbers (b"SA" -> 83, 65), which would read as card indices
        raise CardParseError("played is text: a list of cards like ['SA', 'S9'] or a string "
                             "'SA S9', not bytes (decode them first)", token=repr(played))
    if isinstance(played, (set, frozenset, dict)):
        raise CardParseError("played is in play order: a list or a string, not a set",
                             token=repr(played))
    try:
        return list(played)
    except TypeError:
        raise CardParseError("played is a list of cards like ['SA', 'S9'] or a string "
                             "'SA S9'", token=repr(played)) from None


@dataclass
class TrickRecord:
    """A completed trick: ``leader`` seat, ``cards`` in play order, ``winner`` seat,
    ``points`` (card points incl. the last-trick 10, doubled where rule 5 says), ``roem``."""
    leader: int
    cards: list
    winner: int
    points: int
    roem: int


class Position:
    """A deal plus the cards played so far (RULES.md rule 22), ready for the kernels.

    ``played``: the cards since the first lead, in play order: a list of cards (``"HK"``
    texts, card objects or indices 0..31), or one string of cards separated by spaces (as in
    a deal file's [Play] section, ``"SA S9 SQ"``); ``None`` is no card.  Built by replaying
    ``played``; raises IllegalCardError (with ``token`` the card and ``column`` its 1-based
    index in ``played``) for a card that cannot be read or that the player to move does not
    hold or may not play, and CardParseError if ``played`` is not a list or string of
    cards."""

    def __init__(self, deal, trump, first, rules=None, played=()):
        self.deal = as_deal(deal)
        self.trump = as_suit(trump)
        self.first = as_seat(first)
        self.rules = as_rules(rules)
        self.pts, self.pw, self.higher = moves.card_tables(self.trump,
                                                           bool(self.rules.double_spades))
        self.dteam = self.first & 1
        self.last_bonus = 20 if (self.rules.double_spades and self.trump == 0) else 10
        self.hr_d, self.hr_o = hand_roem_masks(self.deal.hands, self.trump, self.first, self.rules)
        self.total_points = int(sum(self.pts[c] for c in cards_of(self.deal.all_cards))) \
            + self.last_bonus
        self.hands = np.array(self.deal.hands, dtype=np.int64)
        self.trick = np.zeros(4, dtype=np.int64)
        self.tlen = 0
        self.leader = self.first
        self.flag_lost = 0
        self.past_margin = 0
        self.past_roem = 0
        self.past_dpoints = 0
        self.tricks: list[TrickRecord] = []
        self.played: list[int] = []
        for i, card in enumerate(as_played(played)):
            try:
                c = parse_card(card)
            except KrakenError as e:
                raise IllegalCardError(e.message, column=i + 1,
                                       token=str(card)) from None
            self.play(c, index=i + 1)

    # ------------------------------------------------------------ state
    @property
    def to_move(self) -> int:
        return (self.leader + self.tlen) % 4

    @property
    def over(self) -> bool:
        return self.tlen == 0 and not any(int(h) for h in self.hands)

    @property
    def margin_so_far(self) -> int:
        """D's margin so far, in points: the card points and trick roem of the tricks taken
        and the hand roem, D's less the defenders' (rules 18-19).  The deal is made if this
        plus the margin of the rest (pit included) is above 0."""
        return self.past_margin + self.hr_d - self.hr_o

    @property
    def nat_points(self) -> int:
        """What the defenders score, in points, if the deal is nat, before the trick roem
        still to fall: every card point, all hand roem and the trick roem so far (rule 19)."""
        return self.total_points + self.hr_d + self.hr_o + self.past_roem

    def legal_mask(self) -> int:
        if self.over:
            return 0
        r = self.rules
        return int(moves.legal_mask(self.hands[self.to_move], self.trick, self.tlen, self.leader,
                                self.trump, r.trump_rule == "amsterdam",
                                r.undertrump == "forced", self.pw, self.higher))

    def legal(self) -> list[int]:
        return sort_for_display(cards_of(self.legal_mask()), self.trump)

    def copy(self) -> "Position":
        p = object.__new__(Position)
        p.__dict__.update(self.__dict__)
        p.hands = self.hands.copy()
        p.trick = self.trick.copy()
        p.tricks = list(self.tricks)
        p.played = list(self.played)
        return p

    def play(self, card, index: int | None = None) -> None:
        """Play ``card`` (0..31, or a card text like ``"HK"``) for the player to move.
        Raises CardParseError for something that is not a card, IllegalCardError for a card
        the player does not hold or may not play (``index``: the error's ``column``)."""
        try:
            card = parse_card(card)
        except CardParseError as e:
            raise CardParseError(e.message, column=index, token=e.token) from None
        name = card_str(card)
        if self.over:
            raise IllegalCardError("the deal is over; no card can be played", column=index,
                                   token=name)
        seat = self.to_move
        if not (int(self.hands[seat]) >> card) & 1:
            holder = self.deal.holder(card)
            if holder < 0:
                why = f"{name} is not in this deal"
            elif card in self.played:
                why = f"{name} was already played"
            else:
                why = f"{SEATS[seat]} is to play but {name} is in {SEATS[holder]}'s hand"
            raise IllegalCardError(why, column=index, token=name)
        legal = self.legal_mask()
        if not (legal >> card) & 1:
            allowed = " ".join(card_str(c) for c in sort_for_display(cards_of(legal), self.trump))
            raise IllegalCardError(f"{SEATS[seat]} may not play {name} here "
                                   f"(legal: {allowed}; rules {self.rules.name})",
                                   column=index, token=name)
        self.hands[seat] &= ~(1 << card)
        self.trick[self.tlen] = card
        self.tlen += 1
        self.played.append(card)
        if self.tlen == 4:
            self._finish_trick()

    def _finish_trick(self):
        cards = [int(c) for c in self.trick]
        widx = int(moves.trick_winner_index(self.trick, 4, self.trump, self.pw))
        winner = (self.leader + widx) % 4
        points = int(sum(self.pts[c] for c in cards))
        if not any(int(h) for h in self.hands):
            points += self.last_bonus
        roem = int(moves.trick_roem(sum(1 << c for c in cards), self.trump)) \
            if self.rules.trick_roem else 0
        self.tricks.append(TrickRecord(self.leader, cards, winner, points, roem))
        if (winner & 1) == self.dteam:
            self.past_margin += points + roem
            self.past_dpoints += points + roem
        else:
            self.past_margin -= points + roem
            self.flag_lost = 1
        self.past_roem += roem
        self.leader = winner
        self.tlen = 0
        self.trick[:] = 0

    def final_value(self, objective: str) -> int:
        """The value of a finished deal (rules 18-19, 24).  Raises KrakenError for an objective
        other than ``score`` and ``points``, or while cards are still to be played (a search
        gives the value then: ``Searcher.value``)."""
        check_objective(objective)
        if not self.over:
            raise KrakenError("the deal is not finished: final_value needs every card played "
                              "(Searcher.value or solve give the value of a position)",
                              token=f"{sum(int(h).bit_count() for h in self.hands)} cards left")
        if objective == "points":
            return self.past_dpoints
        m = self.rules.multiplier
        mp = self.margin_so_far
        if self.flag_lost == 0:
            mp += self.rules.pit_bonus
        if mp > 0:
            return m * mp
        return -m * self.nat_points


def check_objective(objective: str) -> str:
    if objective not in OBJECTIVES:
        raise KrakenError("objective must be 'score' or 'points'", token=str(objective))
    return objective


def legal_cards(deal, trump, first, *, rules=None, played=()) -> list[str]:
    """The legal cards (``"HK"`` texts, by suit then power) of the player to move after
    ``played`` (RULES.md rules 8, 9, 9a); an empty list once the deal is over.
    Raises the errors of ``solve``."""
    pos = Position(deal, trump, first, rules, played)
    return [card_str(c) for c in pos.legal()]
