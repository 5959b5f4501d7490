"""Text, JSON and CSV output of a deal's double-dummy analysis (``kraken-solve``,
``kraken-analyse``).

:class:`Analysis` holds what ``kraken-solve`` computed for one deal; the functions here turn it
into a hand diagram and tables (suit symbols ``♠♥♦♣``, or the letters ``S H D C`` with
``ascii=True``), the score sheet of the line shown, a JSON-ready dict, or CSV rows
(:data:`CSV_FIELDS`, :data:`TABLE_CSV_FIELDS` for the full trump-by-first-player table).  All
values are in points, from the playing team's side (RULES.md §8): the team of the first player.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..game.cards import SEATS, SUITS
from ..game.deal import Deal
from .text import (card_text, cards_text, count, csv_bool, hand_diagram, made_word, signed,
                   suit_text, team_name)

__all__ = ["Analysis", "format_tricks", "format_trump_table", "format_analysis", "analysis_dict",
           "CSV_FIELDS", "analysis_csv_rows", "format_sheet", "sheet_dict", "format_full_table",
           "full_table_dict", "TABLE_CSV_FIELDS", "full_table_csv_rows", "DEAL_FIELDS",
           "deal_fields", "points_sum", "review_head", "review_result", "deal_heading"]

#: the columns every CSV of kraken-solve, kraken-analyse and kraken-hint starts with, one
#: meaning each across the commands: ``deal_number`` the deal's place in the run (1-based, the
#: ``=== Deal N`` of the text), ``source`` its file, ``line`` the deal's line there, ``deal``
#: its PBN text (from N).  (kraken-batch's ``deal_id`` is another thing: its own 0-based id.)
DEAL_FIELDS = ("deal_number", "source", "line", "deal")
#: the columns of ``kraken-solve --csv``: one row per (deal, trump) of the trump table (one
#: row for a deal whose trump is given)
CSV_FIELDS = DEAL_FIELDS + ("first", "playing_team", "trump", "trump_given", "best",
              "rules", "played", "to_move", "objective", "score", "made", "pit", "points",
              "hand_roem_playing_team", "hand_roem_defenders", "best_cards", "pv")
#: the columns of ``kraken-solve --table --csv``: one row per (deal, first player, trump)
TABLE_CSV_FIELDS = DEAL_FIELDS + ("rules", "first", "playing_team", "trump",
                    "score", "made", "pit", "points", "best", "best_by")


@dataclass
class Analysis:
    """What ``kraken-solve`` computed for one deal and trump (values in points, playing team's
    side).

    - ``spec``: the :class:`~kraken_solver.notation.dealfile.DealSpec` read from the file.
    - ``trump``: the trump analysed (0..3); ``trump_table``: the first player's four
      :class:`~kraken_solver.engine.tables.TableCell` rows when the file gave no trump, else
      ``None``; ``best_by``: the value that chose the trump (``"score"`` unless asked).
    - ``objective``: ``"score"`` or ``"points"``: the value behind ``card_values``,
      ``best_cards``, ``pv`` and the line of ``sheet``.
    - ``score`` (rule 23), ``points`` (rule 24): the double-dummy values of the position
      after the played cards (two solves); ``made`` is ``score > 0``; ``pit``: the principal
      variation by score wins every trick for the playing team.
    - ``card_values``: card text -> value (``objective``) for each legal card of ``to_move``
      (``None`` once the deal is over); ``best_cards``: those equal to the position's value.
    - ``pv``: the principal variation, card texts to the end of the deal.
    - ``played_tricks``: the tricks completed by the played cards (TrickRecord);
      ``current_trick``/``current_leader``: the cards of the trick in progress and its leader.
    - ``pv_tricks``: the tricks that the principal variation completes (the first one holds the
      cards of the trick in progress).
    - ``sheet``: the :class:`~kraken_solver.game.sheet.ScoreSheet` of the line shown (the played
      cards, then ``pv``); its score is ``score`` (its points ``points`` with the objective
      ``points``).
    - ``hand_roem``: (playing team, defenders) in points, stuk included (rules 12-17).
    - ``nodes``: search nodes for this deal; ``seconds``: wall time for this deal.
    """

    spec: object
    trump: int
    objective: str
    score: int
    points: int
    card_values: dict = field(default_factory=dict)
    best_cards: list = field(default_factory=list)
    pv: list = field(default_factory=list)
    to_move: int | None = None
    played_tricks: list = field(default_factory=list)
    current_trick: list = field(default_factory=list)
    current_leader: int = 0
    pv_tricks: list = field(default_factory=list)
    sheet: object = None
    pit: bool = False
    hand_roem: tuple = (0, 0)
    trump_table: list | None = None
    best_by: str = "score"
    nodes: int = 0
    seconds: float = 0.0

    @property
    def made(self) -> bool:
        """Whether the playing team makes the deal with best play (``score > 0``, rule 25)."""
        return self.score > 0

    @property
    def result(self) -> str:
        """``"pit"``, ``"made"`` or ``"nat"``: the double-dummy score's outcome."""
        return "pit" if self.pit else ("made" if self.made else "nat")

    @property
    def value(self) -> int:
        """The position's value under ``objective``."""
        return self.score if self.objective == "score" else self.points

    @property
    def first(self) -> int:
        return self.spec.first

    @property
    def rules(self):
        return self.spec.rules

    @property
    def deal(self) -> Deal:
        return self.spec.deal

    @property
    def best(self) -> bool | None:
        """Whether ``trump`` is a best row of the trump table (``None`` when the trump was
        given)."""
        if self.trump_table is None:
            return None
        return any(r.best for r in self.trump_table if r.trump == self.trump)


