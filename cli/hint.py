"""``kraken-hint FILE [FILE...]``: which card to play, from the player's own view.

For each deal of the files, the player to move after its ``[Play]`` cards (the first player
when there are none) sees their own hand, the cards played and who played them, and the hand
roem declared before play (``[Declared "20 0"]``, playing team first; needed when a hand is
hidden and hand roem is on).  The other hands may be written ``-``; given, they are not looked
at.  Every legal card is valued over the layouts of the unseen cards consistent with what the
player saw (:mod:`kraken_solver.playerview.hint`): mean score with its standard error, P(made), mean
points, P(pit) and the loss against the best card, the best marked; exact when the layouts
number at most 2,000, else sampled.  ``--json`` writes one JSON document a deal, ``--csv``
one row a legal card.  Results go to stdout; a progress bar (when a hint takes more than a
second and stderr is a terminal) and timings to stderr.  Bad input gives one line
``kraken-hint: error: FILE, line L, column C: ...`` and exit status 1; Ctrl-C ends it with
``kraken-hint: interrupted`` and exit status 130.
"""

from __future__ import annotations

import contextlib
import csv
import json
import sys
import time

import click

from kraken_solver import __version__
from kraken_solver.cli import guard_output
from kraken_solver.cli import symbols_ok as _symbols_ok
from kraken_solver.cli.params import AsciiChoice, AsciiInt, one_standard_input
from kraken_solver.errors import KrakenError
from kraken_solver.game.cards import SEATS
from kraken_solver.limits import MAX_HINT_SAMPLES, MAX_SEED
from kraken_solver.notation.dealfile import DealSpec
from kraken_solver.notation.reader import parse_deal_file
from kraken_solver.notation.report import DEAL_FIELDS, deal_fields
from kraken_solver.notation.text import card_text, count, csv_bool, hand_line, suit_text, team_name

PROG = "kraken-hint"

#: the columns of ``kraken-hint --csv`` (one row a legal card of the player to move)
CSV_FIELDS = DEAL_FIELDS + ("seat", "side", "trump", "objective", "card", "mean", "se",
                            "p_made", "mean_score", "mean_points", "p_pit", "min", "max",
                            "loss", "loss_se", "best", "forced", "exact", "layouts",
                            "consistent", "allowed_by_play", "seed")


def locate(err: KrakenError, spec: DealSpec) -> KrakenError:
    """``err`` located in the file: a card of the play (``column`` = its 1-based index in
    the play) at its own line and column, one about the declared hand roem at the deal's
    [Declared] tag (or declared= word), anything else at the deal's line."""
    from kraken_solver.playerview.observation import DeclaredRoemError

    if err.source is not None:
        return err
    if isinstance(err, DeclaredRoemError) and spec.declared_at is not None:
        line, col, text = spec.declared_at
        return type(err)(err.message, source=spec.source, line=line, column=col, token=text)
    if err.column is not None and 1 <= err.column <= len(spec.played_at):
        line, col = spec.played_at[err.column - 1]
        return type(err)(err.message, source=spec.source, line=line, column=col,
                         token=err.token)
    return type(err)(err.message, source=spec.source, line=spec.line, token=err.token)


def observation_of(spec: DealSpec):
    """The :class:`~kraken_solver.playerview.observation.Observation` of the deal's player to move.
    Raises
    KrakenError located in the file."""
    from kraken_solver.playerview.observation import observe

    if spec.trump is None:
        raise KrakenError('no trump: a hint needs the deal\'s trump; add a [Trump "H"] tag (or '
                          "give --trump)", source=spec.source, line=spec.line)
    try:
        # the deal and the cards as the file writes them: an error echoes the user's own text
        return observe(spec.deal_text or spec.deal, spec.trump, spec.first, rules=spec.rules,
                       played=spec.played_text or spec.played, declared=spec.declared)
    except KrakenError as e:
        raise locate(e, spec) from None


def two_figures(x: float) -> str:
    """``x`` to two significant figures, with thousands separators (``203,637`` ->
    ``200,000``; ``4,046,248,462`` -> ``4,000,000,000``): an estimate from a few hundred
    draws is not known closer than a few percent."""
    if x <= 0:
        return "0"
    digits = len(str(int(x))) - 2
    return f"{round(x, -digits) if digits > 0 else round(x):,.0f}"


