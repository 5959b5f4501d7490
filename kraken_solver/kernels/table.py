"""The transposition table: the search's modes and value range, keys of trick boundaries
(partition search on relative ranks) and 4-way buckets of bounds.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .bits import popcount32

MODE_POINTS = 0
MODE_MARGIN = 1
MODE_ROEM = 2

POS_BIG = 1_000_000
POS_HALF = 500_000
INF = 10_000_000


# The transposition table is one int64 array, two words an entry: the key, then the bounds and
# the generation (``tt_pack``).  Entries come in buckets of TT_WAYS = 4 (64 bytes, one cache
# line when the array is 64-byte aligned); a key may sit in any entry of its bucket.
TT_WAYS = 4
# bounds are stored offset by TT_OFF in 25 bits each (every bound is within INF + 2 < TT_OFF of
# zero), the generation in the 10 bits above them, the tricks left in the top 4
TT_OFF = 1 << 24
TT_GEN_LIMIT = 1 << 10


# a key's bits below NEED_SHIFT say which position it is; the bits above, in MODE_ROEM, the roem
# still needed.  Keys that differ only there share a bucket (``tt_probe``).
NEED_SHIFT = 53
NEED_LIMIT = 1 << 10
POSITION_BITS = (1 << NEED_SHIFT) - 1


@njit(cache=True, inline="always")
def tt_index(key, tt_mask):
    """The first entry of ``key``'s bucket (a multiple of TT_WAYS, at most ``tt_mask``); the
    roem still needed plays no part."""
    h = (key & POSITION_BITS) * -7046029254386353131  # 0x9E3779B97F4A7C15 as int64, wraps
    h ^= (h >> 31) & 0x1FFFFFFFF
    return h & tt_mask & ~(TT_WAYS - 1)


# Trick boundaries with DEEP_CARDS cards or fewer left (the last three tricks) keep their
# entries in the table's first DEEP_ENTRIES entries (512 KiB: they stay in a core's L2 cache).
# They are most of the probes and each stands for a small subtree; the positions higher up use
# the whole table.
DEEP_CARDS = 12
DEEP_ENTRIES = 1 << 15


@njit(cache=True, inline="always")
def tt_slot(key, cards_left, tt_mask):
    """The bucket (first entry) of a trick boundary's ``key`` with ``cards_left`` cards left:
    ``tt_index`` over the first DEEP_ENTRIES entries for the last three tricks, else over the
    whole table (``tt_mask + 1`` entries)."""
    if cards_left <= DEEP_CARDS:
        return tt_index(key, tt_mask & (DEEP_ENTRIES - 1))
    return tt_index(key, tt_mask)


@njit(cache=True, inline="always")
def tt_pack(lo, hi, gen, depth):
    """The second word of an entry: bounds ``lo`` and ``hi`` (|bound| <= INF + 2), the
    generation ``gen`` (0 <= gen < TT_GEN_LIMIT) and ``depth``, the tricks left (0..8)."""
    return (lo + TT_OFF) | ((hi + TT_OFF) << 25) | (gen << 50) | (depth << 60)


@njit(cache=True, inline="always")
def tt_bounds(word):
    """(lo, hi) from the second word of an entry."""
    return (word & 0x1FFFFFF) - TT_OFF, ((word >> 25) & 0x1FFFFFF) - TT_OFF


@njit(cache=True, inline="always")
def tt_generation(word):
    """The generation from the second word of an entry."""
    return (word >> 50) & (TT_GEN_LIMIT - 1)


@njit(cache=True, inline="always")
def tt_depth(word):
    """The tricks left from the second word of an entry."""
    return (word >> 60) & 0xF


@njit(cache=True, inline="always")
def tt_find(tt, bucket, key, gen):
    """Index in ``tt`` of the key word of ``key``'s entry of this generation in the bucket
    starting at entry ``bucket``; -1 if there is none."""
    for j in range(TT_WAYS):
        e = (bucket + j) << 1
        if tt[e] == key and tt_generation(tt[e | 1]) == gen:
            return e
    return -1


@njit(cache=True, inline="always")
def tt_probe(tt, bucket, key, gen):
    """Bounds (found, lo, hi) on the value of ``key``'s position from the entries of this
    generation in its bucket.  Besides its own entry, in margin searches an entry of the same
    position that needs less roem (or none: MODE_MARGIN) gives a lower bound and one that needs
    more an upper bound: the value never falls as the roem needed grows (a leaf is the margin
    if the defenders' roem reaches it, POS_BIG if not, and D maximises)."""
    found = False
    lo = -INF - 2
    hi = INF + 2
    need = (key >> NEED_SHIFT) & (NEED_LIMIT - 1)
    for j in range(TT_WAYS):
        e = (bucket + j) << 1
        k = tt[e]
        if (k & POSITION_BITS) == (key & POSITION_BITS) and tt_generation(tt[e | 1]) == gen:
            elo, ehi = tt_bounds(tt[e | 1])
            n = (k >> NEED_SHIFT) & (NEED_LIMIT - 1)
            if n <= need and elo > lo:
                lo = elo
                found = True
            if n >= need and ehi < hi:
                hi = ehi
                found = True
    return found, lo, hi


@njit(cache=True, inline="always")
def tt_victim(tt, bucket, gen):
    """Where a new entry goes in the bucket starting at entry ``bucket``: an entry of an older
    generation (or empty), else the one with the fewest tricks left (the cheapest to search
    again).  Returns its index in ``tt``."""
    victim = bucket << 1
    fewest = 99
    for j in range(TT_WAYS):
        e = (bucket + j) << 1
        if tt_generation(tt[e | 1]) != gen:
            return e
        n = tt_depth(tt[e | 1])
        if n < fewest:
            fewest = n
            victim = e
    return victim


@njit(cache=True, inline="always")
def tt_store(tt, bucket, key, gen, value, alpha, beta, depth):
    """Record a fail-soft search result ``value`` of window (``alpha``, ``beta``) for ``key``:
    an upper bound if <= alpha, a lower bound if >= beta, else exact; merged with the bounds
    of this generation's entry for the key, or replacing ``tt_victim``.  ``depth``: tricks
    left."""
    e = tt_find(tt, bucket, key, gen)
    if e >= 0:
        lo, hi = tt_bounds(tt[e | 1])
    else:
        lo = -INF - 2
        hi = INF + 2
        e = tt_victim(tt, bucket, gen)
    if value <= alpha:
        if value < hi:
            hi = value
    elif value >= beta:
        if value > lo:
            lo = value
    else:
        lo = value
        hi = value
    tt[e] = key
    tt[e | 1] = tt_pack(lo, hi, gen, depth)


@njit(cache=True)
def suit_code_table(hands, zero, roem_on):
    """Per suit and set of cards left in it (``s * 256 + byte``), a 12-bit code such that
    two trick boundaries of one deal and trump whose codes agree in every suit (and whose
    leader, flags and mode agree) have the same value.

    The 0-point cards of a suit (7 8 9 plain, 7 8 trump: ``zero``, a card mask) are its lowest
    in power and natural order alike, so which of them are left does not matter, only who holds
    them, low to high (partition search on relative ranks, as far as card points allow).  With
    trick roem on (rule 10) that holds only while no three cards in a row that take in a 0-point
    card are left in three different hands (the cards of a trick come from four hands);
    otherwise the code keeps the cards themselves.  hands: int64[4], the deal
    as dealt.  Returns int64[1024]."""
    owner = np.zeros(32, dtype=np.int64)
    for p in range(4):
        for c in range(32):
            if (hands[p] >> c) & 1:
                owner[c] = p
    table = np.zeros(1024, dtype=np.int64)
    for s in range(4):
        zb = (zero >> (8 * s)) & 0xFF
        nz0 = popcount32(zb)
        if zb != (1 << nz0) - 1:
            raise ValueError("the 0-point cards of a suit must be its lowest natural ranks")
        for b in range(256):
            z = b & zb
            compact = True
            if roem_on:
                for w in range(nz0):
                    c = 8 * s + w
                    if (b >> w) & 7 == 7 and owner[c] != owner[c + 1] \
                            and owner[c] != owner[c + 2] and owner[c + 1] != owner[c + 2]:
                        compact = False
            if compact:
                # count k and the holders low to high: 8 + (4**k - 1) / 3 + sum h_i 4**i
                k = 0
                seq = 0
                base = 1
                for r in range(nz0):
                    if (z >> r) & 1:
                        seq += owner[8 * s + r] * base
                        base *= 4
                        k += 1
                code = 8 + (base - 1) // 3 + seq
            else:
                code = z
            table[s * 256 + b] = (b >> nz0) | (code << (8 - nz0))
    return table


@njit(cache=True, inline="always")
def cards_key(remaining, codes):
    """The part of a trick boundary's table key that says which cards are left and who holds
    them: ``codes`` (``suit_code_table``) of each suit of ``remaining``, 12 bits a suit."""
    return codes[remaining & 0xFF] | (codes[256 | ((remaining >> 8) & 0xFF)] << 12) \
        | (codes[512 | ((remaining >> 16) & 0xFF)] << 24) \
        | (codes[768 | ((remaining >> 24) & 0xFF)] << 36)


@njit(cache=True, inline="always")
def cards_key_without(whole, remaining, c, codes):
    """``cards_key(remaining ^ (1 << c), codes)`` from ``whole = cards_key(remaining, codes)``:
    only the code of card ``c``'s suit changes."""
    s = c >> 3
    sh = 12 * s
    return (whole & ~(0xFFF << sh)) \
        | (codes[(s << 8) | (((remaining ^ (1 << c)) >> (8 * s)) & 0xFF)] << sh)


@njit(cache=True, inline="always")
def state_key(cards, leader, lost, mode, need, pit):
    """A trick boundary's table key from its ``cards_key``: the leader, D-has-lost-a-trick
    (only where the pit can still count), points or margin, and above NEED_SHIFT the roem still
    needed (0 <= need < NEED_LIMIT; a MODE_MARGIN node is a MODE_ROEM node that needs none)."""
    if mode == MODE_POINTS or pit == 0:
        lost = 0
    key = cards | (leader << 48) | (lost << 50) | ((0 if mode == MODE_POINTS else 1) << 51)
    if mode == MODE_ROEM:
        key |= need << NEED_SHIFT
    return key


@njit(cache=True, inline="always")
def boundary_key(remaining, leader, lost, mode, need, pit, codes):
    """The transposition table key of a trick boundary: the cards left, by suit through
    ``codes`` (``suit_code_table``: 12 bits a suit: ``cards_key``), the leader, D-has-lost-a-trick
    (only where the pit can still count), points or margin, and above NEED_SHIFT the roem still
    needed (``state_key``).  The trump is not in the key: a table generation is one deal and
    trump."""
    return state_key(cards_key(remaining, codes), leader, lost, mode, need, pit)
