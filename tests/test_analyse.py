"""Tests of the double-dummy review of a played deal: ``analyse_play``, ``summarise_play``,
``plot_play`` (kraken_solver.engine.analyse) and the ``kraken-analyse`` command (CliRunner).

Values are checked against independent ``solve`` calls (a fresh Searcher each) and against the
exact reference values of tests/data/solve_endings.jsonl; the only hard-coded results are those
of a two-card deal scored by hand from RULES.md (see ``HAND_DEAL``).

Run ``python tests/test_analyse.py`` to rewrite datasets/played_deal.txt from its seeded
generator (:func:`make_played_deal`).
"""

from __future__ import annotations

import csv
import io
import json
import os
import pathlib
import re
import sys

import numpy as np
import pytest
from click.testing import CliRunner

from kraken_solver import (Deal, IllegalCardError, KrakenError, Position, Rules, Searcher, card_str,
                           legal_cards, parse_card, solve, trump_table)
from kraken_solver.bench.suites import random_deals
from kraken_solver.cli.analyse import CSV_FIELDS, main, plot_paths
from kraken_solver.engine.analyse import (CardReview, analyse_play, plot_play, require_matplotlib,
                                          summarise_play)
from kraken_solver.engine.solver import card_values_of
from kraken_solver.game.cards import SEATS, SUITS, mask_of
from kraken_solver.notation.reader import parse_deal_file

ROOT = pathlib.Path(__file__).resolve().parent.parent
DATASETS = ROOT / "datasets"
ENDINGS = ROOT / "tests" / "data" / "solve_endings.jsonl"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"

# ------------------------------------------------------------------------- a deal by hand
# Two cards a hand, trump clubs (nobody holds one), N first: N SA S7, E SK S8, S H7 H8,
# W D7 D8.  No hand roem (no three cards in a row, no stuk), and no trick can hold three cards
# of a suit, so no trick roem; E wins a trick in every line, so no pit.  S and W are void in
# spades and hold no trump: they play anything (rule 8c), and their cards score nothing.
#   N leads SA: E chooses.  SK: N wins 11+4 = 15, E wins S7 S8 with the 10 of the last trick:
#     15 > 10, made, score 15 - 10 = +5.  S8: N wins 11, E wins S7 SK: 4+10 = 14 > 11, nat:
#     E-W score all 25, -25.  E picks S8: SA is worth -25.
#   N leads S7: E must follow in spades (rule 8a).  S8: E wins 0, leads SK, N wins SA: 4+11+10
#     = 25 against 0, +25.  SK: E wins 4, N wins SA S8 with the 10: 21 > 4, +17.  E picks SK:
#     S7 is worth +17.
# So the deal is worth +17 (best lead S7); leading SA costs N-S 17 - (-25) = 42 and turns the
# deal nat; after SA, E's SK (worth +5) instead of S8 (-25) costs E-W 30 and turns it made.
HAND_DEAL = "N:A7... K8... .78.. ..78."
HAND_PLAY_N_ERRS = ["SA", "S8", "H7", "D7", "S7", "SK", "H8", "D8"]
HAND_PLAY_BOTH_ERR = ["SA", "SK", "H7", "D7", "S7", "S8", "H8", "D8"]
HAND_FILE = ('[Deal "N:A7... K8... .78.. ..78."]\n[Trump "C"]\n[First "N"]\n[Play "N"]\n'
             "SA S8 H7 D7\nS7 SK H8 D8\n")


def test_hand_deal_mistake_by_the_playing_team():
    rs = analyse_play(HAND_DEAL, "C", "N", played=HAND_PLAY_N_ERRS)
    assert [r.number for r in rs] == list(range(1, 9))
    assert [r.trick for r in rs] == [1, 1, 1, 1, 2, 2, 2, 2]
    assert [r.seat for r in rs] == list("NESWNESW")
    assert [r.card for r in rs] == HAND_PLAY_N_ERRS
    assert [r.playing for r in rs] == [True, False] * 4
    first = rs[0]
    assert (first.value_before, first.value_after, first.cost) == (17, -25, 42)
    assert first.best_cards == ["S7"] and first.card_values == {"SA": -25, "S7": 17}
    assert first.mistake and first.turned and first.team == "N-S"
    second = rs[1]
    assert (second.value_before, second.value_after, second.cost) == (-25, -25, 0)
    assert second.best_cards == ["S8"] and second.card_values == {"SK": 5, "S8": -25}
    assert sorted(rs[2].best_cards) == ["H7", "H8"]   # S's cards are worth the same
    assert all(r.value_before == r.value_after == -25 and r.cost == 0 for r in rs[1:])
    sm = summarise_play(rs)
    assert (sm.value_start, sm.value_end, sm.playing_team) == (17, -25, "N-S")
    assert [r.number for r in sm.turning_points] == [1]
    assert sm.players["N"].to_dict() == {"cards": 2, "mistakes": 1, "cost": 42}
    assert sm.teams["E-W"].to_dict() == {"cards": 4, "mistakes": 0, "cost": 0}


