"""Double-dummy solving on the Numba kernels: the :class:`~.solver.Searcher` and ``solve``, the
trump tables, the four trumps of a batch deal with the pit test, the double-dummy review of a
played deal, and knowing whether the kernels were compiled or loaded from the cache.
"""
