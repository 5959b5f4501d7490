"""Cards, suits, seats and 32-bit card masks (bitboards).

A card is an integer 0..31: ``suit * 8 + rank``, suits ``S H D C`` = 0..3 and ranks in the
natural order ``7 8 9 T J Q K A`` = 0..7 (RULES.md rule 1; the natural order is the one runs
use, rule 10).  A set of cards is a 32-bit mask with bit ``card`` set.  As text a card is its
suit letter then its rank, ``"HK"`` for the king of hearts; ``"10"`` is read as ``T``.
"""

from __future__ import annotations

from typing import Iterable

import numpy as np

from ..errors import CardParseError

SUITS = "SHDC"
RANKS = "789TJQKA"  # natural order, low to high
SEATS = "NESW"
SUIT_SYMBOLS = {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}
#: suit symbols read as their letters: the black and the white (outline) forms
SYMBOL_SUITS = {"\u2660": "S", "\u2665": "H", "\u2666": "D", "\u2663": "C",
                "\u2664": "S", "\u2661": "H", "\u2662": "D", "\u2667": "C"}

#: card points by natural rank (RULES.md rule 3 table): trump and other suits
TRUMP_POINTS = (0, 0, 14, 10, 20, 3, 4, 11)
PLAIN_POINTS = (0, 0, 0, 10, 2, 3, 4, 11)
#: power (higher wins) by natural rank: trump J 9 A T K Q 8 7, others A T K Q J 9 8 7
TRUMP_POWER = (0, 1, 6, 4, 7, 2, 3, 5)
PLAIN_POWER = (0, 1, 2, 6, 3, 4, 5, 7)

SUIT_MASK = tuple(0xFF << (8 * s) for s in range(4))
FULL_DECK = 0xFFFFFFFF


def is_bool(x) -> bool:
    """A bool or numpy bool."""
    return isinstance(x, (bool, np.bool_))


def is_int(x) -> bool:
    """An int or numpy integer, not a bool."""
    return isinstance(x, (int, np.integer)) and not is_bool(x)


def ascii_upper(text: str) -> str:
    """``text`` in upper case if it is ASCII, else unchanged.  Only the ASCII letters are
    folded: ``str.upper`` also turns ``'ſ'`` (long s) into ``'S'`` and ``'ı'`` into ``'I'``,
    which would make cards, suits and seats of letters the README does not list."""
    return text.upper() if text.isascii() else text


def ascii_lower(text: str) -> str:
    """``text`` in lower case if it is ASCII, else unchanged (``str.lower`` turns the Kelvin
    sign, U+212A, into ``'k'``): see :func:`ascii_upper`."""
    return text.lower() if text.isascii() else text


def parse_suit(text: str) -> int:
    """Suit letter (``S H D C``, any case) or symbol (``♠ ♥ ♦ ♣``) -> suit index 0..3.
    Raises CardParseError."""
    t = text.strip()
    t = ascii_upper(SYMBOL_SUITS.get(t, t))
    if len(t) != 1 or t not in SUITS:
        raise CardParseError("expected a suit S, H, D or C", token=text)
    return SUITS.index(t)


def parse_seat(text: str) -> int:
    """Seat letter (``N E S W``, any case) -> seat index 0..3.  Raises CardParseError."""
    t = ascii_upper(text.strip())
    if len(t) != 1 or t not in SEATS:
        raise CardParseError("expected a seat N, E, S or W", token=text)
    return SEATS.index(t)


def as_suit(trump) -> int:
    """Trump as a suit index 0..3 from ``"S" "H" "D" "C"`` or 0..3.  Raises CardParseError."""
    if trump is None:
        raise CardParseError("a trump suit is needed: S, H, D or C", token="None")
    if isinstance(trump, (int, np.integer)) and not isinstance(trump, bool) and 0 <= trump < 4:
        return int(trump)
    return parse_suit(str(trump))


def as_seat(seat) -> int:
    """A seat index 0..3 from ``"N" "E" "S" "W"`` or 0..3.  Raises CardParseError."""
    if is_int(seat) and 0 <= seat < 4:
        return int(seat)
    return parse_seat(str(seat))


def parse_rank(text: str) -> int:
    """Rank (``A K Q J T 9 8 7`` or ``10``) -> natural rank 0..7.  Raises CardParseError."""
    t = ascii_upper(text.strip())
    if t == "10":
        t = "T"
    if len(t) != 1 or t not in RANKS:
        raise CardParseError("expected a rank A, K, Q, J, T (or 10), 9, 8 or 7",
                             token=text)
    return RANKS.index(t)


def parse_card(text) -> int:
    """``"HK"`` (suit then rank; ``"H10"`` and ``"♥K"`` allowed) or an object whose ``str()``
    is that -> card index 0..31.  Integers 0..31 pass through.  Raises CardParseError."""
    if is_int(text):
        if 0 <= int(text) < 32:
            return int(text)
        raise CardParseError("expected a card index 0..31", token=text)
    s = str(text).strip()
    if len(s) < 2:
        raise CardParseError("expected a card: suit letter then rank, like HK", token=s)
    try:
        suit = parse_suit(s[0])
        rank = parse_rank(s[1:])
    except CardParseError:
        raise CardParseError("expected a card: suit letter (S H D C) then rank "
                             "(A K Q J T 9 8 7), like HK", token=s) from None
    return suit * 8 + rank


def card_str(card: int) -> str:
    """Card index 0..31 -> ``"HK"``.  Raises CardParseError for anything else."""
    if not is_int(card) or not 0 <= card < 32:
        raise CardParseError("expected a card index 0..31",
                             token=card if is_int(card) else repr(card))
    return SUITS[card >> 3] + RANKS[card & 7]


def card_suit(card: int) -> int:
    return card >> 3


def card_rank(card: int) -> int:
    return card & 7


def mask_of(cards: Iterable[int]) -> int:
    """Card indices -> 32-bit mask (a Python int)."""
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def cards_of(mask: int) -> list[int]:
    """32-bit mask -> card indices, ascending."""
    out = []
    m = int(mask)
    while m:
        low = m & -m
        out.append(low.bit_length() - 1)
        m ^= low
    return out


def popcount(mask: int) -> int:
    return bin(int(mask) & FULL_DECK).count("1")


def card_points(card: int, trump: int) -> int:
    """Card points of one card (RULES.md rule 3), not doubled."""
    r = card & 7
    return TRUMP_POINTS[r] if (card >> 3) == trump else PLAIN_POINTS[r]


def card_power(card: int, trump: int) -> int:
    """Power 0..7 of a card within its suit (trump order or plain order)."""
    r = card & 7
    return TRUMP_POWER[r] if (card >> 3) == trump else PLAIN_POWER[r]


def sort_for_display(cards: Iterable[int], trump: int | None = None) -> list[int]:
    """Cards sorted by suit (S H D C) then by power, highest first."""
    t = -1 if trump is None else trump
    return sorted(cards, key=lambda c: (c >> 3, -card_power(c, t)))


def hand_text(mask: int, trump: int | None = None, sep: str = ".") -> str:
    """A hand as PBN suits ``S.H.D.C``, ranks in the usual order A K Q J T 9 8 7."""
    parts = []
    for s in range(4):
        ranks = [r for r in range(7, -1, -1) if mask >> (s * 8 + r) & 1]
        order = "AKQJT987"
        ranks.sort(key=lambda r: order.index(RANKS[r]))
        parts.append("".join(RANKS[r] for r in ranks))
    return sep.join(parts)
