"""Predeal: cards placed in given seats before the rest is dealt (``--predeal "S:HJ H9 HA"``).

A predeal is one or more ``SEAT:CARDS`` items, in one text or several: the cards of a seat as
a list (``S:HJ H9 HA``, commas allowed) or as a whole hand in the tools' notation
(``S:AJ9.K7.T8.A``: suits S.H.D.C).  A new item starts at a word ``SEAT:``
(``"S:HJ H9 N:SA"``).  A card in two seats, a seat named twice with different cards, more than 8
cards in a hand: refused before any dealing, with the reason (:class:`PredealError`).
"""

from __future__ import annotations

import re

from ..errors import CardParseError, DealError, PredealError
from ..game.cards import (SEATS, ascii_upper, card_str, cards_of, hand_text, parse_card,
                          popcount)
from ..game.deal import pbn_hand_mask

#: the longest predeal text read (four whole hands take under 80 characters)
MAX_PREDEAL_CHARS = 2_000
_ITEM_RE = re.compile(r"(?:^|(?<=[\s,]))([NESWnesw])\s*:")


def parse_predeal(items) -> tuple:
    """``"S:HJ H9 HA"``, ``"S:AJ9.K7.T8.A N:SA"``, a list of such texts, a dict seat -> cards
    text, four masks, or None -> four card masks (N E S W).  Raises PredealError (with the
    column, 1-based in the text, and the offending word)."""
    if items is None:
        return (0, 0, 0, 0)
    if isinstance(items, (tuple, list)) and len(items) == 4 and \
            all(isinstance(m, int) and not isinstance(m, bool) for m in items):
        return check_predeal(tuple(int(m) for m in items))
    if isinstance(items, dict):
        items = [f"{k}:{v}" for k, v in items.items()]
    elif isinstance(items, str):
        items = [items]
    try:
        items = list(items)
    except TypeError:
        raise PredealError("a predeal is SEAT:CARDS text, like 'S:HJ H9 HA'",
                           token=repr(items)) from None
    hands = [0, 0, 0, 0]
    where: dict = {}
    named: dict = {}
    for text in items:
        if not isinstance(text, str):
            raise PredealError("a predeal is SEAT:CARDS text, like 'S:HJ H9 HA'",
                               token=repr(text))
        if len(text) > MAX_PREDEAL_CHARS:
            raise PredealError(f"the predeal is longer than {MAX_PREDEAL_CHARS:,} characters")
        _read_text(text, hands, where, named)
    return check_predeal(tuple(hands))


def _read_text(text: str, hands: list, where: dict, named: dict) -> None:
    starts = list(_ITEM_RE.finditer(text))
    lead = text[:starts[0].start()] if starts else text
    if not starts or lead.strip(" ,\t"):
        col = len(lead) - len(lead.lstrip()) + 1
        raise PredealError("a predeal is SEAT:CARDS, like S:HJ H9 HA or S:AJ9.K7.T8.A",
                           column=col, token=(lead.strip() or text.strip())[:20])
    for i, m in enumerate(starts):
        seat = SEATS.index(ascii_upper(m.group(1)))
        body_start = m.end()
        body_end = starts[i + 1].start() if i + 1 < len(starts) else len(text)
        body = text[body_start:body_end]
        if seat in named:
            raise PredealError(f"{SEATS[seat]} is given twice in the predeal; give each seat "
                               "once", column=m.start() + 1, token=m.group(0))
        named[seat] = True
        mask = _read_cards(body, body_start + 1, seat)
        for c in cards_of(mask):
            if c in where:
                raise PredealError(f"{card_str(c)} is predealt to both {SEATS[where[c]]} and "
                                   f"{SEATS[seat]}", column=m.start() + 1, token=card_str(c))
            where[c] = seat
        hands[seat] |= mask


def _read_cards(body: str, column: int, seat: int) -> int:
    words = [(mm.group(), mm.start() + column) for mm in re.finditer(r"[^\s,]+", body)]
    if not words:
        raise PredealError(f"no card after {SEATS[seat]}:", column=column)
    if len(words) == 1 and "." in words[0][0]:
        try:
            return pbn_hand_mask(words[0][0], words[0][1], whose=f"{SEATS[seat]}'s predeal")
        except DealError as e:
            raise PredealError(e.message, column=e.column, token=e.token) from None
    return card_words(words, PredealError, ", or a whole hand S.H.D.C",
                      f"is given twice for {SEATS[seat]}")


def card_words(words, error, hint: str = "", twice: str = "is listed twice") -> int:
    """``[(word, column), ...]``, each a card (``HJ``, ``H10``, ``♥J``) -> their mask.
    Raises ``error`` (a KrakenError class) at the column of a word that is not a card
    (``hint`` ends the message) or of a card given twice (``"HJ " + twice``)."""
    mask = 0
    for w, col in words:
        try:
            c = parse_card(w)
        except CardParseError:
            raise error("expected a card: suit letter (S H D C) then rank (A K Q J T 9 8 7), "
                        f"like HJ{hint}", column=col, token=w) from None
        if mask >> c & 1:
            raise error(f"{card_str(c)} {twice}", column=col, token=w)
        mask |= 1 << c
    return mask


def check_predeal(hands: tuple) -> tuple:
    """Four masks -> the same, after checking that no card is in two seats and no seat holds
    more than 8.  Raises PredealError."""
    seen = 0
    for s, h in enumerate(hands):
        if h < 0 or h >> 32:
            raise PredealError("a predealt hand is a 32-bit card mask", token=hex(h))
        if seen & h:
            c = cards_of(seen & h)[0]
            raise PredealError(f"{card_str(c)} is predealt to two seats", token=card_str(c))
        seen |= h
        if popcount(h) > 8:
            raise PredealError(f"{SEATS[s]} is predealt {popcount(h)} cards; a hand holds 8",
                               token=hand_text(h))
    return tuple(hands)


def predeal_text(hands: tuple) -> str:
    """The canonical text of a predeal (``"N:SA S:HJ H9"``, seats in order, cards in the
    order :func:`~kraken_solver.game.cards.card_str` writes them); ``""`` for none."""
    return " ".join(f"{SEATS[s]}:" + " ".join(card_str(c) for c in cards_of(h))
                    for s, h in enumerate(hands) if h)
