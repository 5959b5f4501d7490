"""Deals that meet a condition: predeal first, the rest dealt uniformly, tested in blocks.

:class:`Condition` holds a parsed predicate (:mod:`kraken_solver.dealing.predicate`) and a
predeal (:mod:`kraken_solver.dealing.predeal`), checked before any dealing:

1. The predicate is simplified with what the predeal fixes and with the range of every count
   (``hearts(S) >= 9`` is false, ``has(S, HJ)`` is true when HJ is predealt to S).  A
   condition that comes out false, or whose top-level ``and`` asks for the impossible (a card
   in two seats, lengths that add up to more than 8 in a hand or in a suit, a hand over full),
   is refused at once: :class:`~kraken_solver.errors.ImpossibleConditionError`.
2. Smart stacking (as redeal's): a top-level ``has(SEAT, cards)`` becomes predeal; where the
   top-level ``and`` fixes suit lengths of a seat (``hearts(S) == 4``, ``void(S, C)``,
   ``shape(S, 4-2-1-1)``), that seat's hand is dealt constructively: the fixed number of each
   such suit, the rest of the hand from the other suits, each uniformly.  The deals so drawn
   are uniform among the deals that meet the predeal and those lengths, and every one of the
   condition's deals is among them: testing the whole predicate on them keeps the result
   uniform among the deals that meet the condition.
3. Deals ``64 b .. 64 b + 63`` (block ``b``) are the first 64 candidates that meet the
   predicate among those drawn, in rounds, by ``default_rng(SeedSequence(seed,
   spawn_key=(b,)))`` (:func:`~kraken_solver.dealing.seeded.block_rng`); each round is one
   array of candidates (random permutations of the cards not predealt, cut into the seats'
   free places) tested by one call of the compiled predicate.  A round's size depends only on
   what the block's earlier rounds found, so deal ``i`` depends on the seed, ``i`` and the
   condition only: not on the number of deals, workers, chunks or resuming.
4. A block that has tested ``max_tries`` candidates without finding its deals stops with one
   line giving the acceptance rate found, or its 95% upper bound when nothing was found.
"""

from __future__ import annotations

import functools
import math
import os
import stat
from dataclasses import dataclass

import numpy as np

from ..errors import ImpossibleConditionError, KrakenError, PredicateError
from ..game.cards import (FULL_DECK, SEATS, SUIT_MASK, SUITS, card_str, cards_of, is_int,
                          popcount)
from ..game.deal import Deal
from ..limits import DEFAULT_DEAL_TRIES, MAX_CONDITION_CHARS, MAX_DEAL_TRIES
from .evaluate import compile_predicate, is_length
from .predeal import parse_predeal, predeal_text
from .predicate import (MAX_PREDICATE_CHARS, RANK_FUNCTIONS, Node, canonical, const,
                        parse_predicate, parse_program)
from .seeded import GEN_BLOCK, block_rng, check_seed

#: deals of one block (one SeedSequence child): the batch's and the layouts' block
DEALS_PER_BLOCK = GEN_BLOCK
#: the default bound on the candidates one block of deals may test
DEFAULT_MAX_TRIES = DEFAULT_DEAL_TRIES
#: the size of a block's first round of candidates, and the most one round draws
FIRST_ROUND, MAX_ROUND = 64, 1 << 16
#: the largest file of definitions read by ``--where @FILE``
MAX_CONDITION_FILE_BYTES = 1 << 20
_ONE = np.uint32(1) << np.arange(32, dtype=np.uint32)


@dataclass
class DealingStats:
    """Candidates ``tested`` and ``accepted`` (they met the predicate), over ``blocks``."""
    tested: int = 0
    accepted: int = 0
    blocks: int = 0

    @property
    def rate(self) -> float | None:
        """accepted / tested, or None before any test."""
        return self.accepted / self.tested if self.tested else None

    def line(self) -> str:
        """One line for ``--stats``: the counts and the acceptance rate."""
        if not self.tested:
            return "no candidate tested"
        one_in = self.tested / max(1, self.accepted)
        return (f"{self.tested:,} candidate deals tested, {self.accepted:,} accepted: "
                f"acceptance rate {self.rate:.4g} (1 in {one_in:,.1f})")


