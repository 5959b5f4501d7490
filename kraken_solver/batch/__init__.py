"""Trump choice at scale (``kraken-batch``): the run's configuration and columns, the store of
part files and sidecars (checked, assembled exactly once, resumable), the run itself, and the
summary of a batch file with its plots.
"""
