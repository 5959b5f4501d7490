"""The kernels' building blocks against tests/naive.py and plain Python, exhaustively where
that is cheap: trick roem on every set of four cards, bit counting on every kind of mask, the
legal cards of a follower on random tricks (both the table form and the incremental form the
search uses)."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest

import naive
from kraken_solver import _kernels as K

SUITS = "SHDC"


def card_name(c: int) -> str:
    """Kernel card index (suit * 8 + natural rank) -> the reference's two-letter card."""
    return SUITS[c >> 3] + naive.NATURAL_ORDER[c & 7]


@pytest.mark.parametrize("trump", range(4))
def test_trick_roem_of_every_four_cards(trump):
    t = SUITS[trump]
    for cards in combinations(range(32), 4):
        mask = sum(1 << c for c in cards)
        assert K.trick_roem(mask, trump) == naive.trick_roem([card_name(c) for c in cards], t), \
            (cards, t)


def test_popcount_and_lowest_bit():
    rng = np.random.default_rng(7)
    masks = [1 << i for i in range(32)] + [(1 << 32) - 1, 0x80000001] \
        + [int(x) for x in rng.integers(1, 1 << 32, 2000)]
    for m in masks:
        assert K.popcount32(m) == bin(m).count("1")
        assert K.lowest_bit_index(m) == (m & -m).bit_length() - 1
    assert K.popcount32(0) == 0


@pytest.mark.parametrize("trump_rule,undertrump", [("rotterdam", "forbidden"),
                                                   ("rotterdam", "forced"),
                                                   ("amsterdam", "forbidden"),
                                                   ("amsterdam", "forced")])
def test_legal_cards_of_a_follower(trump_rule, undertrump):
    """K.legal_mask (the trick as a table) against naive.legal_cards on random tricks and
    hands; both kernel forms share ``legal_mask_follow``."""
    rng = np.random.default_rng(hash((trump_rule, undertrump)) % 2**32)
    for _ in range(3000):
        cards = [int(c) for c in rng.permutation(32)[:12]]
        tlen = int(rng.integers(1, 4))
        trick, hand = cards[:tlen], cards[tlen:tlen + int(rng.integers(1, 9))]
        trump = int(rng.integers(4))
        leader = int(rng.integers(4))
        pts, pw, higher = K.card_tables(trump, False)
        tr = np.zeros(4, dtype=np.int64)
        tr[:tlen] = trick
        got = K.legal_mask(sum(1 << c for c in hand), tr, tlen, leader, trump,
                           trump_rule == "amsterdam", undertrump == "forced", pw, higher)
        seat = naive.SEATS[(leader + tlen) % 4]
        played = [(naive.SEATS[(leader + i) % 4], card_name(c)) for i, c in enumerate(trick)]
        want = naive.legal_cards([card_name(c) for c in hand], played, seat, SUITS[trump],
                                 trump_rule, undertrump)
        assert sorted(card_name(c) for c in range(32) if (got >> c) & 1) == sorted(want), \
            (trick, hand, SUITS[trump], leader, trump_rule, undertrump)
