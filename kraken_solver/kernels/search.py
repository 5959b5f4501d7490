"""The double-dummy alpha-beta search (Numba).
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
from numba import njit

from .bits import data_pointer, keep_alive, lowest_bit_index, pointer_at, popcount32, prefetch
from .bounds import (QUICK_TRICK_MOST, quick_trick_points, roem_upper_bound, sure_trump_points,
                     trump_tables)
from .endgame import after_trick, last_trick_value, plus_trick, trick_add, two_tricks_value
from .moves import beats_card, legal_mask_follow, trick_roem, trick_winner_index
from .ordering import (known_trick_side, order_moves, play_roem_potential_mask, power_between,
                       prune_dominated_last, prune_equivalent)
from .table import (INF, MODE_MARGIN, MODE_POINTS, MODE_ROEM, POS_BIG, boundary_key, cards_key,
                    cards_key_without, state_key, tt_probe, tt_slot, tt_store)

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
                if tl == 3 and md == MODE_ROEM and roem_on:
                    # the fourth hand of a roem test: the most roem this trick can make (each
                    # legal card tried) and the bound on the tricks after it (on the cards held
                    # now, the fourth hand's card counted there too) fall short of the roem
                    # still needed: the defenders fail whatever is played (the next trick
                    # boundary's bound would say so for every card, one node each)
                    most = 0
                    m = legal
                    while m:
                        c = lowest_bit_index(m)
                        m &= m - 1
                        tr = trick_roem(P[F_TM] | (1 << c), trump)
                        if tr > most:
                            most = tr
                    if most + roem_upper_bound(hands[0], hands[1], hands[2], hands[3],
                                               (cnt0 - ply - 1) >> 2, trump) < T[F_ND]:
                        ret = POS_BIG
                        phase = 1
                        continue
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
