"""A parsed predicate compiled into NumPy array operations over blocks of candidate deals.

:func:`compile_predicate` turns a :class:`~kraken_solver.dealing.predicate.Node` into one
function of ``hands``, a ``uint32`` array ``[n, 4]`` of card masks (seat order N E S W, bit
``suit * 8 + rank`` as :mod:`kraken_solver.game.cards`), that returns a ``bool`` array ``[n]``:
one call for a whole block, whatever its size, each node of the tree a few vector operations.
Suit holdings (8 bits) index lookup tables made once: lengths, card points (RULES.md rule 3),
the run roem of a suit (rules 10, 12).  Four of a kind (rule 13: the partition that scores
more) is worked out, for the few hands that hold one, over every choice of their fours.
"""

from __future__ import annotations

import functools
import itertools

import numpy as np

from ..game.cards import PLAIN_POINTS, TRUMP_POINTS
from ..game.roem import player_melds
from .predicate import RANK_FUNCTIONS, Node

#: the value of four of a kind by natural rank 7 8 9 T J Q K A (rule 10)
QUAD_VALUES = (0, 0, 0, 100, 200, 100, 100, 100)
LENGTH_FUNCTIONS = ("spades", "hearts", "diamonds", "clubs", "length", "trumps")


def is_length(node: Node) -> bool:
    """A suit length of one holder: ``hearts(S)``, ``length(S, H)``, ``trumps(S, H)``."""
    return node.kind == "func" and node.name in LENGTH_FUNCTIONS


@functools.cache
def tables(long_runs_100: bool = False) -> dict:
    """Lookup tables indexed by an 8-bit suit holding (bit = natural rank): ``length``,
    ``trump_points``, ``plain_points`` and ``runs`` (the roem of its runs of 3 or more in
    natural order: 20 for 3, 50 for 4 or more, 100 for 5 or more with ``long_runs_100``)."""
    h = np.arange(256)
    bits = (h[:, None] >> np.arange(8)) & 1
    # a holding of spades alone has no four of a kind: its melds are its runs (rule 12)
    runs = np.array([sum(m[0] for m in player_melds(x, long_runs_100)) for x in range(256)],
                    dtype=np.int32)
    return {"length": bits.sum(axis=1).astype(np.int32),
            "trump_points": (bits * np.array(TRUMP_POINTS)).sum(axis=1).astype(np.int32),
            "plain_points": (bits * np.array(PLAIN_POINTS)).sum(axis=1).astype(np.int32),
            "runs": runs}


class _Block:
    """One block of candidates and what has been worked out from it (cached per holder)."""

    def __init__(self, hands: np.ndarray, long_runs_100: bool):
        self.hands = hands
        self.t = tables(long_runs_100)
        self._masks: dict = {}
        self._holdings: dict = {}

    def mask(self, seats: tuple) -> np.ndarray:
        m = self._masks.get(seats)
        if m is None:
            m = self.hands[:, seats[0]]
            for s in seats[1:]:
                m = m | self.hands[:, s]
            self._masks[seats] = m
        return m

    def holding(self, seats: tuple, suit: int) -> np.ndarray:
        key = (seats, suit)
        h = self._holdings.get(key)
        if h is None:
            h = ((self.mask(seats) >> np.uint32(8 * suit)) & np.uint32(0xFF)).astype(np.intp)
            self._holdings[key] = h
        return h

    def lengths(self, seats: tuple) -> np.ndarray:
        """``int32 [n, 4]``: the holder's length in S H D C."""
        return np.stack([self.t["length"][self.holding(seats, s)] for s in range(4)], axis=1)


def _rank_count(mask: np.ndarray, rank: int) -> np.ndarray:
    x = (mask >> np.uint32(rank)) & np.uint32(0x01010101)
    return ((x * np.uint32(0x01010101)) >> np.uint32(24)).astype(np.int32)


def _runs_of(masks: np.ndarray, runs: np.ndarray) -> np.ndarray:
    total = np.zeros(len(masks), dtype=np.int32)
    for s in range(4):
        total += runs[((masks >> np.uint32(8 * s)) & np.uint32(0xFF)).astype(np.intp)]
    return total


def declared_roem(masks: np.ndarray, trump: int, long_runs_100: bool = False) -> np.ndarray:
    """``int32 [n]``: the hand roem each 32-bit hand in ``masks`` declares with ``trump``
    (RULES.md rules 12-16): its melds as rule 13 partitions them (the highest total) plus 20
    for stuk, whether or not they count for its team."""
    masks = np.asarray(masks, dtype=np.uint32)
    runs = tables(long_runs_100)["runs"]
    total = _runs_of(masks, runs)
    common = (masks & (masks >> np.uint32(8)) & (masks >> np.uint32(16))
              & (masks >> np.uint32(24)) & np.uint32(0xFF))
    rows = np.flatnonzero(common)
    if len(rows):
        sub, com = masks[rows], common[rows]
        best = total[rows].copy()
        for k in (1, 2):            # an 8-card hand holds at most two fours of a kind
            for chosen in itertools.combinations(range(8), k):
                need = sum(1 << r for r in chosen)
                ok = (com & np.uint32(need)) == np.uint32(need)
                if not ok.any():
                    continue
                used = np.uint32(sum(0x01010101 << r for r in chosen))
                value = _runs_of(sub & ~used, runs) + sum(QUAD_VALUES[r] for r in chosen)
                best = np.where(ok, np.maximum(best, value), best)
        total[rows] = best
    kq = np.uint32((1 << (8 * trump + 5)) | (1 << (8 * trump + 6)))
    return total + np.where((masks & kq) == kq, 20, 0).astype(np.int32)


