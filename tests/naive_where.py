"""A slow, plain evaluator of dealing conditions, one deal at a time, from the README's
'Dealing with conditions' and RULES.md alone (no NumPy, no lookup tables, no bit tricks).

It walks the tree that ``kraken_solver.dealing.predicate`` parses (the reading of the text is
tested apart, through the canonical form) and works every function out on the four hands as
lists of two-letter cards (``"HJ"``), with :mod:`tests.naive`'s card points and melds.
"""

from __future__ import annotations

from itertools import permutations

import naive

SUITS = "SHDC"
SEATS = "NESW"
RANK_OF = {"sevens": "7", "eights": "8", "nines": "9", "tens": "T", "jacks": "J",
           "queens": "Q", "kings": "K", "aces": "A"}
SUIT_OF = {"spades": "S", "hearts": "H", "diamonds": "D", "clubs": "C"}


def card_name(index: int) -> str:
    """Card 0..31 (suit * 8 + natural rank) -> ``"HJ"``."""
    return SUITS[index // 8] + naive.NATURAL_ORDER[index % 8]


def names(mask: int) -> list:
    return [card_name(c) for c in range(32) if mask >> c & 1]


def hands_of(deal) -> dict:
    """{seat letter: [cards]} of a Deal, through its PBN text."""
    return naive.parse_pbn(str(deal))


def _holder_cards(node, hands) -> list:
    return [c for s in node.seats for c in hands[SEATS[s]]]


def _length(cards, suit) -> int:
    return sum(1 for c in cards if c[0] == suit)


def _roem(hand, trump) -> int:
    melds = naive.player_melds(hand)
    stuk = 20 if trump + "K" in hand and trump + "Q" in hand else 0
    return sum(m.value for m in melds) + stuk


def _shape_matches(lengths, pattern_text) -> bool:
    """Dealer's shape algebra read from the pattern as written: terms joined by + and -."""
    words = pattern_text.split()
    result, sign, i = set(), "+", 0
    every = [s for s in _all_shapes()]
    while i < len(words):
        any_order = words[i] == "any"
        if any_order:
            i += 1
        body = words[i].replace("-", "")
        orders = set(permutations(body)) if any_order else {tuple(body)}
        term = {s for s in every for p in orders
                if all(ch == "x" or int(ch) == n for ch, n in zip(p, s))}
        result = result | term if sign == "+" else result - term
        i += 1
        if i < len(words):
            sign = words[i]
            i += 1
    return tuple(lengths) in result


def _all_shapes():
    for s in range(9):
        for h in range(9 - s):
            for d in range(9 - s - h):
                yield (s, h, d, 8 - s - h - d)


def value(node, hands):
    """The value of ``node`` on ``hands`` ({seat: [cards]}): an int or a bool."""
    k = node.kind
    if k == "const":
        return node.value
    if k == "not":
        return not value(node.args[0], hands)
    if k == "and":
        return all(value(a, hands) for a in node.args)
    if k == "or":
        return any(value(a, hands) for a in node.args)
    if k == "compare":
        a, b = (value(x, hands) for x in node.args)
        return {"<": a < b, "<=": a <= b, "==": a == b, "!=": a != b, ">=": a >= b,
                ">": a > b}[node.op]
    if k == "arith":
        total = value(node.args[0], hands)
        for sign, x in zip(node.op, node.args[1:]):
            total = total + value(x, hands) if sign == "+" else total - value(x, hands)
        return total
    cards = _holder_cards(node, hands)
    name = node.name
    if name in SUIT_OF:
        return _length(cards, SUIT_OF[name])
    if name in ("length", "trumps"):
        return _length(cards, SUITS[node.suit])
    if name in RANK_OF:
        return sum(1 for c in cards if c[1] == RANK_OF[name])
    if name == "has":
        return all(c in cards for c in names(node.cards))
    if name == "count":
        return sum(1 for c in names(node.cards) if c in cards)
    if name == "points":
        return sum(naive.card_points(c, SUITS[node.suit]) for c in cards)
    if name == "roem":
        return sum(_roem(hands[SEATS[s]], SUITS[node.suit]) for s in node.seats)
    lengths = [_length(cards, s) for s in SUITS]
    if name == "longest":
        return max(lengths)
    if name == "shortest":
        return min(lengths)
    if name == "void":
        return (lengths[node.suit] == 0) if node.suit is not None else min(lengths) == 0
    if name == "shape":
        return _shape_matches(lengths, node.text)
    raise AssertionError(f"unknown function {name}")


def meets(node, deal, predeal=(0, 0, 0, 0)) -> bool:
    """Does ``deal`` hold every predealt card in its seat and meet ``node`` (None: any)?"""
    hands = hands_of(deal)
    for s, mask in enumerate(predeal):
        if any(c not in hands[SEATS[s]] for c in names(mask)):
            return False
    return node is None or bool(value(node, hands))