def _signed(v: float) -> str:
    return f"{v:+.1f}"


def format_play(obs, *, ascii: bool = False) -> list[str]:
    """The cards played so far, a trick a line, each card with its player."""
    from kraken_solver.playerview.observation import trick_winner_index

    if not obs.played:
        return ["Play so far: none (the first lead)"]
    out = ["Play so far:"]
    for t in range(0, len(obs.played), 4):
        cards = obs.played[t:t + 4]
        who = obs.who[t:t + 4]
        text = "  ".join(f"{SEATS[s]} {card_text(c, ascii)}" for s, c in zip(who, cards))
        if len(cards) == 4:
            w = who[trick_winner_index(list(cards), obs.trump)]
            out.append(f"  trick {t // 4 + 1}: {text}   won by {SEATS[w]}")
        else:
            out.append(f"  trick {t // 4 + 1}: {text}   (in progress)")
    return out


def format_hint(h, obs, *, ascii: bool = False) -> str:
    """The text report of one hint: who is to play, their hand, the rules, trump and hand
    roem, the play so far, how many layouts were solved, and the table of the legal cards."""
    d_team, o_team = team_name(obs.first), team_name(obs.first + 1)
    trick = len(obs.played) // 4 + 1
    place = len(obs.played) % 4
    what = "the lead" if place == 0 else f"card {place + 1}"
    gone = sum(1 << c for c in obs.played)
    team = d_team if h.side == "playing team" else o_team
    lines = [f"{h.seat} to play: trick {trick}, {what}; {h.seat} plays for the {h.side} "
             f"{team} (first player {h.first})",
             f"{h.seat}'s hand now: {hand_line(obs.hand & ~gone, obs.trump, ascii)}",
             f"Trump: {suit_text(obs.trump, ascii)}; rules {h.rules.name}"
             + (f"; hand roem declared: {d_team} {h.declared[0]}, {o_team} {h.declared[1]}"
                if h.declared is not None else "")]
    lines += format_play(obs, ascii=ascii)
    if h.forced:
        lines.append("")
        lines.append(f"Forced: {card_text(h.best[0], ascii)} (the only legal card); nothing to "
                     "choose, no layout solved")
        return "\n".join(lines)
    if h.exact:
        lines.append(f"Layouts: all {h.layouts:,} consistent with what {h.seat} saw, solved "
                     "(exact)")
    else:
        counted = (f"{h.consistent:,} consistent" if h.consistent is not None else
                   f"{h.allowed_by_play:,} allowed by the play, about "
                   f"{two_figures(h.consistent_estimate)} of them giving the declared "
                   "roem")
        lines.append(f"Layouts: {counted};")
        estimated = "; that count estimated from the draws" if h.consistent is None else ""
        lines.append(f"  {h.layouts:,} of them drawn at random (seed {h.seed}) and solved "
                     f"(sampled{estimated})")
    lines.append("Values: mean over the layouts of each card's double-dummy value, points, "
                 "the playing team's side;")
    lines.append(f"+- = standard error; loss = how much worse than the best card for {h.seat}.")
    lines.append("")
    main_name = "mean score" if h.objective == "score" else "mean points"
    other = "mean points" if h.objective == "score" else "mean score"
    lines.append(f"  card   {main_name:>15}    P(made)  {other:>11}   P(pit)   loss")
    for card, e in h.cards.items():
        se = f" +- {e.se:5.1f}" if not h.exact else " " * 9
        second = e.mean_points if h.objective == "score" else e.mean_score
        second_text = f"{second:>11.1f}" if second is not None else f"{'-':>11}"
        loss = "best" if e.best else (f"{e.loss:.1f}" + (f" +- {e.loss_se:.1f}"
                                                          if not h.exact else ""))
        lines.append(f"  {card_text(card, ascii):<5} {_signed(e.mean):>7}{se}    "
                     f"{e.p_made:6.3f}  {second_text}   {e.p_pit:6.3f}   {loss}")
    side = ("the highest, for the playing team" if h.side == "playing team" else
            "the lowest, for the defenders")
    lines.append("")
    lines.append(f"Best for {h.seat}: " + " ".join(card_text(c, ascii) for c in h.best)
                 + f" ({main_name}: {side})")
    return "\n".join(lines)


