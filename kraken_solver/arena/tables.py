"""The two tables of a duplicate deal, their rows, and the check of a stored row.

A duplicate deal is played twice with the same cards, the same first player (who chooses
trump and leads, RULES.md rule 3) and the same rules: at table 0 team A (``--ns``) sits N-S and
team B (``--ew``) E-W; at table 1 they swap.  Trump is the deal's fixed trump (``--trump``, or
the deal file's ``[Trump]``) or the one the chooser's team's trump bot names.  Every table is
played by the one loop of the bots (:func:`kraken_solver.bots.choose_and_play`) and scored by
the score sheet (RULES.md §6); ``dd_score`` is the double-dummy score of the same deal and
trump (RULES.md §8), playing team's side.  Each table gives one row of :data:`COLUMNS`.

The bots of table ``t`` of deal ``i`` are seeded with :func:`bot_seed` (the match seed, ``i``
and ``t``): a deal's tables never depend on the other deals, the chunks or the workers.
"""

from __future__ import annotations

import csv
import io
import re

import numpy as np

from ..errors import KrakenError
from ..game.cards import SEATS, SUITS
from ..limits import MAX_SEED

#: (name, type, meaning) of every column of a match file, in order
COLUMNS = (
    ("deal_id", "int64", "0-based index of the deal (generated order, or order in the input)"),
    ("table", "int64", "0: team A (--ns) sits N-S; 1: the teams swapped"),
    ("deal", "string", "the deal as PBN from N"),
    ("first", "string", "the first player N/E/S/W (leads; their team is the playing team)"),
    ("trump", "string", "the trump suit S/H/D/C played"),
    ("chooser", "string", "the seat that named trump (the first player, rule 3)"),
    ("rules", "string", "Rules.name of the rules played"),
    ("ns_bot", "string", "the card-play bot of N and S (its spec)"),
    ("ew_bot", "string", "the card-play bot of E and W"),
    ("trump_bot", "string", "the chooser's trump bot; empty when trump was fixed"),
    ("ns_score", "int64", "N-S's final score, points (the score sheet's, rule 19)"),
    ("ew_score", "int64", "E-W's final score, points"),
    ("ns_points", "int64", "N-S's card points, last trick and trick roem (rule 24)"),
    ("ew_points", "int64", "E-W's card points, last trick and trick roem"),
    ("made", "bool", "the playing team made its deal (rule 19)"),
    ("pit", "bool", "the playing team won every trick"),
    ("dd_score", "int64", "double-dummy score of the deal and trump (rule 23, playing team)"),
    ("play", "string", "the 32 cards in play order, space-separated"),
)
#: the column of ``--regret``: each card's regret (points; ``-`` for a forced card)
REGRET_COLUMN = ("regret", "string",
                 "per card in play order: the judge's loss of the card chosen, points; '-' forced")
#: spawn key tags of the bots' and the judge's seeds (the deals use one-element keys)
_BOT_KEY, _JUDGE_KEY = 0xB07, 0x7D6E


def columns_for(regret: bool) -> list:
    return list(COLUMNS) + ([REGRET_COLUMN] if regret else [])


def _seed_of(seed: int, deal_id: int, table: int, tag: int) -> int:
    ss = np.random.SeedSequence(int(seed), spawn_key=(int(deal_id), int(table), tag))
    return int(ss.generate_state(1, np.uint64)[0]) & MAX_SEED


def bot_seed(seed: int, deal_id: int, table: int) -> int:
    """The seed of the bots of table ``table`` of deal ``deal_id``: 63 bits of
    ``SeedSequence(seed, spawn_key=(deal_id, table, 0xB07))``."""
    return _seed_of(seed, deal_id, table, _BOT_KEY)


def judge_seed(seed: int, deal_id: int, table: int) -> int:
    """The regret judge's seed of a table: another spawn key than the bots' (0x7D6E)."""
    return _seed_of(seed, deal_id, table, _JUDGE_KEY)


def team_seat(table: int, team: int) -> str:
    """Where team 0 (A, ``--ns``) or 1 (B, ``--ew``) sits at ``table``: ``"NS"`` or ``"EW"``."""
    return ("NS", "EW")[(team + table) % 2]


