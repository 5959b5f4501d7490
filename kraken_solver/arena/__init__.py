"""Matches between bots: duplicate tables, their statistics and records, decision regret.

Floor: above ``batch/`` (a match is stored, resumed and assembled as a batch run is) and
``bots/``; below ``view/``, ``bench/`` and the command-line tools.

>>> from kraken_solver.arena import play_deal, play_match
"""

from ..bots import play_deal
from .match import MatchConfig, make_match, read_match, run_match
from .play import MatchResult, play_match
from .stats import MatchStats, format_stats, match_stats

__all__ = ["MatchConfig", "MatchResult", "MatchStats", "format_stats", "make_match",
           "match_stats", "play_deal", "play_match", "read_match", "run_match"]