def format_tricks(tricks, *, first: int, ascii: bool = False, start: int = 1,
                  preplayed: int = 0, totals: tuple = (0, 0)) -> str:
    """A table of completed tricks (TrickRecord): number, leader, cards in play order, winner,
    card points (the last trick's 10 included) and trick roem, with running totals (points plus
    roem) of the playing team (the team of ``first``) and the defenders.

    ``start``: number of the first trick; ``preplayed``: how many cards of the first trick were
    played before (shown in parentheses); ``totals``: the running totals before these tricks."""
    dteam = first % 2
    d_name, o_name = team_name(first), team_name(first + 1)
    head = f"  trick  lead  {'cards':<16}  won by  points  roem   {d_name}   {o_name}"
    rows = [head]
    d_tot, o_tot = totals
    for i, t in enumerate(tricks):
        shown = []
        for k, c in enumerate(t.cards):
            txt = card_text(int(c), ascii)
            shown.append(f"({txt})" if i == 0 and k < preplayed else txt)
        if t.winner % 2 == dteam:
            d_tot += t.points + t.roem
        else:
            o_tot += t.points + t.roem
        rows.append(f"  {start + i:>5}  {SEATS[t.leader]:<4}  {' '.join(shown):<16}  "
                    f"{SEATS[t.winner]:<6}  {t.points:>6}  {t.roem:>4}  {d_tot:>5} {o_tot:>5}")
    return "\n".join(rows)


def deal_heading(index: int, spec) -> str:
    """``=== Deal 3: deals.pbn, line 40 (Board 3, Club night, 2024.06.15) ===``: the deal's
    place in the run and in its file, and its PBN Board, Event and Date tags if any."""
    tags = getattr(spec, "tags", None) or {}
    extra = [f"Board {tags['Board']}"] if "Board" in tags else []
    extra += [tags[k] for k in ("Event", "Date") if k in tags]
    note = f" ({', '.join(extra)})" if extra else ""
    return f"=== Deal {index}: {spec.where}{note} ==="


def _cell_text(score: int, result: str, points: int) -> str:
    return f"{signed(score):>6} {result:<4} {points:>6}"