def play_table(deal, first, rules, trump, teams, trump_teams, seed, deal_id, table,
               searcher=None, judge=None) -> dict:
    """Play one table and return its row (keyed by column name).

    ``teams``/``trump_teams``: the (A, B) card-play and trump bots (specs or objects);
    ``trump``: 0..3 fixed, or None (the chooser's team's trump bot names it); ``judge``:
    layouts a decision of the regret judge (None: no regret).  Raises BotError when a bot
    fails, BotSpecError for a bad spec."""
    from ..bots import choose_and_play, play_deal
    from ..engine.solver import solve
    bots = {team_seat(table, t): teams[t] for t in (0, 1)}
    s = bot_seed(seed, deal_id, table)
    if trump is None:
        tbots = {team_seat(table, t): trump_teams[t] for t in (0, 1)}
        p = choose_and_play(deal, first, bots, trump_bots=tbots, seed=s, rules=rules)
    else:
        p = play_deal(deal, trump, first, bots, seed=s, rules=rules)
    dd = solve(p.deal, p.trump, p.first, rules=p.rules, pv=False, searcher=searcher).value
    row = {"deal_id": deal_id, "table": table, "deal": str(p.deal), "first": p.first,
           "trump": p.trump, "chooser": p.chooser, "rules": p.rules.name,
           "ns_bot": p.bots["N"], "ew_bot": p.bots["E"], "trump_bot": p.trump_bot or "",
           "ns_score": p.score["NS"], "ew_score": p.score["EW"],
           "ns_points": p.points["NS"], "ew_points": p.points["EW"], "made": bool(p.made),
           "pit": bool(p.pit), "dd_score": int(dd), "play": " ".join(p.play)}
    if judge is not None:
        row["regret"] = table_regret(p, judge, judge_seed(seed, deal_id, table), searcher)
    return row


def table_regret(p, judge: int, seed: int, searcher=None) -> str:
    """Each card's regret (the player's-view review's cost with ``judge`` layouts a decision,
    exact when fewer: :func:`kraken_solver.playerview.review.review_player_view`), as the
    ``regret`` column writes it."""
    from ..playerview.review import review_player_view
    reviews = review_player_view(p.deal, p.trump, p.first, rules=p.rules, played=p.play,
                                 samples=judge, seed=seed, workers=1, searcher=searcher)
    return " ".join("-" if r.forced else f"{r.cost:.3f}" for r in reviews)


# ----------------------------------------------------------------------------- checks
def _team_of(seat: str) -> str:
    return "NS" if seat in "NS" else "EW"


def check_row(fields: dict, want: dict) -> str | None:
    """What is wrong with a stored row (``fields``: column -> text) given what its chunk
    says (``want``: column -> text: deal_id, table, deal, first, rules, ns_bot, ew_bot), or
    None.  The scores, points, made and pit must be the score sheet of its play (replayed)."""
    from ..game.sheet import score_sheet
    for c, v in want.items():
        if fields[c] != v:
            return f"{c} {fields[c]!r} where this chunk has {v!r}"
    for c in ("ns_score", "ew_score", "ns_points", "ew_points", "dd_score"):
        if not re.fullmatch(r"-?[0-9]{1,9}", fields[c]):
            return f"{c} {fields[c]!r} is not a whole number"
    for c in ("made", "pit"):
        if fields[c] not in ("True", "False"):
            return f"{c} {fields[c]!r} is not True or False"
    if fields["trump"] not in SUITS or fields["chooser"] not in SEATS:
        return f"trump {fields['trump']!r} or chooser {fields['chooser']!r} is not a suit/seat"
    try:
        sheet = score_sheet(fields["deal"], fields["trump"], fields["first"],
                            rules=fields["rules"], line=fields["play"])
    except KrakenError as e:
        return f"its play is not a whole legal deal ({e})"
    tallies = {_team_of(SEATS[sheet.first]): sheet.playing,
               _team_of(SEATS[(sheet.first + 1) % 4]): sheet.defenders}
    got = {"ns_score": tallies["NS"].final, "ew_score": tallies["EW"].final,
           "ns_points": sum(_points(tallies["NS"])), "ew_points": sum(_points(tallies["EW"])),
           "made": sheet.made, "pit": sheet.pit}
    for c, v in got.items():
        text = str(v)
        if fields[c] != text:
            return f"{c} {fields[c]} is not the score sheet's {text} for its play"
    if "regret" in fields:
        words = fields["regret"].split(" ")
        if len(words) != 32 or not all(w == "-" or re.fullmatch(r"-?[0-9]{1,7}\.[0-9]{3}", w)
                                       for w in words):
            return "regret is not 32 costs ('-' or a number with 3 decimals)"
    return None


def _points(t):
    return t.card_points, t.last_trick, t.trick_roem


def parse_rows(text: str) -> list[dict]:
    """The rows of a part file's text (header included) as dicts of column -> text."""
    return list(csv.DictReader(io.StringIO(text)))
