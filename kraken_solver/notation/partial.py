"""Deals with hidden hands: PBN text where a hand may be ``-`` (``kraken-hint``'s input).

``N:AJ9.K7.T8.A - - -`` gives North's hand and hides the other three.  A
:class:`PartialDeal` holds the hands that are shown (32-bit card masks, seat order N, E, S, W;
``None`` for a hidden one); :func:`parse_partial_pbn` reads the text with the checks of a full
deal (each card at most once, at most eight cards a hand), and :func:`as_partial` turns a
:class:`~kraken_solver.game.deal.Deal`, a PBN string or a ``PartialDeal`` into one.  Which
cards a hidden hand may hold is the player's-view code's question
(:mod:`kraken_solver.playerview.observation`), not this module's.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import DealError
from ..game.cards import SEATS, card_str, cards_of, popcount
from ..game.deal import Deal, parse_pbn, pbn_hand_mask, pbn_words

#: the word that stands for a hidden hand in PBN deal text (as endplay writes it)
HIDDEN = "-"


# ----------------------------------------------------------------------------- deals
@dataclass(frozen=True)
class PartialDeal:
    """A deal whose hands may be hidden: ``hands`` four card masks N, E, S, W, ``None`` for a
    hidden hand; ``size`` cards a hand (1..8).  ``str()`` writes PBN from N with ``-`` for a
    hidden hand.  Build it with :func:`parse_partial_pbn`."""

    hands: tuple
    size: int

    @property
    def hidden(self) -> tuple:
        """The seats 0..3 whose hands are hidden."""
        return tuple(s for s in range(4) if self.hands[s] is None)

    @property
    def complete(self) -> bool:
        return not self.hidden

    def deal(self) -> Deal:
        """The :class:`Deal`, when no hand is hidden.  Raises DealError otherwise."""
        if self.hidden:
            raise DealError("the deal has hidden hands", token=str(self))
        return Deal(tuple(self.hands))

    def pbn(self, start_seat: int = 0) -> str:
        from ..game.cards import hand_text
        return SEATS[start_seat] + ":" + " ".join(
            HIDDEN if self.hands[(start_seat + i) % 4] is None
            else hand_text(self.hands[(start_seat + i) % 4]) for i in range(4))

    def __str__(self) -> str:
        return self.pbn(0)


def parse_partial_pbn(text: str):
    """PBN deal text in which a hand may be ``-`` (hidden) -> ``(deal, seat named before the
    colon)``: a :class:`Deal` when every hand is given, else a :class:`PartialDeal`.

    Given hands hold the same number of cards (1 to 8) and no card twice.  Raises DealError
    (``column`` 1-based within ``text``, ``token``)."""
    if not isinstance(text, str):
        raise DealError("expected PBN deal text like 'N:AKQ.J9.T8.7 - - -'", token=repr(text))
    words = text.split()
    if not any(w == HIDDEN for w in words[1:]) and not (words and words[0].endswith(":" + HIDDEN)):
        return parse_pbn(text)
    lead, start, body, spans = pbn_words(text)
    if len(spans) != 4:
        raise DealError(f"a PBN deal has four hands separated by spaces (- for a hidden hand); "
                        f"found {len(spans)}", column=lead + 1, token=body[2:])
    hands = [None] * 4
    seen = 0
    size = None
    for k, (off, word) in enumerate(spans):
        seat = (start + k) % 4
        if word == HIDDEN:
            continue
        mask = pbn_hand_mask(word, lead + 1 + off, whose=f"{SEATS[seat]}'s hand")
        if seen & mask:
            c = cards_of(seen & mask)[0]
            raise DealError(f"card {card_str(c)} is dealt twice", column=lead + 1 + off,
                            token=card_str(c))
        seen |= mask
        n_cards = popcount(mask)
        if not 1 <= n_cards <= 8:
            raise DealError(f"{SEATS[seat]} holds {n_cards} cards; a hand holds 1 to 8",
                            column=lead + 1 + off, token=word)
        if size is not None and n_cards != size:
            raise DealError(f"hands of unequal size ({n_cards} and {size} cards); every hand "
                            "holds the same number", column=lead + 1 + off, token=word)
        size = n_cards
        hands[seat] = mask
    if size is None:
        raise DealError("every hand is hidden; give at least the hand of the player to move",
                        column=lead + 1, token=body)
    return PartialDeal(tuple(hands), size), start


def as_partial(deal) -> PartialDeal:
    """A :class:`PartialDeal` from a PartialDeal, a :class:`Deal` or PBN text (``-`` for a
    hidden hand).  Raises DealError."""
    if isinstance(deal, PartialDeal):
        return deal
    if isinstance(deal, Deal):
        return PartialDeal(tuple(deal.hands), deal.size)
    d, _ = parse_partial_pbn(deal)
    return d if isinstance(d, PartialDeal) else PartialDeal(tuple(d.hands), d.size)