def hint_dict(h, spec: DealSpec, number: int | None = None) -> dict:
    """One deal's hint as a JSON-ready dict: ``deal_number`` (``number``: the deal's place in
    the run), ``source``, ``line`` and ``deal`` (PBN from N, ``-`` for a hand not given), as
    every command's JSON starts, then :meth:`Hint.to_dict`."""
    return {**deal_fields(spec, number), **h.to_dict()}


def hint_csv_rows(h, spec: DealSpec, index: int) -> list[list]:
    """One deal's hint as CSV rows (:data:`CSV_FIELDS`), one a legal card."""
    if h.forced:                # one row: the card, no values (nothing was solved)
        return [[index, spec.source, spec.line, str(spec.deal), h.seat, h.side, h.trump,
                 h.objective, h.best[0]] + [""] * 10
                + [csv_bool(True), csv_bool(True), csv_bool(True), 0,
                   "" if h.consistent is None else h.consistent, h.allowed_by_play, h.seed]]
    rows = []
    for card, e in h.cards.items():
        d = e.to_dict()         # numbers in the tools' style (notation.numbers)
        rows.append([index, spec.source, spec.line, str(spec.deal), h.seat, h.side, h.trump,
                     h.objective, card, d["mean"], d["se"], d["p_made"], d["mean_score"],
                     "" if d["mean_points"] is None else d["mean_points"],
                     "" if d["p_pit"] is None else d["p_pit"], e.min, e.max,
                     d["loss"], d["loss_se"], csv_bool(e.best), csv_bool(False),
                     csv_bool(h.exact), h.layouts,
                     "" if h.consistent is None else h.consistent, h.allowed_by_play, h.seed])
    return rows


