"""The benchmark suites of ``kraken-bench``: fixed deal sets, the same on every machine.

A suite is a fixed set of full 8-card deals: ``random-N-seedS`` is N deals drawn with NumPy
from ``SeedSequence(S)`` (one child sequence per deal, :func:`random_deals`), or a deal file
(any path ending in ``.txt`` or ``.pbn``, e.g. the stored hard set
``benchmarks/suites/hard-25.txt``), whose deals are taken in file order.  :func:`checksum`
and :func:`deals_checksum` fingerprint the values and the deals, so two runs can be proven to
have solved the same deals to the same answers.
"""

from __future__ import annotations

import hashlib
import os
import re

import numpy as np

from ..errors import KrakenError
from ..game.deal import Deal

# ASCII digits, N below 10**9 and S of at most 20 digits (\d would also take '²' and the like)
SUITE_RE = re.compile(r"^random-([0-9]{1,9})-seed([0-9]{1,20})$")


def suite_name(suite: str) -> str:
    """The name a report gives ``suite``: ``random-N-seedS`` as is, a deal file by its stem."""
    if SUITE_RE.fullmatch(suite):
        return suite
    return os.path.splitext(os.path.basename(suite))[0]


def suite_deals(name: str, limit: int | None = None) -> list[Deal]:
    """The deals of a suite (see :func:`iter_suite`) as a list, for small suites."""
    return list(iter_suite(name, limit))


#: the endings of a suite that is a deal file (either form of deal file: RULES.md, README)
DEAL_FILE_SUFFIXES = (".txt", ".pbn")


def is_deal_file_suite(name: str) -> bool:
    """Is the suite ``name`` a deal file (it ends in ``.txt`` or ``.pbn``, in any case)?"""
    return isinstance(name, str) and name.lower().endswith(DEAL_FILE_SUFFIXES)


def iter_suite(name: str, limit: int | None = None):
    """The deals of a suite ``random-N-seedS`` (N >= 1) or of a deal file ``*.txt`` or
    ``*.pbn`` (full
    deals, no played cards), or their first ``limit`` deals: an iterator that makes each deal
    when it is needed (a suite of a billion deals costs nothing before its first solve; a
    deal file is streamed, :class:`~kraken_solver.notation.reader.DealReader`).  Raises KrakenError
    for another name at once, and the errors of the reader for a bad file (its first MiB at
    once, the rest as it is reached)."""
    if is_deal_file_suite(name):
        from ..notation.reader import DealReader
        reader = DealReader(name, check=_suite_deal)
        reader.check_ahead()
        return _first((spec.deal for spec in reader), limit)
    m = SUITE_RE.fullmatch(name)
    if not m or int(m.group(1)) < 1:
        raise KrakenError("a suite is random-N-seedS with 1 <= N < 10**9 and S a whole number "
                          "of at most 20 digits (e.g. random-100-seed1), or a deal file "
                          "NAME.txt or NAME.pbn", token=name)
    n, seed = int(m.group(1)), int(m.group(2))
    if limit is not None:
        n = min(n, limit)
    return iter_random_deals(n, seed)


def _first(it, limit):
    for i, x in enumerate(it):
        if limit is not None and i >= limit:
            return
        yield x


def _suite_deal(spec) -> None:
    if spec.played:
        raise KrakenError("a benchmark suite holds deals as dealt; this deal has "
                          "played cards", source=spec.source, line=spec.line)
    if spec.deal.size != 8:
        raise KrakenError("a benchmark suite holds full deals (8 cards a hand); this "
                          f"deal has {spec.deal.size}", source=spec.source, line=spec.line)


def random_deals(n: int, seed: int) -> list[Deal]:
    """``n`` full deals from ``SeedSequence(seed)``, one child sequence per deal (a list; see
    :func:`iter_random_deals`)."""
    return list(iter_random_deals(n, seed))


def iter_random_deals(n: int, seed: int):
    """The deals of :func:`random_deals` one at a time, each made when it is needed: child
    ``i`` is ``SeedSequence(seed, spawn_key=(i,))``, the same as
    ``SeedSequence(seed).spawn(n)[i]``, so nothing is made in proportion to ``n`` before the
    first deal."""
    for i in range(n):
        child = np.random.SeedSequence(seed, spawn_key=(i,))
        perm = np.random.default_rng(child).permutation(32)
        yield Deal(tuple(int(sum(1 << int(c) for c in perm[8 * k:8 * k + 8]))
                         for k in range(4)))


def deals_checksum(deals) -> str:
    """Short SHA-256 of the deals (PBN from N, space separated): which deals a suite holds."""
    h = _DealsChecksum()
    for d in deals:
        h.add(d)
    return h.hexdigest()


class _DealsChecksum:
    """:func:`deals_checksum` one deal at a time."""

    def __init__(self):
        self._h = hashlib.sha256()
        self._first = True

    def add(self, deal) -> None:
        self._h.update(((" " if not self._first else "") + str(deal)).encode())
        self._first = False

    def hexdigest(self) -> str:
        return self._h.hexdigest()[:16]


def checksum(values) -> str:
    """Short SHA-256 of a list of integer values."""
    return hashlib.sha256(",".join(str(int(v)) for v in values).encode()).hexdigest()[:16]
