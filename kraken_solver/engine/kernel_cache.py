"""Knowing when the search kernels are compiled rather than loaded from Numba's cache.

The kernels (:mod:`kraken_solver.kernels`) are ``@njit(cache=True)``: the first run on a machine (or
after an upgrade) compiles them, which takes about 60 to 90 s and about 700 MB (a 2-core
machine under load); later runs load the compiled code from Numba's on-disk cache in about a
second. A command should say so before a minute or more of silence, and only then.

The honest signal is Numba's own: its dispatcher first tries the disk cache and only when
that misses broadcasts the ``"numba:compile"`` event (``numba.core.event``, Numba's
documented event API) and compiles.  :func:`compile_notice` listens for that event, so its
message appears exactly when a compile starts, before any time is spent in it; a cache hit
raises no event and prints nothing.  :func:`load_kernels` loads (or compiles) every kernel the
commands call, with the notice, and says which it was.
"""

from __future__ import annotations

import contextlib
import time

__all__ = ["FIRST_RUN_MESSAGE", "compile_notice", "load_kernels", "KernelLoad"]

#: what a command prints on stderr when a compile starts
FIRST_RUN_MESSAGE = ("first run: compiling the search kernels, about a minute (once: they are "
                     "cached on disk, so later runs start in about a second)")


class _Listener:
    """A ``numba.core.event.Listener`` that calls ``notify()`` at the start of the first
    compile it hears and counts the compiles (nested ones included)."""

    def __init__(self, notify):
        from numba.core import event
        self._base = event.Listener
        self.notify = notify
        self.compiles = 0
        self.told = False

    def make(self):
        outer = self

        class Listener(self._base):
            def on_start(self, event):
                outer.compiles += 1
                if not outer.told:
                    outer.told = True
                    outer.notify()

            def on_end(self, event):
                pass
        return Listener()


@contextlib.contextmanager
def compile_notice(notify):
    """Within the ``with`` block, call ``notify()`` once, at the moment Numba starts to
    compile a function (any function: a cache miss), before the compile's time is spent.
    Yields an object whose ``compiles`` counts the compiles started in the block and whose
    ``told`` says whether ``notify`` was called.  Loading from Numba's cache calls nothing."""
    from numba.core import event
    state = _Listener(notify)
    with event.install_listener("numba:compile", state.make()):
        yield state


class KernelLoad:
    """What :func:`load_kernels` did: ``seconds``, and ``compiled`` (True when Numba compiled
    at least one kernel, False when every kernel came from the cache or was loaded
    already)."""

    def __init__(self, seconds: float, compiled: bool):
        self.seconds = seconds
        self.compiled = compiled

    def describe(self) -> str:
        """What was done, for a closing line: ``"compiled the search kernels in 65.4 s
        (cached for later runs)"`` or ``"loaded the search kernels from Numba's cache in
        0.42 s"`` (seconds to one decimal, under a second to two)."""
        took = f"{self.seconds:.1f} s" if self.seconds >= 1 else f"{self.seconds:.2f} s"
        if self.compiled:
            return f"compiled the search kernels in {took} (cached for later runs)"
        return f"loaded the search kernels from Numba's cache in {took}"


def load_kernels(notify=None) -> KernelLoad:
    """Load every search kernel the commands call (one tiny solve of each kind), calling
    ``notify()`` first if Numba has to compile one (see :func:`compile_notice`).  Returns a
    :class:`KernelLoad`."""
    t0 = time.perf_counter()
    with compile_notice(notify or (lambda: None)) as state:
        _warm_up()
    return KernelLoad(time.perf_counter() - t0, state.compiles > 0)


def _warm_up() -> None:
    """Call every kernel once: a trick played (legality, the trick's winner and roem), the
    legal cards, then a score and a points search."""
    from ..game.position import Position
    from .solver import Searcher
    s = Searcher(tt_bits=8)
    pos = Position("N:AK... QJ... T9... 87...", 1, 0, played="SA SQ ST S8")
    pos.legal()
    s.value(pos, "score")
    s.value(pos, "points")
