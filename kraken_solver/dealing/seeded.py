"""Seeded, reproducible random deals: the deal stream of ``kraken-batch`` and ``kraken-bench``.

Deal ``i`` of seed ``S`` is the ``i % 64``-th permutation of the 32 cards drawn by
``numpy.random.default_rng`` from child sequence ``i // 64`` (``SeedSequence(S,
spawn_key=(i // 64,))``, the same as ``SeedSequence(S).spawn``'s child), cut into hands N, E,
S, W of eight cards.  So deal ``i`` depends on the seed and ``i`` only: not on the number of
deals, the chunk size, the number of workers, scheduling or resuming (:func:`generate_deals`).
The same blocks (:data:`GEN_BLOCK` draws a generator, :func:`block_rng`) serve the sampled
layouts of the player's-view tools (:mod:`kraken_solver.playerview.layouts`).
"""

from __future__ import annotations

import numpy as np

from ..errors import KrakenError
from ..game.cards import is_int
from ..game.deal import Deal

#: deals drawn from one child of the seed's SeedSequence (fixed: deals never depend on it)
GEN_BLOCK = 64


# ----------------------------------------------------------------------------- deals
def _deal_from_perm(perm) -> Deal:
    return Deal(tuple(int(sum(1 << int(c) for c in perm[8 * k:8 * k + 8])) for k in range(4)))


def generate_deals(seed: int, start: int, stop: int) -> list[Deal]:
    """Full deals ``start .. stop-1`` of the seeded sequence (see the module docstring).

    Deal ``i`` is drawn from child ``i // GEN_BLOCK`` of ``SeedSequence(seed)``, as the
    ``i % GEN_BLOCK``-th permutation of the 32 cards by ``numpy.random.default_rng``; hands
    N, E, S, W take the permutation's cards 0-7, 8-15, 16-23, 24-31.  Raises KrakenError for a
    negative seed or range."""
    if seed is None or int(seed) < 0 or start < 0 or stop < start:
        raise KrakenError("the seed and the deal range must be >= 0",
                          token=f"{seed} {start}:{stop}")
    return [_deal_from_perm(perm) for perm in seeded_permutations(seed, 32, start, stop)]


def seeded_permutations(seed: int, pool, start: int, stop: int):
    """Permutations ``start .. stop-1`` of ``pool`` (an int n for 0..n-1, or an array): number
    ``i`` is the ``i % GEN_BLOCK``-th draw of ``numpy.random.default_rng`` seeded with child
    ``i // GEN_BLOCK`` of ``SeedSequence(seed)``, so it does not depend on ``start``."""
    i = start
    while i < stop:
        block = i // GEN_BLOCK
        rng = np.random.default_rng(np.random.SeedSequence(int(seed), spawn_key=(block,)))
        end = min(stop, (block + 1) * GEN_BLOCK)
        for j in range(block * GEN_BLOCK, end):
            perm = rng.permutation(pool)
            if j >= i:
                yield perm
        i = end


def block_rng(seed, block: int) -> np.random.Generator:
    """The generator of draws ``64 * block`` .. ``64 * block + 63``: ``default_rng`` of child
    ``block`` of ``SeedSequence(seed)`` (an int >= 0, or a SeedSequence whose children are
    taken)."""
    if isinstance(seed, np.random.SeedSequence):
        ss = np.random.SeedSequence(seed.entropy, spawn_key=tuple(seed.spawn_key) + (block,))
    else:
        ss = np.random.SeedSequence(int(seed), spawn_key=(block,))
    return np.random.default_rng(ss)


def check_seed(seed):
    """``seed`` if it is a whole number >= 0 (or a SeedSequence).  Raises KrakenError."""
    if isinstance(seed, np.random.SeedSequence):
        return seed
    if not is_int(seed) or seed < 0:
        raise KrakenError("the seed must be a whole number >= 0", token=repr(seed))
    return int(seed)