def format_trump_table(table, *, first: int, best_by: str = "score", given: bool = False,
                       ascii: bool = False) -> str:
    """The trump table (TableCell rows): score with made, nat or pit, and points, for each
    trump the first player can choose; ``best`` rows (by ``best_by``) are marked."""
    why = "" if given else "no trump given; "
    rows = [f"Trump table for {SEATS[first]} ({why}best by {best_by}):",
            f"  {'trump':<5} {'score':>6} {'':<4} {'points':>6}"]
    for r in table:
        mark = "  best" if r.best else ""
        rows.append(f"  {suit_text(r.trump, ascii):<5} {_cell_text(r.score, r.result, r.points)}"
                    f"{mark}")
    return "\n".join(rows)


# ------------------------------------------------------------------------- the score sheet
_MELD_WORDS = {"stuk": "stuk", "run": "run", "four": "four"}


def _meld_why(m, best_team: int | None) -> str:
    if m.kind == "stuk":
        return "counts: a stuk in the hand always counts (rule 16)"
    holder = team_name(best_team) if best_team is not None else "?"
    if m.best:
        return f"counts: the best meld (rule 14), so {holder}'s melds count (rule 15)"
    if m.counts:
        return f"counts: {holder} hold the best meld (rule 15)"
    return f"does not count: {holder} hold the best meld (rule 15)"


def format_melds(sheet, *, ascii: bool = False) -> list[str]:
    """The hand roem lines of a sheet: one a meld (seat, kind, cards, value, whether it
    counts and why)."""
    if not sheet.rules.hand_roem:
        return ["  hand roem: none under these rules (hand_roem=false)"]
    if not sheet.melds:
        return ["  hand roem: no melds in any hand (rules 12-17)"]
    best = next((m.team for m in sheet.melds if m.best), None)
    out = ["  hand roem, declared before the first trick (rules 12-17):"]
    for m in sheet.melds:
        out.append(f"    {SEATS[m.seat]}  {_MELD_WORDS[m.kind]:<4}  "
                   f"{cards_text(m.cards, ascii):<20}  {m.value:>3}  {_meld_why(m, best)}")
    return out


def points_sum(sheet) -> str:
    """The sum that makes a sheet's points (rule 24) from the sheet's own rows, the
    playing team's: ``points: 114 + 10 + 20 = 144 (card points + last trick + trick roem,
    rule 24)``."""
    d = sheet.playing
    return (f"  points: {d.card_points} + {d.last_trick} + {d.trick_roem} = {sheet.points} "
            "(card points + last trick + trick roem, rule 24)")


