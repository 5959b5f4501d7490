"""Numba kernels: the compiled rules of play and the double-dummy alpha-beta search.

Only integers and NumPy arrays cross this boundary (no Python objects), so one compiled kernel
serves every rule variant (rule options are runtime integers).  Cards are 0..31
(``suit * 8 + natural rank``), card sets are 32-bit masks held in int64.  The Python layers
above (:mod:`kraken_solver.game.position`, :mod:`kraken_solver.engine.solver`) validate input
and wrap these.  Every function is ``@njit(cache=True)``.

Modules, lowest first: :mod:`.bits` (popcount, raw pointers, prefetch), :mod:`.moves` (card
points and power, legal cards, a trick's winner and roem), :mod:`.table` (the search's modes,
table keys and entries), :mod:`.bounds` (card points and roem still to fall), :mod:`.ordering`
(move ordering, equivalent cards), :mod:`.endgame` (what a trick adds, the last two tricks) and
:mod:`.search` (the search itself).

Numba's cache checks only the source file of the function it compiled, while a kernel carries
the code of every kernel it calls (inlined or linked in): after a change to ``moves.py`` the
cached ``search`` would be loaded as it was.  So this package keeps a digest of all its source
files beside the cache and drops the cached kernels when it changes
(:func:`drop_stale_caches`), before any kernel is loaded.
"""

from __future__ import annotations

import hashlib
import os

from numba import njit

#: the file beside Numba's cache files that records the digest of this folder's sources
STAMP_NAME = "kernel-sources.sha256"
#: the extensions of Numba's cache files (index and compiled code)
CACHE_EXTENSIONS = (".nbi", ".nbc")


def sources_digest(folder: str) -> str:
    """SHA-256 (hex) of the names and bytes of every ``*.py`` file of ``folder``, in name
    order."""
    h = hashlib.sha256()
    for name in sorted(os.listdir(folder)):
        if name.endswith(".py"):
            h.update(name.encode() + b"\0")
            with open(os.path.join(folder, name), "rb") as f:
                h.update(f.read())
            h.update(b"\0")
    return h.hexdigest()


def drop_stale_caches(folder: str, cache_dir: str) -> int:
    """Remove Numba's cache files of the kernels of ``folder`` from ``cache_dir`` when the
    digest of the folder's sources differs from the one recorded there (or none is), then
    record the new one.  Only files named after a module of ``folder``
    (``moves.legal_mask-40.py311.nbi``) are removed.  Returns how many were removed; a cache
    directory that cannot be read or written is left as it is (Numba then compiles in memory
    or uses another)."""
    digest = sources_digest(folder)
    stamp = os.path.join(cache_dir, STAMP_NAME)
    try:
        with open(stamp) as f:
            if f.read().strip() == digest:
                return 0
    except OSError:
        pass
    modules = tuple(name[:-3] + "." for name in os.listdir(folder) if name.endswith(".py"))
    removed = 0
    try:
        names = os.listdir(cache_dir)
    except OSError:
        names = []
    for name in names:
        if name.endswith(CACHE_EXTENSIONS) and name.startswith(modules):
            try:
                os.unlink(os.path.join(cache_dir, name))
                removed += 1
            except OSError:
                pass
    try:
        os.makedirs(cache_dir, exist_ok=True)
        tmp = f"{stamp}.{os.getpid()}.tmp"
        with open(tmp, "w") as f:
            f.write(digest + "\n")
        os.replace(tmp, stamp)
    except OSError:
        pass
    return removed


@njit(cache=True)
def _cache_probe():     # pragma: no cover - never called: it only tells where the cache is
    return 0


drop_stale_caches(os.path.dirname(os.path.abspath(__file__)), _cache_probe.stats.cache_path)
