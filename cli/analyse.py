"""``kraken-analyse FILE [FILE...]``: a double-dummy review of played deals.

Each deal of the files must have its trump and a ``[Play]`` section (a full deal's 32 cards or
part of the play).  For every played card the review shows the double-dummy score (RULES.md
rule 23, points, playing team's side) before and after it and its *cost*: the points it gave
away for its player's own team (``?`` marks a mistake, ``!`` a card that turned the deal
between made and nat).  Then the turning points and the cards played, mistakes and cost per
player and per team.  ``--json`` writes one JSON document a deal (JSON Lines), ``--csv`` one
row a card, ``--plot FILE.png`` draws the score through each deal (matplotlib).  Results go
to stdout; timings and the names of the plots written to stderr.  Bad input gives one line
``kraken-analyse: error: FILE, line L, column C: ...`` and exit status 1.

The deal file format is described in :mod:`kraken_solver.notation.dealfile`.
"""

from __future__ import annotations

import contextlib
import csv
import json
import os
import sys
import time
from dataclasses import dataclass, field

import click

from kraken_solver import __version__
from kraken_solver.cli import RULES_HELP, first_run_notice, guard_output, rules_option
from kraken_solver.cli import symbols_ok as _symbols_ok
from kraken_solver.cli.params import AsciiChoice, AsciiInt, one_standard_input
from kraken_solver.errors import KrakenError
from kraken_solver.game.cards import SEATS, SUITS
from kraken_solver.limits import MAX_HINT_SAMPLES, MAX_SEED
from kraken_solver.notation.dealfile import DealSpec
from kraken_solver.notation.reader import DealReader
from kraken_solver.notation.report import (DEAL_FIELDS, deal_fields, deal_heading, review_head,
                                           review_result, review_sheet_and_turns, sheet_dict,
                                           sides_dict, trick_won_line)
from kraken_solver.notation.text import card_text, count, csv_bool, suit_text, team_name

PROG = "kraken-analyse"

#: the columns of ``kraken-analyse --csv`` (one row a played card): the deal's columns of
#: every command (:data:`~kraken_solver.notation.report.DEAL_FIELDS`), then the card's
CSV_FIELDS = DEAL_FIELDS + ("card_line", "card_column", "number", "trick", "seat", "team",
                            "playing", "card", "value_before", "value_after", "cost",
                            "mistake", "turned", "best_cards")


@dataclass
class DealReview:
    """What ``kraken-analyse`` computed for one deal: the ``spec`` read from the file, the
    ``reviews`` (:class:`~kraken_solver.engine.analyse.CardReview`, one a played card), their
    ``summary`` (:class:`~kraken_solver.engine.analyse.PlaySummary`), the ``tricks`` completed by
    the play (TrickRecord), the ``final_score`` when the play completes the deal (else
    ``None``), ``continuation`` (for a play that stops before the end: a principal variation
    by score from there, card texts), ``sheet`` (the
    :class:`~kraken_solver.game.sheet.ScoreSheet` of the play, then the continuation: its score is
    ``final_score``, or the double-dummy score after the last card), ``hand_roem`` (playing
    team, defenders; points), ``nodes`` and ``seconds``."""

    spec: DealSpec
    reviews: list
    summary: object
    tricks: list = field(default_factory=list)
    final_score: int | None = None
    continuation: list = field(default_factory=list)
    sheet: object = None
    hand_roem: tuple = (0, 0)
    nodes: int = 0
    seconds: float = 0.0


def review_deal(spec: DealSpec, *, searcher=None) -> DealReview:
    """Review the play of one deal of a deal file (see :func:`analyse_play`).  Values are in
    points, from the playing team's side.  Raises KrakenError (located at the deal) when the
    deal has no trump or no played cards."""
    from kraken_solver.engine.analyse import analyse_play, summarise_play
    from kraken_solver.engine.solver import Searcher, solve
    from kraken_solver.game.position import Position
    from kraken_solver.game.roem import hand_roem
    from kraken_solver.game.sheet import sheet_of_position

    check_reviewable(spec)
    searcher = searcher if searcher is not None else Searcher()
    t0 = time.perf_counter()
    n0 = searcher.nodes
    reviews = analyse_play(spec.deal, spec.trump, spec.first, rules=spec.rules,
                           played=spec.played, searcher=searcher)
    pos = Position(spec.deal, spec.trump, spec.first, spec.rules, spec.played)
    tricks = list(pos.tricks)
    final = pos.final_value("score") if pos.over else None
    # the line of the sheet: the play, then (if it stops early) best play to the end
    rest = [] if pos.over else solve(spec.deal, spec.trump, spec.first, rules=spec.rules,
                                     played=spec.played, pv=True, searcher=searcher).pv
    line = pos.copy()
    for c in rest:
        line.play(c)
    return DealReview(
        spec=spec, reviews=reviews, summary=summarise_play(reviews), tricks=tricks,
        final_score=final, continuation=rest,
        sheet=sheet_of_position(line, played=len(spec.played)),
        hand_roem=tuple(hand_roem(spec.deal, spec.trump, spec.first, rules=spec.rules)),
        nodes=searcher.nodes - n0, seconds=time.perf_counter() - t0)