def format_sheet(sheet, *, title: str, ascii: bool = False, points: bool = False) -> str:
    """A score sheet (:class:`~kraken_solver.game.sheet.ScoreSheet`) as a player writes it: each
    team's tricks, card points, last trick, trick roem, hand roem and pit bonus, their totals,
    made / nat / pit (rule 19), the multiplier, the final scores and the score they make
    (the playing team's final minus the defenders'), then (``points``) the sum of the rows
    that make the line's points (:func:`points_sum`), then the melds.  ``title`` names the
    line (``"the principal variation"``)."""
    d, o = sheet.playing, sheet.defenders
    w = 11
    out = [f"Score sheet of {title} (rules 18-20):",
           f"  {'':<14}{d.team:>{w}}{o.team:>{w}}",
           f"  {'':<14}{'playing':>{w}}{'defenders':>{w}}"]

    def row(label, dv, ov="", note=""):
        line = f"  {label:<14}{str(dv):>{w}}{str(ov):>{w}}"
        return (line + ("   " + note if note else "")).rstrip()

    last = "the last trick's bonus (rule 4)"
    out += [row("tricks won", d.tricks, o.tricks),
            row("card points", d.card_points, o.card_points),
            row("last trick", d.last_trick, o.last_trick, last),
            row("trick roem", d.trick_roem, o.trick_roem),
            row("hand roem", d.hand_roem, o.hand_roem),
            row("pit bonus", d.pit_bonus, "",
                f"{d.team} won every trick (rule 18)" if d.pit_bonus else ""),
            row("total", d.total, o.total)]
    if sheet.pit:
        out.append(f"  pit: {d.team} won every trick and {d.total} is more than {o.total}: "
                   "made with the pit bonus (rules 18-19)")
    elif sheet.made:
        out.append(f"  made: {d.team}'s {d.total} is more than {o.team}'s {o.total} (rule 19)")
    else:
        every = f"{d.team} won every trick, but " if o.tricks == 0 else ""
        out.append(f"  nat: {every}{d.team}'s {d.total} is not more than {o.team}'s {o.total} "
                   f"(rule 19): {o.team} score every card point and all roem"
                   + (", without the pit bonus" if d.pit_bonus else ""))
    out.append(row("multiplier", f"x{sheet.multiplier}", "",
                   "rule 20" if sheet.multiplier > 1 else ""))
    if sheet.made:
        out.append(row("final score", d.final, o.final))
    else:
        gross = d.total - d.pit_bonus
        out.append(row("final score", d.final, o.final,
                       f"{o.team}: {sheet.multiplier} x ({gross} + {o.total})"))
    out.append(f"  score: {d.final} - {o.final} = {signed(sheet.score)} ({sheet.result}), "
               f"{d.team}'s side")
    if points:
        out.append(points_sum(sheet))
    out += format_melds(sheet, ascii=ascii)
    return "\n".join(out)


def sheet_dict(sheet, line: str) -> dict:
    """A score sheet as a JSON-ready dict (:meth:`ScoreSheet.to_dict`) plus ``line``: what
    the sheet is of, and ``played``: how many of its cards had been played."""
    return {"line": line, "played": sheet.played, **sheet.to_dict()}


def sheet_title(a: Analysis) -> str:
    """What the line of ``a``'s sheet is, in words."""
    if not a.spec.played:
        return "the principal variation"
    if a.to_move is None:
        return "the play"
    return f"the play ({count(len(a.spec.played), 'card')}) and the principal variation"


def _remaining_hands(a: Analysis) -> list[int]:
    hands = list(a.deal.hands)
    for c in a.spec.played:
        for s in range(4):
            hands[s] &= ~(1 << c)
    return hands


def _labelled(head: str, note: str, width: int = 96) -> list[str]:
    """``head`` in a column of 23, then ``note`` wrapped to ``width`` beside it."""
    import textwrap
    lines = textwrap.wrap(note, width - 23)
    return [f"{head:<23}{lines[0]}"] + [" " * 23 + line for line in lines[1:]]


def headline(a: Analysis) -> list[str]:
    """The two value lines: the objective's value first (the sheet adds up to it), then the
    other one, each saying what it is."""
    team = team_name(a.first)
    score = f"Score: {signed(a.score)} ({a.result})"
    points = f"Points: {a.points}"
    if a.objective == "score":
        return (_labelled(score, f"double dummy (rule 23), {team}'s side (the playing team); "
                                 "the score sheet below adds up to it")
                + _labelled(points, f"a second solve (rule 24): the card points (the last "
                                    f"trick's 10 included) and trick roem {team} make when "
                                    "both teams play for them; not the points of the line "
                                    "below"))
    return (_labelled(points, f"double dummy (rule 24), {team}'s side (the playing team): card "
                              "points (the last trick's 10 included) and trick roem, no hand "
                              "roem; the line below plays for them, and its score sheet's "
                              "'points:' line adds them up")
            + _labelled(score, "a second solve (rule 23), both teams playing for the score; "
                               "the line below, played for points, scores "
                               f"{signed(a.sheet.score)} ({a.sheet.result})"))


