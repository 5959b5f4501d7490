"""Computer players: what one seat may see (its view, with no hidden card in it), the bots that
choose a card or a trump from that view, and the one loop that plays a deal with them.

Floor: above ``playerview/`` (the PIMC bot draws its layouts with the hint's machinery), below
``batch/`` (``kraken-batch --play``), ``arena/`` and ``view/``.

>>> from kraken_solver.bots import make_bot, seat_view, play_deal
"""

from .registry import BOTS, CARD_BOTS, TRUMP_BOTS, bot_label, bot_name, make_bot
from .table import PlayedDeal, bot_card, choose_and_play, choose_trump, play_deal, seat_bots
from .view import CheatView, SeatView, TrumpView, cheat_view, seat_view, trump_view

__all__ = ["BOTS", "CARD_BOTS", "TRUMP_BOTS", "CheatView", "PlayedDeal", "SeatView", "bot_card",
           "TrumpView", "bot_label", "bot_name", "cheat_view", "choose_and_play",
           "choose_trump", "make_bot", "play_deal", "seat_bots", "seat_view", "trump_view"]