def check_reviewable(spec: DealSpec) -> None:
    """Raise KrakenError, located at the deal's first line, when ``spec`` has no trump or no
    played cards (a review needs both)."""
    if spec.trump is None:
        raise KrakenError('no trump: a review of the play needs the deal\'s trump; add a '
                          '[Trump "H"] tag (or give --trump)', source=spec.source,
                          line=spec.line)
    if not spec.played:
        raise KrakenError("no played cards to review: give the deal in tag form with a "
                          f"[Play \"{SEATS[spec.first]}\"] section listing the cards played, "
                          "in play order", source=spec.source, line=spec.line)


# ------------------------------------------------------------------------- text
def _signed(v: int) -> str:
    return f"{v:+d}"


def _mark(r) -> str:
    return ("?" if r.mistake else "") + ("!" if r.turned else "")


def format_review(dr: DealReview, *, ascii: bool = False) -> str:
    """The text report of one deal: the hands, rules, trump and first player, then the play
    trick by trick (each card with the score before and after it, its cost and its mark, the
    best cards after a mistake, each trick's winner, points and roem), the turning points and
    the per-player and per-team summary."""
    spec = dr.spec
    first = spec.first
    d_team, o_team = team_name(first), team_name(first + 1)
    sm = dr.summary
    out = review_head(dr, ascii=ascii)
    out.append("")
    out.append("Play: the double-dummy score (playing team's side, points) before -> after "
               "each card;")
    out.append("cost = points the card gave away for its player's own team; "
               "? = mistake, ! = turned made/nat.")
    by_trick: dict[int, list] = {}
    for r in dr.reviews:
        by_trick.setdefault(r.trick, []).append(r)
    totals = {d_team: 0, o_team: 0}
    for t, rows in by_trick.items():
        out.append(f"  Trick {t}, {rows[0].seat} leads:")
        for r in rows:
            line = (f"    {r.number:>3}  {r.seat}  {card_text(r.card, ascii):<4}"
                    f"{_signed(r.value_before):>7} -> {_signed(r.value_after):<6}")
            if r.mistake:
                best = " ".join(card_text(c, ascii) for c in r.best_cards)
                line += f"  cost {r.cost:>4} {_mark(r):<2}  best: {best}"
            out.append(line.rstrip())
        out.append(trick_won_line(dr, t, totals))
    out.append("")
    out.append(review_result(dr))
    out += review_sheet_and_turns(dr, ascii=ascii)
    out.append("")
    out.append("Summary (cost: points given away for the player's own team):")
    out.append("  player  team  side        cards  mistakes   cost")

    def side(team):
        return "playing" if team == d_team else "defending"
    for s in SEATS:
        st = sm.players[s]
        team = team_name(SEATS.index(s))
        out.append(f"  {s:<6}  {team:<4}  {side(team):<10}  {st.cards:>5}  {st.mistakes:>8}"
                   f"  {st.cost:>5}")
    for team in (d_team, o_team):
        st = sm.teams[team]
        out.append(f"  team    {team:<4}  {side(team):<10}  {st.cards:>5}  {st.mistakes:>8}"
                   f"  {st.cost:>5}")
    return "\n".join(out)