# ----------------------------------------------------------------------------- reading
#: the most characters of a condition an error quotes (one written out from definitions can
#: be 100,000 long)
QUOTED_CONDITION_CHARS = 200

def read_where(where, source: str | None = None, *,
               max_chars: int = MAX_PREDICATE_CHARS) -> Node | None:
    """A condition from ``where``: None (every deal), a :class:`Node`, condition
    text, or ``@FILE`` (a file of definitions and one condition,
    :func:`~kraken_solver.dealing.predicate.parse_program`).  Raises PredicateError."""
    if where is None or isinstance(where, Node):
        return where
    if not isinstance(where, str):
        raise PredicateError("a condition is text, like 'hearts(S) >= 4'", token=repr(where))
    if not where.strip():
        raise PredicateError("the condition is empty: expected a condition like "
                             "'hearts(S) >= 4'", source=source, column=1)
    if where.lstrip().startswith("@"):
        path = where.lstrip()[1:]
        if not path:
            raise PredicateError("@ names a file of definitions: --where @conditions.txt",
                                 column=1, token=where)
        try:
            # O_NONBLOCK: a FIFO (or another device) must not block the open; only a
            # regular file is read
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
            with os.fdopen(fd, "rb") as f:
                if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                    raise PredicateError("the file of conditions is not a regular file (a "
                                         "folder, a FIFO or a device)", source=path)
                data = f.read(MAX_CONDITION_FILE_BYTES + 1)
        except OSError as e:
            raise PredicateError(f"cannot read the file of conditions: {e.strerror or e}",
                                 source=path) from None
        if len(data) > MAX_CONDITION_FILE_BYTES:
            raise PredicateError(f"the file of conditions is larger than "
                                 f"{MAX_CONDITION_FILE_BYTES // 1024} KiB", source=path)
        try:
            text = data.decode("utf-8-sig")     # a byte order mark (Notepad) is no text
        except UnicodeDecodeError as e:
            raise PredicateError(f"the file of conditions is not UTF-8 text (byte {e.start})",
                                 source=path) from None
        return parse_program(text, source=os.fspath(path))
    return parse_predicate(where, source=source, max_chars=max_chars)


# ----------------------------------------------------------------------------- analysis
def _suit_count(mask: int, suit: int) -> int:
    return popcount(mask & SUIT_MASK[suit])


def _range(node: Node, predeal: tuple) -> tuple[int, int]:
    """The least and the most an int node can be, given the predeal."""
    k = node.kind
    if k == "const":
        return node.value, node.value
    if k == "arith":
        return _sum_range(node, predeal)
    seats = node.seats
    mine = 0
    for s in seats:
        mine |= predeal[s]
    others = 0
    for s in range(4):
        if s not in seats:
            others |= predeal[s]
    size = 8 * len(seats)
    free = size - popcount(mine)
    group = _group(node)
    if group is not None:
        held = popcount(mine & group)
        loose = popcount(group & ~others & ~mine)       # not predealt anywhere
        room_elsewhere = 8 * (4 - len(seats)) - popcount(others)
        return held + max(0, loose - room_elsewhere), min(held + free, held + loose)
    if node.name == "longest":
        return 2, 8
    if node.name == "shortest":
        return 0, 2
    if node.name == "points":
        return 0, 152
    return 0, 400 * len(seats)         # roem: two fours (300), or a run and stuk, per hand


def _group(node: Node) -> int | None:
    """The cards a counting node counts (a suit, a rank, a list), or None."""
    if node.kind != "func":
        return None
    if is_length(node):
        return SUIT_MASK[node.suit]
    if node.name == "count":
        return node.cards
    if node.name in RANK_FUNCTIONS:
        return 0x01010101 << RANK_FUNCTIONS[node.name]
    return None


