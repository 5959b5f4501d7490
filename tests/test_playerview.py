"""Tests of the review as each player saw it (kraken_solver.playerview.review, ``kraken-analyse --view
player``).

Every hint of the review is checked against a brute force over naive.py at that moment of the
play (``observed.brute_hint``); the marks on the two-card deal of test_analyse.py (scored by
hand there) are worked out below; totals, seeds, workers and the command's text, JSON, CSV and
plot outputs.
"""

from __future__ import annotations

import csv
import io
import json
import re

import pytest
from click.testing import CliRunner
from observed import brute_hint

from kraken_solver.cli.analyse import CSV_FIELDS, main
from kraken_solver.notation.reader import parse_deal_file
from kraken_solver.playerview.hint import hint
from kraken_solver.playerview.review import CSV_FIELDS as VIEW_FIELDS
from kraken_solver.playerview.review import review_player_view, summarise_player_view

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
# test_analyse.py's deal, scored by hand there: N SA S7, E SK S8, S H7 H8, W D7 D8, clubs
# trump, N first.  Double dummy S7 is N's best lead (+17) and SA costs 42.  But N cannot see
# that E holds both spades: over N's 90 layouts SA averages +105 and S7 +16.2 (when E does not
# hold SK and S8 together, SA wins or the spades fall), so SA is excused ("~").  After SA, E
# (defending) holds SK S8 and sees SA: S8 averages +65 and SK +77 over E's 30 layouts, so SK
# is a mistake from E's view too, of 12 points ("?"); double dummy it cost 30.
HAND_DEAL = "N:A7... K8... .78.. ..78."
PLAY = ["SA", "SK", "H7", "D7", "S7", "S8", "H8", "D8"]
HAND_FILE = ('[Deal "N:A7... K8... .78.. ..78."]\n[Trump "C"]\n[First "N"]\n[Play "N"]\n'
             "SA SK H7 D7\nS7 S8 H8 D8\n")


def test_each_hint_equals_a_brute_force_at_that_moment():
    rv = review_player_view(HAND_DEAL, "C", "N", played=PLAY, workers=1)
    assert len(rv) == 8
    for i, r in enumerate(rv):
        if r.forced:
            assert r.cost == 0 and r.layouts == 0 and not r.mistake
            assert r.best == [r.dd.card] and r.exact and r.means == {}
            continue
        n, sums = brute_hint(HAND_DEAL, "C", "N", {}, PLAY[:i])
        assert r.exact and r.layouts == n
        assert r.means == {c: s / n for c, (s, _) in sums.items()}
    first, second = rv[0], rv[1]
    assert first.means == {"SA": 105.0, "S7": 16.2} and first.best == ["SA"]
    assert first.dd.cost == 42 and first.cost == 0 and first.excused and first.mark == "~!"
    assert second.means == {"SK": 77.0, "S8": 65.0} and second.best == ["S8"]
    assert second.dd.cost == 30 and second.cost == 12.0 and second.mistake
    assert second.mark == "?!"


def test_totals_per_player_and_team():
    rv = review_player_view(HAND_DEAL, "C", "N", played=PLAY, workers=1)
    sm = summarise_player_view(rv)
    assert sm.players["N"].excused == 1 and sm.players["N"].cost == 0
    assert sm.players["N"].dd_cost == 42 and sm.players["E"].dd_cost == 30
    assert sm.players["E"].mistakes == 1 and sm.players["E"].cost == 12.0
    for team, seats in (("N-S", "NS"), ("E-W", "EW")):
        t = sm.teams[team]
        assert t.cost == sum(sm.players[s].cost for s in seats)
        assert t.dd_cost == sum(sm.players[s].dd_cost for s in seats)
        assert t.cards == 4