# ------------------------------------------------------------------------- JSON, CSV
def review_dict(dr: DealReview, number: int | None = None) -> dict:
    """One deal's review as a JSON-ready dict (cards as ``"HK"`` texts, values in points).

    Keys: ``deal_number`` (``number``: the deal's place in the run), ``source``, ``line``,
    ``deal`` (PBN from N), ``trump``, ``first``, ``rules``,
    ``rules_options``, ``playing_team`` and ``defenders`` (``"N-S"``/``"E-W"``),
    ``hand_roem`` (``{"playing_team": .., "defenders": ..}``), ``played``,
    ``complete`` (the play finishes the deal), ``value_start``, ``value_end``,
    ``made_start``, ``made_end``, ``final_score`` (``None`` unless complete), ``result`` and
    ``pit`` (of the play, or of the play and its continuation), ``continuation`` (the
    principal variation after a play that stops early), ``sheet`` (the score sheet of that
    line, adding up to ``value_end``), ``tags`` (the deal's other tags), ``cards`` (one
    dict a card: :meth:`CardReview.to_dict` plus its ``line`` and ``column`` in the file),
    ``tricks`` (the completed tricks), ``turning_points`` (card numbers), ``players`` and
    ``teams`` (cards, mistakes, cost), ``nodes``, ``seconds``."""
    spec, sm = dr.spec, dr.summary
    cards = []
    for r, at in zip(dr.reviews, spec.played_at or [(None, None)] * len(dr.reviews)):
        d = r.to_dict()
        d["line"], d["column"] = at
        cards.append(d)
    tricks = [{"number": i + 1, "leader": SEATS[t.leader],
               "cards": [card_text(int(c), True) for c in t.cards], "winner": SEATS[t.winner],
               "points": int(t.points), "roem": int(t.roem)} for i, t in enumerate(dr.tricks)]
    return {
        **deal_fields(spec, number),
        "trump": SUITS[spec.trump], "first": SEATS[spec.first], "rules": spec.rules.name,
        "rules_options": spec.rules.to_dict(), "playing_team": team_name(spec.first),
        "defenders": team_name(spec.first + 1),
        "hand_roem": sides_dict(int(dr.hand_roem[0]), int(dr.hand_roem[1])),
        "played": [r.card for r in dr.reviews], "complete": dr.final_score is not None,
        "value_start": int(sm.value_start), "value_end": int(sm.value_end),
        "made_start": sm.value_start > 0, "made_end": sm.value_end > 0,
        "final_score": None if dr.final_score is None else int(dr.final_score),
        "result": dr.sheet.result, "pit": dr.sheet.pit,
        "continuation": list(dr.continuation),
        "sheet": sheet_dict(dr.sheet, "the play" if dr.final_score is not None
                            else "the play and a principal variation by score"),
        "tags": dict(spec.tags or {}),
        "cards": cards, "tricks": tricks,
        "turning_points": [r.number for r in sm.turning_points],
        "players": {k: v.to_dict() for k, v in sm.players.items()},
        "teams": {k: v.to_dict() for k, v in sm.teams.items()},
        "nodes": int(dr.nodes), "seconds": round(float(dr.seconds), 3),
    }


def review_csv_rows(dr: DealReview, index: int) -> list[list]:
    """One deal's review as CSV rows, one a played card, with the columns
    :data:`CSV_FIELDS` (``deal_number`` is the deal's 1-based place in the run, ``line``
    its line in the file and ``deal`` its PBN text, as in every command's CSV;
    ``card_line``/``card_column`` the card's place in the file; ``best_cards``
    space-separated; booleans ``True``/``False`` as ``kraken-batch`` and ``kraken-solve``
    write them)."""
    spec = dr.spec
    rows = []
    at = spec.played_at or [(None, None)] * len(dr.reviews)
    for r, (line, col) in zip(dr.reviews, at):
        rows.append([index, spec.source, spec.line, str(spec.deal), line, col, r.number, r.trick,
                     r.seat, r.team, csv_bool(r.playing), r.card, r.value_before, r.value_after,
                     r.cost, csv_bool(r.mistake), csv_bool(r.turned),
                     " ".join(r.best_cards)])
    return rows


# ------------------------------------------------------------------------- plots
def plot_paths(path: str, n: int) -> list[str]:
    """The PNG file of each of ``n`` deals: ``path`` itself for one deal; for several,
    ``FILE-1.png``, ``FILE-2.png``, ... (the number before the extension)."""
    return [plot_path(path, i, n > 1) for i in range(1, n + 1)]


