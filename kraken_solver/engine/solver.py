"""The double-dummy solver's Python API: the :class:`Searcher` (its transposition table and the
drivers of the exact score), ``solve`` and ``trump_table``.

A thin layer that validates input and wraps the Numba search of :mod:`kraken_solver.kernels`.
Values are from the playing team's side (RULES.md §8, rule 27); positions are
:class:`~kraken_solver.game.position.Position`.
"""

from __future__ import annotations

import functools
import os
import time
from dataclasses import dataclass, field

import numpy as np

from ..errors import KrakenError
from ..game.cards import SEATS, SUITS, card_str, is_bool, is_int
from ..game.deal import Deal
from ..game.position import Position, check_objective
from ..game.rules import Rules
from ..kernels import bounds, search, table

# 2**15 entries (512 KiB): the whole table stays in a core's L2 cache from one solve to the
# next; 2**18 (4 MiB) took 3-6% more time at 0.1-2.6% fewer nodes (benchmarks/README.md)
DEFAULT_TT_BITS = 15
# half the width (points) of the aspiration window about a guess (``Searcher.window_search``)
ASPIRATION = 16
# the table's buckets are prefetched (``kernels.search.search``) where the table takes more
# than this share of a core's L2 cache: measured (same nodes, paired) 512 KiB in a 1 MiB L2,
# 3-4% slower without; 512 KiB in a 2 MiB L2, 2% faster without; 4 MiB in 2 MiB, the same
PREFETCH_L2_SHARE = 0.25
CACHE_SYSFS = "/sys/devices/system/cpu/cpu0/cache"


@functools.lru_cache(maxsize=1)
def l2_cache_bytes() -> int | None:
    """The L2 (data or unified) cache of a core, in bytes, as Linux reports it under
    ``/sys/devices/system/cpu/cpu0/cache`` (``index*/level``, ``type``, ``size`` such as
    ``2048K``); None where that cannot be read (another system, a container without sysfs)."""
    try:
        entries = sorted(os.listdir(CACHE_SYSFS))
    except OSError:
        return None
    for name in entries:
        base = os.path.join(CACHE_SYSFS, name)
        try:
            with open(os.path.join(base, "level")) as f:
                level = f.read().strip()
            with open(os.path.join(base, "type")) as f:
                kind = f.read().strip()
            with open(os.path.join(base, "size")) as f:
                size = f.read().strip()
        except OSError:
            continue
        if level != "2" or kind not in ("Data", "Unified"):
            continue
        units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
        scale = units.get(size[-1:].upper(), 1)
        digits = size[:-1] if size[-1:].upper() in units else size
        if digits.isascii() and digits.isdigit() and int(digits) > 0:
            return int(digits) * scale
    return None


def prefetch_pays(table_bytes: int) -> bool:
    """Whether to prefetch a transposition table of ``table_bytes`` bytes: where it takes more
    than PREFETCH_L2_SHARE of a core's L2 cache (``l2_cache_bytes``), or where that cache's
    size is unknown."""
    l2 = l2_cache_bytes()
    return l2 is None or table_bytes > PREFETCH_L2_SHARE * l2


def roem_totals(most: int) -> list[int]:
    """The totals of trick roem (points) that tricks can make, up to ``most``: sums of 20, 50,
    100 and 200 (rules 10-11), i.e. 0, 20, 40, 50, 60, 70, ..."""
    return [w for w in range(0, most + 1, 10) if w not in (10, 30)]