def _sum_range(node: Node, predeal: tuple) -> tuple[int, int]:
    """The range of a chain of ``+`` and ``-``: the terms added, and those taken away, that
    count the same cards in other seats count them once together (``hearts(S) + hearts(N)``
    is at most 8, as ``hearts(NS)``)."""
    signed = {"+": [], "-": []}
    stack = [(node, "+")]
    while stack:
        n, sign = stack.pop()
        if n.kind == "arith":
            stack.extend((a, sign if s == "+" else {"+": "-", "-": "+"}[sign])
                         for a, s in zip(n.args, "+" + n.op))
        else:
            signed[sign].append(n)
    (a, b), (c, d) = (_terms_range(signed[s], predeal) for s in "+-")
    return a - d, b - c


def _terms_range(terms: list, predeal: tuple) -> tuple[int, int]:
    """The range of the sum of ``terms`` (not chains)."""
    merged: dict = {}
    lo = hi = 0
    for t in terms:
        g = _group(t)
        seats = merged.get(g, ())
        if g is not None and not set(seats) & set(t.seats):
            merged[g] = seats + t.seats
            continue
        a, b = _range(t, predeal)
        lo, hi = lo + a, hi + b
    for g, seats in merged.items():
        a, b = _range(Node("func", "int", name="count", seats=tuple(sorted(seats)), cards=g),
                      predeal)
        lo, hi = lo + a, hi + b
    return lo, hi


def _decide(op: str, left: tuple, right: tuple):
    (a, b), (c, d) = left, right
    sure = {"<": (b < c, a >= d), "<=": (b <= c, a > d), ">": (a > d, b <= c),
            ">=": (a >= d, b < c), "==": (a == b == c == d, b < c or a > d),
            "!=": (b < c or a > d, a == b == c == d)}[op]
    return True if sure[0] else (False if sure[1] else None)


def simplify(node: Node | None, predeal: tuple) -> Node | None:
    """``node`` with what the predeal and the ranges of counts decide replaced by true or
    false (:func:`_range`); None stays None."""
    if node is None:
        return None
    k = node.kind
    if k == "compare":
        left, right = (simplify(a, predeal) for a in node.args)
        v = _decide(node.op, _range(left, predeal), _range(right, predeal))
        return const(v, node.column) if v is not None else \
            Node("compare", "bool", op=node.op, args=(left, right), column=node.column)
    if k == "arith":
        return Node("arith", "int", op=node.op, column=node.column,
                    args=tuple(simplify(a, predeal) for a in node.args))
    if k == "not":
        a = simplify(node.args[0], predeal)
        return const(not a.value, node.column) if a.kind == "const" else \
            Node("not", "bool", args=(a,), column=node.column)
    if k in ("and", "or"):
        stop = k == "or"                 # the value that decides: true for or, false for and
        args = []
        for a in node.args:
            a = simplify(a, predeal)
            if a.kind == "const":
                if a.value == stop:
                    return const(stop, node.column)
                continue
            args.extend(a.args if a.kind == k else (a,))
        if not args:
            return const(not stop, node.column)
        return args[0] if len(args) == 1 else Node(k, "bool", args=tuple(args),
                                                   column=node.column)
    if k == "func" and node.type == "bool":
        mine = 0
        for s in node.seats:
            mine |= predeal[s]
        others = sum(predeal) & ~mine
        if node.name == "has":
            if node.cards & others or popcount(node.cards | mine) > 8 * len(node.seats):
                return const(False, node.column)
            if node.cards & ~mine == 0:
                return const(True, node.column)
        if node.name == "void" and node.suit is not None and mine & SUIT_MASK[node.suit]:
            return const(False, node.column)
        if node.name == "shape" and not node.shapes:
            return const(False, node.column)
    return node


def _conjuncts(node: Node | None) -> list:
    if node is None:
        return []
    return list(node.args) if node.kind == "and" else [node]


def _impossible(why: str) -> ImpossibleConditionError:
    return ImpossibleConditionError(f"no deal can meet the condition and the predeal: {why}")