def plot_path(path: str, index: int, several: bool) -> str:
    """The PNG file of deal ``index`` (1-based): ``path`` when the run has one deal, else
    ``FILE-INDEX.png``."""
    if not several:
        return path
    root, ext = os.path.splitext(path)
    return f"{root}-{index}{ext}"


_PLOT_NUMBER = r"-[0-9]+"


def check_plot_paths(plot: str, files) -> None:
    """Refuse, before any work, a --plot that cannot be written or that would replace an
    input: ``FILE.png`` itself, or any ``FILE-N.png`` among ``files``.  Raises KrakenError."""
    import re

    from kraken_solver.notation.outputs import OutputError, check_output
    check_output(plot, what="--plot", inputs=files)
    root, ext = os.path.splitext(os.path.realpath(plot))
    pattern = re.compile(re.escape(root) + _PLOT_NUMBER + re.escape(ext))
    for f in files:
        if f != "-" and pattern.fullmatch(os.path.realpath(f)):
            raise OutputError(f"--plot would write {f}, an input of this command, when the "
                              "run has several deals: give another name", source=plot)


def _with_count(specs):
    """(spec, whether the run has more than one deal) for each spec, looking one ahead."""
    it = iter(specs)
    first = next(it, None)
    if first is None:
        return
    second = next(it, None)
    several = second is not None
    yield first, several
    if second is not None:
        yield second, several
        for spec in it:
            yield spec, several


def plot_title(dr: DealReview, index: int, ascii: bool) -> str:
    spec = dr.spec
    return (f"Deal {index}: {spec.where}   trump {suit_text(spec.trump, ascii)}, first "
            f"{SEATS[spec.first]} (playing team {team_name(spec.first)}), "
            f"rules {spec.rules.name}")


def _png_path(ctx, param, value):
    if value is not None and not value.lower().endswith(".png"):
        raise click.BadParameter("the plot is a PNG file: give a name ending in .png")
    return value


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("files", nargs=-1, required=True, metavar="FILE...",
                type=click.Path(dir_okay=False, allow_dash=True),
                callback=one_standard_input)
@click.option("--trump", type=AsciiChoice(list("SHDC")),
              help="Trump suit for every deal (overrides the file).")
@click.option("--rules", "rules_name", metavar="RULES",
              help=RULES_HELP + " For every deal: replaces [Rules]; a deal's [Double] still "
                   "sets its multiplier.")
@click.option("--json", "as_json", is_flag=True, help="One JSON document per deal (JSON Lines).")
@click.option("--csv", "as_csv", is_flag=True,
              help="One CSV row per played card, with a header.")
@click.option("--plot", "plot", metavar="FILE.png", callback=_png_path,
              help="Draw the double-dummy score through each deal, mistakes marked, to this "
                   "PNG (several deals: FILE-1.png, FILE-2.png, ...). Needs matplotlib.")
@click.option("--ascii", "ascii_", is_flag=True,
              help="Suit letters S H D C instead of the symbols.")
@click.option("--view", type=click.Choice(["double-dummy", "player"]), default="double-dummy",
              show_default=True,
              help="player: also each card's player's hint at that moment (what they could "
                   "see) and its player's-view cost beside the double-dummy cost.")
@click.option("--samples", type=AsciiInt(1, MAX_HINT_SAMPLES), default=100, show_default=True,
              help="With --view player: layouts a decision (exact when fewer are consistent).")
@click.option("--seed", type=AsciiInt(0, MAX_SEED), default=0, show_default=True,
              help="With --view player: SeedSequence seed of the drawn layouts.")
@click.option("--workers", type=AsciiInt(), default=None,
              help="With --view player: worker processes (default: one per core; at most 4 "
                   "per core).")
@click.option("--scheduler", default=None, metavar="tcp://HOST:PORT|local:N",
              help="With --view player: solve on a Dask cluster, as kraken-batch --scheduler.")
@click.option("--quiet", is_flag=True,
              help="No progress bar and no timings on stderr (warnings, errors and the plots "
                   "written are still told).")
