"""Bounds at a trick boundary: the card points still to come, those sure to fall to one side
(master trumps, quick tricks) and the trick roem that can still fall.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import leading_zeros

from .bits import lowest_bit_index, popcount32
from .moves import QUAD_ROEM


@njit(cache=True, inline="always")
def roem_upper_bound(h0, h1, h2, h3, tricks_left, trump):
    """An upper bound on the trick roem (points) still to fall when the four players hold the
    masks h0..h3: a run needs three cards of a suit in a row from three different hands, at
    most one run (<= 50) a trick; stuk (20) needs K and Q of trump in different hands; a four
    of a kind needs its four cards in four hands."""
    remaining = h0 | h1 | h2 | h3
    runs = 0
    long_runs = 0
    for s in range(4):
        x = (remaining >> (8 * s)) & 0xFF
        w = x & (x >> 1) & (x >> 2)
        if w == 0:
            continue
        w4 = w & (x >> 3)
        for hp in (h0, h1, h2, h3):
            y = (hp >> (8 * s)) & 0xFF
            two = (y & (y >> 1)) | (y & (y >> 2)) | ((y >> 1) & (y >> 2))
            w &= ~two
            # a run of four needs its four cards in four hands
            w4 &= ~(two | (y & (y >> 3)) | ((y >> 1) & (y >> 3)) | ((y >> 2) & (y >> 3)))
        if w:
            # runs of one suit use disjoint cards: at most as many as disjoint three-card
            # windows start in w (the earliest first is a largest such set)
            n = 0
            while w:
                p = lowest_bit_index(w)
                n += 1
                w &= ~((1 << (p + 3)) - 1)
            runs += n
            if w4:
                long_runs += n
    if runs > tricks_left:
        runs = tricks_left
    if long_runs > runs:
        long_runs = runs
    ub = 50 * long_runs + 20 * (runs - long_runs)
    kq = (1 << (8 * trump + 5)) | (1 << (8 * trump + 6))
    if (remaining & kq) == kq and (h0 & kq) != kq and (h1 & kq) != kq and (h2 & kq) != kq \
            and (h3 & kq) != kq:
        ub += 20
    for rank in range(3, 8):
        q = 0x01010101 << rank
        if (remaining & q) == q and popcount32(h0 & q) == 1 and popcount32(h1 & q) == 1 \
                and popcount32(h2 & q) == 1:
            ub += QUAD_ROEM[rank]
    return ub


@njit(cache=True)
def rest_of_deal(hands, trick, tlen, leader, pts, trump):
    """The card points (last-trick bonus not included) and an upper bound on the trick roem
    (``roem_upper_bound``) still to fall, the trick on the table included (its cards count as
    held by the players who played them).  hands, trick: int64[4]; pts: int64[32].
    Returns (points, roem bound), in points."""
    held0 = hands[0]
    held1 = hands[1]
    held2 = hands[2]
    held3 = hands[3]
    for j in range(tlen):
        seat = (leader + j) & 3
        bit = 1 << trick[j]
        if seat == 0:
            held0 |= bit
        elif seat == 1:
            held1 |= bit
        elif seat == 2:
            held2 |= bit
        else:
            held3 |= bit
    left = held0 | held1 | held2 | held3
    points = 0
    m = left
    while m:
        points += pts[lowest_bit_index(m)]
        m &= m - 1
    roem = roem_upper_bound(held0, held1, held2, held3, (popcount32(left) + 3) >> 2, trump)
    return points, roem


@njit(cache=True, inline="always")
def run_potential(c, others):
    """Could card ``c`` ever be part of a run of trick roem (rule 10) with two cards of
    ``others`` (the cards of the other hands and of the trick on the table)?"""
    s = c >> 3
    r = c & 7
    x = (others >> (8 * s)) & 0xFF
    if r >= 2 and (x >> (r - 2)) & 3 == 3:
        return True
    if r >= 1 and r <= 6 and (x >> (r - 1)) & 1 and (x >> (r + 1)) & 1:
        return True
    if r <= 5 and (x >> (r + 1)) & 3 == 3:
        return True
    return False


@njit(cache=True, inline="always")
def can_beat(hand, wcard, led, trump, higher_than):
    """Can a player holding ``hand`` beat ``wcard`` (the winning card) with a legal card?"""
    ws = wcard >> 3
    if (hand >> (8 * led)) & 0xFF:
        if ws == trump and led != trump:
            return False
        return (hand & higher_than[wcard]) != 0
    if ((hand >> (8 * trump)) & 0xFF) == 0:
        return False
    if ws != trump:
        return True
    return (hand & higher_than[wcard]) != 0


@njit(cache=True, inline="always")
def can_ruff(hand, s, trump):
    """Is ``hand`` void in the plain suit ``s`` and holding a trump?"""
    return s != trump and ((hand >> (8 * s)) & 0xFF) == 0 and ((hand >> (8 * trump)) & 0xFF) != 0


@njit(cache=True, inline="always")
def master_of(cards, remaining, higher_than):
    """The card of ``cards`` (one suit) that no card of ``remaining`` beats; -1 if none."""
    while cards:
        c = lowest_bit_index(cards)
        cards &= cards - 1
        if (remaining & higher_than[c]) == 0:
            return c
    return -1


@njit(cache=True)
def trump_tables(trump, pts, pw):
    """Per byte ``b`` of the trump suit (bit r: the trump of natural rank r), or of it in
    power order: ``[b]`` the same trumps as a byte in power order (bit p: the trump of power
    p); ``[256 + b]`` the power bits above the highest of the power byte b (all eight for
    none); ``[512 + b]`` the card points of the trumps of the power byte b.
    Returns int64[768]."""
    tab = np.zeros(768, dtype=np.int64)
    rank_of_power = np.zeros(8, dtype=np.int64)
    for r in range(8):
        rank_of_power[pw[8 * trump + r]] = r
    tab[256] = 0xFF
    for b in range(1, 256):
        low = lowest_bit_index(b)
        rest = b & (b - 1)
        tab[b] = tab[rest] | (1 << pw[8 * trump + low])
        top = 63 - leading_zeros(b)
        tab[256 + b] = 0xFF & ~((2 << top) - 1)
        tab[512 + b] = tab[512 + rest] + pts[8 * trump + rank_of_power[low]]
    return tab


@njit(cache=True, inline="always")
def sure_trump_points(hands, dteam, trump, tab):
    """The card points each team is sure to take in the rest of the deal: those of its
    trumps above every trump of the other team's (the highest trump of a trick takes it,
    RULES.md rule 7).  ``tab``: ``trump_tables``.  Returns (D's, the defenders'); one of
    them is 0."""
    pd = tab[((hands[dteam] | hands[dteam ^ 2]) >> (8 * trump)) & 0xFF]
    po = tab[((hands[dteam ^ 1] | hands[dteam ^ 3]) >> (8 * trump)) & 0xFF]
    return tab[512 + (pd & tab[256 + po])], tab[512 + (po & tab[256 + pd])]


# the most ``quick_trick_points`` can be: a master and three lower cards of its suit (A T K Q:
# 28 points), doubled under double spades
QUICK_TRICK_MOST = 56


@njit(cache=True, inline="always")
def quick_trick_points(hands, leader, remaining, trump, pts, higher_than):
    """Card points the leader's side is sure to take in the trick about to be led (``hands``:
    int64[4]; ``remaining``: every card still held): the most, over the plain suits s that the
    leader holds, in which the leader or the partner holds the master (no card of
    ``remaining`` beats it) and in which neither opponent can ruff (each holds a card of s or
    no trump), of the master's points plus the fewest points of s that each other player
    holding s must follow with; 0 if there is none.

    Exact as a bound: the leader leads the master, or the lowest card of s for the partner's
    master.  An opponent holding s must follow with a card of s (rule 8a), which the master
    beats; one void in s holds no trump, so cannot ruff, and discards.  The partner holding s
    follows (the master, where it is the partner's); a partner void in s may trump, which
    takes the trick for the same side.  So the side takes the trick with the master and at
    least the fewest points of every hand that must follow to s; the cards counted are plain,
    so none is among the sure trumps of ``sure_trump_points``, and the two add up."""
    h = hands[leader]
    o1 = hands[(leader + 1) & 3]
    o3 = hands[(leader + 3) & 3]
    tmask = 0xFF << (8 * trump)
    best = 0
    for s in range(4):
        if s == trump:
            continue
        sm = 0xFF << (8 * s)
        if (h & sm) == 0:
            continue
        if ((o1 & sm) == 0 and (o1 & tmask) != 0) or ((o3 & sm) == 0 and (o3 & tmask) != 0):
            continue
        x = master_of(h & sm, remaining, higher_than)
        holder = 0
        if x < 0:
            x = master_of(hands[leader ^ 2] & sm, remaining, higher_than)
            holder = 2
            if x < 0:
                continue
        v = pts[x]
        for j in range(4):
            if j == holder:
                continue
            f = hands[(leader + j) & 3] & sm
            if f:
                low = 1000
                while f:
                    c = lowest_bit_index(f)
                    f &= f - 1
                    if pts[c] < low:
                        low = pts[c]
                v += low
        if v > best:
            best = v
    return best