class Searcher:
    """Owns the transposition table and buffers that the kernels use; reuse it across solves.

    ``tt_bits``: the table holds ``2**tt_bits`` entries of 16 bytes (15, the default, ->
    512 KiB), in buckets of four (one 64-byte cache line; ``kernels.table.tt_find``); in a larger
    table the boundaries of the last three tricks use only its first 2**15 entries
    (``kernels.table.tt_slot``).  ``use_tt=False`` searches
    without the table, ``near_cards=False`` without pruning near-equivalent cards
    (``kernels.ordering.prune_dominated_last``; both for checks).  ``prefetch``: fetch the table's
    buckets into the cache ahead of their probes (values and nodes are the same either way);
    None (the default) does where the table takes more than a quarter of a core's L2 cache
    (``prefetch_pays``).  Raises KrakenError unless ``tt_bits`` is an int from 4 to 28,
    ``use_tt`` and ``near_cards`` are bools and ``prefetch`` is None or a bool."""

    def __init__(self, tt_bits: int = DEFAULT_TT_BITS, use_tt: bool = True,
                 near_cards: bool = True, prefetch: bool | None = None):
        if not is_int(tt_bits) or not 4 <= tt_bits <= 28:
            raise KrakenError("tt_bits must be a whole number from 4 to 28",
                              token=repr(tt_bits))
        for name, flag in (("use_tt", use_tt), ("near_cards", near_cards)):
            if not is_bool(flag):
                raise KrakenError(f"{name} must be True or False", token=repr(flag))
        if prefetch is not None and not is_bool(prefetch):
            raise KrakenError("prefetch must be None, True or False", token=repr(prefetch))
        size = 1 << int(tt_bits)
        self.prefetch = prefetch_pays(16 * size) if prefetch is None else bool(prefetch)
        # two int64 words an entry; the view starts on a 64-byte boundary so that every bucket
        # of four entries is one cache line
        buf = np.zeros(2 * size + 8, dtype=np.int64)
        off = (-buf.ctypes.data % 64) // 8
        self.tt = buf[off:off + 2 * size]
        self.stats = np.zeros(search.STATS_LEN, dtype=np.int64)
        # the move ordering's killers and history (``kernels.search.ORDER_LEN``), kept from one
        # search to the next of one deal, trump and search mode: the later searches of the
        # cards of one position (``card_values_of``) start from what the earlier ones learnt
        self.order = np.zeros(search.ORDER_LEN, dtype=np.int64)
        self._order_mode = -1
        self.use_tt = use_tt
        self.near_cards = near_cards
        self.tt_mask = size - 1
        self.gen = 0
        self._context = None
        self._ctx = None
        self._codes = None

    def clear(self) -> None:
        """Forget every table entry: the next search starts a new table generation, as for a
        new deal (``kraken-bench --repeat`` times a solve again from the same start)."""
        self._context = None

    def context(self, pos: Position) -> np.ndarray:
        """The kernel ctx array for this position's deal, trump and rules.  A new deal, first
        player, rules set or trump starts a new table generation (old entries no longer match)
        and a new table of suit codes for the keys (``kernels.table.suit_code_table``); else the
        same array comes back (built once: 10-20 us a search call otherwise)."""
        ident = (pos.deal.hands, pos.first, pos.rules, pos.trump)
        if ident == self._context:
            return self._ctx            # the kernels only read it
        self._context = ident
        zero = sum(1 << c for c in range(32) if pos.pts[c] == 0)
        self._codes = table.suit_code_table(np.array(pos.deal.hands, dtype=np.int64), zero,
                                        bool(pos.rules.trick_roem))
        self.gen += 1
        self.order[:search.ORDER_KILLERS] = -1
        self.order[search.ORDER_KILLERS:] = 0
        self._order_mode = -1
        if self.gen >= table.TT_GEN_LIMIT:     # the generation has 10 bits in an entry
            self.tt[:] = 0
            self.gen = 1
        r = pos.rules
        ctx = np.zeros(search.CTX_LEN, dtype=np.int64)
        ctx[search.C_TRUMP] = pos.trump
        ctx[search.C_AMSTERDAM] = r.trump_rule == "amsterdam"
        ctx[search.C_UT_FORCED] = r.undertrump == "forced"
        ctx[search.C_TRICK_ROEM] = bool(r.trick_roem)
        ctx[search.C_PIT] = r.pit_bonus
        ctx[search.C_DTEAM] = pos.dteam
        ctx[search.C_LAST_BONUS] = pos.last_bonus
        ctx[search.C_USE_TT] = self.use_tt
        ctx[search.C_TT_MASK] = self.tt_mask
        ctx[search.C_GEN] = self.gen
        ctx[search.C_NEAR] = self.near_cards
        ctx[search.C_PREFETCH] = self.prefetch
        self._ctx = ctx
        return ctx

    def search(self, pos: Position, mode: int, need: int, alpha: int, beta: int) -> int:
        if not 0 <= need < table.NEED_LIMIT:  # pragma: no cover - trick roem stays below 1,024
            raise AssertionError(f"roem needed out of the table key's range: {need}")
        if alpha >= beta:  # pragma: no cover - an empty window has no meaning
            raise AssertionError(f"empty search window: ({alpha}, {beta})")
        ctx = self.context(pos)
        if mode != self._order_mode:
            # killers found in another search mode mislead more than they help (score: +0.6%
            # nodes where the margin search's were kept into the roem tests)
            self.order[:search.ORDER_KILLERS] = -1
            self._order_mode = mode
        return int(search.search(pos.hands.copy(), pos.trick.copy(), pos.tlen, pos.leader,
                            pos.flag_lost, mode, need, alpha, beta, ctx, pos.pts,
                            pos.pw, pos.higher, self._codes, self.tt, self.stats, self.order))

    def value(self, pos: Position, objective: str, guess: int | None = None) -> int:
        """Exact value of ``pos`` (RULES.md §8), in points from the playing team's side.

        ``points``: one principal variation search of D's points over the whole range.
        ``score`` follows SOLVER-NOTES.md: one principal variation search of the margin over
        the made range (above the margin that makes the deal) gives the exact margin, or says
        nat; if nat, null-window roem searches find the most trick roem the defenders can force
        while keeping the deal nat.  ``guess`` (a likely value, e.g. the parent position's)
        narrows the first search's window to about it (an aspiration window; a guess of nat
        starts with a null-window made test): the result is exact whatever it is.  Raises
        KrakenError for an objective other than ``score`` and ``points``."""
        check_objective(objective)
        if pos.over:
            return pos.final_value(objective)
        ub = self.margin_upper_bound(pos)
        if objective == "points":
            g = None if guess is None else guess - pos.past_dpoints
            return pos.past_dpoints + self.window_search(pos, table.MODE_POINTS, -1, ub, g)
        m = pos.rules.multiplier
        base = pos.margin_so_far
        # made iff the margin of the rest is above -base
        if guess is not None and guess <= 0:
            x = self.search(pos, table.MODE_MARGIN, 0, -base, -base + 1)   # made?
            if x > -base:
                x = self.window_search(pos, table.MODE_MARGIN, x - 1, ub)
        else:
            g = None if guess is None else guess // m - base
            x = self.window_search(pos, table.MODE_MARGIN, -base, ub, g)
        if x > -base:
            return m * (base + x)
        roem_guess = None
        if guess is not None and guess <= 0:
            roem_guess = -guess // m - pos.nat_points
        roem = self.nat_roem(pos, -base, roem_guess) if pos.rules.trick_roem else 0
        return -m * (pos.nat_points + roem)

    def window_search(self, pos: Position, mode: int, lo: int, hi: int,
                      guess: int | None = None) -> int:
        """The value of a search mode where it is above ``lo``, given that it is at most
        ``hi``: the exact value if it is above ``lo``, else an upper bound ``<= lo``.

        One principal variation search with the window (lo, hi + 1); with a guess, first
        with the aspiration window ``guess -+ ASPIRATION`` (inside that), then, if the value
        falls outside, again between the fail-soft bound it gave and the far end."""
        if hi <= lo:            # nothing above lo (a deal that can no longer be made)
            return hi
        if guess is not None:
            a = max(lo, guess - ASPIRATION)
            b = min(hi + 1, guess + ASPIRATION)
            if a + 1 < b:
                y = self.search(pos, mode, 0, a, b)
                if y <= a:                  # value <= y
                    return y if y <= lo else self.search(pos, mode, 0, lo, y + 1)
                if y >= b:                  # value >= y
                    return y if y >= hi else self.search(pos, mode, 0, y - 1, hi + 1)
                return y
        return self.search(pos, mode, 0, lo, hi + 1)

    @staticmethod
    def roem_bound(pos: Position) -> int:
        """An upper bound on the trick roem (points) still to fall, the trick on the table
        included (``kernels.bounds.roem_upper_bound`` on each player's cards)."""
        return int(bounds.rest_of_deal(pos.hands, pos.trick, pos.tlen, pos.leader, pos.pts,
                                  pos.trump)[1])

    @staticmethod
    def margin_upper_bound(pos: Position) -> int:
        """An upper bound on the margin (and on the points) of the rest of the deal: its card
        points, last-trick bonus, trick roem bound (if trick roem counts) and pit bonus."""
        points, roem = bounds.rest_of_deal(pos.hands, pos.trick, pos.tlen, pos.leader, pos.pts,
                                      pos.trump)
        if not pos.rules.trick_roem:
            roem = 0
        return int(points + roem) + pos.last_bonus + pos.rules.pit_bonus

    def nat_roem(self, pos: Position, a: int, guess: int | None = None) -> int:
        """The most trick roem (points, rest of the deal) the defenders can force while holding
        the margin of the rest of the deal to ``<= a`` (they can: the deal is nat).

        Null-window tests "roem >= w and margin <= a" (``can_force_roem``) gallop up the roem
        totals (``roem_totals``) from w = 20 (or from the guess), then bisect, never above the
        roem the cards can still make."""
        def can(w):
            return self.can_force_roem(pos, a, w)
        totals = roem_totals(self.roem_bound(pos))
        lo, hi = 0, len(totals)           # totals[lo] is feasible; totals[hi:] are not
        if guess is not None and guess > 0:
            i = min(range(len(totals)), key=lambda j: abs(totals[j] - guess))
            if i > 0:
                if can(totals[i]):
                    lo = i
                    if i + 1 < hi and not can(totals[i + 1]):
                        return totals[i]
                else:
                    hi = i
        # gallop: the next three totals one by one, then 2, 4, 8 totals further (most nat
        # deals have 0-60 points of trick roem, so the first steps are small: three single
        # steps took 0.6-1.0% fewer score nodes than two, measured on 400 and 1,200 solves)
        step, tried = 1, 0
        while lo + step < hi and can(totals[lo + step]):
            lo, tried = lo + step, tried + 1
            if tried >= 3:
                step *= 2
        hi = min(hi, lo + step)
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if can(totals[mid]):
                lo = mid
            else:
                hi = mid
        return totals[lo]

    def can_force_roem(self, pos: Position, a: int, w: int) -> bool:
        """Can the defenders hold the margin of the rest of the deal to ``<= a`` *and* get at
        least ``w`` points of trick roem on the table?  One null-window ``MODE_ROEM`` search."""
        return self.search(pos, table.MODE_ROEM, w, a, a + 1) <= a

    def at_least(self, pos: Position, objective: str, target: int) -> bool:
        """Is the value of ``pos`` (as ``value`` gives it) ``>= target`` points?  One
        null-window search: ``points``: D's points; ``score`` above 0: the margin made;
        ``score`` at most 0: not "nat with trick roem above what ``target`` allows" (a roem
        test as in ``nat_roem``, or the made test when every nat value is below ``target``).
        Raises KrakenError for an objective other than ``score`` and ``points``."""
        check_objective(objective)
        if pos.over:
            return pos.final_value(objective) >= target
        if objective == "points":
            t = target - pos.past_dpoints
            return self.search(pos, table.MODE_POINTS, 0, t - 1, t) >= t
        m = pos.rules.multiplier
        base = pos.margin_so_far
        if target > 0:          # made, with base + margin >= target / m
            t = -(-target // m) - base
            return self.search(pos, table.MODE_MARGIN, 0, t - 1, t) >= t
        made = self.search(pos, table.MODE_MARGIN, 0, -base, -base + 1) > -base
        if made:
            return True
        # nat: the value -m * (nat_points + roem) is >= target while roem <= most; it falls
        # below target once the defenders can force the next roem total
        most = -target // m - pos.nat_points
        if most < 0:
            return False
        if not pos.rules.trick_roem:
            return True
        w = next((w for w in roem_totals(self.roem_bound(pos)) if w > most), None)
        return w is None or not self.can_force_roem(pos, -base, w)

    @property
    def nodes(self) -> int:
        return int(self.stats[search.S_NODES])


_default_searcher: Searcher | None = None


def default_searcher() -> Searcher:
    global _default_searcher
    if _default_searcher is None:
        _default_searcher = Searcher()
    return _default_searcher


def as_searcher(searcher, default=default_searcher) -> Searcher:
    """``searcher`` if it is a :class:`Searcher`, ``default()`` for None.  Raises KrakenError
    for anything else (a ValueError: bad input, not a crash later)."""
    if searcher is None:
        return default()
    if not isinstance(searcher, Searcher):
        raise KrakenError("searcher must be a Searcher (or None for the default one)",
                          token=repr(searcher))
    return searcher


# ---------------------------------------------------------------- results
@dataclass
class SolveResult:
    """The double-dummy solution of one position.

    - ``value``: int points from the playing team's side (RULES.md §8, rules 23-24).
    - ``objective``: ``"score"`` or ``"points"``; ``made``: ``value > 0`` for ``score``.
    - ``card_values``: dict card text -> value for every legal card of the player to move
      (filled when ``all_cards=True``; else empty).
    - ``best_cards``: the legal cards whose value equals ``value`` (when ``all_cards=True``).
    - ``pv``: a principal variation, card texts to the end of the deal (rule 26).
    - ``nodes``: search nodes visited; ``seconds``: wall time of the solve.
    """
    value: int
    objective: str
    deal: Deal
    trump: int
    first: int
    rules: Rules
    played: list
    card_values: dict = field(default_factory=dict)
    best_cards: list = field(default_factory=list)
    pv: list = field(default_factory=list)
    nodes: int = 0
    seconds: float = 0.0
    to_move: int | None = None

    @property
    def made(self) -> bool | None:
        return self.value > 0 if self.objective == "score" else None

    def to_dict(self) -> dict:
        return {
            "deal": str(self.deal), "trump": SUITS[self.trump], "first": SEATS[self.first],
            "rules": self.rules.name, "rules_options": self.rules.to_dict(),
            "played": self.played, "objective": self.objective, "value": self.value,
            "made": self.made,
            "to_move": SEATS[self.to_move] if self.to_move is not None else None,
            "card_values": self.card_values, "best_cards": self.best_cards, "pv": self.pv,
            "nodes": self.nodes, "seconds": round(self.seconds, 3),
        }


def card_values_of(pos: Position, objective: str, searcher: Searcher) -> dict:
    """Value of every legal card of the player to move (rule 26): card text -> int.

    Each card's value is one exact ``Searcher.value`` of the position after it, guided by the
    best value found so far (its aspiration window; the first card has no guess).  No search
    of ``pos`` itself: its value is the best of these (``best_value``), and the table that the
    cards' searches share gives each the others' work (values equal; 25 deals x 4 trumps, the
    first lead: points nodes -6%, score -5% against a search of ``pos`` first for the guess)."""
    out = {}
    guess = None
    maxi = (pos.to_move & 1) == pos.dteam
    for c in pos.legal():
        child = pos.copy()
        child.play(c)
        v = searcher.value(child, objective, guess)
        out[card_str(c)] = v
        guess = v if guess is None else (max(guess, v) if maxi else min(guess, v))
    return out


def best_value(pos: Position, card_values: dict) -> int:
    """The value of ``pos`` from the values of all its legal cards (``card_values_of``): the
    best of them for the player to move, the highest where the playing team moves and the
    lowest where the defenders do (minimax, rule 26)."""
    if (pos.to_move & 1) == pos.dteam:
        return max(card_values.values())
    return min(card_values.values())


def principal_variation(pos: Position, objective: str, searcher: Searcher,
                        value: int | None = None) -> list[str]:
    """A line of best cards from ``pos`` to the end of the deal (rule 26)."""
    line = []
    p = pos.copy()
    if value is None:
        value = searcher.value(p, objective)
    while not p.over:
        playing = (p.to_move & 1) == p.dteam
        for c in p.legal():
            child = p.copy()
            child.play(c)
            # no card is better than the value: a card keeps it if it is not worse (one
            # null-window test)
            if (searcher.at_least(child, objective, value) if playing
                    else not searcher.at_least(child, objective, value + 1)):
                line.append(card_str(c))
                p = child
                break
        else:  # pragma: no cover - would mean the search is inconsistent
            raise AssertionError("no legal card keeps the position's value")
    return line


def solve(deal, trump, first, *, rules=None, objective: str = "score", played=(),
          all_cards: bool = False, pv: bool = True, searcher: Searcher | None = None
          ) -> SolveResult:
    """Solve a deal or part-played position double dummy (RULES.md §8).

    ``deal``: Deal or PBN text (1 to 8 cards a hand); ``trump``: ``"S" "H" "D" "C"`` or 0..3;
    ``first``: the first player ``"N" "E" "S" "W"`` or 0..3; ``rules``: Rules, preset name or
    dict; ``objective``: ``"score"`` (rule 23) or ``"points"`` (rule 24); ``played``: cards
    since the first lead, in order (``"HK"`` strings or card objects, or one string of cards
    separated by spaces, ``"SA S9"``; see :class:`Position`); ``all_cards``: also value
    every legal card; ``pv``: compute a principal variation.

    Returns SolveResult.  Raises DealError, CardParseError, IllegalCardError, RulesError (all
    ValueError) for bad input.
    """
    check_objective(objective)
    pos = Position(deal, trump, first, rules, played)
    searcher = as_searcher(searcher)
    t0 = time.perf_counter()
    n0 = searcher.nodes
    card_values = {}
    if all_cards and not pos.over:
        # every card valued: the position's value is the best of them (no search of its own)
        card_values = card_values_of(pos, objective, searcher)
        value = best_value(pos, card_values)
    else:
        value = searcher.value(pos, objective)
    result = SolveResult(value=value, objective=objective, deal=pos.deal, trump=pos.trump,
                         first=pos.first, rules=pos.rules,
                         played=[card_str(c) for c in pos.played],
                         to_move=None if pos.over else pos.to_move)
    if card_values:
        result.card_values = card_values
        result.best_cards = [c for c, v in card_values.items() if v == value]
    if pv:
        result.pv = principal_variation(pos, objective, searcher, value)
    result.nodes = searcher.nodes - n0
    result.seconds = time.perf_counter() - t0
    return result


@dataclass
class TrumpChoice:
    """One row of the trump table: ``trump`` 0..3, ``score`` and ``points`` (int points),
    ``made``, ``nodes``, ``seconds``; ``best`` marks the highest score."""
    trump: int
    score: int
    points: int
    made: bool
    nodes: int
    seconds: float
    best: bool = False


def trump_table(deal, first, *, rules=None, searcher: Searcher | None = None
                ) -> list[TrumpChoice]:
    """Score and points for each of the four trumps the first player can choose (rule 3)."""
    searcher = as_searcher(searcher)
    rows = []
    for t in range(4):
        pos = Position(deal, t, first, rules)
        t0 = time.perf_counter()
        n0 = searcher.nodes
        points = searcher.value(pos, "points")
        # the points value guides the score's search: margin ~ 2 * points - card points
        score = searcher.value(pos, "score", guess=pos.rules.multiplier * (
            2 * points - pos.total_points + pos.hr_d - pos.hr_o))
        rows.append(TrumpChoice(t, score, points, score > 0, searcher.nodes - n0,
                                time.perf_counter() - t0))
    top = max(r.score for r in rows)
    for r in rows:
        r.best = r.score == top
    return rows