def _length_bounds(node: Node, lo, hi) -> None:
    """Tighten ``lo``/``hi`` [seat][suit] with one top-level conjunct (what it makes sure)."""
    if node.kind == "func" and len(node.seats) == 1:
        s = node.seats[0]
        if node.name == "void" and node.suit is not None:
            hi[s][node.suit] = 0
        elif node.name == "has":
            for t in range(4):
                lo[s][t] = max(lo[s][t], _suit_count(node.cards, t))
        elif node.name == "shape":
            for t in range(4):
                lo[s][t] = max(lo[s][t], min(x[t] for x in node.shapes))
                hi[s][t] = min(hi[s][t], max(x[t] for x in node.shapes))
        return
    if node.kind != "compare":
        return
    left, right = node.args
    op = node.op
    if left.kind == "const" and is_length(right):
        left, right = right, left
        op = {"<": ">", ">": "<", "<=": ">=", ">=": "<="}.get(op, op)
    if not (is_length(left) and len(left.seats) == 1 and right.kind == "const"):
        return
    s, t, v = left.seats[0], left.suit, right.value
    if op in ("==", ">="):
        lo[s][t] = max(lo[s][t], v)
    if op == ">":
        lo[s][t] = max(lo[s][t], v + 1)
    if op in ("==", "<="):
        hi[s][t] = min(hi[s][t], v)
    if op == "<":
        hi[s][t] = min(hi[s][t], v - 1)


def _check_lengths(lo, hi) -> None:
    for s in range(4):
        for t in range(4):
            if lo[s][t] > hi[s][t]:
                raise _impossible(f"{SEATS[s]} would hold at least {lo[s][t]} and at most "
                                  f"{hi[s][t]} cards of {SUITS[t]}")
        if sum(lo[s]) > 8:
            raise _impossible(f"{SEATS[s]} would hold at least {sum(lo[s])} cards (S H D C at "
                              f"least {' '.join(map(str, lo[s]))}); a hand holds 8")
        if sum(hi[s]) < 8:
            raise _impossible(f"{SEATS[s]} would hold at most {sum(hi[s])} cards (S H D C at "
                              f"most {' '.join(map(str, hi[s]))}); a hand holds 8")
    for t in range(4):
        need = sum(lo[s][t] for s in range(4))
        room = sum(hi[s][t] for s in range(4))
        if need > 8:
            raise _impossible(f"the seats would hold at least {need} cards of {SUITS[t]}; a "
                              "suit has 8")
        if room < 8:
            raise _impossible(f"the seats would hold at most {room} cards of {SUITS[t]}; a "
                              "suit has 8, each in some hand")


