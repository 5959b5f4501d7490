"""Deals as four 32-bit card masks, read from and written as PBN (RULES.md rules 1-2, 21)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import CardParseError, DealError
from .cards import (RANKS, SEATS, ascii_upper, card_str, cards_of, hand_text, is_int, parse_seat,
                    popcount)

_WORD_RE = re.compile(r"\S+")


@dataclass(frozen=True)
class Deal:
    """Four hands N, E, S, W as 32-bit card masks (``hands[seat]``, seat 0..3 = N E S W).

    Every hand holds the same number of cards, 1 to 8 (RULES.md rule 21), and no card is in two
    hands.  ``Deal.from_pbn("N:AKQ.J9.T8.7 ...")`` reads PBN; ``str(deal)`` writes it from N,
    and ``Deal.from_pbn(str(deal)) == deal``.  Raises DealError for a malformed deal, and for
    hands that are not four ints (or numpy integers).
    """

    hands: tuple

    def __post_init__(self):
        if isinstance(self.hands, (str, bytes, bytearray)):
            raise DealError("Deal takes four card masks; read PBN text with Deal.from_pbn",
                            token=repr(self.hands))
        if isinstance(self.hands, (set, frozenset, dict)):
            # a set has no order: the seats would come out in an arbitrary one
            raise DealError("a deal is four hands in seat order N, E, S, W: a tuple or list of "
                            "card masks, not a set or dict", token=repr(self.hands))
        try:
            hands = tuple(self.hands)
        except TypeError:
            raise DealError("a deal is four hands, each a 32-bit card mask (int)",
                            token=repr(self.hands)) from None
        if len(hands) != 4:
            raise DealError("a deal has four hands", token=str(len(hands)))
        for h in hands:
            if not is_int(h):
                raise DealError("a hand is a 32-bit card mask (int)",
                                token=repr(h))
        hands = tuple(int(h) for h in hands)
        object.__setattr__(self, "hands", hands)
        seen = 0
        for seat, h in enumerate(hands):
            if h < 0 or h >> 32:
                raise DealError("a hand is a 32-bit card mask", token=hex(h))
            dup = seen & h
            if dup:
                from .cards import card_str
                raise DealError(f"card {card_str(cards_of(dup)[0])} is in two hands",
                                token=card_str(cards_of(dup)[0]))
            seen |= h
        sizes = [popcount(h) for h in hands]
        if len(set(sizes)) != 1:
            raise DealError("hands of unequal size: " + ", ".join(
                f"{SEATS[s]} {n}" for s, n in enumerate(sizes)) + "; every hand must hold "
                "the same number of cards")
        if not 1 <= sizes[0] <= 8:
            raise DealError("every hand must hold 1 to 8 cards", token=str(sizes[0]))

    @property
    def size(self) -> int:
        """Cards per hand (1..8)."""
        return popcount(self.hands[0])

    @property
    def all_cards(self) -> int:
        return self.hands[0] | self.hands[1] | self.hands[2] | self.hands[3]

    def holder(self, card: int) -> int:
        """Seat 0..3 holding ``card``, or -1."""
        for s in range(4):
            if self.hands[s] >> card & 1:
                return s
        return -1

    @classmethod
    def from_pbn(cls, text: str) -> "Deal":
        """Read ``"N:S.H.D.C S.H.D.C S.H.D.C S.H.D.C"``: hands clockwise from the named seat,
        suits spades.hearts.diamonds.clubs, ranks A K Q J T 9 8 7 (``10`` allowed), empty for a
        void.  Raises DealError (with ``column``, 1-based within ``text``, and ``token``)."""
        deal, _ = parse_pbn(text)
        return deal

    def __str__(self) -> str:
        return self.pbn(0)

    def pbn(self, start_seat=0) -> str:
        """PBN text with the hands clockwise from ``start_seat`` (0..3 = N E S W, or the seat
        letter).  Raises CardParseError for another seat."""
        if is_int(start_seat) and 0 <= start_seat < 4:
            start_seat = int(start_seat)
        elif isinstance(start_seat, str):
            start_seat = parse_seat(start_seat)
        else:
            raise CardParseError("expected a seat 0..3 (N E S W) or its letter",
                                 token=repr(start_seat))
        return SEATS[start_seat] + ":" + " ".join(
            hand_text(self.hands[(start_seat + i) % 4]) for i in range(4))

    def rotated(self, k: int) -> "Deal":
        """The deal with every hand moved ``k`` seats clockwise (N's hand to E for k=1).
        Raises DealError unless ``k`` is a whole number."""
        if not is_int(k):
            raise DealError("the rotation is a whole number of seats", token=repr(k))
        k = int(k)
        return Deal(tuple(self.hands[(s - k) % 4] for s in range(4)))


#: rank text of one suit -> its 8-bit holding (bit = natural rank), for texts read before
#: (the fast path of parse_pbn; a text that is not a clean holding is never stored)
_HOLDINGS: dict = {}
_HOLDINGS_MAX = 1 << 16
_RANK_BIT = {c: 1 << i for i, c in enumerate(RANKS)} | \
    {c.lower(): 1 << i for i, c in enumerate(RANKS) if c.isalpha()}


def _holding(ranks: str) -> int | None:
    """The 8-bit holding of a suit's rank text (``"AKT"``, ``"a10"``), or None when it is
    not a clean holding (a bad rank, a rank twice): the slow path then names the error."""
    bits = _HOLDINGS.get(ranks)
    if bits is not None:
        return bits
    bits, i = 0, 0
    while i < len(ranks):
        if ranks[i:i + 2] == "10":
            b, i = _RANK_BIT["T"], i + 2
        else:
            b, i = _RANK_BIT.get(ranks[i]), i + 1
        if b is None or bits & b:
            return None
        bits |= b
    if len(_HOLDINGS) < _HOLDINGS_MAX:
        _HOLDINGS[ranks] = bits
    return bits


def _fast_pbn(body: str):
    """(hands, start seat) of clean PBN text (after strip), or None: then the full parser
    reads it and reports what is wrong.  The same hands as the full parser."""
    if len(body) < 2 or body[1] != ":":
        return None
    start = SEATS.find(body[0]) if body[0] in "NESW" else "nesw".find(body[0])
    if start < 0:
        return None
    words = body[2:].split()
    if len(words) != 4:
        return None
    hands = [0, 0, 0, 0]
    seen = 0
    size = None
    for k, word in enumerate(words):
        suits = word.split(".")
        if len(suits) != 4:
            return None
        mask = 0
        for si, ranks in enumerate(suits):
            bits = _holding(ranks) if ranks else 0
            if bits is None:
                return None
            mask |= bits << (8 * si)
        n = popcount(mask)
        if mask & seen or (size is not None and n != size) or not 1 <= n <= 8:
            return None
        size = n
        seen |= mask
        hands[(start + k) % 4] = mask
    return hands, start


def parse_pbn(text: str) -> tuple[Deal, int]:
    """Read PBN deal text -> (Deal, seat named before the colon).  Raises DealError."""
    if not isinstance(text, str):
        raise DealError("expected PBN deal text like 'N:AKQ.J9.T8.7 ...'",
                        token=repr(text))
    fast = _fast_pbn(text.strip())
    if fast is not None:
        return Deal(tuple(fast[0])), fast[1]
    lead, start, body, words = pbn_words(text)
    if len(words) != 4:
        col = lead + 1 + (words[4][0] if len(words) > 4 else len(body))
        tok = words[4][1] if len(words) > 4 else body[2:]
        raise DealError(f"a PBN deal has four hands separated by spaces; found {len(words)}",
                        column=col, token=tok)
    hands = [0, 0, 0, 0]
    for k, (off, word) in enumerate(words):
        seat = (start + k) % 4
        mask = pbn_hand_mask(word, lead + 1 + off, whose=f"{SEATS[seat]}'s hand")
        dealt = hands[0] | hands[1] | hands[2] | hands[3]
        if dealt & mask:
            # the first card dealt twice as the hand is read (where the reader looks first)
            c = min(cards_of(dealt & mask), key=lambda x: _card_offset(word, x))
            other = next(o for o in range(4) if hands[o] >> c & 1)
            raise DealError(f"card {card_str(c)} is dealt twice ({SEATS[other]} and "
                            f"{SEATS[seat]})",
                            column=lead + 1 + off + _card_offset(word, c),
                            token=card_str(c))
        hands[seat] = mask
    sizes = [popcount(hands[(start + k) % 4]) for k in range(4)]
    counts = ", ".join(f"{SEATS[(start + k) % 4]} {n}" for k, n in enumerate(sizes))
    over = [k for k, n in enumerate(sizes) if n > 8]
    if over:
        k = over[0]
        raise DealError(f"{SEATS[(start + k) % 4]} holds {sizes[k]} cards; a hand holds 1 to 8 "
                        f"(cards a hand: {counts})", column=lead + 1 + words[k][0],
                        token=words[k][1])
    if len(set(sizes)) > 1:
        common = max(set(sizes), key=sizes.count)
        k = next(i for i, n in enumerate(sizes) if n != common)
        raise DealError(f"hands of unequal size (cards a hand: {counts}); every hand must hold "
                        "the same number", column=lead + 1 + words[k][0],
                        token=words[k][1])
    try:
        return Deal(tuple(hands)), start
    except DealError as e:
        raise e.located(column=lead + 1, token=body) from None


def pbn_words(text: str) -> tuple[int, int, str, list]:
    """Split PBN deal text ``"N:h1 h2 h3 h4"`` -> ``(lead, start, body, words)``: ``lead``
    the blanks before it, ``start`` the seat 0..3 named before the colon, ``body`` the text
    without the blanks around it, ``words`` the ``(offset in body, word)`` of each hand.
    Raises DealError (``column`` 1-based within ``text``) when it does not start with a seat
    N, E, S or W and a colon."""
    lead = len(text) - len(text.lstrip())
    body = text.strip()
    if len(body) < 2 or body[1] != ":":
        raise DealError("a PBN deal starts with a seat and a colon, like 'N:'",
                        column=lead + 1, token=body[:2])
    try:
        start = parse_seat(body[0])
    except CardParseError:
        raise DealError("expected a seat N, E, S or W before the colon",
                        column=lead + 1, token=body[0]) from None
    words = [(m.start(), m.group()) for m in _WORD_RE.finditer(body, 2)]
    return lead, start, body, words


def pbn_hand_mask(word: str, column: int = 1, *, whose: str = "the hand") -> int:
    """One hand in PBN ``"S.H.D.C"`` (ranks ``A K Q J T 9 8 7``, ``10`` for ``T``, ASCII
    letters in either case, an empty field for a void) -> 32-bit card mask.  ``column``: where
    ``word`` starts (1-based), for the errors.  Raises DealError (``column``, ``token``) for
    a hand without four suits, a rank that is not one, or a card twice in ``whose``."""
    suits = word.split(".")
    if len(suits) != 4:
        raise DealError("a hand has four suits separated by dots: S.H.D.C",
                        column=column, token=word)
    mask, col = 0, column
    for si, ranks in enumerate(suits):
        r = 0
        while r < len(ranks):
            ch, width = ascii_upper(ranks[r]), 1
            if ranks[r:r + 2] == "10":
                ch, width = "T", 2
            if ch not in RANKS:
                raise DealError("expected a rank A, K, Q, J, T (or 10), 9, 8 or 7",
                                column=col + r, token=ranks[r])
            card = si * 8 + RANKS.index(ch)
            if mask >> card & 1:
                raise DealError(f"card {card_str(card)} appears twice in {whose}",
                                column=col + r, token=card_str(card))
            mask |= 1 << card
            r += width
        col += len(ranks) + 1
    return mask


def _card_offset(word: str, card: int) -> int:
    """Where ``card`` stands in the hand ``word`` (0-based; 0 if not found), for errors."""
    suits = word.split(".")
    at = 0
    for si, ranks in enumerate(suits):
        if si == card // 8:
            ch = RANKS[card % 8]
            i = ranks.upper().replace("10", "T ").find(ch)
            return at + max(i, 0)
        at += len(ranks) + 1
    return 0


def as_deal(deal) -> Deal:
    """A Deal, or PBN text.  Raises DealError."""
    if isinstance(deal, Deal):
        return deal
    d, _ = parse_pbn(deal)
    return d