@click.command(name=PROG, context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("files", nargs=-1, required=True, metavar="FILE...",
                type=click.Path(dir_okay=False, allow_dash=True),
                callback=one_standard_input)
@click.option("--samples", type=AsciiInt(1, MAX_HINT_SAMPLES), default=None,
              help="Layouts to draw and solve (default: all of them when they number at most "
                   "2,000, else 200).")
@click.option("--seed", type=AsciiInt(0, MAX_SEED), default=0, show_default=True,
              help="SeedSequence seed of the drawn layouts.")
@click.option("--objective", type=click.Choice(["score", "points"]), default="score",
              show_default=True, help="The value the means and the best card use.")
@click.option("--no-points", is_flag=True,
              help="With --objective score, leave out the mean points (half the searches).")
@click.option("--trump", type=AsciiChoice(list("SHDC")),
              help="Trump suit for every deal (overrides the file).")
@click.option("--rules", "rules_spec", default=None, metavar="RULES",
              help="Rules for every deal (overrides [Rules]; [Double] still applies), e.g. "
                   "kraken or kraken-amsterdam.")
@click.option("--workers", type=AsciiInt(), default=None,
              help="Worker processes (default: one per core; at most 4 per core).")
@click.option("--scheduler", default=None, metavar="tcp://HOST:PORT|local:N",
              help="Solve on a Dask cluster, as kraken-batch --scheduler.")
@click.option("--json", "as_json", is_flag=True, help="One JSON document per deal (JSON Lines).")
@click.option("--csv", "as_csv", is_flag=True,
              help="One CSV row per legal card, with a header.")
@click.option("--ascii", "ascii_", is_flag=True,
              help="Suit letters S H D C instead of the symbols.")
@click.option("--quiet", is_flag=True, help="No progress bar and no timings on stderr.")
@click.version_option(__version__, prog_name=PROG)
@click.pass_context
@guard_output(PROG)
def main(ctx, files, samples, seed, objective, no_points, trump, rules_spec, workers,
         scheduler, as_json, as_csv, ascii_, quiet):
    """Value every legal card of the player to move in the deals of FILE, from that player's
    own view ('-' reads standard input).

    The deal files of kraken-solve, where the hands the player cannot see may be written '-'
    ([Deal "S:7.KQ9.JT8.7 - - -"]) and [Declared "20 0"] gives the hand roem declared before
    play (playing team first; needed with a hidden hand when hand roem is on). The player to
    move after [Play] sees their hand, the cards played and the declared roem; each legal card
    is valued double dummy over every layout of the unseen cards consistent with that (exact
    up to 2,000 layouts, else --samples drawn): mean score (points, playing team's side) with
    its standard error, P(made), mean points, P(pit), and the loss against the best card.
    """
    from kraken_solver.playerview.hint import check_counts
    if as_json and as_csv:
        raise click.UsageError("--json and --csv cannot be used together")
    if no_points and objective == "points":
        raise click.UsageError("--no-points applies only with --objective score: with "
                               "--objective points the mean points are the values themselves")
    if scheduler is not None and workers is not None:
        raise click.UsageError("--workers and --scheduler cannot be used together (local:N "
                               "sets the number of local Dask workers)")
    ascii_ = ascii_ or not _symbols_ok(sys.stdout)
    # a KrakenError or Ctrl-C from here on: guard_output's one line, exit 1 or 130
    check_counts(samples, None, workers)
    if seed < 0:
        raise KrakenError("--seed must be a whole number >= 0", token=str(seed))
    rules = None
    if rules_spec is not None:
        from kraken_solver.game.rules import as_rules
        rules = as_rules(rules_spec)
    specs = []
    for f in files:
        specs += parse_deal_file(f, trump=trump, rules=rules, hidden=True)
    observations = [observation_of(spec) for spec in specs]
    writer = None
    if as_csv:
        writer = csv.writer(sys.stdout, lineterminator="\n")
        writer.writerow(CSV_FIELDS)
    t0 = time.perf_counter()
    with contextlib.ExitStack() as stack:
        pool_box = [None]           # the pool, opened by the first deal that needs it
        for i, (spec, obs) in enumerate(zip(specs, observations), start=1):
            h = _hint_one(spec, obs, stack, pool_box, samples=samples, seed=seed,
                          objective=objective, both=not no_points, workers=workers,
                          scheduler=scheduler, quiet=quiet, index=i, deals=len(specs))
            if as_json:
                click.echo(json.dumps(hint_dict(h, spec, i), ensure_ascii=False))
            elif as_csv:
                writer.writerows(hint_csv_rows(h, spec, i))
                sys.stdout.flush()
            else:
                if i > 1:
                    click.echo("")
                click.echo(f"=== Deal {i}: {spec.where} ===")
                click.echo(format_hint(h, obs, ascii=ascii_))
            if not quiet and h.forced:
                click.echo(f"{PROG}: deal {i} ({spec.where}): a forced card, no layout "
                           "solved", err=True)
            elif not quiet:
                click.echo(f"{PROG}: deal {i} ({spec.where}): "
                           f"{count(h.layouts, 'layout')} in {h.seconds:.2f} s, "
                           f"{h.nodes:,} nodes, {count(h.workers, 'worker')}", err=True)
    if not quiet and len(specs) > 1:
        click.echo(f"{PROG}: {len(specs)} deals in {time.perf_counter() - t0:.2f} s",
                   err=True)


def _hint_one(spec, obs, stack, pool_box, *, samples, seed, objective, both, workers,
              scheduler, quiet, index, deals):
    """The hint of one deal; opens the pool (kept in ``pool_box[0]`` for the next deals,
    closed by ``stack``) when the first job worth one comes."""
    from kraken_solver.playerview.hint import SMALL_JOB, forced_hint, plan_hint, solve_plan
    from kraken_solver.workers.pool import make_pool

    t0 = time.perf_counter()
    legal = obs.legal_now()
    if len(legal) == 1:         # nothing to choose: no layout drawn or solved
        return forced_hint(obs, legal[0], objective=objective, samples=samples, seed=seed,
                           t0=t0)
    try:
        plan = plan_hint(obs, samples=samples, seed=seed)
    except KrakenError as e:
        raise locate(e, spec) from None
    pool = pool_box[0]
    if pool is None and (scheduler is not None or (workers != 1 and len(plan.chosen) >
                                                   SMALL_JOB)):
        pool = pool_box[0] = stack.enter_context(make_pool(workers, scheduler))
    bar = None
    if not quiet and sys.stderr.isatty():
        from tqdm import tqdm
        bar = tqdm(total=len(plan.chosen), unit="layout", file=sys.stderr, delay=1.0,
                   dynamic_ncols=True, leave=False,
                   desc=f"deal {index}/{deals}" if deals > 1 else None)
    try:
        return solve_plan(plan, objective=objective, samples=samples, seed=seed, both=both,
                          pool=pool if len(plan.chosen) > SMALL_JOB else None, progress=bar,
                          t0=t0)
    finally:
        if bar is not None:
            bar.close()


if __name__ == "__main__":  # pragma: no cover
    main()
