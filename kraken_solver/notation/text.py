"""The words and symbols every report shares: cards, suits, hands, teams, counts.

Cards and suits are written with the symbols ``♠♥♦♣`` (the letters ``S H D C`` with
``ascii=True``); a hand is a line of its suits, ranks from the highest in trump order where a
trump is given (:func:`hand_line`), and :func:`hand_diagram` draws the four hands as a table.
Used by every command's text output (:mod:`kraken_solver.notation.report`, the player's-view
reports, the batch summary).
"""

from __future__ import annotations

from ..game.cards import RANKS, SEATS, SUIT_SYMBOLS, SUITS, card_power, cards_of, parse_card
from ..game.deal import Deal

_RANK_ORDER_PLAIN = "AKQJT987"


# ------------------------------------------------------------------------- small pieces
def count(n: int, noun: str, plural: str | None = None) -> str:
    """``n`` and its noun, in the singular for one: ``count(1, "deal")`` is ``"1 deal"``,
    ``count(1152, "deal")`` ``"1,152 deals"`` (``plural`` when it is not noun + s).  Every
    message that counts says what it counts, in the right number."""
    return f"{n:,} {noun if n == 1 else (plural or noun + 's')}"


def suit_text(suit: int, ascii: bool = False) -> str:
    """Suit 0..3 -> ``"♠"`` (or ``"S"`` with ``ascii=True``)."""
    letter = SUITS[suit]
    return letter if ascii else SUIT_SYMBOLS[letter]


def card_text(card, ascii: bool = False) -> str:
    """A card (0..31 or ``"HK"``) -> ``"♥K"`` (or ``"HK"`` with ``ascii=True``)."""
    c = parse_card(card)
    return suit_text(c >> 3, ascii) + RANKS[c & 7]


def team_name(seat: int) -> str:
    """The team of a seat: ``"N-S"`` or ``"E-W"``."""
    return "N-S" if seat % 2 == 0 else "E-W"


def signed(v: int) -> str:
    return f"{v:+d}"


def made_word(score: int) -> str:
    return "made" if score > 0 else "nat"


def _suit_ranks(mask: int, suit: int, trump: int | None) -> str:
    cards = [c for c in cards_of(mask) if c >> 3 == suit]
    if trump is None:
        cards.sort(key=lambda c: _RANK_ORDER_PLAIN.index(RANKS[c & 7]))
    else:
        cards.sort(key=lambda c: -card_power(c, trump))
    return " ".join(RANKS[c & 7] for c in cards) if cards else "-"


def hand_line(mask: int, trump: int | None = None, ascii: bool = False) -> str:
    """A hand on one line, the suits S H D C two spaces apart, each its symbol and its ranks
    one space apart as in :func:`hand_diagram` (``"♠ A T 7  ♥ -  ♦ -  ♣ T 8 7"``; ``-`` a
    void; trump order for ``trump``, A K Q J T 9 8 7 without one).  ``mask``: a 32-bit card
    mask.  Every tool that shows one hand in a line (kraken-advise, kraken-hint) uses it."""
    return "  ".join(f"{suit_text(s, ascii)} {_suit_ranks(mask, s, trump)}" for s in range(4))


def _hand_block(mask: int, label: str, trump, ascii) -> list[str]:
    return [label] + [f"{suit_text(s, ascii)} {_suit_ranks(mask, s, trump)}" for s in range(4)]


#: the seats' names, N E S W, as the ``ascii`` diagrams label them
SEAT_NAMES = ("North", "East", "South", "West")


def hand_diagram(hands, *, trump: int | None = None, first: int | None = None,
                 to_move: int | None = None, ascii: bool = False) -> str:
    """The four hands as a diagram: N at the top, W left, E right, S at the bottom.

    ``hands``: a Deal or four 32-bit card masks (N E S W).  Ranks run from high to low in the
    suit's order (trump order J 9 A T K Q 8 7 for ``trump``; A K Q J T 9 8 7 without a trump);
    ``-`` marks a void.  ``first`` and ``to_move`` add a note to that seat's label; ``ascii``
    (suit letters S H D C) names the seats in full (``South``), not by the letter a suit has."""
    masks = hands.hands if isinstance(hands, Deal) else tuple(int(h) for h in hands)

    def label(seat):
        notes = []
        if first is not None and seat == first:
            notes.append("first")
        if to_move is not None and seat == to_move:
            notes.append("to play")
        # with suit letters, a seat by its name: a bare 'S' beside the suit S misleads
        name = SEAT_NAMES[seat] if ascii else SEATS[seat]
        return name + (f" ({', '.join(notes)})" if notes else "")

    blocks = [_hand_block(masks[s], label(s), trump, ascii) for s in range(4)]
    left = max(max(len(line) for line in blocks[3]) + 3, 22)  # W's column, then E's
    indent = " " * (left // 2 + 1)
    lines = [indent + line for line in blocks[0]]
    for w, e in zip(blocks[3], blocks[1]):
        lines.append((w.ljust(left) + e).rstrip())
    lines += [indent + line for line in blocks[2]]
    return "\n".join(line.rstrip() for line in lines)


def cards_text(cards, ascii: bool = False) -> str:
    """Cards (0..31 or ``"HK"``) -> ``"♥K ♥Q"`` (space-separated)."""
    return " ".join(card_text(c, ascii) for c in cards)


def csv_bool(value) -> str:
    """A bool as ``kraken-batch`` writes it in CSV: ``True`` / ``False`` (empty for None)."""
    return "" if value is None else ("True" if value else "False")
