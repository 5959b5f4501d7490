"""What a trick adds to the search value in each mode, and the last two tricks valued
directly.
"""

from __future__ import annotations

from numba import njit

from .bits import lowest_bit_index
from .moves import beats_card, legal_mask_follow, trick_roem
from .table import INF, MODE_MARGIN, MODE_POINTS, MODE_ROEM, POS_BIG, POS_HALF


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