def test_sampled_review_is_reproducible_and_worker_independent():
    spec = parse_deal_file("datasets/played_deal.txt")[0]
    kw = dict(rules=spec.rules, played=spec.played[:6], samples=30, seed=5)
    a = review_player_view(spec.deal, spec.trump, spec.first, workers=1, **kw)
    b = review_player_view(spec.deal, spec.trump, spec.first, workers=2, **kw)
    assert [(r.means, r.cost, r.cost_se) for r in a] == [(r.means, r.cost, r.cost_se) for r in b]
    sampled = [r for r in a if not r.exact]
    assert sampled and all(r.layouts == 30 for r in sampled)
    # decision n is the hint of its player with the seed (seed, n)
    import numpy as np
    r = a[0]
    h = hint(spec.deal, spec.trump, spec.first, rules=spec.rules, played=[], samples=30,
             seed=np.random.SeedSequence(5, spawn_key=(1,)), workers=1)
    assert r.means == {c: e.mean for c, e in h.cards.items()}


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_cli_text(tmp_path):
    f = tmp_path / "deal.txt"
    f.write_text(HAND_FILE)
    r = run(f, "--view", "player", "--ascii")
    assert r.exit_code == 0, r.output
    out = r.stdout
    assert "Play, as each player saw it." in out
    line1 = next(x for x in out.splitlines() if x.strip().startswith("1  N  SA"))
    assert line1.rstrip().endswith("~!") and "+105.0" in line1 and " 42 " in line1
    line2 = next(x for x in out.splitlines() if x.strip().startswith("2  E  SK"))
    assert line2.rstrip().endswith("?!") and "12.0 exact" in line2
    assert "forced" in out
    summary = out[out.index("Summary"):]
    assert "view mistakes" in summary and "excused" in summary


def test_both_views_open_and_close_with_the_same_lines(tmp_path):
    """--view player dropped the "(nat)"/"(made)" of the plain review's headline lines
    ("Double-dummy score before the first card: -222"), and said nothing at the end of a
    play that stops early.  Both views now print the same opening lines (hands to the score
    before the first card) and the same result line."""
    f = tmp_path / "deal.txt"
    f.write_text(HAND_FILE + "\n" + HAND_FILE.replace("S7 S8 H8 D8\n", "S7\n"))
    plain = run(f, "--ascii")
    view = run(f, "--ascii", "--view", "player", "--workers", 1)
    assert plain.exit_code == 0 and view.exit_code == 0, plain.output + view.output
    plain_deals = plain.stdout.split("=== Deal ")[1:]
    view_deals = view.stdout.split("=== Deal ")[1:]
    assert len(plain_deals) == len(view_deals) == 2
    results = []
    for a, b in zip(plain_deals, view_deals):
        head = a[:a.index("\n\nPlay")]
        assert b.startswith(head + "\n\nPlay, as each player saw it")
        assert head.splitlines()[-1].startswith("Double-dummy score before the first card: ")
        assert head.endswith(("(made)", "(nat)"))
        result = next(x for x in a.splitlines() if x.startswith(("Result of the play",
                                                                   "Double-dummy score after")))
        assert result in b.splitlines()
        results.append(result)
        # then the same score sheet and turning points (the player's view had neither)
        tail = a[a.index(result):a.index("\nSummary (")]
        assert "Score sheet of the play" in tail and "Turning points" in tail
        assert b[b.index(result):b.index("\nSummary (")] == tail
    assert results[0].startswith("Result of the play: score ") and "(" in results[0]
    assert results[1].startswith("Double-dummy score after card 5 of 8: ")
    for r in results:
        assert r.count("(made)") + r.count("(nat)") + r.count("(pit)") == 2, r


