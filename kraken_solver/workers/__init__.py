"""Running solves in parallel: the local process pool (one Searcher a worker, progress
reports, Ctrl-C held across forks) and a Dask cluster behind the same interface.
"""