def review_head(dr, *, ascii: bool = False) -> list[str]:
    """The opening lines of a review of a played deal (``kraken-analyse``, double dummy and
    ``--view player`` alike): the hands, the rules, the first player and the teams, the trump,
    the hand roem and the double-dummy score before the first card with made or nat.  ``dr``:
    a ``DealReview`` (:mod:`kraken_solver.cli.analyse`)."""
    spec = dr.spec
    first, trump = spec.first, spec.trump
    d_team, o_team = team_name(first), team_name(first + 1)
    start = dr.summary.value_start
    out = [hand_diagram(spec.deal, trump=trump, first=first, ascii=ascii), "",
           f"Rules: {spec.rules.name}",
           f"First player: {SEATS[first]}; playing team {d_team}, defenders {o_team}",
           f"Trump: {suit_text(trump, ascii)}"]
    if spec.rules.hand_roem:
        out.append(f"Hand roem: {d_team} {dr.hand_roem[0]}, {o_team} {dr.hand_roem[1]}")
    out.append(f"Double-dummy score before the first card: {signed(start)} "
               f"({made_word(start)})")
    return out


def review_result(dr) -> str:
    """The review's result line, the same in every view: for a complete play ``Result of the
    play: score -242 (nat); double dummy at the start -222 (nat)`` (the play's result: made,
    nat or pit, as its score sheet), else the double-dummy score after the last card played
    and at the start."""
    sm = dr.summary
    start = f"{signed(sm.value_start)} ({made_word(sm.value_start)})"
    result = dr.sheet.result if dr.sheet is not None else made_word(sm.value_end)
    if dr.final_score is not None:
        return (f"Result of the play: score {signed(dr.final_score)} ({result}); double "
                f"dummy at the start {start}")
    return (f"Double-dummy score after card {len(dr.reviews)} of {4 * dr.spec.deal.size}: "
            f"{signed(sm.value_end)} ({result}); at the start {start}")


def trick_won_line(dr, t: int, totals: dict | None = None) -> str:
    """A review's line after trick ``t`` (1-based) of ``dr``'s play: ``won by N (N-S): 20
    points + 20 roem`` (with ``totals``, team name -> the points and roem it has so far, that
    team's running totals are added, playing team first), or ``(trick in progress)``."""
    if t > len(dr.tricks):
        return "    (trick in progress)"
    tr = dr.tricks[t - 1]
    team = team_name(tr.winner)
    roem = f" + {tr.roem} roem" if tr.roem else ""
    line = f"    won by {SEATS[tr.winner]} ({team}): {tr.points} points{roem}"
    if totals is not None:
        totals[team] += tr.points + tr.roem
        d_team, o_team = team_name(dr.spec.first), team_name(dr.spec.first + 1)
        line += f";  {d_team} {totals[d_team]}, {o_team} {totals[o_team]}"
    return line


def review_sheet_and_turns(dr, *, ascii: bool = False) -> list[str]:
    """The lines after the result line of a review, the same in every view: the score sheet
    of the play (with the principal variation to the end when the play stops early; rules
    18-20) and the turning points, the cards that turned the deal between made and nat."""
    sm = dr.summary
    out = []
    if dr.final_score is not None:
        title = "the play"
    else:
        import textwrap
        title = f"the play ({count(len(dr.reviews), 'card')}) and best play to the end"
        out += [""] + textwrap.wrap(
            "Best play to the end (a principal variation by score): "
            + " ".join(card_text(c, ascii) for c in dr.continuation), width=92,
            subsequent_indent="  ")
    if dr.sheet is not None:
        out += ["", format_sheet(dr.sheet, title=title, ascii=ascii)]
    out.append("")
    if sm.turning_points:
        out.append("Turning points (made <-> nat):")
        for r in sm.turning_points:
            out.append(f"  card {r.number} (trick {r.trick}): {r.seat} "
                       f"{card_text(r.card, ascii)}  {signed(r.value_before)} "
                       f"{made_word(r.value_before)} -> {signed(r.value_after)} "
                       f"{made_word(r.value_after)}  (cost {r.cost} for {r.team})")
    else:
        out.append(f"Turning points: none ({made_word(sm.value_start)} throughout)")
    return out


