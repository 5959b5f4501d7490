"""kraken-solver: an exact double-dummy solver for Kraken (Klaverjas family).

The game is defined in RULES.md; values are from the playing team's side (§8).
"""

from .cards import card_str, parse_card
from .deal import Deal
from .errors import (CardParseError, DealError, DealFileError, IllegalCardError, KrakenError,
                     RulesError)
from .rules import PRESETS, Rules
from .solver import (Position, Searcher, SolveResult, TrickRecord, TrumpChoice, hand_roem,
                     legal_cards, solve, trump_table)
from .analyse import CardReview, analyse_play, summarise_play
from .roem import Meld, declared_melds
from .sheet import ScoreSheet, TeamTally, score_sheet
from .tables import FullTable, TableCell, full_table, trump_cells

__version__ = "0.1.0"

__all__ = [
    "Deal", "Rules", "PRESETS", "Position", "Searcher", "SolveResult", "TrumpChoice",
    "solve", "legal_cards", "hand_roem", "trump_table", "card_str", "parse_card",
    "TrickRecord", "CardReview", "analyse_play", "summarise_play",
    "Meld", "declared_melds", "ScoreSheet", "TeamTally", "score_sheet",
    "FullTable", "TableCell", "full_table", "trump_cells",
    "KrakenError", "CardParseError", "DealError", "DealFileError", "IllegalCardError",
    "RulesError", "__version__",
]
