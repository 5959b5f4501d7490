"""Bots by name: :func:`make_bot` reads a bot spec such as ``"pimc:20"``.

A spec is a bot's name, with its one option after a colon where it takes one; the bot's
``name`` is the spec written back (``"pimc:20"``), so an output that records it can make the
same bot again.  Card play: ``random``, ``heuristic``, ``pimc:N`` (N layouts a move, 1 to
:data:`~kraken_solver.limits.MAX_PIMC_LAYOUTS`), ``dd`` (CHEATS: sees all four hands).  Trump
choice: ``random``, ``heuristic``, ``advise:N`` (N layouts, 1 to
:data:`~kraken_solver.limits.MAX_ADVISE_BOT_SAMPLES`; it plays no card), ``dd`` (CHEATS),
and ``pimc:N`` (as ``advise:N``).  A custom bot is any object with ``choose_card(view)`` (and
optionally ``choose_trump(view)``): :func:`make_bot` returns it as it is.
"""

from __future__ import annotations

import re

from ..errors import BotSpecError
from ..game.cards import is_int
from ..limits import MAX_ADVISE_BOT_SAMPLES, MAX_PIMC_LAYOUTS, MAX_SEED

__all__ = ["BOTS", "CARD_BOTS", "TRUMP_BOTS", "bot_label", "bot_name", "make_bot"]

#: spec -> what the bot does, as the error for an unknown name lists them
BOTS = {
    "random": "a uniformly random legal card and trump",
    "heuristic": "rule-based club play; trump by jack and nine",
    "pimc:N": f"Perfect Information Monte Carlo over N layouts (1 to {MAX_PIMC_LAYOUTS:,}); "
              "trump as advise:N",
    "dd": "CHEATS (sees all four hands): double-dummy best card and trump",
    "advise:N": f"trump choice only: best mean score over N layouts (1 to "
                f"{MAX_ADVISE_BOT_SAMPLES:,})",
}
#: the specs that play cards, and those that choose trump
CARD_BOTS = ("random", "heuristic", "pimc:N", "dd")
TRUMP_BOTS = ("random", "heuristic", "advise:N", "pimc:N", "dd")
_COUNTED = {"pimc": ("layouts", MAX_PIMC_LAYOUTS), "advise": ("samples", MAX_ADVISE_BOT_SAMPLES)}


def _listing() -> str:
    return "; ".join(f"{k} ({v})" for k, v in BOTS.items())


def make_bot(spec, seed: int = 0):
    """The bot of ``spec`` (module docstring) with ``seed`` (whole number 0 to 2**63 - 1: its
    draws come from it and from what it sees), or ``spec`` itself when it is a bot object (it
    has ``choose_card`` or ``choose_trump``).

    Raises BotSpecError (one line) for an unknown name (listing the bots), a missing or
    out-of-range N (``pimc:0``, ``pimc:100000``, ``advise:-1``: saying the range), an option
    given to a bot that takes none, or a bad seed."""
    if not isinstance(spec, str):
        if hasattr(spec, "choose_card") or hasattr(spec, "choose_trump"):
            return spec
        raise BotSpecError("a bot is a spec such as 'pimc:20' or an object with "
                           "choose_card(view); bots: " + _listing(), token=repr(spec))
    if not is_int(seed) or not 0 <= seed <= MAX_SEED:
        raise BotSpecError(f"a bot's seed is a whole number from 0 to {MAX_SEED}",
                           token=repr(seed))
    from .card_bots import DoubleDummyBot, HeuristicBot, RandomBot
    from .pimc import AdviseBot, PimcBot

    text = spec.strip().lower() if spec.isascii() else spec
    name, colon, option = text.partition(":")
    name = name.strip()
    plain = {"random": RandomBot, "heuristic": HeuristicBot, "dd": DoubleDummyBot}
    if name in plain:
        if colon:
            raise BotSpecError(f"the bot {name} takes no option", token=spec)
        return plain[name](seed=int(seed))
    if name in _COUNTED:
        what, most = _COUNTED[name]
        option = option.strip()
        if not colon or not re.fullmatch(r"[+-]?[0-9]{1,12}", option) or \
                not 1 <= int(option) <= most:
            raise BotSpecError(f"{name}:N takes N {what}, a whole number from 1 to {most:,}",
                               token=spec)
        return (PimcBot(layouts=int(option), seed=int(seed)) if name == "pimc"
                else AdviseBot(samples=int(option), seed=int(seed)))
    raise BotSpecError("unknown bot; expected one of: " + _listing(), token=spec)


def bot_name(bot) -> str:
    """The name a bot is recorded by: its ``name`` (the spec), else its class name."""
    name = getattr(bot, "name", None)
    return str(name) if name else type(bot).__name__


def bot_label(bot) -> str:
    """The name a bot is shown by: its ``label`` (``dd`` says it cheats), else its name."""
    label = getattr(bot, "label", None)
    return str(label) if label else bot_name(bot)