def format_analysis(a: Analysis, *, ascii: bool = False) -> str:
    """The full text report of one deal: the hands, the rules, trump and first player, the
    trump table (if computed), the tricks already played, score and points (each saying what
    it is), the value of every legal card (best ones marked), the principal variation trick
    by trick and the score sheet of the line shown (the played cards and the principal
    variation)."""
    spec = a.spec
    out = []
    first = spec.first
    out.append(hand_diagram(a.deal, trump=a.trump, first=first, ascii=ascii))
    out.append("")
    out.append(f"Rules: {a.rules.name}")
    out.append(f"First player: {SEATS[first]}; playing team {team_name(first)}, "
               f"defenders {team_name(first + 1)}")
    if a.trump_table is not None:
        out.append("")
        out.append(format_trump_table(a.trump_table, first=first, best_by=a.best_by,
                                      ascii=ascii))
        out.append("")
        out.append(f"Trump: {suit_text(a.trump, ascii)} (best of the trump table by "
                   f"{a.best_by})")
    else:
        out.append(f"Trump: {suit_text(a.trump, ascii)}")
    if a.rules.hand_roem:
        out.append(f"Hand roem: {team_name(first)} {a.hand_roem[0]}, "
                   f"{team_name(first + 1)} {a.hand_roem[1]} (the melds: in the score sheet)")

    d_tot = o_tot = 0
    for t in a.played_tricks:
        if t.winner % 2 == first % 2:
            d_tot += t.points + t.roem
        else:
            o_tot += t.points + t.roem
    if spec.played:
        out.append("")
        out.append(f"Played so far ({count(len(spec.played), 'card')}):")
        if a.played_tricks:
            out.append(format_tricks(a.played_tricks, first=first, ascii=ascii))
        if a.current_trick:
            n = len(a.played_tricks) + 1
            out.append(f"  trick {n}: " + "  ".join(
                f"{SEATS[(a.current_leader + i) % 4]} {card_text(c, ascii)}"
                for i, c in enumerate(a.current_trick)) + "   (in progress)")
        out.append("")
        if any(_remaining_hands(a)):
            out.append("Hands now:")
            out.append(hand_diagram(_remaining_hands(a), trump=a.trump, to_move=a.to_move,
                                    ascii=ascii))
        else:
            out.append("Hands now: none (every card is played)")

    out.append("")
    out += headline(a)
    if a.to_move is None:
        out.append("The deal is over: no card left to play.")
    else:
        out.append("")
        out.append(f"{SEATS[a.to_move]} to play; value of each legal card ({a.objective}), "
                   "* = best:")
        for card, v in a.card_values.items():
            mark = "  *" if card in a.best_cards else ""
            # a card that keeps the best value leads to the headline's made, nat or pit
            # (the pit is the principal variation's; a made value alone cannot tell it)
            word = a.result if v == a.score else made_word(v)
            extra = f" {word}" if a.objective == "score" else ""
            shown = signed(v) if a.objective == "score" else str(v)
            out.append(f"  {card_text(card, ascii):<4} {shown:>6}{extra}{mark}")
        out.append("")
        out.append(f"Principal variation (best play by {a.objective}):")
        out.append(format_tricks(a.pv_tricks, first=first, ascii=ascii,
                                 start=len(a.played_tricks) + 1,
                                 preplayed=len(a.current_trick), totals=(d_tot, o_tot)))
    if a.sheet is not None:
        out.append("")
        out.append(format_sheet(a.sheet, title=sheet_title(a), ascii=ascii,
                                points=a.objective == "points"))
    return "\n".join(out)