def test_hand_deal_mistakes_by_both_teams():
    rs = analyse_play(HAND_DEAL, "C", "N", played=HAND_PLAY_BOTH_ERR)
    e = rs[1]
    assert (e.value_before, e.value_after, e.cost, e.playing) == (-25, 5, 30, False)
    assert e.best_cards == ["S8"] and e.mistake and e.turned
    assert rs[-1].value_after == 5
    sm = summarise_play(rs)
    assert [r.number for r in sm.turning_points] == [1, 2]
    assert sm.teams["N-S"].cost == 42 and sm.teams["E-W"].cost == 30
    assert sm.players["E"].to_dict() == {"cards": 2, "mistakes": 1, "cost": 30}


# ------------------------------------------------------------------------- invariants
def check_consistent(rs, deal, trump, first, rules, played):
    """Costs follow from the values; best cards cost 0; the records chain; the summary adds
    up (value_end = value_start - playing team's cost + defenders' cost)."""
    dteam = SEATS.index(first if isinstance(first, str) else SEATS[first]) % 2
    assert all(isinstance(r, CardReview) for r in rs)
    assert [r.card for r in rs] == [card_str(parse_card(c)) for c in played]
    for k, r in enumerate(rs):
        assert r.playing == (SEATS.index(r.seat) % 2 == dteam)
        assert r.cost == (r.value_before - r.value_after if r.playing
                          else r.value_after - r.value_before)
        assert r.cost >= 0
        assert r.value_after == r.card_values[r.card]
        assert sorted(r.card_values) == sorted(legal_cards(deal, trump, first, rules=rules,
                                                           played=played[:k]))
        assert r.best_cards == [c for c, v in r.card_values.items() if v == r.value_before]
        assert r.best_cards, "a position always has a best card"
        assert (r.card in r.best_cards) == (r.cost == 0)
        best = max if r.playing else min
        assert best(r.card_values.values()) == r.value_before
        if k:
            assert r.value_before == rs[k - 1].value_after
    sm = summarise_play(rs)
    assert sum(s.cards for s in sm.players.values()) == len(rs)
    for team, members in (("N-S", "NS"), ("E-W", "EW")):
        t = sm.teams[team]
        assert t.cards == sum(sm.players[s].cards for s in members)
        assert t.mistakes == sum(sm.players[s].mistakes for s in members)
        assert t.cost == sum(sm.players[s].cost for s in members)
    assert sm.players["N"].mistakes == sum(r.cost > 0 for r in rs if r.seat == "N")
    d, o = ("N-S", "E-W") if dteam == 0 else ("E-W", "N-S")
    assert sm.playing_team == d
    assert sm.value_end == sm.value_start - sm.teams[d].cost + sm.teams[o].cost
    assert sm.turning_points == [r for r in rs
                                 if (r.value_before > 0) != (r.value_after > 0)]


@pytest.fixture(scope="module")
def played_deal():
    (spec,) = parse_deal_file(DATASETS / "played_deal.txt")
    played = [card_str(c) for c in spec.played]
    rs = analyse_play(spec.deal, spec.trump, spec.first, rules=spec.rules, played=played)
    return spec, played, rs


def test_played_deal_values_match_independent_solves(played_deal):
    """Every value_after (and value_before, and every legal card's value) equals a solve of
    that position with a fresh Searcher."""
    spec, played, rs = played_deal
    assert len(rs) == 32
    for k, r in enumerate(rs):
        after = solve(spec.deal, spec.trump, spec.first, rules=spec.rules,
                      played=played[:k + 1], pv=False, searcher=Searcher())
        assert r.value_after == after.value, (k, r)
        before = solve(spec.deal, spec.trump, spec.first, rules=spec.rules, played=played[:k],
                       all_cards=True, pv=False, searcher=Searcher())
        assert r.value_before == before.value, (k, r)
        assert r.card_values == before.card_values, (k, r)
        assert r.best_cards == before.best_cards, (k, r)
    end = Position(spec.deal, spec.trump, spec.first, spec.rules, played)
    assert end.over and rs[-1].value_after == end.final_value("score")