def test_cli_json_and_csv(tmp_path):
    f = tmp_path / "deal.txt"
    f.write_text(HAND_FILE)
    r = run(f, "--view", "player", "--json")
    assert r.exit_code == 0, r.output
    d = json.loads(r.stdout)
    assert d["view"] == "player" and len(d["player_view"]["cards"]) == 8
    c2 = d["player_view"]["cards"][1]
    assert c2["cost"] == 12.0 and c2["mistake"] and c2["means"] == {"SK": 77.0, "S8": 65.0}
    assert d["player_view"]["players"]["N"]["excused"] == 1
    assert d["cards"][0]["cost"] == 42               # the double-dummy review stays
    r = run(f, "--view", "player", "--csv")
    assert r.exit_code == 0, r.output
    rows = list(csv.reader(io.StringIO(r.stdout)))
    assert tuple(rows[0]) == tuple(CSV_FIELDS) + tuple(VIEW_FIELDS)
    assert len(rows) == 9
    row = dict(zip(rows[0], rows[2]))
    assert row["card"] == "SK" and float(row["view_cost"]) == 12.0
    assert row["view_mistake"] == "True" and row["cost"] == "30"
    row1 = dict(zip(rows[0], rows[1]))
    assert row1["view_excused"] == "True" and row1["view_best_cards"] == "SA"


def test_forced_cards_agree_in_text_json_and_csv():
    """A forced card (the only legal one) was 'best': [], 'exact': true in the JSON but
    view_best_cards=S9 and an empty view_exact in the CSV.  It is trivially the best, exact
    with no layout solved and no mean, in all three."""
    f = "datasets/played_deal.txt"
    docs = run(f, "--view", "player", "--json", "--samples", 20, "--workers", 1)
    assert docs.exit_code == 0, docs.output
    d = json.loads(docs.stdout)
    table = run(f, "--view", "player", "--csv", "--samples", 20, "--workers", 1)
    assert table.exit_code == 0, table.output
    rows = [dict(zip(r[0], x)) for r in [list(csv.reader(io.StringIO(table.stdout)))]
            for x in r[1:]]
    text = run(f, "--view", "player", "--ascii", "--samples", 20, "--workers", 1)
    assert text.exit_code == 0, text.output
    lines = text.stdout.splitlines()
    forced = 0
    for dd, view, row in zip(d["cards"], d["player_view"]["cards"], rows):
        assert row["card"] == dd["card"]
        assert row["view_best_cards"] == " ".join(view["best"])
        assert row["view_exact"] == str(view["exact"])
        assert int(row["view_layouts"]) == view["layouts"]
        assert row["view_mean"] == ("" if view["mean"] is None else str(view["mean"]))
        if view["forced"]:
            forced += 1
            assert view["best"] == [dd["card"]] and view["exact"] and view["layouts"] == 0
            assert view["mean"] is None and view["means"] == {} and view["cost"] == 0
            line = next(x for x in lines if re.match(rf"\s+{dd['number']}\s+{dd['seat']}"
                                                      rf"\s+{dd['card']}\s", x))
            assert re.search(rf"\s{dd['card']}\s+forced$", line), line
        else:
            assert view["layouts"] > 0 and view["mean"] is not None
    assert forced >= 4


def test_cli_plot(tmp_path):
    f = tmp_path / "deal.txt"
    f.write_text(HAND_FILE)
    png = tmp_path / "view.png"
    r = run(f, "--view", "player", "--plot", png)
    assert r.exit_code == 0, r.output
    assert png.read_bytes()[:8] == PNG_MAGIC
    assert f"wrote {png}" in r.stderr


@pytest.mark.parametrize("args, what, status", [
    (["--samples", "0"], "Invalid value for '--samples': 0 is not in the range 1<=x<=1000000", 2),
    (["--seed", "-1"], "Invalid value for '--seed': -1 is not in the range 0<=x<=", 2),
    (["--workers", "0"], "kraken-analyse: error: the number of workers", 1)])
def test_cli_bad_numbers(tmp_path, args, what, status):
    """Out of an option's own range: Click's usage error (2); --workers, bounded by the
    machine's cores where it is used: one error line (1)."""
    f = tmp_path / "deal.txt"
    f.write_text(HAND_FILE)
    r = run(f, "--view", "player", *args)
    assert r.exit_code == status and what in r.stderr, r.stderr
    if status == 1:
        assert r.stderr.count("\n") == 1


