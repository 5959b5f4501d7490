"""Command-line tools of kraken-solver (installed as ``kraken_solver.cli``)."""