def test_played_deal_is_consistent_and_interesting(played_deal):
    spec, played, rs = played_deal
    check_consistent(rs, spec.deal, spec.trump, spec.first, spec.rules, played)
    sm = summarise_play(rs)
    assert sum(r.mistake for r in rs) >= 2
    assert sm.turning_points  # the example shows a deal that turns


@pytest.mark.parametrize("seed, rules, n_played", [
    (11, Rules(), 32),
    (12, Rules.preset("klaverjas-rotterdam"), 32),
    (13, Rules.preset("kraken-amsterdam", multiplier=2, double_spades=True), 19),
])
def test_random_play_matches_independent_solves(seed, rules, n_played):
    (deal,) = random_deals(1, seed)
    rng = np.random.default_rng(seed)
    trump, first = int(rng.integers(4)), SEATS[int(rng.integers(4))]
    played = []
    for _ in range(n_played):
        played.append(str(rng.choice(legal_cards(deal, trump, first, rules=rules,
                                                 played=played))))
    searcher = Searcher()
    n0 = searcher.nodes
    rs = analyse_play(deal, trump, first, rules=rules, played=played, searcher=searcher)
    assert searcher.nodes > n0  # the searcher given is the one used
    assert len(rs) == n_played
    check_consistent(rs, deal, trump, first, rules, played)
    for k, r in enumerate(rs):
        v = solve(deal, trump, first, rules=rules, played=played[:k + 1], pv=False,
                  searcher=Searcher()).value
        assert r.value_after == v, (k, r)
    assert rs[0].value_before == solve(deal, trump, first, rules=rules, pv=False,
                                       searcher=Searcher()).value


def test_part_played_deal():
    (spec,) = parse_deal_file(DATASETS / "part_played.txt")
    rs = analyse_play(spec.deal, spec.trump, spec.first, rules=spec.rules, played=spec.played)
    assert len(rs) == len(spec.played) == 10
    assert [r.trick for r in rs] == [1] * 4 + [2] * 4 + [3] * 2
    played = [r.card for r in rs]
    check_consistent(rs, spec.deal, spec.trump, spec.first, spec.rules, played)
    assert rs[-1].value_after == solve(spec.deal, spec.trump, spec.first, rules=spec.rules,
                                       played=played, pv=False, searcher=Searcher()).value


def test_cards_as_ints_and_seats_as_numbers():
    a = analyse_play(HAND_DEAL, 3, 0, played=[parse_card(c) for c in HAND_PLAY_N_ERRS])
    b = analyse_play(Deal.from_pbn(HAND_DEAL), "C", "N", rules="kraken",
                     played=HAND_PLAY_N_ERRS)
    assert a == b


def test_empty_play_gives_no_records():
    assert analyse_play(HAND_DEAL, "C", "N", played=[]) == []
    sm = summarise_play([])
    assert (sm.value_start, sm.value_end, sm.playing_team, sm.turning_points) == (
        None, None, None, [])


def test_errors():
    with pytest.raises(KrakenError, match="needs the deal's trump"):
        analyse_play(HAND_DEAL, None, "N", played=["SA"])
    # E holds SK S8: H7 is S's card
    with pytest.raises(IllegalCardError) as e:
        analyse_play(HAND_DEAL, "C", "N", played=["SA", "H7"])
    assert e.value.column == 2 and e.value.token == "H7"
    # a revoke: E holds SK but plays H8
    with pytest.raises(IllegalCardError) as e:
        analyse_play("N:A7... K.8.. .7.8. ..7.8", "C", "N", played=["SA", "H8"])
    assert e.value.column == 2 and "may not play H8" in e.value.message
    with pytest.raises(IllegalCardError):
        analyse_play(HAND_DEAL, "C", "N", played=HAND_PLAY_N_ERRS + ["SA"])


def test_to_dict():
    r = analyse_play(HAND_DEAL, "C", "N", played=["SA"])[0]
    d = r.to_dict()
    assert d["number"] == 1 and d["seat"] == "N" and d["card"] == "SA"
    assert (d["value_before"], d["value_after"], d["cost"]) == (17, -25, 42)
    assert d["mistake"] is True and d["turned"] is True and d["team"] == "N-S"
    assert json.loads(json.dumps(d)) == d