# ------------------------------------------------------------------------- JSON and CSV
def _trick_dict(t, number: int, already: int) -> dict:
    return {"number": number, "leader": SEATS[t.leader],
            "cards": [card_text(int(c), True) for c in t.cards], "winner": SEATS[t.winner],
            "points": int(t.points), "roem": int(t.roem), "already_played": already}


def sides_dict(playing, defenders) -> dict:
    """``{"playing_team": ..., "defenders": ...}``: a pair of values named by side."""
    return {"playing_team": playing, "defenders": defenders}


def deal_fields(spec, number: int | None, deal=None) -> dict:
    """The keys every JSON document of kraken-solve, kraken-analyse and kraken-hint starts
    with (:data:`DEAL_FIELDS`): ``deal_number`` (the deal's place in the run, 1-based; None
    when not known), ``source``, ``line`` (the deal's line in it) and ``deal`` (PBN from N;
    ``deal`` replaces ``spec.deal``)."""
    return {"deal_number": number, "source": spec.source, "line": spec.line,
            "deal": str(spec.deal if deal is None else deal)}


def analysis_dict(a: Analysis, number: int | None = None) -> dict:
    """One deal's analysis as a JSON-ready dict (cards as ``"HK"`` texts, values in points,
    from the playing team's side).

    Keys: ``deal_number`` (``number``: the deal's place in the run), ``source``, ``line``,
    ``deal`` (PBN from N), ``trump``, ``trump_given``, ``first``,
    ``playing_team`` and ``defenders`` (``"N-S"``/``"E-W"``), ``rules`` (name),
    ``rules_options``, ``played``, ``to_move``, ``objective``, ``score``, ``result``
    (``"pit"``, ``"made"`` or ``"nat"``), ``made``, ``pit`` (the principal variation by
    score wins every trick), ``points``, ``hand_roem`` (``{"playing_team": ..,
    "defenders": ..}``), ``card_values``, ``best_cards``, ``pv``, ``tricks`` (every
    completed trick: the played ones, then those of the principal variation;
    ``already_played`` counts its cards played before the analysis), ``sheet`` (the score
    sheet of the line: :func:`sheet_dict`), ``best_by`` and ``trump_table`` (list, or
    ``None`` when a trump was given), ``tags`` (the deal's other tags), ``nodes``,
    ``seconds``."""
    spec = a.spec
    tricks = [_trick_dict(t, i + 1, 4) for i, t in enumerate(a.played_tricks)]
    n0 = len(tricks)
    for i, t in enumerate(a.pv_tricks):
        tricks.append(_trick_dict(t, n0 + i + 1, len(a.current_trick) if i == 0 else 0))
    table = None
    if a.trump_table is not None:
        table = [{"trump": SUITS[r.trump], "score": int(r.score), "result": r.result,
                  "made": bool(r.made), "pit": bool(r.pit), "points": int(r.points),
                  "best": bool(r.best), "pv": list(r.pv)} for r in a.trump_table]
    return {
        **deal_fields(spec, number),
        "trump": SUITS[a.trump], "trump_given": a.trump_table is None,
        "first": SEATS[spec.first], "playing_team": team_name(spec.first),
        "defenders": team_name(spec.first + 1),
        "rules": a.rules.name, "rules_options": a.rules.to_dict(),
        "played": [card_text(c, True) for c in spec.played],
        "to_move": SEATS[a.to_move] if a.to_move is not None else None,
        "objective": a.objective, "score": int(a.score), "result": a.result,
        "made": bool(a.made), "pit": bool(a.pit), "points": int(a.points),
        "hand_roem": sides_dict(int(a.hand_roem[0]), int(a.hand_roem[1])),
        "card_values": {k: int(v) for k, v in a.card_values.items()},
        "best_cards": list(a.best_cards), "pv": list(a.pv), "tricks": tricks,
        "sheet": sheet_dict(a.sheet, sheet_title(a)) if a.sheet is not None else None,
        "best_by": a.best_by, "trump_table": table,
        "tags": dict(getattr(spec, "tags", None) or {}),
        "nodes": int(a.nodes), "seconds": round(float(a.seconds), 3),
    }