@click.version_option(__version__, prog_name=PROG)
@click.pass_context
@guard_output(PROG)
def main(ctx, files, trump, rules_name, as_json, as_csv, plot, ascii_, view, samples, seed,
         workers, scheduler, quiet):
    """Review the play of the deals of FILE double dummy ('-' reads standard input).

    Every deal needs its trump ([Trump "H"] or --trump) and a [Play "N"] section with the
    cards played from the first lead, in play order (a full deal or part of one). For each
    card: the double-dummy score (rule 23; points, playing team's side) before and after it,
    and its cost, the points it gave away for its player's own team (? = mistake, ! = turned
    the deal between made and nat); then the turning points and the mistakes and cost per
    player and per team.

    With --view player, every card is also valued as its player saw it (their own hand, the
    cards played before and the hand roem declared): the player's-view cost is the best
    card's mean score minus the played card's over the layouts of the unseen cards (? = a
    mistake from the player's view, ~ = wrong double dummy but best from what they saw).
    """
    if as_json and as_csv:
        raise click.UsageError("--json and --csv cannot be used together")
    player = view == "player"
    if not player:
        given = [f"--{name}" for name in ("samples", "seed", "workers", "scheduler")
                 if ctx.get_parameter_source(name) not in (
                     None, click.core.ParameterSource.DEFAULT)]
        if given:
            verb = "applies" if len(given) == 1 else "apply"
            raise click.UsageError(f"{', '.join(given)} {verb} only with --view player "
                                   "(the double-dummy review draws no layouts)")
    if player and scheduler is not None and workers is not None:
        raise click.UsageError("--workers and --scheduler cannot be used together")
    ascii_ = ascii_ or not _symbols_ok(sys.stdout)
    try:
        with first_run_notice(PROG):
            run(files, trump=trump, rules=rules_option(rules_name), as_json=as_json,
                as_csv=as_csv, plot=plot, ascii_=ascii_, player=player, samples=samples,
                seed=seed, workers=workers, scheduler=scheduler, quiet=quiet)
    except KrakenError as err:
        click.echo(f"{PROG}: error: {err}", err=True)
        ctx.exit(1)