# ------------------------------------------------------------------------- golden values
def _endings():
    with open(ENDINGS, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


# Reviewing a line analyses every card from the first lead, and the first cards (a full deal,
# every legal card valued) cost the most: all 190 lines take about a minute on 2 cores, and
# all are checked.  KRAKEN_ENDINGS_STRIDE=N checks every N-th line only, for quick local runs.
ENDINGS_STRIDE = max(1, int(os.environ.get("KRAKEN_ENDINGS_STRIDE", "1")))
ENDING_CASES = [(i + 1, case) for i, case in enumerate(_endings())][::ENDINGS_STRIDE]


@pytest.fixture(scope="module")
def golden_searcher():
    return Searcher()


@pytest.mark.parametrize("case", [c for _, c in ENDING_CASES],
                         ids=[f"line{n}" for n, _ in ENDING_CASES])
def test_golden_endings(case, golden_searcher):
    """The review of each reference line's played cards ends at the line's exact score.
    One searcher serves all lines (a new deal starts a new table generation)."""
    rules = Rules.from_dict(case["rules"])
    rs = analyse_play(case["deal"], case["trump"], case["first"], rules=rules,
                      played=case["played"], searcher=golden_searcher)
    assert len(rs) == len(case["played"])
    assert rs[-1].value_after == case["score"]
    assert all(r.cost >= 0 for r in rs)


# ------------------------------------------------------------------------- the command
def run(*args, input=None):
    return CliRunner().invoke(main, [str(a) for a in args], input=input)


def write(tmp_path, text, name="deals.txt"):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def test_cli_text_hand_deal(tmp_path):
    p = write(tmp_path, HAND_FILE)
    res = run(p, "--ascii")
    assert res.exit_code == 0, res.output
    out = res.stdout
    assert out.startswith(f"=== Deal 1: {p}, line 1 ===")
    assert "Double-dummy score before the first card: +17 (made)" in out
    assert "  Trick 1, N leads:" in out and "  Trick 2, N leads:" in out
    lines = out.splitlines()
    first = next(line for line in lines if line.strip().startswith("1  N  SA"))
    assert "+17 -> -25" in first and "cost   42 ?!" in first and "best: S7" in first
    second = next(line for line in lines if line.strip().startswith("2  E  S8"))
    assert "-25 -> -25" in second and "cost" not in second
    assert "won by N (N-S): 11 points;  N-S 11, E-W 0" in out
    assert "won by E (E-W): 14 points;  N-S 11, E-W 14" in out
    assert "Result of the play: score -25 (nat); double dummy at the start +17 (made)" in out
    assert "  card 1 (trick 1): N SA  +17 made -> -25 nat  (cost 42 for N-S)" in out
    summary = lines[lines.index(next(x for x in lines if x.startswith("Summary"))) + 2:]
    rows = {tuple(line.split()[:2]): line.split()[-3:] for line in summary}
    assert rows[("N", "N-S")] == ["2", "1", "42"]      # cards, mistakes, cost
    assert rows[("E", "E-W")] == ["2", "0", "0"]
    assert rows[("team", "N-S")] == ["4", "1", "42"]
    assert rows[("team", "E-W")] == ["4", "0", "0"]
    assert "\u2660" not in out
    assert "deal 1 (" in res.stderr and "8 cards in" in res.stderr


def test_cli_text_dataset_with_symbols():
    res = run(DATASETS / "played_deal.txt")
    assert res.exit_code == 0, res.output
    out = res.stdout
    assert "\u2660" in out and "Turning points (made <-> nat):" in out
    assert out.count("?") >= 2 and "!" in out
    assert out.count("won by") == 8 and "Summary" in out


def test_cli_partial_play():
    res = run(DATASETS / "part_played.txt", "--ascii")
    assert res.exit_code == 0, res.output
    assert "(trick in progress)" in res.stdout
    assert "Double-dummy score after card 10 of 32:" in res.stdout


def test_cli_json_matches_the_library(played_deal):
    spec, played, rs = played_deal
    res = run(DATASETS / "played_deal.txt", "--json")
    assert res.exit_code == 0, res.output
    (d,) = [json.loads(line) for line in res.stdout.splitlines()]
    assert d["played"] == played and d["complete"] is True
    assert [c["value_after"] for c in d["cards"]] == [r.value_after for r in rs]
    assert [c["cost"] for c in d["cards"]] == [r.cost for r in rs]
    assert [c["best_cards"] for c in d["cards"]] == [r.best_cards for r in rs]
    assert [(c["line"], c["column"]) for c in d["cards"]] == [tuple(a) for a in spec.played_at]
    assert d["final_score"] == d["value_end"] == rs[-1].value_after
    assert d["value_start"] == rs[0].value_before
    sm = summarise_play(rs)
    assert d["turning_points"] == [r.number for r in sm.turning_points]
    assert d["players"] == {k: v.to_dict() for k, v in sm.players.items()}
    assert d["teams"] == {k: v.to_dict() for k, v in sm.teams.items()}
    assert len(d["tricks"]) == 8 and d["trump"] == SUITS[spec.trump]


def test_cli_csv_one_row_per_card(tmp_path):
    p = write(tmp_path, HAND_FILE + "\n" + HAND_FILE.replace(
        "SA S8 H7 D7\nS7 SK H8 D8", "SA SK H7 D7\nS7"))
    res = run(p, "--csv")
    assert res.exit_code == 0, res.output
    rows = list(csv.reader(io.StringIO(res.stdout)))
    assert tuple(rows[0]) == CSV_FIELDS
    body = [dict(zip(CSV_FIELDS, r)) for r in rows[1:]]
    assert len(body) == 8 + 5
    assert [b["deal_number"] for b in body] == ["1"] * 8 + ["2"] * 5
    specs = parse_deal_file(str(p))
    assert [b["deal"] for b in body] == [str(specs[0].deal)] * 8 + [str(specs[1].deal)] * 5
    assert body[0]["card"] == "SA" and body[0]["cost"] == "42" and body[0]["turned"] == "True"
    assert (body[0]["card_line"], body[0]["card_column"], body[0]["line"]) == ("5", "1", "1")
    assert body[9]["card"] == "SK" and body[9]["cost"] == "30" and body[9]["seat"] == "E"
    assert (body[9]["card_line"], body[9]["card_column"], body[9]["line"]) == ("12", "4", "8")
    assert body[12]["value_after"] == "5" and body[12]["trick"] == "2"


def test_cli_json_and_csv_together_is_a_usage_error():
    res = run(DATASETS / "played_deal.txt", "--json", "--csv")
    assert res.exit_code == 2


def test_cli_plot(tmp_path):
    pytest.importorskip("matplotlib")
    out = tmp_path / "review.png"
    res = run(DATASETS / "played_deal.txt", "--plot", out, "--json")
    assert res.exit_code == 0, res.output
    assert out.read_bytes()[:8] == PNG_MAGIC
    assert f"wrote {out}" in res.stderr
    # several deals: one figure each, numbered
    p = write(tmp_path, HAND_FILE + "\n" + HAND_FILE)
    out2 = tmp_path / "two.png"
    res = run(p, "--plot", out2)
    assert res.exit_code == 0, res.output
    for f in plot_paths(str(out2), 2):
        assert pathlib.Path(f).read_bytes()[:8] == PNG_MAGIC
    assert not out2.exists()
    assert [pathlib.Path(f).name for f in plot_paths(str(out2), 2)] == ["two-1.png",
                                                                          "two-2.png"]


def test_plot_play_library(tmp_path):
    pytest.importorskip("matplotlib")
    rs = analyse_play(HAND_DEAL, "C", "N", played=HAND_PLAY_BOTH_ERR)
    path = plot_play(rs, tmp_path / "p.png", title="hand deal", ascii=True)
    assert pathlib.Path(path).read_bytes()[:8] == PNG_MAGIC


def test_the_play_plot_keeps_every_text_in_the_figure():
    """A long file name or rules spec ran the title off both edges of the figure; it now
    wraps (the plot moves down to make room), and nothing else leaves the figure, covers a
    plot or hides a numbered mark under another."""
    from plotcheck import (boxes_overlap, check_legends_off_the_axes, check_texts_inside_figure,
                           drawn, marker_boxes)

    from kraken_solver.engine.analyse import play_figure
    (spec,) = parse_deal_file(str(DATASETS / "played_deal.txt"))
    rs = analyse_play(spec.deal, spec.trump, spec.first, rules=spec.rules, played=spec.played)
    for title in ("Deal 1: datasets/played_deal.txt, line 4   trump S, first W (playing team "
                  "E-W), rules kraken",
                  "Deal 12: /home/club/archive/2024/season/autumn/night-7/played_deal.txt, "
                  "line 4   trump S, first W (playing team E-W), rules "
                  "kraken-amsterdam+multiplier=8+pit_bonus=250+long_runs_100=true"):
        fig = play_figure(rs, title=title, ascii=True)
        check_texts_inside_figure(fig)
        check_legends_off_the_axes(fig)
        ax = fig.axes[0]
        assert ax.get_title().replace("\n", " ") == title
        big = [b for b, _ in marker_boxes(ax, drawn(fig))
               if b.width > 10 * fig.dpi / 72]            # the numbered mistake marks
        assert len(big) == sum(r.mistake for r in rs)
        for i in range(len(big)):
            for j in range(i):
                assert not boxes_overlap(big[i], big[j])


def test_cli_plot_needs_a_png_name(tmp_path):
    res = run(DATASETS / "played_deal.txt", "--plot", tmp_path / "x.pdf")
    assert res.exit_code == 2 and "ending in .png" in res.output


def test_cli_plot_without_matplotlib(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(ImportError, match="pip install matplotlib"):
        require_matplotlib()
    res = run(DATASETS / "played_deal.txt", "--plot", tmp_path / "x.png")
    assert res.exit_code == 1 and res.stdout == ""
    assert res.stderr.count("\n") == 1 and "Traceback" not in res.output
    assert res.stderr.startswith("kraken-analyse: error: --plot: ")
    assert "pip install matplotlib" in res.stderr
    assert not (tmp_path / "x.png").exists()


def test_cli_plot_unwritable(tmp_path):
    pytest.importorskip("matplotlib")
    # refused before any work: nothing on stdout, one line on stderr
    res = run(write(tmp_path, HAND_FILE), "--plot", tmp_path / "no" / "such" / "x.png")
    assert res.exit_code == 1 and "Traceback" not in res.output
    assert "--plot's folder cannot be used" in res.stderr and res.stderr.count("\n") == 1
    assert "deal 1" not in res.stderr                # refused before any work


@pytest.mark.parametrize("text, line, column, words", [
    # H7 is in S's hand, not E's
    ('[Deal "N:A7... K8... .78.. ..78."]\n[Trump "C"]\n[First "N"]\n[Play "N"]\nSA H7\n',
     5, 4, ["E is to play but H7 is in S's hand"]),
    # a revoke: E holds SK and plays H8
    ('[Deal "N:A7... K.8.. .7.8. ..7.8"]\n[Trump "C"]\n[Play "N"]\n  SA\n  H8 H7\n',
     5, 3, ["may not play H8", "legal: SK"]),
    # a bad card in the record
    ('[Deal "N:A7... K8... .78.. ..78."]\n[Trump "C"]\n[Play "N"]\nSA SX\n',
     4, 5, ["expected a rank"]),
    # a card after the last trick
    (HAND_FILE.replace("S7 SK H8 D8", "S7 SK H8 D8 SA"), 6, 13, ["the deal is over"]),
    # cards played but no trump
    ('[Deal "N:A7... K8... .78.. ..78."]\n[Play "N"]\nSA S8\n', 2, 1,
     ["needs a trump"]),
])
def test_cli_bad_play_is_located(tmp_path, text, line, column, words):
    p = write(tmp_path, text)
    res = run(p, "--json")
    assert res.exit_code == 1
    assert res.stdout == ""
    assert "Traceback" not in res.output
    assert res.stderr.count("\n") == 1
    assert res.stderr.startswith(f"kraken-analyse: error: {p}, line {line}, column {column}: ")
    for w in words:
        assert w in res.stderr, res.stderr


@pytest.mark.parametrize("text, line, words", [
    ('[Deal "N:A7... K8... .78.. ..78."]\n[Trump "C"]\n', 1, ["no played cards to review"]),
    ('[Deal "N:A7... K8... .78.. ..78."]\n[Trump "C"]\n[Play "N"]\n', 1,
     ["no played cards to review", '[Play "N"]']),
    ('[Deal "N:A7... K8... .78.. ..78."]\n', 1, ["no trump", "[Trump"]),
    ("% one-line deals have no play\nN:A7... K8... .78.. ..78. trump=C\n", 2,
     ["no played cards to review"]),
])
def test_cli_deal_without_play_or_trump(tmp_path, text, line, words):
    # a reviewable deal first: nothing is analysed before every deal is checked
    p = write(tmp_path, HAND_FILE + "\n" + text)
    line += HAND_FILE.count("\n") + 1
    res = run(p)
    assert res.exit_code == 1 and res.stdout == ""
    assert "Traceback" not in res.output and res.stderr.count("\n") == 1
    assert res.stderr.startswith(f"kraken-analyse: error: {p}, line {line}: ")
    for w in words:
        assert w in res.stderr, res.stderr


def test_cli_trump_and_rules_overrides(tmp_path):
    p = write(tmp_path, '[Deal "N:A7... K8... .78.. ..78."]\n[Play "N"]\nSA S8\n')
    res = run(p, "--trump", "C", "--rules", "klaverjas-rotterdam", "--json")
    assert res.exit_code == 0, res.output
    (d,) = [json.loads(line) for line in res.stdout.splitlines()]
    assert d["trump"] == "C" and d["rules"] == "klaverjas-rotterdam"
    assert d["complete"] is False and d["final_score"] is None
    assert [c["value_after"] for c in d["cards"]] == [-25, -25]


def test_cli_missing_file(tmp_path):
    res = run(tmp_path / "nope.txt")
    assert res.exit_code == 1 and "Traceback" not in res.output
    assert res.stderr.startswith("kraken-analyse: error: ") and "nope.txt" in res.stderr


# ------------------------------------------------------------------------- the example data set
# datasets/played_deal.txt is written by make_played_deal() (seeded): run
# ``python tests/test_analyse.py`` to rewrite it; a test checks that it is reproducible.
PLAYED_SEED = 20240607
PLAYED_MISTAKES = 3


def make_played_deal(seed: int = PLAYED_SEED, mistakes: int = PLAYED_MISTAKES) -> str:
    """The text of datasets/played_deal.txt: a random full deal (``numpy.random.default_rng
    (seed)``), a random first player who picks the best trump of the trump table, and a
    complete play where every card is a best card (rule 26; drawn at random among the best)
    except ``mistakes`` cards, at card numbers drawn from 1..24, where a random non-best
    card is played instead (or at the next card that has one).  The seed was picked for a
    review with mistakes by both teams and two turning points."""
    rng = np.random.default_rng(seed)
    perm = rng.permutation(32)
    deal = Deal(tuple(mask_of(int(c) for c in perm[8 * k:8 * k + 8]) for k in range(4)))
    first = int(rng.integers(4))
    table = trump_table(deal, first, searcher=Searcher())
    trump = max(table, key=lambda r: (r.score, -r.trump)).trump
    at = sorted(int(x) for x in rng.choice(np.arange(1, 25), mistakes, replace=False))
    searcher = Searcher()
    pos = Position(deal, trump, first)
    played = []
    while not pos.over:
        value = searcher.value(pos, "score")
        values = card_values_of(pos, "score", searcher)
        best = [c for c, v in values.items() if v == value]
        other = [c for c, v in values.items() if v != value]
        if at and len(played) + 1 >= at[0] and other:
            at.pop(0)
            card = str(rng.choice(other))
        else:
            card = str(rng.choice(best))
        played.append(card)
        pos.play(parse_card(card))
    lines = [" ".join(played[i:i + 4]) for i in range(0, 32, 4)]
    return ("% kraken-solver example: a full deal with its complete play, for kraken-analyse.\n"
            f"% Best play except {mistakes} mistakes; generated with "
            f"numpy.random.default_rng({seed}) (tests/test_analyse.py).\n\n"
            f'[Deal "{deal.pbn(first)}"]\n[Trump "{SUITS[trump]}"]\n[First "{SEATS[first]}"]\n'
            f'[Rules "kraken"]\n[Play "{SEATS[first]}"]\n' + "\n".join(lines) + "\n")


def test_played_deal_dataset_is_reproducible():
    assert (DATASETS / "played_deal.txt").read_text(encoding="utf-8") == make_played_deal()


if __name__ == "__main__":  # rewrite the data set
    path = DATASETS / "played_deal.txt"
    path.write_text(make_played_deal(), encoding="utf-8")
    print("wrote", path)


def test_cli_the_plots_of_the_deals_seen_ahead_are_checked_before_any_work(tmp_path):
    """FILE-2.png a folder: refused before the first deal is solved (it was found at its
    deal, after FILE-1.png had been written)."""
    pytest.importorskip("matplotlib")
    p = write(tmp_path, HAND_FILE + "\n" + HAND_FILE)
    out = tmp_path / "two.png"
    first, second = plot_paths(str(out), 2)
    pathlib.Path(second).mkdir()
    res = run(p, "--plot", out)
    assert res.exit_code == 1 and res.stdout == "" and res.stderr.count("\n") == 1
    assert "this is a directory" in res.stderr and not pathlib.Path(first).exists()


def test_cli_a_plot_that_cannot_be_written_loses_no_other_output(tmp_path, monkeypatch):
    """A plot found unwritable only at its deal (past what the reader checks ahead: here
    the first deal only) does not stop the other deals."""
    pytest.importorskip("matplotlib")
    import kraken_solver.notation.reader as reader
    p = write(tmp_path, HAND_FILE + "\n" + HAND_FILE)
    monkeypatch.setattr(reader, "LOOKAHEAD_BYTES", len(HAND_FILE) + 1)
    out = tmp_path / "two.png"
    first, second = plot_paths(str(out), 2)
    pathlib.Path(first).mkdir()                     # the first plot cannot be written
    res = run(p, "--plot", out)
    assert res.exit_code == 1 and "Traceback" not in res.output
    assert res.stdout.count("=== Deal") == 2        # both deals' reviews still on stdout
    assert pathlib.Path(second).read_bytes()[:8] == PNG_MAGIC
    assert f"wrote {second}" in res.stderr
    assert res.stderr.rstrip().endswith("1 of 2 plots could not be written (the first: "
                                        f"{first}: the plot must be a regular file or a new "
                                        "file name, and this is a directory: give another "
                                        "name)")


def test_cli_plot_never_replaces_an_input(tmp_path):
    """kraken-analyse --plot x.png x.png replaced the deal file by the plot."""
    pytest.importorskip("matplotlib")
    p = write(tmp_path, HAND_FILE, name="x.png")
    before = p.read_bytes()
    res = run(p, "--plot", p)
    assert res.exit_code == 1 and "is an input of this command" in res.stderr
    # with several deals FILE-1.png ... are written: an input of that name is refused too
    two = write(tmp_path, HAND_FILE + "\n" + HAND_FILE, name="r-2.png")
    res = run(two, "--plot", tmp_path / "r.png")
    assert res.exit_code == 1 and "an input of this command" in res.stderr
    assert "deal 1" not in res.stderr
    assert p.read_bytes() == before and two.read_text() == HAND_FILE + "\n" + HAND_FILE


def test_cli_plot_title_from_a_file_name_with_dollars(tmp_path):
    # the title holds the file name; '$\foo$' was read as math and failed with a traceback
    pytest.importorskip("matplotlib")
    p = tmp_path / "p$\\foo$.txt"
    p.write_text(HAND_FILE)
    out = tmp_path / "o.png"
    res = run(p, "--plot", out)
    assert res.exit_code == 0, res.output
    assert out.read_bytes()[:8] == PNG_MAGIC


def test_analyse_play_takes_played_as_solve_does():
    # None is no card (it was a TypeError); a string is its words, as in a [Play] section
    assert analyse_play(HAND_DEAL, "C", "N", played=None) == []
    as_list = analyse_play(HAND_DEAL, "C", "N", played=HAND_PLAY_N_ERRS)
    text = " ".join(str(c) for c in HAND_PLAY_N_ERRS)
    assert analyse_play(HAND_DEAL, "C", "N", played=text) == as_list


def test_cli_counts_one_card_in_the_singular(tmp_path):
    """'1 cards in' on stderr and 'the play (1 cards)' in the review of one card played."""
    p = write(tmp_path, '[Deal "N:A7... K8... .78.. ..78."]\n[Trump "C"]\n[First "N"]\n'
                        '[Play "N"]\nSA\n')
    res = run(p, "--ascii")
    assert res.exit_code == 0, res.output
    assert "the play (1 card) and best play to the end" in res.stdout
    assert "cards" not in res.stdout.split("best play to the end")[0]
    assert re.search(r"deal 1 \(.*\): 1 card in \d+\.\d{3} s, [\d,]+ nodes", res.stderr), \
        res.stderr


def test_the_continuation_of_a_part_played_review_is_wrapped_above_its_sheet():
    """The sheet's heading held the whole principal variation to the end: one line of about
    230 characters on datasets/part_played.txt."""
    res = CliRunner().invoke(main, [str(DATASETS / "part_played.txt")])
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    at = next(i for i, x in enumerate(lines) if x.startswith("Best play to the end (a "
                                                              "principal variation by score): "))
    block = lines[at:lines.index("", at)]
    assert len(block) >= 2 and all(len(x) <= 92 for x in block)
    assert "Score sheet of the play (10 cards) and best play to the end (rules 18-20):" in lines
    assert max(len(x) for x in lines) <= 110
