"""kraken-solver: an exact double-dummy solver for Kraken (Klaverjas family).

The game is defined in RULES.md; values are from the playing team's side (§8).

The names below are imported on first use (PEP 562), so ``import kraken_solver`` itself is
instant: the command-line tools start inside their Ctrl-C guard before numpy and Numba load
(:mod:`kraken_solver.cli`).
"""

from __future__ import annotations

import importlib

__version__ = "0.1.0"

#: public name -> the submodule that defines it
_EXPORTS = {
    "card_str": "cards", "parse_card": "cards",
    "Deal": "deal",
    "CardParseError": "errors", "DealError": "errors", "DealFileError": "errors",
    "IllegalCardError": "errors", "KrakenError": "errors", "RulesError": "errors",
    "PRESETS": "rules", "Rules": "rules",
    "Position": "solver", "Searcher": "solver", "SolveResult": "solver",
    "TrickRecord": "solver", "TrumpChoice": "solver", "hand_roem": "solver",
    "legal_cards": "solver", "solve": "solver", "trump_table": "solver",
    "CardReview": "analyse", "analyse_play": "analyse", "summarise_play": "analyse",
    "Meld": "roem", "declared_melds": "roem",
    "ScoreSheet": "sheet", "TeamTally": "sheet", "score_sheet": "sheet",
    "FullTable": "tables", "TableCell": "tables", "full_table": "tables",
    "trump_cells": "tables",
}

__all__ = [
    "Deal", "Rules", "PRESETS", "Position", "Searcher", "SolveResult", "TrumpChoice",
    "solve", "legal_cards", "hand_roem", "trump_table", "card_str", "parse_card",
    "TrickRecord", "CardReview", "analyse_play", "summarise_play",
    "Meld", "declared_melds", "ScoreSheet", "TeamTally", "score_sheet",
    "FullTable", "TableCell", "full_table", "trump_cells",
    "KrakenError", "CardParseError", "DealError", "DealFileError", "IllegalCardError",
    "RulesError", "__version__",
]


def __getattr__(name):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'kraken_solver' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_EXPORTS))