@pytest.mark.parametrize("args, named", [
    (["--samples", 5, "--workers", 2, "--seed", 3],
     "--samples, --seed, --workers apply only with --view player"),
    (["--seed", 3], "--seed applies only with --view player"),
    (["--view", "double-dummy", "--samples", 100], "--samples applies only with --view player"),
    (["--scheduler", "local:1"], "--scheduler applies only with --view player")])
def test_player_view_options_without_it_are_refused(args, named):
    """--samples, --seed, --workers and --scheduler were ignored without a word (exit 0) in
    the double-dummy review: a usage error (2) naming them and --view player, before work."""
    r = run("datasets/played_deal.txt", *args)
    assert r.exit_code == 2 and r.stdout == "", r.output
    assert f"Error: {named} (the double-dummy review draws no layouts)" in r.stderr


def _mistake_everywhere(dd):
    """Player's-view records of a double-dummy review with every card a mistake (so every
    card is labelled: the most crowded plot there can be)."""
    from kraken_solver.playerview.review import PlayerViewReview
    out = []
    for i, r in enumerate(dd):
        pr = PlayerViewReview(dd=r, means={r.card: 0.0}, best=[r.card], cost=5.0 + i % 7,
                              exact=True, layouts=10)
        out.append(pr)
    return out


def _check_player_view_figure(fig, reviews):
    from plotcheck import (check_labels, check_legends_off_the_axes, check_limits_hold,
                           check_texts_inside_figure)
    top = fig.axes[0]
    labelled = [r for r in reviews if r.mistake]
    assert len(fig.mistake_labels) == len(labelled)
    from kraken_solver.notation.text import card_text
    assert [t.get_text() for t in fig.mistake_labels] == \
        [f"{r.dd.seat} {card_text(r.dd.card)}" for r in labelled]
    check_labels(top, fig.mistake_labels)
    check_texts_inside_figure(fig)
    check_legends_off_the_axes(fig)
    check_limits_hold(top, [r.dd.value_after for r in reviews] + [reviews[0].dd.value_before],
                      axis="y")


def test_the_plot_labels_cover_no_mark_and_no_other_label():
    """The 'S ♥K' label at card 21 of datasets/played_deal.txt was partly under W's ♥Q
    marker; the legends lay over the bars.  Each label now sits where its box, in the saved
    figure's pixels, is inside the panel and off every marker and label (checked on the
    figure's own artists), the legend below the panels, the title inside the figure: on the
    dataset's real review and on its play with every card a mistake."""
    from kraken_solver.engine.analyse import analyse_play
    from kraken_solver.playerview.review import player_view_figure
    (spec,) = parse_deal_file("datasets/played_deal.txt")
    real = review_player_view(spec.deal, spec.trump, spec.first, rules=spec.rules,
                              played=spec.played, samples=100, workers=2)
    assert any(r.mistake and r.dd.number == 21 for r in real)      # the label of the finding
    fig = player_view_figure(real, title="Deal 1: datasets/played_deal.txt, line 4   trump "
                             "\u2660, first W (playing team E-W), rules kraken, as each "
                             "player saw it")
    _check_player_view_figure(fig, real)
    crowded = _mistake_everywhere(analyse_play(spec.deal, spec.trump, spec.first,
                                               rules=spec.rules, played=spec.played))
    long_title = ("Deal 1: a/very/long/folder/name/of/the/club/archive/2024/played_deal.txt, "
                  "line 4   trump \u2660, first W (playing team E-W), rules "
                  "kraken-amsterdam+multiplier=8+pit_bonus=250+long_runs_100=true, as each "
                  "player saw it")
    fig = player_view_figure(crowded, title=long_title)
    _check_player_view_figure(fig, crowded)
    assert fig.axes[0].get_title().count("\n") >= 1          # wrapped, not cut off