def run(files, *, trump, rules, as_json, as_csv, plot, ascii_, player=False, samples=100,
        seed=0, workers=None, scheduler=None, quiet=False):
    """The work of ``kraken-analyse``: read and check every file and the plots' names, then
    load the kernels, then review deal by deal (``player``: with each card's player's view;
    ``quiet``: no progress bar and no timings on stderr)."""
    from kraken_solver.engine.kernel_cache import load_kernels
    from kraken_solver.notation.dealfile import SkippedTags
    if player:
        from kraken_solver.playerview.hint import check_counts
        check_counts(samples, None, workers)
        if seed < 0:
            raise KrakenError("--seed must be a whole number >= 0", token=str(seed))
    if plot is not None:
        from kraken_solver.engine.analyse import require_matplotlib
        try:
            require_matplotlib()
        except ImportError as e:
            raise KrakenError(f"--plot: {e}") from None
        check_plot_paths(plot, files)
    skipped = SkippedTags()

    def check(spec):
        check_reviewable(spec)
        skipped.add(spec)

    def warn(line):
        click.echo(f"{PROG}: warning: {line}", err=True)
    # the files are read as streams (one deal in memory at a time); the start of each (its
    # first MiB: all of a usual file) is checked before any work, so a typo is reported at
    # once, before the kernels are loaded (or compiled, on the first run)
    readers = [DealReader(f, trump=trump, rules=rules, check=check) for f in files]
    for reader in readers:
        reader.check_ahead()
    skipped.report(warn)
    if plot is not None:
        # the plot of every deal seen ahead (all of them in a usual file), before any work: a
        # FILE-N.png that is a folder or a link to a sidecar was found only at its deal (their
        # folder is --plot's, probed by check_plot_paths: no probe file a deal)
        from kraken_solver.notation.outputs import check_output
        known = sum(r.ahead_deals for r in readers)
        for k in range(1, known + 1) if known > 1 else ():
            check_output(plot_path(plot, k, True), what="--plot", inputs=files, probe=False)
    specs = _with_count(spec for reader in readers for spec in reader)
    load = load_kernels()
    from kraken_solver.engine.solver import Searcher
    searcher = Searcher()
    writer = None
    if as_csv:
        writer = csv.writer(sys.stdout, lineterminator="\n")
        if player:
            from kraken_solver.playerview.review import CSV_FIELDS as VIEW_FIELDS
            writer.writerow(CSV_FIELDS + VIEW_FIELDS)
        else:
            writer.writerow(CSV_FIELDS)
    t0 = time.perf_counter()
    nodes = 0
    plot_errors = []        # a plot that cannot be written does not stop the other deals
    i = 0
    with contextlib.ExitStack() as stack:   # the pool of --view player, if any
        pool = None
        if player and (scheduler is not None or workers != 1):
            from kraken_solver.workers.pool import make_pool
            pool = stack.enter_context(make_pool(workers, scheduler))
        for i, (spec, several) in enumerate(specs, start=1):
            dr = review_deal(spec, searcher=searcher)
            nodes += dr.nodes
            if player:
                t_view = time.perf_counter()
                pv = _player_view(spec, dr, samples=samples, seed=seed, pool=pool,
                                  index=i, several=several, quiet=quiet)
                nodes += sum(r.nodes for r in pv)
                dr.seconds += time.perf_counter() - t_view
                dr.nodes += sum(r.nodes for r in pv)
                _emit_player_view(dr, pv, i, as_json, as_csv, writer, ascii_)
            elif as_json:
                click.echo(json.dumps(review_dict(dr, i), ensure_ascii=False))
            elif as_csv:
                writer.writerows(review_csv_rows(dr, i))
                sys.stdout.flush()
            else:
                if i > 1:
                    click.echo("")
                click.echo(deal_heading(i, spec))
                click.echo(format_review(dr, ascii=ascii_))
            if not quiet:
                click.echo(f"{PROG}: deal {i} ({spec.where}): {count(len(dr.reviews), 'card')} "
                           f"in {dr.seconds:.3f} s, {dr.nodes:,} nodes", err=True)
            if plot is not None:
                path = plot_path(plot, i, several)
                try:
                    if player:
                        from kraken_solver.playerview.review import plot_player_view
                        plot_player_view(pv, path,
                                         title=plot_title(dr, i, ascii_)
                                         + ", as each player saw it", ascii=ascii_,
                                         inputs=files)
                    else:
                        from kraken_solver.engine.analyse import plot_play
                        plot_play(dr.reviews, path, title=plot_title(dr, i, ascii_),
                                  ascii=ascii_, inputs=files)
                except KrakenError as e:
                    plot_errors.append(e)
                    click.echo(f"{PROG}: error: {e}", err=True)
                else:
                    click.echo(f"{PROG}: wrote {path}", err=True)
    skipped.report(warn)            # tags first seen beyond the look-ahead, if any
    total = time.perf_counter() - t0
    if not quiet:
        click.echo(f"{PROG}: {load.describe()}, then reviewed {count(i, 'deal')} in "
                   f"{total:.3f} s, {nodes:,} nodes", err=True)
    if plot_errors:
        raise KrakenError(f"{len(plot_errors)} of {count(i, 'plot')} could not be written "
                          f"(the first: {plot_errors[0]})")


def _player_view(spec, dr, *, samples, seed, pool, index, several, quiet=False):
    """The player's-view review of one deal (a progress bar on a terminal, shown after a
    second)."""
    from kraken_solver.playerview.review import review_player_view

    bar = None
    if not quiet and sys.stderr.isatty():
        from tqdm import tqdm
        bar = tqdm(total=len(dr.reviews), unit="card", file=sys.stderr, delay=1.0,
                   dynamic_ncols=True, leave=False,
                   desc=f"deal {index}" if several else None)
    try:
        return review_player_view(
            spec.deal, spec.trump, spec.first, rules=spec.rules, played=spec.played,
            samples=samples, seed=seed, dd=dr.reviews, pool=pool, workers=1 if pool is None
            else None, progress=(lambda done, total: bar.update(1)) if bar else None)
    finally:
        if bar is not None:
            bar.close()


def _emit_player_view(dr, pv, index, as_json, as_csv, writer, ascii_):
    from kraken_solver.playerview.review import (format_player_view, player_view_csv_cells,
                                                 player_view_dict)
    if as_json:
        d = review_dict(dr, index)
        d["view"] = "player"
        d["player_view"] = player_view_dict(pv)
        click.echo(json.dumps(d, ensure_ascii=False))
    elif as_csv:
        for row, r in zip(review_csv_rows(dr, index), pv):
            writer.writerow(row + player_view_csv_cells(r))
        sys.stdout.flush()
    else:
        if index > 1:
            click.echo("")
        click.echo(deal_heading(index, dr.spec))
        click.echo(format_player_view(dr, pv, ascii=ascii_))


if __name__ == "__main__":  # pragma: no cover
    main()
