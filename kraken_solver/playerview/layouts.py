"""The layouts of the unseen cards consistent with what one seat knows (count, enumerate, sample).

A *layout* gives the unseen cards to the other three seats, each the number of cards it still
holds; here a layout is written as the four hands *as dealt* (what a seat holds now plus what
it played), a tuple of four 32-bit card masks N, E, S, W.  A layout is *consistent* when, with
those hands as dealt, every card played so far was legal (rules 8, 9, 9a, under the deal's
rules) and the hand roem (rules 12-17) equals the declared one.  Given an
:class:`~kraken_solver.playerview.observation.Observation`, the consistent layouts before the
roem test are exactly the ways to deal the unseen cards with each seat getting ``need[s]``
cards of its ``allowed[s]``.

Counting (:meth:`Layouts.count_plays`)
    The unseen cards fall into at most seven *types* by the set of seats that may hold them;
    the number of layouts is a sum over how many cards of each type each seat gets of products
    of multinomial coefficients, computed exactly (Python integers) by a small dynamic program
    over the types.  With hand roem on, the declared roem is a further test of each layout;
    :meth:`Layouts.count` enumerates to apply it (at most :data:`ENUM_CAP` layouts).

Sampling (:meth:`Layouts.draws`, :meth:`Layouts.sample`)
    A draw is constructed, not rejected: for each type in turn, how many of its cards each seat
    gets is drawn with probability proportional to the number of layouts that choice leaves
    (the counting program's suffix counts), then which cards, by a uniform permutation of the
    type's cards cut in seat order.  Every layout the plays allow is equally likely.  The
    declared roem is then checked and a draw that fails it is rejected (uniform over the
    consistent layouts).  Draw ``i`` comes from ``numpy.random.default_rng`` seeded with child
    ``i // 64`` of ``SeedSequence(seed)``, as the ``i % 64``-th draw of that generator (the
    scheme of :mod:`kraken_solver.dealing.seeded`), and the draws are made in the calling
    process: a sample never depends on the number of workers or on a cluster.  With every
    unseen card allowed to every seat that needs cards (no plays: ``kraken-advise``), a draw is
    one ``rng.permutation`` of the unseen cards (ascending) cut in seat order N, E, S, W.
"""

from __future__ import annotations

import math

import numpy as np

from ..dealing.seeded import GEN_BLOCK, block_rng, check_seed
from ..errors import KrakenError
from ..game.cards import SEATS, card_str, cards_of, is_int, popcount
from .observation import DeclaredRoemError, Observation, ObservationError, declared_roem

__all__ = ["Layouts", "ENUM_CAP", "MAX_DRAWS"]
#: the most layouts :meth:`Layouts.count` and :meth:`Layouts.enumerate` go through to apply the
#: declared roem (about 3 us a layout: a few seconds); the layouts the plays allow are counted
#: exactly however many they are
ENUM_CAP = 1_000_000
#: the most draws :meth:`Layouts.sample` makes to find its consistent layouts before it gives
#: up on a declared roem too rare among the layouts the plays allow
MAX_DRAWS = 1_000_000
#: draws after which a sampler gives up on a declared roem that none of them gave, or that
#: is so rare that the sample would take more than :data:`MAX_DRAWS` draws (about a second)
GIVE_UP_AFTER = 20_000
#: :meth:`Layouts.sample_rare`: candidates a block (drawn at once with NumPy), the most it
#: draws (a few seconds), and the first block number of its seeded stream (apart from
#: :meth:`Layouts.sample`'s blocks)
RARE_BLOCK = 1 << 15
RARE_MAX_DRAWS = 4_000_000
RARE_STREAM = 1 << 40


def _multinomial(n: int, parts) -> int:
    out, left = 1, n
    for k in parts:
        out *= math.comb(left, k)
        left -= k
    return out


def _compositions(m: int, caps):
    """Every way to split ``m`` cards among len(caps) seats, seat ``j`` at most caps[j]: none
    for cards that no seat may hold (no caps), one (the empty split) for no cards."""
    if not caps:
        if m == 0:
            yield ()
        return
    for k in range(min(m, caps[0]) + 1):
        for rest in _compositions(m - k, caps[1:]):
            yield (k,) + rest


