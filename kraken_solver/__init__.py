"""kraken-solver: an exact double-dummy solver for Kraken (Klaverjas family).

The game is defined in RULES.md; values are from the playing team's side (§8).  The layers of
the package, lowest first, are described in ARCHITECTURE.md: ``kernels`` (Numba), ``game``
(the rules), ``notation`` (deal files and text), ``engine`` (double-dummy search),
``dealing``, ``workers``, ``playerview`` (what one seat sees), ``batch``, ``view`` and
``bench``; the command-line tools (``kraken_solver.cli``) sit on top.

The names below are imported on first use (PEP 562), so ``import kraken_solver`` itself is
instant: the command-line tools start inside their Ctrl-C guard before numpy and Numba load
(:mod:`kraken_solver.cli`).
"""

from __future__ import annotations

import importlib

__version__ = "0.1.0"

#: public name -> the submodule that defines it
_EXPORTS = {
    "card_str": "game.cards", "parse_card": "game.cards",
    "Deal": "game.deal",
    "CardParseError": "errors", "DealError": "errors", "DealFileError": "errors",
    "IllegalCardError": "errors", "KrakenError": "errors", "RulesError": "errors",
    "PRESETS": "game.rules", "Rules": "game.rules",
    "Position": "game.position", "TrickRecord": "game.position", "legal_cards": "game.position",
    "Meld": "game.roem", "declared_melds": "game.roem", "hand_roem": "game.roem",
    "ScoreSheet": "game.sheet", "TeamTally": "game.sheet", "score_sheet": "game.sheet",
    "DealSpec": "notation.dealfile", "parse_deal_text": "notation.dealfile",
    "DealReader": "notation.reader", "parse_deal_file": "notation.reader",
    "Searcher": "engine.solver", "SolveResult": "engine.solver",
    "TrumpChoice": "engine.solver", "solve": "engine.solver", "trump_table": "engine.solver",
    "FullTable": "engine.tables", "TableCell": "engine.tables", "full_table": "engine.tables",
    "trump_cells": "engine.tables",
    "CardReview": "engine.analyse", "analyse_play": "engine.analyse",
    "summarise_play": "engine.analyse",
    "Hint": "playerview.hint", "CardEstimate": "playerview.hint", "hint": "playerview.hint",
    "Advice": "playerview.advise", "advise": "playerview.advise",
    "Layouts": "playerview.layouts", "Observation": "playerview.observation",
    "observe": "playerview.observation",
    "PlayerViewReview": "playerview.review", "review_player_view": "playerview.review",
    "BotError": "errors", "BotSpecError": "errors",
    "make_bot": "bots", "seat_view": "bots", "SeatView": "bots", "trump_view": "bots",
    "play_deal": "bots", "choose_and_play": "bots", "PlayedDeal": "bots",
}

__all__ = sorted(_EXPORTS) + ["__version__"]


def __getattr__(name):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'kraken_solver' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_EXPORTS))