# ----------------------------------------------------------------------------- the condition
class Condition:
    """A predicate and a predeal, checked, simplified and compiled (see the module docstring).

    ``where``: condition text, ``@FILE``, a parsed Node, or None (every deal); ``predeal``:
    as :func:`~kraken_solver.dealing.predeal.parse_predeal`; ``long_runs_100``: RULES.md rule
    12's option for ``roem``.  Attributes: ``where`` (the canonical text of the condition as
    given, ``""`` for none), ``predeal`` (four masks as given), ``stacked`` (the masks dealt
    first: predeal plus the top-level ``has``), ``constructive`` (None, or (seat, {suit:
    length}) dealt constructively).  Raises PredicateError, PredealError,
    ImpossibleConditionError."""

    def __init__(self, where=None, predeal=None, *, long_runs_100: bool = False):
        node = read_where(where)
        self.where = canonical(node) if node is not None else ""
        self.predeal = parse_predeal(predeal)
        self.long_runs_100 = bool(long_runs_100)
        node = simplify(node, self.predeal)
        if node is not None and node.kind == "const":
            if not node.value:
                raise _impossible(f"{self.where} is false for every deal"
                                  + (" with this predeal" if any(self.predeal) else ""))
            node = None
        self.node = node
        self.stacked = self._stack(_conjuncts(node))
        self.constructive = self._constructive(_conjuncts(node))
        self._meets = compile_predicate(node, self.long_runs_100)
        # what is left to test once the stacked cards are dealt first (has(S, ...) is true
        # in every candidate then: "S holds the four jacks" tests nothing)
        rest = simplify(node, self.stacked)
        if rest is not None and rest.kind == "const":
            if not rest.value:
                raise _impossible(f"{self.where} is false for every deal that holds "
                                  f"{predeal_text(self.stacked)}")
            rest = None
        self._test = compile_predicate(rest, self.long_runs_100)
        self._prepare()

    # --- checks and stacking
    def _stack(self, conjuncts) -> tuple:
        hands = list(self.predeal)
        for c in conjuncts:
            if c.kind == "func" and c.name == "has" and len(c.seats) == 1:
                s = c.seats[0]
                for card in cards_of(c.cards):
                    other = next((o for o in range(4) if o != s and hands[o] >> card & 1), None)
                    if other is not None:
                        raise _impossible(f"{card_str(card)} would be in both "
                                          f"{SEATS[other]}'s and {SEATS[s]}'s hands")
                hands[s] |= c.cards
                if popcount(hands[s]) > 8:
                    raise _impossible(f"{SEATS[s]} would hold {popcount(hands[s])} given "
                                      "cards; a hand holds 8")
        return tuple(hands)

    def _constructive(self, conjuncts):
        lo = [[_suit_count(self.stacked[s], t) for t in range(4)] for s in range(4)]
        hi = [[8 - sum(_suit_count(self.stacked[o], t) for o in range(4) if o != s)
               for t in range(4)] for s in range(4)]
        for s in range(4):
            for t in range(4):
                hi[s][t] = min(hi[s][t], 8 - (popcount(self.stacked[s]) - lo[s][t]))
        before = [row[:] for row in lo], [row[:] for row in hi]
        for c in conjuncts:
            _length_bounds(c, lo, hi)
        _check_lengths(lo, hi)
        best = None
        for s in range(4):
            # the lengths the condition fixes (not those the predeal fixed already)
            fixed = {t: lo[s][t] for t in range(4) if lo[s][t] == hi[s][t]
                     and (lo[s][t], hi[s][t]) != (before[0][s][t], before[1][s][t])}
            if fixed and (best is None or len(fixed) > len(best[1])):
                best = (s, fixed)
        return best

    def _prepare(self) -> None:
        dealt = 0
        for h in self.stacked:
            dealt |= h
        self._base = np.array(self.stacked, dtype=np.uint32)
        self._need = [8 - popcount(h) for h in self.stacked]
        rest = FULL_DECK & ~dealt
        self._rest = np.array(cards_of(rest), dtype=np.int8)
        if self.constructive is None:
            return
        s, fixed = self.constructive
        self._fixed = []
        taken = 0
        for t, n in sorted(fixed.items()):
            cards = np.array(cards_of(rest & SUIT_MASK[t]), dtype=np.int8)
            take = n - _suit_count(self.stacked[s], t)
            self._fixed.append((cards, take))
            taken += take
        other = rest & ~sum(SUIT_MASK[t] for t in fixed)
        self._other = (np.array(cards_of(other), dtype=np.int8), self._need[s] - taken)
        for cards, take in self._fixed + [self._other]:
            if not 0 <= take <= len(cards):     # _check_lengths has made sure of it
                raise _impossible(f"{SEATS[s]}'s lengths cannot be dealt")

    # --- dealing
    def test(self, hands: np.ndarray) -> np.ndarray:
        """``bool [n]``: which of the ``uint32 [n, 4]`` deals meet the predicate (the predeal
        is not tested: the generator places it)."""
        return self._meets(hands)

    def meets(self, deal) -> bool:
        """Does ``deal`` (a Deal or four masks) hold the predeal and meet the predicate?"""
        hands = tuple(deal.hands) if isinstance(deal, Deal) else tuple(deal)
        if any(h & p != p for h, p in zip(hands, self.predeal)):
            return False
        return bool(self._meets(np.array([hands], dtype=np.uint32))[0])

    def draw(self, rng: np.random.Generator, m: int) -> np.ndarray:
        """``uint32 [m, 4]``: ``m`` candidates, uniform among the deals that hold the stacked
        cards (and, dealt constructively, the fixed lengths), drawn from ``rng``."""
        hands = np.empty((m, 4), dtype=np.uint32)
        hands[:] = self._base
        seats = [s for s in range(4) if self._need[s]]
        if self.constructive is None:
            pool = rng.permuted(np.tile(self._rest, (m, 1)), axis=1)
        else:
            c = self.constructive[0]
            mine, rest = [], []
            for cards, take in self._fixed + [self._other]:
                p = rng.permuted(np.tile(cards, (m, 1)), axis=1)
                mine.append(p[:, :take])
                rest.append(p[:, take:])
            hands[:, c] |= np.bitwise_or.reduce(_ONE[np.concatenate(mine, axis=1)], axis=1)
            pool = rng.permuted(np.concatenate(rest, axis=1), axis=1)
            seats = [s for s in seats if s != c]
        if seats:
            # each seat's free places, in seat order: one reduceat for them all
            starts = np.cumsum([0] + [self._need[s] for s in seats[:-1]])
            hands[:, seats] |= np.bitwise_or.reduceat(_ONE[pool], starts, axis=1)
        return hands

    def block(self, seed, b: int, need: int = DEALS_PER_BLOCK, *,
              max_tries: int = DEFAULT_MAX_TRIES, stats: DealingStats | None = None):
        """``uint32 [need, 4]``: the first ``need`` (<= 64) deals of block ``b`` of ``seed``.
        Raises ImpossibleConditionError after ``max_tries`` candidates without them."""
        rng = block_rng(seed, b)
        found, count, tested, m = [], 0, 0, FIRST_ROUND
        while count < need:
            if tested >= max_tries:
                raise self._too_rare(tested, count, need, max_tries)
            hands = self.draw(rng, m)
            ok = self._test(hands)
            hit = int(np.count_nonzero(ok))
            tested += m
            if hit:
                found.append(hands[ok])
                count += hit
            # the next round's size: from this block's own results only (never from need)
            p = (count + 1) / (tested + 2)
            m = int(min(MAX_ROUND, max(FIRST_ROUND,
                                       math.ceil(max(0, DEALS_PER_BLOCK - count) / p * 1.1))))
        if stats is not None:
            stats.tested += tested
            stats.accepted += count
            stats.blocks += 1
        return np.concatenate(found)[:need]

    def _too_rare(self, tested, count, need, max_tries) -> ImpossibleConditionError:
        what = f"{self.where or 'the predeal'}"
        if len(what) > QUOTED_CONDITION_CHARS:      # a condition of definitions written out
            what = (f"{what[:QUOTED_CONDITION_CHARS]}... ({len(what):,} characters in "
                    "all)")
        if count == 0:
            bound = 1 - 0.05 ** (1 / tested)
            return ImpossibleConditionError(
                f"no deal met the condition in {tested:,} candidates ({what}): its acceptance "
                f"rate is below {bound:.2g} (95% confidence); raise --max-tries (now "
                f"{max_tries:,}) or loosen the condition")
        return ImpossibleConditionError(
            f"only {count} of {need} deals met the condition in {tested:,} candidates "
            f"({what}): acceptance rate about {count / tested:.2g}; raise --max-tries (now "
            f"{max_tries:,}, the candidates of one block of {DEALS_PER_BLOCK} deals)")

    def hands(self, seed, start: int, stop: int, *, max_tries: int = DEFAULT_MAX_TRIES,
              stats: DealingStats | None = None) -> np.ndarray:
        """``uint32 [stop - start, 4]``: deals ``start .. stop-1`` of ``seed``."""
        out = []
        for b in range(start // DEALS_PER_BLOCK, -(-stop // DEALS_PER_BLOCK)):
            lo = b * DEALS_PER_BLOCK
            got = self.block(seed, b, min(DEALS_PER_BLOCK, stop - lo), max_tries=max_tries,
                             stats=stats)
            out.append(got[max(0, start - lo):])
        return np.concatenate(out) if out else np.zeros((0, 4), dtype=np.uint32)

    def deals(self, seed, start: int, stop: int, **kw) -> list[Deal]:
        """Deals ``start .. stop-1`` of ``seed`` as :class:`~kraken_solver.game.deal.Deal`."""
        return [Deal(tuple(int(x) for x in row)) for row in self.hands(seed, start, stop, **kw)]

    def to_dict(self) -> dict:
        """What is recorded (a batch's metadata; compared on resume)."""
        return {"where": self.where, "predeal": predeal_text(self.predeal)}

    def describe(self) -> str:
        """One line: the condition, the predeal, what is dealt first and constructively."""
        parts = [f"where {self.where}" if self.where else "every deal"]
        if any(self.predeal):
            parts.append(f"predeal {predeal_text(self.predeal)}")
        if self.stacked != self.predeal:
            parts.append(f"dealt first {predeal_text(self.stacked)}")
        if self.constructive is not None:
            s, fixed = self.constructive
            parts.append(f"{SEATS[s]}'s " + " ".join(f"{SUITS[t]}={n}"
                                                       for t, n in sorted(fixed.items()))
                         + " dealt constructively")
        return "; ".join(parts)


@functools.lru_cache(maxsize=16)
def condition_for(where: str | None, predeal: str | None) -> Condition:
    """The :class:`Condition` of canonical ``where`` and ``predeal`` texts, made once in a
    process (a batch's workers make the deals of chunk after chunk).  A canonical text may be
    longer than a line typed: up to :data:`~kraken_solver.limits.MAX_CONDITION_CHARS` (a file
    of definitions written out)."""
    node = None if where is None or where.lstrip().startswith("@") else \
        read_where(where, max_chars=MAX_CONDITION_CHARS)
    return Condition(node if node is not None else where, predeal)


def check_max_tries(max_tries) -> int:
    """``max_tries`` if a whole number 1..MAX_DEAL_TRIES.  Raises KrakenError."""
    if not is_int(max_tries) or not 1 <= max_tries <= MAX_DEAL_TRIES:
        raise KrakenError(f"the most candidates to try must be a whole number from 1 to "
                          f"{MAX_DEAL_TRIES:,}", token=repr(max_tries))
    return int(max_tries)


def deal_where(predicate=None, predeal=None, n: int = 1, seed: int = 1, *, start: int = 0,
               max_tries: int = DEFAULT_MAX_TRIES, stats: DealingStats | None = None,
               long_runs_100: bool = False) -> list[Deal]:
    """Deals ``start .. start+n-1`` of ``seed`` among those that meet ``predicate`` and hold
    ``predeal``, uniformly at random (see the module docstring).

    ``predicate``: condition text (``"hearts(S) >= 4 and has(S, HJ)"``), ``"@FILE"``, None,
    or a :class:`Condition` (made once for many calls; ``predeal`` is then its own);
    ``predeal``: ``"S:HJ H9 HA"``, ``"S:AJ9.K7.T8.A"``, a list of such, or four masks;
    ``n``: 0..10**9 deals; ``seed``: a whole number >= 0; ``max_tries``: the most candidates
    one block of 64 deals tests; ``stats``: a :class:`DealingStats` to add the counts to.
    Returns a list of :class:`~kraken_solver.game.deal.Deal` (8 cards a hand).  Raises
    PredicateError (column, what was expected), PredealError, ImpossibleConditionError,
    KrakenError for a bad ``n``, ``seed`` or ``max_tries``."""
    from ..limits import MAX_BATCH_DEALS
    if not is_int(n) or not 0 <= n <= MAX_BATCH_DEALS or not is_int(start) or start < 0:
        raise KrakenError(f"the number of deals must be a whole number from 0 to "
                          f"{MAX_BATCH_DEALS:,} (and start >= 0)", token=repr(n))
    seed = check_seed(seed)
    cond = predicate if isinstance(predicate, Condition) else \
        Condition(predicate, predeal, long_runs_100=long_runs_100)
    return cond.deals(seed, int(start), int(start) + int(n), max_tries=check_max_tries(max_tries),
                      stats=stats)
