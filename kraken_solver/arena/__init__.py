"""Matches between bots: duplicate tables, their statistics and records, decision regret.

Floor: above ``batch/`` (a match is stored, resumed and assembled as a batch run is) and
``bots/``; below ``view/``, ``bench/`` and the command-line tools.
"""
