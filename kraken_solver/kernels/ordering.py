"""Move ordering and the pruning of equivalent cards.
"""

from __future__ import annotations

from numba import njit

from .bits import lowest_bit_index, popcount32
from .bounds import can_beat, can_ruff, master_of, run_potential
from .moves import beats_card, trick_roem


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