def analysis_csv_rows(analyses, number: int | None = None) -> list[list]:
    """The CSV rows (columns :data:`CSV_FIELDS`) of one deal's analyses: one per trump of the
    trump table, or one for a given trump; ``number``: the deal's place in the run.
    ``played``, ``best_cards`` and ``pv`` are space-separated card texts; booleans are
    ``True``/``False`` as ``kraken-batch`` writes them (``best`` is empty for a given
    trump)."""
    rows = []
    for a in analyses:
        spec = a.spec
        rows.append([number, spec.source, spec.line, str(a.deal), SEATS[a.first],
                     team_name(a.first),
                     SUITS[a.trump], csv_bool(a.trump_table is None), csv_bool(a.best),
                     a.rules.name, " ".join(card_text(c, True) for c in spec.played),
                     SEATS[a.to_move] if a.to_move is not None else "", a.objective,
                     a.score, csv_bool(a.made), csv_bool(a.pit), a.points,
                     a.hand_roem[0], a.hand_roem[1], " ".join(a.best_cards), " ".join(a.pv)])
    return rows


# ------------------------------------------------------------------------- the full table
def format_full_table(table, *, ascii: bool = False) -> str:
    """The double-dummy table of a deal (:class:`~kraken_solver.engine.tables.FullTable`): a row
    per first player N E S W, a column per trump; each cell the score with made, nat or pit
    and the points, from that first player's team's side; ``*`` marks each first player's
    best trump (by the table's ``best_by``: score or points)."""
    best_by = table.best_by
    head = ("  first" + "".join(f"{suit_text(t, ascii):^21}" for t in range(4))).rstrip()
    out = ["Double-dummy table: score (made, nat or pit) and points for every first player "
           "and trump,",
           "from the first player's team's side; * = that first player's best trump (by "
           f"{best_by}).", head]
    for f in range(4):
        cells = table.cells[4 * f:4 * f + 4]
        line = f"  {SEATS[f]} {team_name(f):<3}"
        for c in cells:
            line += " " + _cell_text(c.score, c.result, c.points) + (" *" if c.best else "  ")
        out.append(line.rstrip())
    return "\n".join(out)


def full_table_dict(table, spec, number: int | None = None) -> dict:
    """The table of one deal as a JSON-ready dict: ``deal_number``, ``source``, ``line``,
    ``deal``,
    ``rules``, ``rules_options``, ``tags``, ``cells`` (16: ``first``, ``playing_team``,
    ``trump``, ``score``, ``result``, ``made``, ``pit``, ``points``, ``best``, ``pv``),
    ``best_by`` (``"score"`` or ``"points"``: the value ``best`` marks), ``nodes``,
    ``seconds``."""
    cells = []
    for c in table.cells:
        d = c.to_dict()
        d["playing_team"] = team_name(c.first)
        cells.append(d)
    return {**deal_fields(spec, number, table.deal), "rules": table.rules.name,
            "rules_options": table.rules.to_dict(),
            "tags": dict(getattr(spec, "tags", None) or {}),
            "best_by": table.best_by, "cells": cells,
            "nodes": int(table.nodes), "seconds": round(float(table.seconds), 3)}


def full_table_csv_rows(table, spec, number: int | None = None) -> list[list]:
    """The table of one deal as CSV rows (:data:`TABLE_CSV_FIELDS`), one per (first player,
    trump); booleans ``True``/``False``; ``best_by``: the value ``best`` marks (``score``
    or ``points``); ``number``: the deal's place in the run."""
    best_by = table.best_by
    return [[number, spec.source, spec.line, str(table.deal), table.rules.name, SEATS[c.first],
             team_name(c.first), SUITS[c.trump], c.score, csv_bool(c.made), csv_bool(c.pit),
             c.points, csv_bool(c.best), best_by] for c in table.cells]