class Layouts:
    """The layouts consistent with an :class:`Observation` (module docstring).

    A layout is a tuple of the four hands as dealt (32-bit masks N, E, S, W).  Methods:
    :meth:`count_plays` (exact count before the roem test), :meth:`count` and
    :meth:`enumerate` (the consistent ones, in a fixed order), :meth:`draws` (draws ``start ..
    stop-1`` of the seeded stream, roem not tested), :meth:`stream` (the consistent draws in
    order), :meth:`sample`, :meth:`is_consistent`.  Raises ObservationError at construction
    when no layout makes the plays legal (saying which seat cannot hold what)."""

    def __init__(self, obs: Observation):
        self.obs = obs
        self.seats = tuple(s for s in range(4) if obs.need[s] > 0)
        groups: dict = {}
        for c in cards_of(obs.unseen):
            key = tuple(s for s in self.seats if obs.allowed[s] >> c & 1)
            groups.setdefault(key, []).append(c)
        # a fixed order: by the seats that may hold the cards
        self.types = [(key, np.array(cs, dtype=np.int64)) for key, cs in sorted(groups.items())]
        self._type_lists = [cs.tolist() for _, cs in self.types]
        self._opts: dict = {}
        self._check_feasible()

    # -- counting
    def _count_from(self, t: int, needs: tuple) -> int:
        """Layouts of the types ``t..`` with ``needs`` (per seat 0..3) still to fill."""
        if t == len(self.types):
            return 1 if not any(needs) else 0
        return self._options(t, needs)[2]

    def count_plays(self) -> int:
        """The exact number of layouts that make every play legal (and hold the known cards),
        before the declared roem is tested."""
        return self._count_from(0, tuple(self.obs.need))

    def _check_feasible(self) -> None:
        if self.count_plays():
            return
        obs = self.obs
        # Hall's condition fails for some set of seats (or a card no seat may hold)
        seats = self.seats
        for r in range(1, len(seats) + 1):
            from itertools import combinations
            for group in combinations(seats, r):
                room = 0
                for s in group:
                    room |= obs.allowed[s]
                want = sum(obs.need[s] for s in group)
                if popcount(room) < want:
                    names = " and ".join(SEATS[s] for s in group)
                    why = "; ".join(f"{SEATS[s]}: " + ("; ".join(obs.reasons(s)) or
                                                       "no restriction") for s in group)
                    if r == len(seats):
                        lost = obs.unseen & ~room
                        raise ObservationError(
                            f"no layout is consistent with the play: no seat can hold "
                            f"{' '.join(card_str(c) for c in cards_of(lost))} ({why})")
                    raise ObservationError(
                        f"no layout is consistent with the play: {names} must still hold "
                        f"{want} unseen card{'s' if want != 1 else ''} but the play leaves "
                        f"{'it' if r == 1 else 'them'} only {popcount(room)} ({why})")
        raise ObservationError("no layout is consistent with the play")  # pragma: no cover

    def count(self) -> int:
        """The exact number of consistent layouts (the roem test included).  Raises
        KrakenError when the roem must be tested on more than :data:`ENUM_CAP` layouts."""
        if not self.obs.roem_test:
            return self.count_plays()
        if self.count_plays() > ENUM_CAP:
            raise KrakenError(f"too many layouts to count with the declared roem: "
                              f"{self.count_plays():,} (at most {ENUM_CAP:,})")
        return sum(1 for _ in self.enumerate())

    def is_consistent(self, hands) -> bool:
        """Whether ``hands`` (four masks as dealt) is a consistent layout: the observer's hand,
        every seat's played and known cards and the right number of cards, only allowed
        unseen cards, and the declared roem."""
        obs = self.obs
        if sum(int(h) for h in hands) != obs.cards or any(
                popcount(int(h)) != obs.size for h in hands):
            return False
        for s in range(4):
            h = int(hands[s])
            if h & obs.fixed[s] != obs.fixed[s]:
                return False
            if s != obs.seat and h & ~obs.fixed[s] & ~obs.allowed[s]:
                return False
        return self.roem_ok(hands)

    def roem_ok(self, hands) -> bool:
        """Whether ``hands`` (four masks as dealt) declare the declared hand roem (always
        True without a roem test)."""
        obs = self.obs
        if not obs.roem_test:
            return True
        return declared_roem(hands, obs.trump, obs.first, obs.rules) == obs.declared

    # -- enumerating
    def enumerate(self):
        """Every consistent layout once, in a fixed order (lexicographic in the cards of the
        seats that hold unseen cards, N E S W).  Generator of tuples of four masks."""
        obs = self.obs
        seats = self.seats
        fixed = obs.fixed
        allowed = obs.allowed
        need = obs.need

        def rec(i, rest, hands):
            s = seats[i]
            if i == len(seats) - 1:
                hands[s] = fixed[s] | rest
                yield tuple(hands)
                return
            others = 0
            for t in seats[i + 1:]:
                others |= allowed[t]
            must = rest & ~others
            if popcount(must) > need[s] or must & ~allowed[s]:
                return
            free = cards_of(rest & allowed[s] & ~must)
            from itertools import combinations
            for combo in combinations(free, need[s] - popcount(must)):
                mine = must
                for c in combo:
                    mine |= 1 << c
                hands[s] = fixed[s] | mine
                yield from rec(i + 1, rest & ~mine, hands)

        base = list(fixed)
        if not seats:                  # pragma: no cover - the deal is over
            return
        for hands in rec(0, obs.unseen, base):
            if self.roem_ok(hands):
                yield hands

    # -- drawing
    def _options(self, t: int, needs: tuple):
        """The ways type ``t`` can be split among its seats when ``needs`` are still to fill:
        ``(splits, cumulative weights, total)``, a split's weight the number of layouts it
        leaves (remembered: a stream meets few states)."""
        key = (t, needs)
        got = self._opts.get(key)
        if got is not None:
            return got
        seats, cards = self.types[t]
        splits, cum, total = [], [], 0
        for comp in _compositions(len(cards), [needs[s] for s in seats]):
            rest = list(needs)
            for s, k in zip(seats, comp):
                rest[s] -= k
            w = self._count_from(t + 1, tuple(rest))
            if w:
                total += _multinomial(len(cards), comp) * w
                splits.append((comp, tuple(rest), sum(1 for k in comp if k) > 1))
                cum.append(total)
        got = self._opts[key] = (splits, cum, total)
        return got

    def _draw(self, rng: np.random.Generator) -> tuple:
        needs = self.obs.need
        hands = list(self.obs.fixed)
        for t, (seats, cards) in enumerate(self.types):
            splits, cum, total = self._options(t, needs)
            if len(splits) == 1:
                comp, needs, shuffle = splits[0]
            else:
                r = int(rng.integers(0, total))
                k = 0
                while cum[k] <= r:
                    k += 1
                comp, needs, shuffle = splits[k]
            order = rng.permutation(cards).tolist() if shuffle else self._type_lists[t]
            at = 0
            for s, k in zip(seats, comp):
                m = 0
                for c in order[at:at + k]:
                    m |= 1 << c
                hands[s] |= m
                at += k
        return tuple(hands)

    def draws(self, seed, start: int, stop: int) -> list[tuple]:
        """Draws ``start .. stop-1`` of the seeded stream (module docstring): layouts that make
        the plays legal, uniform among them; the declared roem is not tested.  Raises
        KrakenError for a bad seed or range."""
        seed = check_seed(seed)
        if not is_int(start) or not is_int(stop) or start < 0 or stop < start:
            raise KrakenError("the draw range must be 0 <= start <= stop",
                              token=f"{start}:{stop}")
        out = []
        i = start
        while i < stop:
            block = i // GEN_BLOCK
            rng = block_rng(seed, block)
            end = min(stop, (block + 1) * GEN_BLOCK)
            for j in range(block * GEN_BLOCK, end):
                hands = self._draw(rng)
                if j >= i:
                    out.append(hands)
            i = end
        return out

    def all_draws(self, seed, max_draws: int = MAX_DRAWS):
        """Draws ``0 .. max_draws-1`` of the seeded stream, in order: generator of ``(draw
        number, layout)``, the roem not tested (:meth:`roem_ok` tests it)."""
        seed = check_seed(seed)
        block = 0
        while block * GEN_BLOCK < max_draws:
            rng = block_rng(seed, block)
            for j in range(block * GEN_BLOCK, min(max_draws, (block + 1) * GEN_BLOCK)):
                yield j, self._draw(rng)
            block += 1

    def stream(self, seed, max_draws: int = MAX_DRAWS):
        """The consistent draws of the seeded stream, in order: generator of
        ``(draw number, layout)`` (the roem test applied), at most ``max_draws`` draws."""
        for j, hands in self.all_draws(seed, max_draws):
            if self.roem_ok(hands):
                yield j, hands

    def sample(self, n: int, seed, max_draws: int = MAX_DRAWS) -> list[tuple]:
        """``n`` consistent layouts drawn independently and uniformly (with replacement): the
        first ``n`` consistent draws of the seeded stream.  Raises ObservationError when the
        declared roem is too rare to find ``n`` layouts giving it in ``max_draws`` draws
        (:meth:`hopeless` gives up at draw :data:`GIVE_UP_AFTER` when so)."""
        out = []
        draws = 0
        checkpoint = None
        for j, hands in self.all_draws(seed, max_draws):
            draws = j + 1
            if self.roem_ok(hands):
                out.append(hands)
                if len(out) == n:
                    return out
            if draws == GIVE_UP_AFTER:
                checkpoint = (len(out), draws)
                if self.hopeless(len(out), draws, n, max_draws):
                    break
        raise self.rare_roem_error(len(out), draws, n, max_draws, checkpoint)

    def sample_rare(self, n: int, seed, max_draws: int = RARE_MAX_DRAWS) -> list[tuple]:
        """``n`` consistent layouts, uniform and independent (with replacement), for a declared
        roem too rare for :meth:`sample`: candidates are drawn in blocks of
        :data:`RARE_BLOCK` with NumPy (the unseen cards shuffled and dealt to the hidden
        seats by their sizes: uniform), those the play rules out dropped, then the declared
        roem tested, first by a necessary test on arrays (each team's roem is either all the
        melds and stuks of its two hands, or only their stuks: RULES.md rules 12-17), then
        exactly (:meth:`roem_ok`).  The same seed gives the same layouts (a stream of its own,
        apart from :meth:`sample`'s).  Raises DeclaredRoemError when ``max_draws`` candidates
        give fewer than ``n``."""
        from ..dealing.evaluate import declared_roem as hand_roem_arrays
        obs = self.obs
        if not obs.roem_test:
            return self.sample(n, seed)
        seed = check_seed(seed)
        cards = np.array(cards_of(obs.unseen), dtype=np.int64)
        seats = self.seats
        bounds = np.cumsum([0] + [obs.need[s] for s in seats])
        bits = np.left_shift(np.int64(1), cards)
        kq = (1 << (8 * obs.trump + 5)) | (1 << (8 * obs.trump + 6))
        d = obs.first & 1
        want = {d: obs.declared[0], 1 - d: obs.declared[1]}
        out, draws, block = [], 0, 0
        while draws < max_draws:
            rng = block_rng(seed, RARE_STREAM + block)
            size = min(RARE_BLOCK, max_draws - draws)
            order = rng.random((size, len(cards))).argsort(axis=1)
            dealt = bits[order]
            hands = np.empty((size, 4), dtype=np.int64)
            ok = np.ones(size, dtype=bool)
            for s in range(4):
                hands[:, s] = obs.fixed[s]
            for i, s in enumerate(seats):
                h = dealt[:, bounds[i]:bounds[i + 1]].sum(axis=1)
                ok &= (h & ~np.int64(obs.allowed[s])) == 0
                hands[:, s] |= h
            rows = np.flatnonzero(ok)
            if len(rows):
                sub = hands[rows]
                total = np.stack([hand_roem_arrays(sub[:, s], obs.trump,
                                                   obs.rules.long_runs_100)
                                  for s in range(4)], axis=1).astype(np.int64)
                stuk = 20 * ((sub & kq) == kq)
                keep = np.ones(len(rows), dtype=bool)
                for team in (0, 1):
                    every = total[:, team] + total[:, team + 2]
                    stuks = stuk[:, team] + stuk[:, team + 2]
                    keep &= (every == want[team]) | (stuks == want[team])
                for r in sub[keep]:
                    layout = tuple(int(x) for x in r)
                    if self.roem_ok(layout):
                        out.append(layout)
                        if len(out) == n:
                            return out
            draws += size
            block += 1
        raise self.rare_roem_error(len(out), draws, n, max_draws, (len(out), draws))

    @staticmethod
    def hopeless(found: int, draws: int, needed: int, max_draws: int = MAX_DRAWS) -> bool:
        """Whether finding ``needed`` layouts that give the declared roem would take more than
        ``max_draws`` draws at the rate of ``found`` in ``draws`` (none found: always).  The
        samplers ask it once, at a fixed draw of the seeded stream (the checkpoint: draw
        :data:`GIVE_UP_AFTER`), so that the verdict for a seed and a sample size is one test."""
        return found == 0 or needed * draws > found * max_draws

    @staticmethod
    def most_samples(found: int, draws: int, max_draws: int = MAX_DRAWS,
                     checkpoint: tuple | None = None) -> int:
        """How many samples to suggest after ``found`` of ``draws`` draws gave the declared
        roem: a number the same seeded stream accepts.  ``checkpoint``: ``(found, draws)``
        where the sampler asked :meth:`hopeless`.  Every draw made (``draws == max_draws``):
        the ones found, at most the checkpoint's bound.  Stopped at the checkpoint: its bound
        less three standard errors of the rate (the draws still to come may give fewer), so
        that the stream is not expected to run out before."""
        if draws >= max_draws:
            most = found
            if checkpoint is not None and checkpoint[0]:
                most = min(most, checkpoint[0] * max_draws // checkpoint[1])
            return most
        bound = found * max_draws // draws
        margin = 3 * math.sqrt((1 - found / draws) / found) if found else 1.0
        return min(bound, int(bound * max(0.0, 1 - margin)))

    def rare_roem_error(self, found: int, draws: int, needed: int = 1,
                        max_draws: int = MAX_DRAWS,
                        checkpoint: tuple | None = None) -> DeclaredRoemError:
        """Why ``needed`` layouts giving the declared roem were not found in the draws: none
        was (impossible or too rare), or some were, at a rate that would take more than
        ``max_draws`` draws for ``needed`` of them (then: how many can be asked for,
        :meth:`most_samples`)."""
        obs = self.obs
        d_team = "N-S" if obs.first % 2 == 0 else "E-W"
        o_team = "E-W" if obs.first % 2 == 0 else "N-S"
        what = f"{d_team} {obs.declared[0]}, {o_team} {obs.declared[1]}"
        most = self.most_samples(found, draws, max_draws, checkpoint) if found else 0
        if not most:
            return DeclaredRoemError(
                f"no layout found that gives the declared hand roem ({what}) in {draws:,} "
                f"draws of the {self.count_plays():,} layouts the play allows: it is "
                "impossible or too rare to sample")
        return DeclaredRoemError(
            f"{needed:,} samples would take about {needed * draws / found:,.0f} draws "
            f"({found:,} of {draws:,} draws of the {self.count_plays():,} layouts the play "
            f"allows give the declared hand roem, {what}); at most {max_draws:,} are made: "
            f"ask for at most {most:,} samples")

    def roem_error(self) -> DeclaredRoemError:
        """The error for a declared roem that no layout gives."""
        obs = self.obs
        d_team = "N-S" if obs.first % 2 == 0 else "E-W"
        o_team = "E-W" if obs.first % 2 == 0 else "N-S"
        n = self.count_plays()
        return DeclaredRoemError(
            f"no layout gives the declared hand roem ({d_team} {obs.declared[0]}, {o_team} "
            f"{obs.declared[1]}): none of the {n:,} layout{'s' if n != 1 else ''} the play "
            "allows declares it")
