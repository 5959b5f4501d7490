"""The rules of play, compiled: card points and power, the cards that beat a card, the legal
cards (RULES.md rules 5-9) and a trick's winner (rule 7) and roem (rules 10-11).

Cards are 0..31 (``suit * 8 + natural rank``), card sets 32-bit masks held in int64.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .bits import lowest_bit_index

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
