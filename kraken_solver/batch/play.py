"""Batch by play (``kraken-batch --play BOT``): every (deal, trump) of a batch also played out
by one bot spec at all four seats, its score sheet beside the double-dummy values.

The deal is played by :func:`kraken_solver.bots.play_deal` (the one loop every bot goes
through), trump given, the first player leading and having chosen (RULES.md rule 3), each
seat's bot made from the spec with the batch's play seed (:func:`play_seed` is the seed of
every table: a bot's draws come from its seed and its view alone, so the tables differ by
their cards, never by the worker or the chunk that played them).  The played columns
(:data:`PLAY_COLUMNS`) are in points from the playing team's side, as the double-dummy ones:
``played_score`` is the score sheet's score (rule 23), ``played_points`` its card points with
the last trick plus trick roem (rule 24).
"""

from __future__ import annotations

from ..errors import KrakenError
from ..game.cards import SUITS
from ..limits import MAX_SEED

__all__ = ["PLAY_COLUMNS", "check_play", "play_rows", "played_table"]

#: (name, type, meaning) of the columns a batch with ``--play`` adds, in order
PLAY_COLUMNS = (
    ("played_score", "int64", ("score of the deal as the play bot played it at all four "
                               "seats, points, playing team's side (the score sheet, RULES.md "
                               "rule 23)")),
    ("played_points", "int64", ("card points (last trick included) + trick roem the playing "
                                "team won in that play (rule 24)")),
    ("played_made", "bool", "played_score > 0 (rule 25)"),
    ("played_pit", "bool", "the playing team won every trick in that play"),
    ("play", "string", "the 32 cards in play order, space-separated"),
)
PLAY_NAMES = tuple(c[0] for c in PLAY_COLUMNS)


def check_play(spec, seed) -> tuple[str, int]:
    """The play bot's name as recorded (the spec written back, ``"pimc:20"``) and its seed.
    Raises KrakenError (BotSpecError) for an unknown bot, a bad option or seed, and a bot
    that plays no card (``advise:N`` chooses trump only)."""
    from ..bots import make_bot
    from ..errors import BotSpecError

    if not isinstance(spec, str) or not spec.strip():
        raise BotSpecError("--play takes a card-play bot: random, heuristic, pimc:N or dd",
                           token=repr(spec))
    if seed is None or isinstance(seed, bool) or not isinstance(seed, int) or \
            not 0 <= seed <= MAX_SEED:
        raise KrakenError(f"the play seed is a whole number from 0 to {MAX_SEED}",
                          token=str(seed))
    bot = make_bot(spec, seed=seed)
    if not hasattr(bot, "choose_card"):
        raise BotSpecError(f"--play takes a card-play bot (random, heuristic, pimc:N or dd); "
                           f"{bot.name} chooses trump only", token=spec)
    return bot.name, int(seed)


def play_seed(seed: int) -> int:
    """The seed of the bots of every table of a batch played with play seed ``seed``."""
    return int(seed)


def play_rows(deal, first: int, rules, spec: str, seed: int) -> list[dict]:
    """The played columns of one deal, one dict a trump S, H, D, C (the order of the batch's
    rows): ``deal`` played by ``spec`` at all four seats, ``first`` leading and choosing,
    ``rules``.  Raises the errors of :func:`~kraken_solver.bots.play_deal`."""
    from ..bots import play_deal

    out = []
    for trump in SUITS:
        played = play_deal(deal, trump, first, {"NS": spec, "EW": spec},
                           seed=play_seed(seed), rules=rules)
        out.append({"played_score": played.value, "played_points": played.sheet.points,
                    "played_made": bool(played.value > 0), "played_pit": bool(played.pit),
                    "play": " ".join(played.play)})
    return out


def played_table(choices, df):
    """Double dummy against as played, per trump-choice rule: from ``choices`` (the trump
    each rule picked per deal, with the batch's columns) and ``df`` (every row, for the
    ``every trump`` line).  Columns: ``rule``, ``n`` (deals, or rows for every trump), ``dd_score`` and ``played_score``
    (means, points), ``optimism`` (their difference: what double dummy promises beyond the
    play), ``se`` (its standard error over deals), ``p_made_dd``, ``p_made_played``."""
    import pandas as pd

    rows = []
    groups = [(rule, pick) for rule, pick in choices.groupby("rule", sort=False)]
    groups.append(("every trump", df))
    for rule, pick in groups:
        diff = pick["score"] - pick["played_score"]
        n = len(pick)
        rows.append({"rule": rule, "n": n,
                     "dd_score": float(pick["score"].mean()),
                     "played_score": float(pick["played_score"].mean()),
                     "optimism": float(diff.mean()),
                     "se": float(diff.std(ddof=1) / n ** 0.5) if n > 1 else 0.0,
                     "p_made_dd": float(pick["made"].mean()),
                     "p_made_played": float(pick["played_made"].mean())})
    return pd.DataFrame(rows)
