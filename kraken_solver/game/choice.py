"""Simple trump-choice rules that players use, each a sort key over the four suits of the
chooser's hand (RULES.md rule 3: the chooser must name a trump).  The highest key wins; ties
go to the suit first in the order S, H, D, C.  ``kraken-batch summarize`` compares them with
the double-dummy best trump (:mod:`kraken_solver.batch.summary`); the ``heuristic``
trump-choice bot plays one of them (:mod:`kraken_solver.bots.trump_bots`).

The features of a suit in a hand: ``length`` (cards), ``trump_points`` (the points its cards
hold as trumps: J 20, 9 14, A 11, T 10, K 4, Q 3), ``has_j`` and ``has_9`` (the jack, the
nine), ``has_j9`` (both), ``top3`` (how many of J, 9, A).
"""

from __future__ import annotations

from ..errors import KrakenError
from .cards import RANKS, SUITS

__all__ = ["SIMPLE_RULES", "TRUMP_RANK_POINTS", "choose_by_rule", "suit_features"]

#: trump points by rank letter (RULES.md rule 3)
TRUMP_RANK_POINTS = {"J": 20, "9": 14, "A": 11, "T": 10, "K": 4, "Q": 3, "8": 0, "7": 0}

#: rule name -> the features compared, in order (highest first)
SIMPLE_RULES = {
    "longest suit": ("length", "trump_points"),
    "most trump points": ("trump_points", "length"),
    "holds the jack": ("has_j", "length", "trump_points"),
    "jack and nine": ("has_j9", "has_j", "length", "trump_points"),
    "most of J, 9, A": ("top3", "length", "trump_points"),
}


def suit_features(hand: int, suit: int) -> dict:
    """The features (module docstring) of ``suit`` (0..3) in ``hand`` (a 32-bit card mask)."""
    held = hand >> (8 * suit) & 0xFF
    ranks = [RANKS[r] for r in range(8) if held >> r & 1]
    has_j, has_9 = "J" in ranks, "9" in ranks
    return {"length": len(ranks), "trump_points": sum(TRUMP_RANK_POINTS[r] for r in ranks),
            "has_j": has_j, "has_9": has_9, "has_j9": has_j and has_9,
            "top3": sum(r in ranks for r in "J9A")}


def choose_by_rule(hand: int, rule: str) -> int:
    """The trump (0..3) that ``rule`` (a name of :data:`SIMPLE_RULES`) picks for ``hand``.
    Raises KrakenError for an unknown rule (the message lists them)."""
    keys = SIMPLE_RULES.get(rule)
    if keys is None:
        raise KrakenError("unknown trump-choice rule; expected one of "
                          + ", ".join(SIMPLE_RULES), token=str(rule))

    def key(s):
        f = suit_features(hand, s)
        return tuple(int(f[k]) for k in keys) + (-s,)
    return max(range(len(SUITS)), key=key)