_COMPARE = {"<": np.less, "<=": np.less_equal, "==": np.equal, "!=": np.not_equal,
            ">=": np.greater_equal, ">": np.greater}


def _value(node: Node, b: _Block, n: int, long_runs_100: bool):
    k = node.kind
    if k == "const":
        return np.full(n, node.value, dtype=bool if node.type == "bool" else np.int32)
    if k == "not":
        return ~_value(node.args[0], b, n, long_runs_100)
    if k in ("and", "or"):
        out = _value(node.args[0], b, n, long_runs_100)
        for a in node.args[1:]:
            v = _value(a, b, n, long_runs_100)
            out = (out & v) if k == "and" else (out | v)
        return out
    if k == "compare":
        left, right = (_value(a, b, n, long_runs_100) for a in node.args)
        return _COMPARE[node.op](left, right)
    if k == "arith":              # a chain: args[0] op[0] args[1] op[1] args[2] ...
        out = _value(node.args[0], b, n, long_runs_100)
        for sign, a in zip(node.op, node.args[1:]):
            v = _value(a, b, n, long_runs_100)
            out = out + v if sign == "+" else out - v
        return out
    return _func(node, b, long_runs_100)


def _func(node: Node, b: _Block, long_runs_100: bool):
    name, seats = node.name, node.seats
    if name in LENGTH_FUNCTIONS:
        return b.t["length"][b.holding(seats, node.suit)]
    if name in RANK_FUNCTIONS:
        return _rank_count(b.mask(seats), RANK_FUNCTIONS[name])
    if name == "has":
        return (b.mask(seats) & np.uint32(node.cards)) == np.uint32(node.cards)
    if name == "count":
        return b.t["length"][_bytes(b.mask(seats) & np.uint32(node.cards))].sum(axis=1)
    if name == "points":
        total = 0
        for s in range(4):
            lut = b.t["trump_points"] if s == node.suit else b.t["plain_points"]
            total = total + lut[b.holding(seats, s)]
        return total
    if name == "roem":
        return sum(declared_roem(b.hands[:, s], node.suit, long_runs_100) for s in seats)
    if name == "longest":
        return b.lengths(seats).max(axis=1)
    if name == "shortest":
        return b.lengths(seats).min(axis=1)
    if name == "void":
        if node.suit is not None:
            return b.holding(seats, node.suit) == 0
        return b.lengths(seats).min(axis=1) == 0
    if name == "shape":
        return shape_table(node.shapes)[shape_index(b.lengths(seats))]
    raise ValueError(f"no evaluation of {name}")     # the parser admits no other name


def _bytes(masks: np.ndarray) -> np.ndarray:
    """``intp [n, 4]``: the four 8-bit holdings of each mask."""
    return np.stack([((masks >> np.uint32(8 * s)) & np.uint32(0xFF)).astype(np.intp)
                     for s in range(4)], axis=1)


def shape_index(lengths: np.ndarray) -> np.ndarray:
    """``[n, 4]`` lengths 0..8 -> an index 0..6560 (base 9)."""
    return ((lengths[:, 0] * 9 + lengths[:, 1]) * 9 + lengths[:, 2]) * 9 + lengths[:, 3]


@functools.lru_cache(maxsize=256)
def shape_table(shapes: frozenset) -> np.ndarray:
    """``bool [6561]``: True at the :func:`shape_index` of every shape in ``shapes``."""
    t = np.zeros(9 ** 4, dtype=bool)
    for s in shapes:
        t[((s[0] * 9 + s[1]) * 9 + s[2]) * 9 + s[3]] = True
    return t


def compile_predicate(node: Node | None, long_runs_100: bool = False):
    """``node`` (a condition, or None: every deal) -> a function ``hands -> bool [n]`` over a
    ``uint32 [n, 4]`` array of card masks (N E S W).  ``long_runs_100``: the run values of
    ``roem`` (RULES.md rule 12's option)."""
    def evaluate(hands: np.ndarray) -> np.ndarray:
        hands = np.asarray(hands, dtype=np.uint32)
        n = len(hands)
        if node is None:
            return np.ones(n, dtype=bool)
        return np.asarray(_value(node, _Block(hands, long_runs_100), n, long_runs_100),
                          dtype=bool)
    return evaluate
