"""Numba kernels: legal cards, trick evaluation and the double-dummy alpha-beta search.

Only integers and NumPy arrays cross this boundary (no Python objects), so one compiled kernel
serves every rule variant.  Cards are 0..31 (``suit * 8 + natural rank``), card sets are 32-bit
masks held in int64.  The Python layer (``solver.py``) validates input and wraps these.

Search (alpha-beta, fail-soft, with a transposition table at trick boundaries holding lower and
upper bounds) returns the value of the rest of the deal *including the trick in progress*, as a
sum over tricks, in one of three modes (see SOLVER-NOTES.md):

- ``MODE_POINTS``: card points + trick roem won by the playing team D; D maximises.
- ``MODE_MARGIN``: +(points + roem) for a trick D wins, -(...) for a trick the defenders win, plus
  the pit bonus at the end if D has lost no trick (``flag_lost == 0``); D maximises.
- ``MODE_ROEM``: like ``MODE_MARGIN``, but the trick roem of the rest of the deal (whoever
  wins it) must reach ``need`` points; ``POS_BIG`` (a defenders' failure) when it does not.
  Once the roem has fallen, the node is a plain ``MODE_MARGIN`` node and shares its table
  entries.  The null-window test "value <= a" asks: can the defenders hold the margin to ``a``
  *and* get ``need`` roem on the table?  That decides the nat branch of the exact score.

Wherever the window is wider than null the search is a principal variation search: the first
card with the node's window, the others with a null window (scouts); a scout that lands inside
the window is searched again, with the window left above (D) or below (defenders) its bound.

Move ordering: a killer move first: the card that last caused a cutoff (or raised the node's
bound) at a node with a choice at the same ply when the trick so far was won by the same card
(when leading: when the trick before was won by the same card), if legal (for the search's
second card, failing that, the one after a card of the same suit); it is searched on its own,
and the other cards are ordered by ``order_moves`` (static rules of play) only if it does not
cut off.  Killers live for one search call.

Near-equivalent cards (``prune_dominated_last``): two cards of one hand and suit with no
other card between them in power and no roem to make are interchangeable but for their
points, so their values differ by at most the points' difference.  At the fourth hand, and
wherever the side taking the trick is known whichever is played, the one with the most points
(our trick) or the fewest (theirs) is at least as good: the other is not searched (at the
fourth hand it is dropped before ordering).  Elsewhere a card is not searched when the bound
its searched twin gave, moved by the difference, already keeps it out of the window.

Bounds at a trick boundary: the card points still to come, those of the trumps a team is sure
to take counted for that team (``sure_trump_points``), and those of the trick about to be led
where the leader's side is sure to take it (``quick_trick_points``); the roem that can still
fall, where that can decide something; and the pit only while D has lost no trick and the
defenders hold no such trump nor such a trick.  They are tested after the table's probe,
against the window its bounds narrowed.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.core.extending import intrinsic
from numba.core import cgutils
from numba.cpython.unsafe.numbers import leading_zeros, trailing_zeros
from llvmlite import ir
from llvmlite.binding import llvm_version_info

MODE_POINTS = 0
MODE_MARGIN = 1
MODE_ROEM = 2

POS_BIG = 1_000_000
POS_HALF = 500_000
INF = 10_000_000

# ctx array layout
C_TRUMP, C_AMSTERDAM, C_UT_FORCED, C_TRICK_ROEM, C_PIT, C_DTEAM, C_LAST_BONUS, C_USE_TT, \
    C_TT_MASK, C_GEN, C_NEAR, C_PREFETCH = range(12)
CTX_LEN = 12

# stats array layout
S_NODES, S_TT_HITS, S_TT_STORES = range(3)
STATS_LEN = 3
# the move-ordering state a Searcher keeps from one search to the next of one deal and trump:
# killers by cards played in the deal and card winning the trick so far, then the history
ORDER_KILLERS = 32 * 32
ORDER_LEN = ORDER_KILLERS + 128

TRUMP_POINTS = np.array([0, 0, 14, 10, 20, 3, 4, 11], dtype=np.int64)
PLAIN_POINTS = np.array([0, 0, 0, 10, 2, 3, 4, 11], dtype=np.int64)
TRUMP_POWER = np.array([0, 1, 6, 4, 7, 2, 3, 5], dtype=np.int64)
PLAIN_POWER = np.array([0, 1, 2, 6, 3, 4, 5, 7], dtype=np.int64)
QUAD_ROEM = np.array([0, 0, 0, 100, 200, 100, 100, 100], dtype=np.int64)


@njit(cache=True)
def card_tables(trump, double_spades):
    """Per-card points (doubled under double spades with spades trump), power within its suit,
    and the mask of the cards of its suit that beat it.
    Returns (points int64[32], power int64[32], higher int64[32])."""
    pts = np.zeros(32, dtype=np.int64)
    pw = np.zeros(32, dtype=np.int64)
    higher = np.zeros(32, dtype=np.int64)
    mult = 2 if (double_spades and trump == 0) else 1
    for c in range(32):
        r = c & 7
        if (c >> 3) == trump:
            pts[c] = TRUMP_POINTS[r] * mult
            pw[c] = TRUMP_POWER[r]
        else:
            pts[c] = PLAIN_POINTS[r] * mult
            pw[c] = PLAIN_POWER[r]
    for c in range(32):
        for o in range(8 * (c >> 3), 8 * (c >> 3) + 8):
            if pw[o] > pw[c]:
                higher[c] |= 1 << o
    return pts, pw, higher


@intrinsic
def _ctpop(typingctx, src):
    """LLVM ctpop (the popcnt instruction)."""
    if not isinstance(src, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])
    return src(src), codegen


# The search works on raw data pointers (``data_pointer``) instead of its arrays: Numba passes
# an array to an inlined helper by reference counting it, an atomic NRT_incref/NRT_decref call
# pair at every call that its refcount pruning cannot remove inside the search's loop (5% of the
# kernel's time in a profile of 12,000 ``points`` solves); a pointer is not reference counted.
# Paired timing (40 deals x 4 trumps, both orders): points -7% and -8%, score -4% and -6%; same
# nodes and values.
@intrinsic
def data_pointer(typingctx, arr):
    """The data pointer of the C-contiguous array ``arr``, as a CPointer of its dtype (indexed
    like the array, no bounds or wraparound checks).  It does not keep the array alive: the
    caller must hold it (an argument, or a local array passed to ``keep_alive`` at the end)."""
    if not isinstance(arr, types.Array) or arr.layout != "C":
        return None

    def codegen(context, builder, signature, args):
        return context.make_array(signature.args[0])(context, builder, args[0]).data
    return types.CPointer(arr.dtype)(arr), codegen


@intrinsic
def pointer_at(typingctx, ptr, offset):
    """``ptr + offset`` (``ptr`` a CPointer, ``data_pointer``; ``offset`` in elements): the
    pointer to ``ptr[offset]``, indexed like ``ptr`` from there."""
    if not isinstance(ptr, types.CPointer) or not isinstance(offset, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        return builder.gep(args[0], [args[1]])
    return ptr(ptr, offset), codegen


@intrinsic
def keep_alive(typingctx, arr):
    """Does nothing; a use of the array ``arr``, so that Numba does not free it before this
    point while a ``data_pointer`` into it is still in use."""
    if not isinstance(arr, types.Array):
        return None

    def codegen(context, builder, signature, args):
        return context.get_dummy_value()
    return types.void(arr), codegen


@intrinsic
def prefetch(typingctx, ptr, idx):
    """Prefetch ``ptr[idx]`` into the cache (``ptr`` a CPointer, ``data_pointer``; LLVM's
    llvm.prefetch: read, high locality, data); a hint with no effect on any value."""
    if not isinstance(ptr, types.CPointer) or not isinstance(idx, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        p = builder.gep(args[0], [args[1]])
        i8p = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32])
        # the intrinsic is named after its pointer type: opaque "ptr" from LLVM 17 on (the
        # only kind there), typed "i8*" before
        name = "llvm.prefetch.p0" if llvm_version_info[0] >= 17 else "llvm.prefetch.p0i8"
        fn = cgutils.get_or_insert_function(builder.module, fnty, name)
        builder.call(fn, [builder.bitcast(p, i8p), i32(0), i32(3), i32(1)])
        return context.get_dummy_value()
    return types.void(ptr, idx), codegen


@njit(cache=True, inline="always")
def popcount32(x):
    """Number of set bits of a card mask (LLVM ctpop: one popcnt instruction)."""
    return _ctpop(x)


@njit(cache=True, inline="always")
def lowest_bit_index(x):
    """Index of the lowest set bit of ``x`` (``x`` != 0)."""
    return trailing_zeros(x)


@njit(cache=True, inline="always")
def trick_winner_index(trick, tlen, trump, pw):
    """Index 0..tlen-1 of the card currently winning the trick (RULES.md rule 7)."""
    led = trick[0] >> 3
    best = 0
    bc = trick[0]
    for i in range(1, tlen):
        c = trick[i]
        s = c >> 3
        bs = bc >> 3
        if s == trump:
            if bs != trump or pw[c] > pw[bc]:
                best = i
                bc = c
        elif s == led and bs != trump and pw[c] > pw[bc]:
            best = i
            bc = c
    return best


@njit(cache=True, inline="always")
def trick_roem(mask, trump):
    """Roem of a complete trick given as a 4-card mask (RULES.md rules 10-11), in points.  Four
    cards hold at most one run of three or more, so the four suits are scanned at once."""
    t3 = mask & (mask >> 1) & (mask >> 2) & 0x3F3F3F3F
    r = 0
    if t3:
        if t3 & (mask >> 3) & 0x1F1F1F1F:
            r = 50
        else:
            r = 20
    kq = (1 << (8 * trump + 5)) | (1 << (8 * trump + 6))
    if (mask & kq) == kq:
        r += 20
    low = mask & 0xFF
    if low and low == (mask >> 8) & 0xFF and low == (mask >> 16) & 0xFF \
            and low == (mask >> 24) & 0xFF:
        r += QUAD_ROEM[lowest_bit_index(low)]
    return r


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


@njit(cache=True, inline="always")
def after_trick(winner, roem, lost, mode, need, dteam):
    """The state the next trick starts with once ``winner`` took a trick with ``roem`` points of
    trick roem: D-has-lost-a-trick, the search mode and the roem still needed (MODE_ROEM turns
    into MODE_MARGIN once the roem needed has fallen)."""
    if (winner & 1) != dteam:
        lost = 1
    if mode != MODE_ROEM:
        return lost, mode, 0
    if need - roem > 0:
        return lost, MODE_ROEM, need - roem
    return lost, MODE_MARGIN, 0


@njit(cache=True, inline="always")
def trick_add(winner, points, roem, mode, dteam):
    """What a trick with ``points`` card points (last-trick bonus included) and ``roem`` trick
    roem, taken by ``winner``, adds to the search value in ``mode``."""
    if (winner & 1) == dteam:
        return points + roem
    return 0 if mode == MODE_POINTS else -(points + roem)


@njit(cache=True, inline="always")
def plus_trick(rest, add, mode):
    """The value of a position from the value ``rest`` of the position after its trick and
    that trick's ``add`` (``trick_add``); in MODE_ROEM a defenders' failure stays POS_BIG."""
    if mode == MODE_ROEM and rest >= POS_HALF:
        return POS_BIG
    return rest + add


@njit(cache=True, inline="always")
def minimax_step(maxi, best, alpha, beta, v):
    """Take a child's value ``v`` into a node's fail-soft (best, alpha, beta), the node's
    side maximising if ``maxi``."""
    if maxi:
        return max(best, v), max(alpha, v), beta
    return min(best, v), alpha, min(beta, v)


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


@njit(cache=True, inline="always")
def beats_card(c, wc, led, trump, pw):
    """Does card ``c`` take over the trick from the winning card ``wc`` (suit led ``led``)?
    The incremental form of ``trick_winner_index``."""
    s = c >> 3
    bs = wc >> 3
    if s == trump:
        return bs != trump or pw[c] > pw[wc]
    return s == led and bs != trump and pw[c] > pw[wc]


@njit(cache=True, inline="always")
def legal_mask_follow(hand, led, wcard, wseat, seat, trump, amsterdam, ut_forced, higher_than):
    """The legal cards of ``hand`` for ``seat``, a follower (RULES.md rules 8, 9, 9a), given the
    suit led and the card now winning the trick, ``wcard`` of ``wseat`` (the highest trump on
    the table, if any, is that card)."""
    tshift = 8 * trump
    trumps = (hand >> tshift) & 0xFF
    trumped = (wcard >> 3) == trump
    if trumped:
        higher = (hand & higher_than[wcard]) >> tshift
    else:
        higher = trumps
    follow = hand & (0xFF << (8 * led))
    if follow:
        if led != trump:
            return follow
        if higher:
            return higher << tshift
        return follow
    # void in the suit led
    if amsterdam and led != trump:
        if wseat == (seat + 2) & 3:
            if trumped:
                lower = trumps & ~higher
                rest = hand & ~(lower << tshift)
                if rest:
                    return rest
            return hand
    if trumps == 0:
        return hand
    if not trumped:
        return trumps << tshift
    if higher:
        return higher << tshift
    if ut_forced:
        return trumps << tshift
    non = hand & ~(0xFF << tshift)
    if non:
        return non
    return trumps << tshift


@njit(cache=True, inline="always")
def legal_mask(hand, trick, tlen, leader, trump, amsterdam, ut_forced, pw, higher_than):
    """Mask of the legal cards of ``hand`` for the player to move (RULES.md rules 8, 9, 9a).

    ``trick[0:tlen]`` are the cards of the trick so far, led by seat ``leader``;
    ``higher_than`` is the third table of ``card_tables``."""
    if tlen == 0:
        return hand
    widx = trick_winner_index(trick, tlen, trump, pw)
    return legal_mask_follow(hand, trick[0] >> 3, trick[widx], (leader + widx) & 3,
                             (leader + tlen) & 3, trump, amsterdam, ut_forced, higher_than)


@njit(cache=True, inline="always")
def power_between(c, e, higher_than):
    """The cards strictly between ``c`` and ``e`` (one suit) in power."""
    if (higher_than[c] >> e) & 1:
        return higher_than[c] & ~higher_than[e] & ~(1 << e)
    return higher_than[e] & ~higher_than[c] & ~(1 << c)


@njit(cache=True, inline="always")
def known_trick_side(c, tl, wcard, wseat, led, seat, leader, hands, trump, pw, higher_than):
    """The side (``seat & 1`` of its players) that takes the trick when ``seat`` plays ``c``
    as the trick's card number ``tl`` (0: the lead; else after ``wcard`` of ``wseat`` winning
    it so far, suit led ``led``, led by ``leader``), if that is known: no player of the other
    side still to play can beat the card then winning it (a card that beats it is harder to
    beat still); else -1."""
    if tl == 0:
        wc = c
        side = seat & 1
        led = c >> 3
    elif beats_card(c, wcard, led, trump, pw):
        wc = c
        side = seat & 1
    else:
        wc = wcard
        side = wseat & 1
    for j in range(tl + 1, 4):
        p = (leader + j) & 3
        if (p & 1) != side and can_beat(hands[p], wc, led, trump, higher_than):
            return -1
    return side


@njit(cache=True, inline="always")
def prune_equivalent(legal, others, zero, higher_than, roem_on):
    """Drop legal cards equivalent to a kept one (searched once, as in DDS): same hand and
    suit, both worth no points (``zero``: the mask of 0-point cards; every other card's points
    differ within its suit), and no card of ``others`` (the other hands and the trick on the
    table) between them in power, so either card leads to the same value.  With trick roem on,
    both cards must also be unable to join a run (rule 10); 7s, 8s and 9s make no quad roem."""
    cand = legal & zero
    # only suits with two or more candidates matter
    pairs = cand & (cand - 1)
    if pairs == 0:
        return legal
    out = legal
    for s in range(4):
        cards = cand & (0xFF << (8 * s))
        if cards & (cards - 1) == 0:
            continue
        m = cards
        while m:
            c = lowest_bit_index(m)
            m &= m - 1
            if roem_on and run_potential(c, others):
                continue
            k = cards & out
            while k:
                d = lowest_bit_index(k)
                k &= k - 1
                if d == c or not ((higher_than[c] >> d) & 1):
                    continue
                if roem_on and run_potential(d, others):
                    continue
                between = higher_than[c] & ~higher_than[d] & ~(1 << d)
                if (between & others) == 0:
                    out &= ~(1 << c)
                    break
    return out


@njit(cache=True, inline="always")
def roem_potential_mask(mine, ha, hb, hc, table, trump):
    """The cards of the hand ``mine`` that could ever add to the trick roem (rules 10-11) of a
    trick: a run through the card with two cards of two other players (the other hands ``ha``,
    ``hb``, ``hc``, or the trick on the table, ``table``: masks); stuk with the other of the
    trump K and Q held by another player or on the table; a four of a kind of its rank with
    the other three held by three other players.  Cards from one hand never meet in a trick; a
    table card counts with any other hand's card, even its own player's (a pair that never
    meets: flagged in vain, never missed)."""
    others = ha | hb | hc | table
    up1 = (others << 1) & 0xFEFEFEFE        # bit r: rank r - 1 there
    up2 = (others << 2) & 0xFCFCFCFC
    dn1 = (others >> 1) & 0x7F7F7F7F        # bit r: rank r + 1 there
    dn2 = (others >> 2) & 0x3F3F3F3F
    # the same, but both cards in one hand: no run with them
    s_up = 0
    s_mid = 0
    s_dn = 0
    for h in (ha, hb, hc):
        hu1 = (h << 1) & 0xFEFEFEFE
        hd1 = (h >> 1) & 0x7F7F7F7F
        s_up |= hu1 & (h << 2) & 0xFCFCFCFC
        s_mid |= hu1 & hd1
        s_dn |= hd1 & (h >> 2) & 0x3F3F3F3F
    pot = (up1 & up2 & ~s_up) | (up1 & dn1 & ~s_mid) | (dn1 & dn2 & ~s_dn)
    t = 8 * trump
    if (others >> (t + 5)) & 1:
        pot |= 1 << (t + 6)
    if (others >> (t + 6)) & 1:
        pot |= 1 << (t + 5)
    for r in range(3, 8):
        q = 0x01010101 << r
        if popcount32(others & q) == 3 and popcount32(ha & q) <= 1 \
                and popcount32(hb & q) <= 1 and popcount32(hc & q) <= 1:
            pot |= q
    return pot & mine


@njit(cache=True, inline="always")
def play_roem_potential_mask(hands, seat, table, tl, trump):
    """The cards of ``seat`` (``hands``: int64[4]), to play the trick's card number ``tl``
    after the cards ``table`` (a mask), that could add to the trick roem of the trick in
    progress (with the table's cards and those of the players still to play to it) or of a
    later trick (with cards of the other hands): ``roem_potential_mask`` of each, never pairing
    a table card with its own player's cards."""
    mine = hands[seat]
    ha = hands[(seat + 1) & 3]
    hb = hands[(seat + 2) & 3]
    hc = hands[(seat + 3) & 3]
    pot = roem_potential_mask(mine, ha, hb, hc, 0, trump)
    if tl > 0:
        # the players after ``seat`` still to play to this trick: 3 - tl of them
        pot |= roem_potential_mask(mine, ha if tl < 3 else 0, hb if tl < 2 else 0, 0, table,
                                   trump)
    return pot


@njit(cache=True, inline="always")
def prune_dominated_last(legal, hands, seat, table, others, pts, pw, higher_than, wcard, wseat,
                         led, trump, roem_on):
    """Drop the fourth hand's dominated cards from ``legal``.

    Near-equivalent cards: two cards c, e of one hand and suit with no card of ``others`` (the
    other hands and the trick on the table) between them in power, neither able to add to any
    trick roem (``roem_potential_mask``; only checked with trick roem on; here, the trick being
    complete: the two give it the same roem and cannot add to a later trick's).  Swapping them
    maps every way to play the rest of the deal after c onto one after e with the same legal cards,
    trick winners and roem; only the points of the trick t1 now played and of the later trick
    t2 that takes the other card change, by d = |points(c) - points(e)|: a leaf's value moves by
    d * ([D takes t1] - [D takes t2]) (points), twice that as a margin.  So the values of c and
    e differ by at most d (2d), and where the side taking t1 is known whichever is played (here
    at the fourth hand, always), the one with the most points is at least as good for that
    side and the one with the fewest for the other: the other card is dropped.  ``wcard`` of
    ``wseat``: the card winning the trick so far, suit led ``led``.  Returns the kept cards."""
    out = legal
    pot = -1
    for s in range(4):
        cards = legal & (0xFF << (8 * s))
        if cards & (cards - 1) == 0:
            continue
        m = cards
        while m:
            c = lowest_bit_index(m)
            m &= m - 1
            # the last card of the trick: the side of the card then winning it takes it
            if beats_card(c, wcard, led, trump, pw):
                keep_high = True
            else:
                keep_high = (wseat & 1) == (seat & 1)
            k = cards
            while k:
                e = lowest_bit_index(k)
                k &= k - 1
                if e == c:
                    continue
                if keep_high:
                    if pts[e] <= pts[c]:
                        continue
                elif pts[e] >= pts[c]:
                    continue
                if power_between(c, e, higher_than) & others:
                    continue
                if roem_on:
                    # the trick is complete: its roem is known; the later trick that takes
                    # the other card holds only cards of the other hands (as at a lead)
                    if pot < 0:
                        pot = play_roem_potential_mask(hands, seat, 0, 0, trump)
                    if (pot >> c) & 1 or (pot >> e) & 1:
                        continue
                    if trick_roem(table | (1 << c), trump) != trick_roem(table | (1 << e), trump):
                        continue
                out &= ~(1 << c)
                break
    return out


# order_moves: how much a run in reach (``run_in_reach``) moves a follower's card, in the
# units of its score (4 a card point); 4-8 measured best (score nodes -2.3..-2.8% on 25
# random deals, -2.9% on 60 others), 20 and more worse
RUN_NUDGE = 6


@njit(cache=True, inline="always")
def run_in_reach(c, tmask, hands, leader, tlen, led):
    """Could card ``c`` of the suit led, played ``tlen``-th to the trick ``tmask`` (led by
    ``leader``), be part of a run of trick roem (rule 10) with cards on the table and cards
    the players still to come hold?  Three ranks in a row through ``c`` among them."""
    later = 0
    for j in range(tlen + 1, 4):
        later |= hands[(leader + j) & 3]
    x = (((tmask | (1 << c)) | later) >> (8 * led)) & 0xFF
    w = x & (x >> 1) & (x >> 2) & 0x3F       # bit r: ranks r, r+1, r+2 all there
    r = c & 7
    lo = r - 2 if r >= 2 else 0
    return (w & ((1 << (r + 1)) - 1) & ~((1 << lo) - 1)) != 0


# inlined at its one call site (the search orders every node's cards in one place): score time
# -2..-4% (paired, 50 random deals and the hard set); compiling from an empty cache takes 7 s
# (20%) longer and 720 MB instead of 430 (once: the kernels are cached)
@njit(cache=True, inline="always")
def order_moves(legal, hands, remaining, tmask, tlen, wcard, wseat, led, leader, seat, trump,
                pw, higher_than, pts, moves, base, scores, history, roem_on, roem_mode, dteam):
    """Write the legal cards into ``moves[base:base+n]`` in search order; return n.  The trick
    so far is ``tmask`` (``tlen`` cards, suit ``led``), won so far by ``wcard`` of ``wseat``.

    Leading: a master (highest remaining card of its suit) of a plain suit first, most points
    first; then a plain suit the partner can ruff (void in it, holding trumps); then, about
    level, a suit the partner holds the master of and a master trump (unless it is the
    leader's last trump and the opponents have none: then it is an other card); other cards
    lowest first, plain cards before trumps (measured: a master trump led first was the lead
    that failed most often at nodes cut by a later lead, a low trump led before low plain
    cards the next).  Following: if the card leaves the trick with our side, most points
    first (a cheap winner when we take over ourselves), but a ruff lowest trump first; at
    second hand, when the partner is likely to take the trick, most points first too;
    otherwise fewest points first.  With trick roem: at the fourth hand the trick's roem
    counts for the side that takes it (in MODE_ROEM, for the defenders, against D); at the
    second and third hand a card of the suit led that could join a run the players still to
    come can complete is nudged the same way (``run_in_reach``, ``RUN_NUDGE``)."""
    n = 0
    m = legal
    team = seat & 1
    # second hand: will the partner, playing fourth, likely take the trick?  The third hand
    # follows suit, and the partner holds a card above every card left in the suit led and the
    # one on the table, or can ruff
    partner = hands[seat ^ 2]
    pmaster = False
    if tlen == 1 and (wcard >> 3) != trump \
            and (hands[(seat + 1) & 3] >> (8 * led)) & 0xFF:
        pc = master_of(partner & (0xFF << (8 * led)), remaining, higher_than)
        pmaster = (pc >= 0 and pw[pc] > pw[wcard]) or can_ruff(partner, led, trump)
    # leading: what a suit's cards share, worked out once a suit (cards come suit by suit)
    last_suit = -1
    opp_ruffs = False
    last_trump = False
    suit_bonus = 0
    while m:
        c = lowest_bit_index(m)
        m &= m - 1
        s = c >> 3
        if tlen == 0:
            if s != last_suit:
                last_suit = s
                opp_ruffs = can_ruff(hands[(seat + 1) & 3], s, trump) \
                    or can_ruff(hands[(seat + 3) & 3], s, trump)
                # a last trump, the opponents out of trumps: it wins whenever it is led, so
                # cashing it now is no master lead (measured: it cut 42% of the time)
                last_trump = s == trump \
                    and (((hands[(seat + 1) & 3] | hands[(seat + 3) & 3]) >> (8 * s)) & 0xFF) == 0 \
                    and popcount32((hands[seat] >> (8 * s)) & 0xFF) == 1
                if master_of(partner & (0xFF << (8 * s)), remaining, higher_than) >= 0:
                    suit_bonus = 500
                elif can_ruff(partner, s, trump):
                    suit_bonus = 700
                else:
                    suit_bonus = 0
            if (remaining & higher_than[c]) == 0 and not opp_ruffs and not last_trump:
                sc = 1000 + pts[c] * 4 + pw[c]
                if s == trump:
                    sc -= 600
            else:
                sc = -pts[c] * 4 - pw[c] + suit_bonus
                if s == trump:
                    sc -= 50        # plain cards before trumps
            sc = sc * 1000000 + history[seat * 32 + c]
        else:
            beats = beats_card(c, wcard, led, trump, pw)
            if beats:
                win_team = team
            else:
                win_team = wseat & 1
            if win_team == team:
                safe = True
                wc = c if beats else wcard
                for k in range(tlen + 1, 4):
                    opp = (leader + k) & 3
                    if (opp & 1) != team and can_beat(hands[opp], wc, led, trump, higher_than):
                        safe = False
                if safe and beats and (c >> 3) == trump and led != trump:
                    sc = 1000 - pw[c] * 4       # a ruff that holds: the lowest trump first
                elif safe:
                    sc = 1000 + pts[c] * 4 - pw[c]
                else:
                    sc = -pts[c] * 4 - pw[c]
            else:
                sc = -pts[c] * 4 - pw[c]
                if tlen == 1 and pmaster:
                    sc = 300 + pts[c] * 4 - pw[c]
            if roem_on and (tlen == 1 or tlen == 2) and (c >> 3) == led \
                    and run_in_reach(c, tmask, hands, leader, tlen, led):
                # a run the players still to come can complete goes with the trick: a small
                # nudge, about a tie-break between cards of like points (measured)
                if roem_mode:
                    sc += -RUN_NUDGE if team == dteam else RUN_NUDGE
                elif win_team == team:
                    sc += RUN_NUDGE
                else:
                    sc -= RUN_NUDGE
            if tlen == 3 and roem_on:
                rv = trick_roem(tmask | (1 << c), trump)
                if roem_mode:
                    if team == dteam:
                        sc -= 4 * rv
                    else:
                        sc += 4 * rv
                elif win_team == team:
                    sc += 4 * rv
                else:
                    sc -= 4 * rv
        j = n
        while j > 0 and scores[j - 1] < sc:
            moves[base + j] = moves[base + j - 1]
            scores[j] = scores[j - 1]
            j -= 1
        moves[base + j] = c
        scores[j] = sc
        n += 1
    return n


# inlined (where a search meets the last trick: inlining took 2% off the score time, paired,
# twice); ``two_tricks_value`` plays its last trick its own cheaper way
@njit(cache=True, inline="always")
def last_trick_value(m0, m1, m2, m3, leader, trump, pw, pts, mode, lost, need, dteam, pit,
                     last_bonus, roem_on):
    """The value of the last trick in ``mode`` (the module docstring), one card a hand:
    ``m0``..``m3`` the masks of the leader's card and the followers' in turn; ``lost``: D has
    lost a trick before; ``need``: the roem still needed in MODE_ROEM."""
    c0 = lowest_bit_index(m0)
    led = c0 >> 3
    w = c0
    ws = 0
    c = lowest_bit_index(m1)
    if beats_card(c, w, led, trump, pw):
        w = c
        ws = 1
    c = lowest_bit_index(m2)
    if beats_card(c, w, led, trump, pw):
        w = c
        ws = 2
    c = lowest_bit_index(m3)
    if beats_card(c, w, led, trump, pw):
        ws = 3
    cards = m0 | m1 | m2 | m3
    tp = last_bonus
    left = cards
    while left:
        tp += pts[lowest_bit_index(left)]
        left &= left - 1
    tr = 0
    if roem_on:
        tr = trick_roem(cards, trump)
    if mode == MODE_ROEM and tr < need:
        return POS_BIG
    winner = (leader + ws) & 3
    add = trick_add(winner, tp, tr, mode, dteam)
    if mode != MODE_POINTS and (winner & 1) == dteam and lost == 0:
        add += pit          # D took every trick (rule 18)
    return add


@njit(cache=True, inline="always")
def last_trick_key(c, led, trump, pw):
    """A card's rank in a trick whose suit led is ``led``: the highest takes the trick (a trump
    24 or 16 + power, a card of the suit led 8 + power, any other its power below 8)."""
    s = c >> 3
    return pw[c] + (16 if s == trump else 0) + (8 if s == led else 0)


@njit(cache=True)
def two_tricks_value(hands, leader, trump, pw, pts, higher_than, amsterdam, ut_forced, mode,
                     lost, need, dteam, pit, last_bonus, roem_on, alpha, beta):
    """The fail-soft alpha-beta value in ``mode`` of a trick boundary with two tricks left
    (two cards a hand, ``hands``: int64[4]), led by ``leader``: every legal way to play the
    first of them (at most 16), the last trick then playing itself; no ordering, no table.
    A value <= ``alpha`` is an upper bound, >= ``beta`` a lower bound, else exact."""
    s0 = leader
    s1 = (leader + 1) & 3
    s2 = (leader + 2) & 3
    s3 = (leader + 3) & 3
    h0 = hands[s0]
    h1 = hands[s1]
    h2 = hands[s2]
    h3 = hands[s3]
    # the card points of both tricks and the last-trick bonus: the last trick's are what the
    # first trick's leave
    total = last_bonus
    left = h0 | h1 | h2 | h3
    while left:
        total += pts[lowest_bit_index(left)]
        left &= left - 1
    mx = (s0 & 1) == dteam      # seats 0 and 2 maximise if mx, seats 1 and 3 minimise
    best0, a0, b0 = -INF - 1 if mx else INF + 1, alpha, beta
    m0 = h0
    while m0 and a0 < b0:
        a = lowest_bit_index(m0)
        m0 &= m0 - 1
        ra = lowest_bit_index(h0 ^ (1 << a))
        led = a >> 3
        pa = pts[a]
        best1, a1, b1 = INF + 1 if mx else -INF - 1, a0, b0
        m1 = legal_mask_follow(h1, led, a, s0, s1, trump, amsterdam, ut_forced, higher_than)
        while m1 and a1 < b1:
            b = lowest_bit_index(m1)
            m1 &= m1 - 1
            rb = lowest_bit_index(h1 ^ (1 << b))
            pab = pa + pts[b]
            w1, ws1 = (b, s1) if beats_card(b, a, led, trump, pw) else (a, s0)
            best2, a2, b2 = -INF - 1 if mx else INF + 1, a1, b1
            m2 = legal_mask_follow(h2, led, w1, ws1, s2, trump, amsterdam, ut_forced,
                                   higher_than)
            while m2 and a2 < b2:
                c = lowest_bit_index(m2)
                m2 &= m2 - 1
                rc = lowest_bit_index(h2 ^ (1 << c))
                pabc = pab + pts[c]
                w2, ws2 = (c, s2) if beats_card(c, w1, led, trump, pw) else (w1, ws1)
                best3, a3, b3 = INF + 1 if mx else -INF - 1, a2, b2
                m3 = legal_mask_follow(h3, led, w2, ws2, s3, trump, amsterdam, ut_forced,
                                       higher_than)
                while m3 and a3 < b3:
                    d = lowest_bit_index(m3)
                    m3 &= m3 - 1
                    rd = lowest_bit_index(h3 ^ (1 << d))
                    winner = s3 if beats_card(d, w2, led, trump, pw) else ws2
                    tp1 = pabc + pts[d]
                    tr = 0
                    if roem_on:
                        tr = trick_roem((1 << a) | (1 << b) | (1 << c) | (1 << d), trump)
                    add = trick_add(winner, tp1, tr, mode, dteam)
                    fl1, md1, nd1 = after_trick(winner, tr, lost, mode, need, dteam)
                    # the last trick plays itself: led by the winner, its card the suit led;
                    # the highest trump, else the highest card of that suit, takes it
                    j = (winner - s0) & 3
                    lc = ra if j == 0 else (rb if j == 1 else (rc if j == 2 else rd))
                    led2 = lc >> 3
                    kb = last_trick_key(ra, led2, trump, pw)
                    i2 = 0
                    k = last_trick_key(rb, led2, trump, pw)
                    if k > kb:
                        kb = k
                        i2 = 1
                    k = last_trick_key(rc, led2, trump, pw)
                    if k > kb:
                        kb = k
                        i2 = 2
                    k = last_trick_key(rd, led2, trump, pw)
                    if k > kb:
                        i2 = 3
                    seat2 = (s0 + i2) & 3
                    tr2 = 0
                    if roem_on:
                        tr2 = trick_roem((1 << ra) | (1 << rb) | (1 << rc) | (1 << rd), trump)
                    if md1 == MODE_ROEM and tr2 < nd1:
                        v = POS_BIG
                    else:
                        v = trick_add(seat2, total - tp1, tr2, md1, dteam)
                        if md1 != MODE_POINTS and (seat2 & 1) == dteam and fl1 == 0:
                            v += pit
                    best3, a3, b3 = minimax_step(not mx, best3, a3, b3, plus_trick(v, add, mode))
                best2, a2, b2 = minimax_step(mx, best2, a2, b2, best3)
            best1, a1, b1 = minimax_step(not mx, best1, a1, b1, best2)
        best0, a0, b0 = minimax_step(mx, best0, a0, b0, best1)
    return best0


# plies on the stack: at most 33 (32 cards, then the end); 64 so that ``ply & 63`` (which
# tells Numba an index is non-negative, dropping its wraparound code) never changes an index
MAXPLY = 64
# The search's state, one record of PLY_FIELDS words a ply (word ``ply * PLY_FIELDS + F_*``),
# so that what a node reads and writes lies in a few cache lines, next to its parent's and
# child's (32 arrays of MAXPLY words, one a field, took 5-9% more time, paired; one block of
# 32 arrays, field after field, 15% more).  The per-trick fields F_LD .. F_MD live in the
# record of the trick's index ``(tlen0 + ply) >> 2``, the others in the ply's own.
PLY_FIELDS = 32
F_NM = 0            # moves in the move list (the killer alone, then the ordered cards)
F_IDX = 1           # the next move's index in it
F_LATER = 2         # cards still to be ordered behind the killer
F_SCOUT = 3         # the child was searched with a null window
F_RESEARCH = 4      # search the same card again, window F_RA, F_RB
F_RA = 5
F_RB = 6
F_A = 7             # the node's window (alpha, beta), narrowed as it goes
F_B = 8
F_A0 = 9            # the window after the table's probe, for the store
F_B0 = 10
F_BEST = 11         # the best value so far (fail-soft)
F_KEY = 12          # a trick boundary's table key and bucket
F_SLOT = 13
F_USETT = 14        # the node probed the table (and stores its value)
F_MAXI = 15         # the side to move maximises (D)
F_REST = 16         # card points still to come
F_ADD = 17          # what the trick completed at this ply adds (``trick_add``)
F_SEAT = 18         # the seat to move
F_CARD = 19         # the card played at this ply
F_REM = 20          # the cards left
F_TM = 21           # the trick in progress: its cards (mask), points, suit led, winning card
F_TP = 22           # and seat
F_LED = 23
F_WC = 24
F_WS = 25
F_SEARCHED = 26     # cards searched whose bound is kept in BV (near-equivalent cards)
F_OTHERS = 27       # the cards of the other hands and of the trick on the table
F_LD = 28           # per trick: leader, D-has-lost-a-trick, roem still needed, mode
F_FL = 29
F_ND = 30
F_MD = 31


@njit(cache=True)
def search(hands_in, trick, tlen0, leader0, flag0, mode, need0, alpha_in, beta_in,
           ctx, pts_in, pw_in, higher_in, codes_in, tt_in, stats, order_in):
    """Fail-soft alpha-beta value of the rest of the deal (see the module docstring).

    hands_in: int64[4] masks of the cards still held (restored on return); trick: int64[4] the
    cards of the trick in progress, ``tlen0`` of them, led by ``leader0``; flag0: 1 once D has
    lost a trick; need0: the roem still needed in MODE_ROEM; ctx: int64[CTX_LEN]; pts_in, pw_in,
    higher_in: int64[32] from ``card_tables``; codes_in: int64[1024] from ``suit_code_table``;
    tt_in: int64[2 * n], n entries (a power of two, at least TT_WAYS) of two words each (see
    ``tt_pack``), 64-byte aligned for one cache line a bucket; stats: int64[STATS_LEN],
    incremented; order_in: int64[ORDER_LEN], the killers (-1: none) and history the move
    ordering reads and updates, kept by the caller from one search to the next of one deal,
    trump and mode (all-card solves: 6.5% fewer nodes, points).  Every array C-contiguous:
    the search reads and writes them through ``data_pointer``.  Iterative (an explicit stack
    of plies), since Numba cannot cache recursive functions.

    The stack is one record of PLY_FIELDS words a ply (``ST``; ``P`` the ply's record, ``C`` its
    child's, ``T`` the trick's, fields ``F_*``).  The trick in progress is carried on it
    incrementally: its mask (F_TM), points (F_TP), suit led (F_LED), winning card (F_WC) and the
    winner's seat (F_WS); likewise the cards left (F_REM).  Leader, lost-a-trick flag, roem still
    needed and mode are kept once a trick (in the record of index ``(tlen0 + ply) >> 2``).  A
    trick boundary's table key and bucket (F_KEY, F_SLOT) are worked out when its trick is
    completed.  With ``ctx[C_PREFETCH]`` set, before the last card of a trick is chosen, the
    buckets of the positions each legal card leads to are prefetched (their keys from the
    cards key of the cards left, only the played card's suit worked out again:
    ``cards_key_without``), so the probe finds them in the cache; without it the key is worked
    out for the card played only (where the whole table stays in the L2 cache, the prefetch
    saves nothing and its keys cost 2%: ``Searcher``).
    """
    # raw pointers, not reference counted where they are passed on (``data_pointer``)
    hands = data_pointer(hands_in)
    pts = data_pointer(pts_in)
    pw = data_pointer(pw_in)
    higher_than = data_pointer(higher_in)
    codes = data_pointer(codes_in)
    tt = data_pointer(tt_in)
    trump = ctx[C_TRUMP]
    dteam = ctx[C_DTEAM]
    amsterdam = ctx[C_AMSTERDAM]
    ut_forced = ctx[C_UT_FORCED]
    gen = ctx[C_GEN]
    ttm = ctx[C_TT_MASK] & 0x3FFFFFFF  # < 2**28: known non-negative, so is every slot
    use_tt_all = ctx[C_USE_TT] != 0
    # the fourth hand's prefetch of the next boundaries' buckets (and their keys, worked out
    # for every legal card): paid where the table misses the L2 cache (``Searcher``)
    prefetch_on = use_tt_all and ctx[C_PREFETCH] != 0
    pit = ctx[C_PIT]
    roem_on = ctx[C_TRICK_ROEM] != 0
    last_bonus = ctx[C_LAST_BONUS]
    moves_buf = np.empty(MAXPLY * 8, dtype=np.int64)
    scores_buf = np.empty(8, dtype=np.int64)
    moves = data_pointer(moves_buf)
    scores = data_pointer(scores_buf)
    NEXT_KEY = np.zeros(MAXPLY * 32, dtype=np.int64)  # the key after each card ending a trick
    # the stack: a record of PLY_FIELDS words a ply (F_*), at ST + ply * PLY_FIELDS
    ST_buf = np.zeros((MAXPLY + 1) * PLY_FIELDS, dtype=np.int64)
    ST = data_pointer(ST_buf)
    order = data_pointer(order_in)
    history = pointer_at(order, ORDER_KILLERS)
    # near-equivalent cards: the cards of the node searched so far whose bound BV is kept (an
    # upper bound where D moves, a lower bound where the defenders do), and the cards of the
    # other hands and of the trick on the table
    BV = np.zeros(MAXPLY * 32, dtype=np.int64)
    near_on = -1 if ctx[C_NEAR] != 0 else 0      # a mask: every card, or none
    # killer moves: the card that last cut off at a ply, per card winning the trick so far
    # (when leading: the card that won the trick before), at KILLER[(played0 + ply) * 32 +
    # P[F_WC]], kept by the Searcher from one search to the next (``order_in``)
    KILLER = order
    # and for the search's second card (ply 1), one a suit of the card winning so far: tried
    # where the killer proper is none or not legal
    REPLY_KILLER = np.full(4, -1, dtype=np.int64)
    nodes = 0
    tt_hits = 0
    tt_stores = 0
    ply = 0
    ST[F_LD] = leader0
    ST[F_FL] = flag0
    ST[F_ND] = need0
    ST[F_MD] = mode
    if tlen0 > 0:
        widx = trick_winner_index(trick, tlen0, trump, pw)
        ST[F_WC] = trick[widx]
        ST[F_WS] = (leader0 + widx) & 3
        ST[F_LED] = trick[0] >> 3
        for j in range(tlen0):
            ST[F_TM] |= 1 << trick[j]
            ST[F_TP] += pts[trick[j]]
    zero = 0
    for c in range(32):
        if pts[c] == 0:
            zero |= 1 << c
    trump_tab_buf = trump_tables(trump, pts_in, pw_in)
    trump_tab = data_pointer(trump_tab_buf)
    rem0 = hands[0] | hands[1] | hands[2] | hands[3]
    ST[F_REM] = rem0
    cnt0 = popcount32(rem0)
    played0 = 32 - cnt0         # cards played in the deal before this search's root
    left = rem0
    while left:
        c = lowest_bit_index(left)
        left &= left - 1
        ST[F_REST] += pts[c]
    if mode == MODE_ROEM and need0 <= 0:
        ST[F_MD] = MODE_MARGIN
        ST[F_ND] = 0
    ST[F_A] = alpha_in
    ST[F_B] = beta_in
    if tlen0 == 0 and use_tt_all:
        ST[F_KEY] = boundary_key(rem0, leader0, ST[F_FL], ST[F_MD], ST[F_ND], pit, codes)
        ST[F_SLOT] = tt_slot(ST[F_KEY], cnt0, ttm)
    phase = 0
    ret = 0
    while True:
        P = pointer_at(ST, ply * PLY_FIELDS)     # this ply's record
        C = pointer_at(P, PLY_FIELDS)             # the next ply's
        if phase == 0:
            # ---- enter the node at ply
            nodes += 1
            pos = tlen0 + ply
            tl = pos & 3
            k = pos >> 2
            T = pointer_at(ST, k * PLY_FIELDS)   # this trick's
            md = T[F_MD]
            remaining = P[F_REM]
            phase = 2
            if tl == 0:
                P[F_USETT] = 0
                ncards = cnt0 - ply
                if ncards == 0:
                    if md == MODE_POINTS:
                        ret = 0
                    elif md == MODE_MARGIN:
                        ret = pit if T[F_FL] == 0 else 0
                    else:
                        ret = POS_BIG
                    phase = 1
                    continue
                if ncards == 4:
                    # the last trick: one card each, so it plays itself
                    ld = T[F_LD]
                    ret = last_trick_value(hands[ld], hands[(ld + 1) & 3], hands[(ld + 2) & 3],
                                           hands[(ld + 3) & 3], ld, trump, pw, pts, md, T[F_FL],
                                           T[F_ND], dteam, pit, last_bonus, roem_on)
                    phase = 1
                    continue
                if use_tt_all:
                    # the table first, then the bounds below against the window it narrowed
                    # (the other way round: 2-3% more nodes and 1-2% more time, paired).
                    # F_KEY and F_SLOT were set when the trick was completed (and the slot
                    # prefetched before its last card was chosen, with C_PREFETCH)
                    key = P[F_KEY]
                    slot = P[F_SLOT]
                    P[F_USETT] = 1
                    found, lo, hi = tt_probe(tt, slot, key, gen)
                    if found:
                        tt_hits += 1
                        if lo >= P[F_B] or lo == hi:
                            ret = lo
                            phase = 1
                            continue
                        if hi <= P[F_A]:
                            ret = hi
                            phase = 1
                            continue
                        if lo > P[F_A]:
                            P[F_A] = lo
                        if hi < P[F_B]:
                            P[F_B] = hi
                    P[F_A0] = P[F_A]
                    P[F_B0] = P[F_B]
                # bounds from the points (and roem) still to come; the roem bound is only
                # worked out where it can decide something
                rest = last_bonus + P[F_REST]
                pit_left = pit if T[F_FL] == 0 else 0
                d_sure, o_sure = sure_trump_points(hands, dteam, trump, trump_tab)
                # the trick about to be led, where the leader's side is sure to take it
                # (``quick_trick_points``), counts for that side too: worked out only where
                # the most it can add (QUICK_TRICK_MOST points, twice that in a margin) could
                # bring a bound to the window
                fac = 1 if md == MODE_POINTS else 2
                if (T[F_LD] & 1) == dteam:
                    if fac * (d_sure + QUICK_TRICK_MOST) - (0 if md == MODE_POINTS else rest) \
                            >= P[F_B]:
                        d_sure += quick_trick_points(hands, T[F_LD], remaining, trump, pts,
                                                     higher_than)
                elif md != MODE_ROEM and rest - fac * (o_sure + QUICK_TRICK_MOST) <= P[F_A]:
                    qt = quick_trick_points(hands, T[F_LD], remaining, trump, pts, higher_than)
                    if qt > 0:
                        o_sure += qt
                        pit_left = 0
                if md == MODE_POINTS:
                    lb = d_sure
                    ub = rest - o_sure
                elif md == MODE_MARGIN:
                    lb = 2 * d_sure - rest
                    ub = rest - 2 * o_sure + (pit_left if o_sure == 0 else 0)
                else:
                    lb = 2 * d_sure - rest
                    ub = POS_BIG
                need_roem = md == MODE_ROEM or lb >= P[F_B] or ub <= P[F_A]
                if need_roem and roem_on:
                    roem_ub = roem_upper_bound(hands[0], hands[1], hands[2], hands[3],
                                              ncards >> 2, trump)
                    if md == MODE_ROEM and roem_ub < T[F_ND]:
                        ret = POS_BIG
                        phase = 1
                        continue
                    if md != MODE_POINTS:
                        lb -= roem_ub
                    if md != MODE_ROEM:
                        ub += roem_ub
                if lb >= P[F_B]:
                    ret = lb
                    phase = 1
                    continue
                if ub <= P[F_A]:
                    ret = ub
                    phase = 1
                    continue
                if ncards == 8:
                    ret = two_tricks_value(hands, T[F_LD], trump, pw, pts, higher_than, amsterdam,
                                           ut_forced, md, T[F_FL], T[F_ND], dteam, pit, last_bonus,
                                           roem_on, P[F_A], P[F_B])
                    if use_tt_all:
                        tt_store(tt, P[F_SLOT], P[F_KEY], gen, ret, P[F_A], P[F_B], 2)
                        tt_stores += 1
                    phase = 1
                    continue
            seat = (T[F_LD] + tl) & 3
            P[F_SEAT] = seat
            mx = (seat & 1) == dteam
            P[F_MAXI] = mx
            hand = hands[seat]
            if tl == 0:
                legal = hand
            else:
                legal = legal_mask_follow(hand, P[F_LED], P[F_WC], P[F_WS], seat, trump,
                                          amsterdam, ut_forced, higher_than)
                if tl == 3 and prefetch_on and cnt0 - ply > 5:
                    # fetch the table slot of the position after each card that can end the
                    # trick into the cache now, well ahead of its probe
                    m = legal
                    wc0 = P[F_WC]
                    led0 = P[F_LED]
                    fl0 = T[F_FL]
                    nd0 = T[F_ND]
                    cards_after = cnt0 - ply - 1       # cards left once the trick is over
                    whole = cards_key(remaining, codes)
                    while m:
                        c = lowest_bit_index(m)
                        m &= m - 1
                        if beats_card(c, wc0, led0, trump, pw):
                            winner = seat
                        else:
                            winner = P[F_WS]
                        tr = 0
                        if roem_on and md == MODE_ROEM:
                            tr = trick_roem(P[F_TM] | (1 << c), trump)
                        fl, md1, nd1 = after_trick(winner, tr, fl0, md, nd0, dteam)
                        key = state_key(cards_key_without(whole, remaining, c, codes), winner,
                                        fl, md1, nd1, pit)
                        NEXT_KEY[ply * 32 + c] = key
                        prefetch(tt, tt_slot(key, cards_after, ttm) << 1)
            P[F_SEARCHED] = 0
            if legal & (legal - 1) == 0:
                # a forced card: nothing to order
                moves[ply * 8] = lowest_bit_index(legal)
                P[F_NM] = 1
                P[F_LATER] = 0
            else:
                P[F_OTHERS] = (remaining & ~hand) | P[F_TM]
                legal = prune_equivalent(legal, P[F_OTHERS], zero,
                                         higher_than, roem_on)
                if tl == 3 and near_on:
                    legal = prune_dominated_last(legal, hands, seat, P[F_TM], P[F_OTHERS], pts,
                                                 pw, higher_than, P[F_WC], P[F_WS], P[F_LED],
                                                 trump, roem_on)
                killer = KILLER[(played0 + ply) * 32 + P[F_WC]]
                if ply == 1 and (killer < 0 or not (legal >> killer) & 1):
                    # the search's second card: the last one that did well after a card of
                    # the same suit (at every ply: more nodes; at this one: 1-3% fewer)
                    killer = REPLY_KILLER[ST[PLY_FIELDS + F_WC] >> 3]
                if killer >= 0 and (legal >> killer) & 1:
                    # the killer first, on its own: the other cards are ordered only if it
                    # does not cut off (it does at most such nodes)
                    moves[ply * 8] = killer
                    P[F_NM] = 1
                    P[F_LATER] = legal ^ (1 << killer)
                else:
                    # no killer: all cards are ordered below, as the next move is wanted
                    P[F_NM] = 0
                    P[F_LATER] = legal
            P[F_IDX] = 0
            P[F_BEST] = -INF - 1 if mx else INF + 1
        elif phase == 1:
            # ---- hand the value ``ret`` back to the parent
            if ply == 0:
                # the local arrays behind pointers are freed after this point
                keep_alive(moves_buf)
                keep_alive(scores_buf)
                keep_alive(order_in)
                keep_alive(ST_buf)
                keep_alive(trump_tab_buf)
                stats[S_NODES] += nodes
                stats[S_TT_HITS] += tt_hits
                stats[S_TT_STORES] += tt_stores
                return ret
            ply = (ply - 1) & 63
            P = pointer_at(ST, ply * PLY_FIELDS)
            C = pointer_at(P, PLY_FIELDS)
            c = P[F_CARD] & 31
            hands[P[F_SEAT]] ^= 1 << c
            v = ret
            pos = tlen0 + ply
            if pos & 3 == 3:
                v = plus_trick(v, P[F_ADD], ST[(pos >> 2) * PLY_FIELDS + F_MD])
            if P[F_NM] == 1 and P[F_LATER] == 0 and pos & 3:
                # a forced card (mid-trick): its value is the node's, straight back up; no
                # killer is kept for it (as one it only misled the other nodes of its ply)
                ret = v
                continue
            if P[F_SCOUT]:
                P[F_SCOUT] = 0
                if P[F_A] < v < P[F_B]:
                    # the null-window scout says this card beats the best so far: search it
                    # again for its value, knowing the bound the scout gave
                    if P[F_MAXI]:
                        P[F_RA] = v - 1
                        P[F_RB] = P[F_B]
                    else:
                        P[F_RA] = P[F_A]
                        P[F_RB] = v + 1
                    P[F_RESEARCH] = 1
                    P[F_IDX] -= 1
                    phase = 2
                    continue
            if P[F_MAXI]:
                if v > P[F_BEST]:
                    P[F_BEST] = v
                raised = v > P[F_A]
                if raised:
                    P[F_A] = v
            else:
                if v < P[F_BEST]:
                    P[F_BEST] = v
                raised = v < P[F_B]
                if raised:
                    P[F_B] = v
            # keep the bound on the card's value for the cards near-equivalent to it: an
            # upper bound where D moves, a lower bound where the defenders do (the value is
            # one, exact or not, wherever it does not cut off)
            if P[F_MAXI]:
                if v <= P[F_A]:
                    BV[(ply << 5) | c] = v
                    P[F_SEARCHED] |= 1 << c
            elif v >= P[F_B]:
                BV[(ply << 5) | c] = v
                P[F_SEARCHED] |= 1 << c
            if raised:
                KILLER[(played0 + ply) * 32 + P[F_WC]] = c
                if ply == 1:
                    REPLY_KILLER[ST[PLY_FIELDS + F_WC] >> 3] = c
            if P[F_A] >= P[F_B]:
                P[F_IDX] = P[F_NM]
                P[F_LATER] = 0
                if pos & 3 == 0:
                    left = cnt0 - ply
                    history[P[F_SEAT] * 32 + c] += left * left
            phase = 2
        else:
            # ---- next move, or the node is finished
            if P[F_IDX] == P[F_NM] and P[F_LATER]:
                # no killer, or it did not cut off: order the (other) cards behind it
                pos = tlen0 + ply
                k = pos >> 2
                T = pointer_at(ST, k * PLY_FIELDS)   # this trick's
                P[F_NM] += order_moves(P[F_LATER], hands, P[F_REM], P[F_TM], pos & 3, P[F_WC],
                                       P[F_WS], P[F_LED], T[F_LD], P[F_SEAT], trump, pw,
                                       higher_than, pts, moves, ply * 8 + P[F_NM], scores,
                                       history, roem_on, T[F_MD] == MODE_ROEM, dteam)
                P[F_LATER] = 0
            if P[F_IDX] < P[F_NM]:
                c = moves[ply * 8 + (P[F_IDX] & 7)] & 31
                P[F_IDX] += 1
                pos = tlen0 + ply
                tl = pos & 3
                k = pos >> 2
                T = pointer_at(ST, k * PLY_FIELDS)   # this trick's
                seat = P[F_SEAT]
                sm = P[F_SEARCHED] & (0xFF << (c & 24)) & near_on
                if sm:
                    # a card searched before, of the same suit, with no card of the others
                    # between them in power, and neither able to add to any trick roem: the
                    # two are interchangeable but for their points, so their values differ
                    # by at most the points' difference (twice that for a margin): if the
                    # searched one's bound and that difference keep this one out of the
                    # window, it is not searched (``prune_dominated_last`` for the reason)
                    skip = False
                    pot = -1
                    fac = 1 if T[F_MD] == MODE_POINTS else 2
                    # where the side taking the trick is known, the one with the most points
                    # (our side's trick) or the fewest (theirs) is at least as good for the
                    # mover as the other
                    side = known_trick_side(c, tl, P[F_WC], P[F_WS], P[F_LED], seat, T[F_LD],
                                            hands, trump, pw, higher_than)
                    keep_high = side == (seat & 1)
                    while sm:
                        e = lowest_bit_index(sm)
                        sm &= sm - 1
                        if power_between(c, e, higher_than) & P[F_OTHERS]:
                            continue
                        dlt = abs(pts[c] - pts[e]) * fac
                        if side >= 0 and (pts[e] > pts[c]) == keep_high:
                            dlt = 0     # e is at least as good for the mover as c
                        if P[F_MAXI]:
                            bound = BV[(ply << 5) | e] + dlt
                            if bound > P[F_A]:
                                continue
                        else:
                            bound = BV[(ply << 5) | e] - dlt
                            if bound < P[F_B]:
                                continue
                        if roem_on:
                            if pot < 0:
                                pot = play_roem_potential_mask(hands, seat, P[F_TM], tl, trump)
                            if (pot >> c) & 1 or (pot >> e) & 1:
                                continue
                        if P[F_MAXI]:
                            P[F_BEST] = max(P[F_BEST], bound)
                        else:
                            P[F_BEST] = min(P[F_BEST], bound)
                        skip = True
                        break
                    if skip:
                        BV[(ply << 5) | c] = bound
                        P[F_SEARCHED] |= 1 << c
                        continue
                # the child's window: the node's, but a null window for the cards after the
                # first where the node's window is wider (principal variation search)
                ca = P[F_A]
                cb = P[F_B]
                if P[F_RESEARCH]:
                    P[F_RESEARCH] = 0
                    ca = P[F_RA]
                    cb = P[F_RB]
                elif P[F_IDX] > 1 and cb - ca > 1:
                    P[F_SCOUT] = 1
                    if P[F_MAXI]:
                        cb = ca + 1
                    else:
                        ca = cb - 1
                bit = 1 << c
                hands[seat] ^= bit
                P[F_CARD] = c
                pc = pts[c]
                C[F_REST] = P[F_REST] - pc
                C[F_REM] = P[F_REM] ^ bit
                if tl == 0:
                    C[F_A] = ca
                    C[F_B] = cb
                    C[F_TM] = bit
                    C[F_TP] = pc
                    C[F_LED] = c >> 3
                    C[F_WC] = c
                    C[F_WS] = seat
                elif tl < 3:
                    C[F_A] = ca
                    C[F_B] = cb
                    C[F_TM] = P[F_TM] | bit
                    C[F_TP] = P[F_TP] + pc
                    C[F_LED] = P[F_LED]
                    if beats_card(c, P[F_WC], P[F_LED], trump, pw):
                        C[F_WC] = c
                        C[F_WS] = seat
                    else:
                        C[F_WC] = P[F_WC]
                        C[F_WS] = P[F_WS]
                else:
                    if beats_card(c, P[F_WC], P[F_LED], trump, pw):
                        winner = seat
                        C[F_WC] = c         # the trick's winning card, for the killer
                    else:
                        winner = P[F_WS]
                        C[F_WC] = P[F_WC]
                    tp = P[F_TP] + pc
                    if C[F_REM] == 0:
                        tp += last_bonus
                    tr = 0
                    if roem_on:
                        tr = trick_roem(P[F_TM] | bit, trump)
                    md = T[F_MD]
                    add = trick_add(winner, tp, tr, md, dteam)
                    nxt = pointer_at(T, PLY_FIELDS)     # the next trick's record
                    nxt[F_FL], nxt[F_MD], nxt[F_ND] = after_trick(winner, tr, T[F_FL], md,
                                                                  T[F_ND], dteam)
                    P[F_ADD] = add
                    nxt[F_LD] = winner
                    C[F_A] = ca - add
                    C[F_B] = cb - add
                    C[F_TM] = 0
                    C[F_TP] = 0
                    if use_tt_all and cnt0 - ply > 5:
                        # the next trick boundary's key (worked out with the prefetch, or now)
                        # and slot, for its probe and store
                        if prefetch_on:
                            key = NEXT_KEY[ply * 32 + c]
                        else:
                            key = boundary_key(C[F_REM], winner, nxt[F_FL], nxt[F_MD], nxt[F_ND],
                                               pit, codes)
                        C[F_KEY] = key
                        C[F_SLOT] = tt_slot(key, cnt0 - ply - 1, ttm)
                ply = (ply + 1) & 63
                phase = 0
            else:
                best = P[F_BEST]
                if (tlen0 + ply) & 3 == 0 and P[F_USETT]:
                    tt_store(tt, P[F_SLOT], P[F_KEY], gen, best, P[F_A0], P[F_B0],
                             (cnt0 - ply) >> 2)
                    tt_stores += 1
                ret = best
                phase = 1
