"""Tests of ``kraken-arena`` (kraken_solver.arena, cli/arena.py).

A reference match (module fixture: heuristic v random, 6 deals, 2 workers) is compared with a
run on one worker, a run killed with SIGKILL and resumed, a run interrupted after its first
deal and resumed, and Parquet: the files must be the same bytes (a match file has no timing
column).  Its rows are checked against the score sheet of their play, the two tables of a deal
against each other, and the statistics against a plain computation.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from kraken_solver.cli.analyse import main as analyse_main
from kraken_solver.cli.arena import main

from kraken_solver.arena import (
    format_stats,
    make_match,
    match_stats,
    play_match,
    read_match,
)
from kraken_solver.arena.match import run_match
from kraken_solver.arena.stats import estimate, t_quantile
from kraken_solver.arena.tables import COLUMNS
from kraken_solver.dealing.seeded import generate_deals
from kraken_solver.engine.solver import solve
from kraken_solver.errors import BotError, BotSpecError
from kraken_solver.game.position import Position
from kraken_solver.game.sheet import score_sheet

SEED = 5
DEALS = 6
ARGS = ["--deals", str(DEALS), "--seed", str(SEED), "--ns", "heuristic", "--ew", "random"]


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    folder = tmp_path_factory.mktemp("arena")
    out, records = folder / "ref.csv", folder / "ref.pbn"
    r = run(*ARGS, "--out", out, "--records", records, "--workers", 2, "--quiet")
    assert r.exit_code == 0, r.output
    return out, records, r.stdout


def test_columns_and_two_tables_a_deal_with_the_same_cards_and_the_teams_swapped(reference):
    df = read_match(reference[0])
    assert list(df.columns) == [c[0] for c in COLUMNS]
    assert len(df) == 2 * DEALS
    deals = generate_deals(SEED, 0, DEALS)
    for i, (t0, t1) in enumerate(zip(df.iloc[0::2].itertuples(), df.iloc[1::2].itertuples())):
        assert (t0.deal_id, t0.table, t1.deal_id, t1.table) == (i, 0, i, 1)
        assert t0.deal == t1.deal == str(deals[i])
        assert t0.first == t1.first == t0.chooser == t1.chooser == "N"
        assert (t0.ns_bot, t0.ew_bot) == ("heuristic", "random")
        assert (t1.ns_bot, t1.ew_bot) == ("random", "heuristic")
        assert t0.trump_bot == "heuristic" and t1.trump_bot == "random"


def test_every_table_is_the_score_sheet_of_its_play_and_dd_score_the_solver(reference):
    df = read_match(reference[0])
    for row in df.itertuples():
        cards = row.play.split(" ")
        assert len(cards) == 32 and len(set(cards)) == 32
        sheet = score_sheet(row.deal, row.trump, row.first, rules=row.rules, line=cards)
        ns, ew = (sheet.playing, sheet.defenders) if row.first in "NS" else \
            (sheet.defenders, sheet.playing)
        assert (row.ns_score, row.ew_score) == (ns.final, ew.final)
        assert row.ns_points == ns.card_points + ns.last_trick + ns.trick_roem
        assert row.ew_points == ew.card_points + ew.last_trick + ew.trick_roem
        assert (row.made, row.pit) == (sheet.made, sheet.pit)
        assert row.dd_score == solve(row.deal, row.trump, row.first, rules=row.rules,
                                     pv=False).value


def test_stats_against_a_plain_computation(reference):
    df = read_match(reference[0])
    s = match_stats(df)
    per_deal = []
    for i in range(DEALS):
        a = df[(df.deal_id == i) & (df.table == 0)].iloc[0]
        b = df[(df.deal_id == i) & (df.table == 1)].iloc[0]
        per_deal.append(((a.ns_score - a.ew_score) + (b.ew_score - b.ns_score)) / 2)
    x = np.array(per_deal)
    assert s.difference.mean == pytest.approx(x.mean())
    se = math.sqrt(sum((v - x.mean()) ** 2 for v in x) / (DEALS - 1)) / math.sqrt(DEALS)
    assert s.difference.se == pytest.approx(se)
    assert s.difference.low == pytest.approx(x.mean() - 2.570582 * se, abs=1e-3)
    # team A plays (chooses) at table 0 (N chooses, A sits N-S), team B at table 1
    for t in (0, 1):
        rows = df[df.table == t]
        assert s.playing[t] == DEALS
        assert s.made[t] == pytest.approx(rows.made.mean())
        assert s.pit[t] == pytest.approx(rows.pit.mean())
        value = [(r.ns_score - r.ew_score) for r in rows.itertuples()]
        opt = rows.dd_score.to_numpy() - np.array(value)
        assert s.optimism[t].mean == pytest.approx(opt.mean())
        assert s.optimism[t].se == pytest.approx(opt.std(ddof=1) / math.sqrt(DEALS))
    text = format_stats(s)
    assert "A - B per deal" in text and "heuristic" in text
    assert text.strip() in reference[2]


@pytest.mark.parametrize("df, value", [(3, 3.182446), (5, 2.570582), (10, 2.228139),
                                       (30, 2.042272), (1000, 1.962339), (1, 12.706205),
                                       (2, 4.302653)])
def test_t_quantile(df, value):
    assert t_quantile(0.975, df) == pytest.approx(value, abs=2e-6)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.integers(-500, 500), min_size=2, max_size=60))
def test_estimate_is_the_mean_and_standard_error(xs):
    e = estimate(xs)
    x = np.array(xs, dtype=float)
    assert e.mean == pytest.approx(x.mean())
    assert e.se == pytest.approx(x.std(ddof=1) / math.sqrt(len(x)))
    assert e.low <= e.mean <= e.high


def test_one_worker_gives_the_same_file(reference, tmp_path):
    out = tmp_path / "one.csv"
    r = run(*ARGS, "--out", out, "--workers", 1, "--quiet")
    assert r.exit_code == 0, r.output
    assert out.read_bytes() == reference[0].read_bytes()


def test_parquet_holds_the_same_rows(reference, tmp_path):
    out = tmp_path / "m.parquet"
    r = run(*ARGS, "--out", out, "--workers", 1, "--chunk-size", 4, "--quiet")
    assert r.exit_code == 0, r.output
    pd.testing.assert_frame_equal(read_match(out), read_match(reference[0]),
                                  check_dtype=False)


def _interrupt_after_first_chunk(pool, res):
    raise KeyboardInterrupt


def test_interrupted_then_resumed_gives_the_same_file(reference, tmp_path):
    out = tmp_path / "cut.csv"
    config = make_match("heuristic", "random", deals=DEALS, seed=SEED)
    with pytest.raises(KeyboardInterrupt):
        _run_with_interrupt(config, out)
    assert not out.exists()
    r = run(*ARGS, "--out", out, "--resume")
    assert r.exit_code == 0, r.output
    assert "resuming" in r.stderr
    assert out.read_bytes() == reference[0].read_bytes()
    # resume with other options is refused, as the batch does
    r = run(*ARGS[:-1], "pimc:2", "--out", out, "--resume")
    assert r.exit_code == 1 and "cannot resume" in r.stderr and "teams" in r.stderr


def _run_with_interrupt(config, out):
    run_match(config, out, workers=1, on_chunk=_interrupt_after_first_chunk)


def _children(pid):
    kids = []
    for d in os.listdir("/proc"):
        try:
            with open(f"/proc/{d}/stat") as f:
                if d.isdigit() and int(f.read().rsplit(")", 1)[1].split()[1]) == pid:
                    kids.append(int(d))
        except OSError:
            continue
    return kids


def _alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="uses /proc and SIGKILL")
def test_kill_9_then_resume_gives_the_uninterrupted_file(tmp_path):
    args = ["--deals", "4", "--seed", "2", "--ns", "pimc:3", "--ew", "heuristic",
            "--workers", "1", "--quiet"]
    ref = tmp_path / "ref.csv"
    assert run(*args, "--out", ref).exit_code == 0
    out = tmp_path / "killed.csv"
    proc = subprocess.Popen([sys.executable, "-m", "kraken_solver.cli.arena", *args,
                             "--out", str(out)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    parts = tmp_path / "killed.csv.parts"
    deadline = time.time() + 120
    while time.time() < deadline:
        done = [p for p in (os.listdir(parts) if parts.exists() else [])
                if p.startswith("chunk-")]
        if done or proc.poll() is not None:
            break
        time.sleep(0.02)
    assert proc.poll() is None, proc.communicate()
    workers = _children(proc.pid)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert not out.exists()
    # the orphaned workers notice their parent is gone, exit and leave the lock
    deadline = time.time() + 20
    while any(_alive(w) for w in workers) and time.time() < deadline:
        time.sleep(0.1)
    r = run(*args, "--out", out, "--resume")
    assert r.exit_code == 0, r.output
    assert out.read_bytes() == ref.read_bytes()
    meta = json.loads((tmp_path / "killed.csv.meta.json").read_text())
    assert meta["tool"] == "kraken-arena" and meta["status"] == "complete"
    assert meta["teams"] == {"A": "pimc:3", "B": "heuristic"}
    assert meta["version"] and "commit" in meta and meta["config"]["rules"]["name"] == "kraken"


def test_a_damaged_part_is_refused_by_name(tmp_path):
    out = tmp_path / "d.csv"
    config = make_match("heuristic", "random", deals=3, seed=1)
    with pytest.raises(KeyboardInterrupt):
        _run_with_interrupt(config, out)
    parts = tmp_path / "d.csv.parts"
    (name,) = [p for p in os.listdir(parts) if p.startswith("chunk-")]
    path = parts / name
    # a row whose scores are not the score sheet of its play, under a name that matches
    text = path.read_text()
    lines = text.split("\n")
    fields = lines[1].split(",")
    i = [c[0] for c in COLUMNS].index("ns_score")
    fields[i] = str(int(fields[i]) + 10)
    lines[1] = ",".join(fields)
    data = "\n".join(lines).encode()
    os.remove(path)
    (parts / f"chunk-0000000-{hashlib.sha256(data).hexdigest()[:16]}.csv").write_bytes(data)
    r = run("--deals", 3, "--seed", 1, "--ns", "heuristic", "--ew", "random", "--out", out,
            "--resume")
    assert r.exit_code == 1
    assert "damaged" in r.stderr and "score sheet" in r.stderr and "chunk 0" in r.stderr


def test_records_are_read_by_kraken_analyse_both_views(reference):
    records = reference[1]
    text = records.read_text()
    assert text.count("[Deal ") == 2 * DEALS and '[Room "closed"]' in text
    r = CliRunner().invoke(analyse_main, [str(records), "--json"])
    assert r.exit_code == 0, r.output
    docs = [json.loads(line) for line in r.stdout.splitlines()]
    df = read_match(reference[0])
    assert len(docs) == len(df)
    for doc, row in zip(docs, df.itertuples()):
        # the review starts from the row's double-dummy score and ends at its played score
        ns_playing = row.first in "NS"
        played = (row.ns_score - row.ew_score) * (1 if ns_playing else -1)
        assert (doc["value_start"], doc["final_score"]) == (row.dd_score, played)
        assert doc["tags"]["North"] == row.ns_bot and doc["tags"]["Board"] == \
            str(row.deal_id + 1)
        assert " ".join(doc["played"]) == row.play if isinstance(doc["played"], list) else True
    r = CliRunner().invoke(analyse_main, [str(records), "--view", "player", "--samples", "4"])
    assert r.exit_code == 0, r.output
    assert "player's view" in r.stdout


class RaisesOnSecondDeal:
    """A custom bot: the first legal card; an error at the third card of deal 1's first trick
    (its hand is known to it: the hand of seat N of the deal, which it holds at table 0)."""

    name = "flaky"

    def __init__(self, hand):
        self.failing_hand = hand

    def choose_card(self, view):
        if view.hand == self.failing_hand and len(view.played) == 2:
            raise RuntimeError("out of coffee")
        return view.legal_cards()[0]


class IllegalCard:
    name = "cheater"

    def choose_card(self, view):
        legal = set(view.legal_cards())
        return next(c for c in ("SA", "S7", "HA", "H7", "DA", "CA") if c not in legal)


def test_a_failing_custom_bot_stops_the_match_in_one_line_and_keeps_finished_deals(tmp_path):
    out = tmp_path / "f.csv"
    hand = generate_deals(3, 1, 2)[0].hands[2]       # S of deal 1: plays third at trick 1
    config = make_match(RaisesOnSecondDeal(hand), "heuristic", deals=8, seed=3)
    assert config.trump_teams[0] == "heuristic"     # it names no trump: the default does
    with pytest.raises(BotError) as e:
        play_match(config, out=out, workers=1)
    msg = str(e.value)
    assert "\n" not in msg and "flaky at S raised RuntimeError: out of coffee" in msg
    assert f"deal {generate_deals(3, 1, 2)[0]}" in msg and "after 2 cards" in msg
    parts = tmp_path / "f.csv.parts"
    assert len([p for p in os.listdir(parts) if p.startswith("chunk-")]) == 1    # deal 0
    r = run("--deals", 3, "--seed", 1, "--ns", "heuristic", "--ew", "random", "--out", out)
    assert r.exit_code == 1 and "unfinished run" in r.stderr
    config = make_match(IllegalCard(), "random", deals=1, seed=3)
    with pytest.raises(BotError, match="cheater.*not legal"):
        play_match(config, workers=1)


@pytest.mark.parametrize("args, text", [
    (["--ns", "nobody", "--ew", "random"], "unknown bot; expected one of: random"),
    (["--ns", "pimc:0", "--ew", "random"], "from 1 to 1,000"),
    (["--ns", "pimc:100000", "--ew", "random"], "from 1 to 1,000"),
    (["--ns", "random", "--ew", "random", "--ew-trump", "advise:-1"], "from 1 to 10,000"),
    (["--ns", "advise:5", "--ew", "random"], "trump only"),
    (["--ns", "random"], "give both teams"),
    (["--ns", "random", "--ew", "random", "--deals", "0"], "--deals"),
    (["--ns", "random", "--ew", "random", "--regret", "0"], "--regret"),
    (["--ns", "random", "--ew", "random", "--resume"], "--resume needs"),
])
def test_bad_options_exit_2_with_one_error_line(args, text):
    if "--deals" not in args:
        args = args + ["--deals", "2"]
    r = run(*args)
    assert r.exit_code == 2, r.output
    errors = [line for line in r.output.splitlines() if line.startswith("Error")]
    assert len(errors) == 1 and text in errors[0]


def test_api_names_and_a_fixed_trump():
    with pytest.raises(BotSpecError):
        make_match("random", "nobody", deals=1)
    from kraken_solver.arena import play_deal
    p = play_deal(str(generate_deals(1, 0, 1)[0]), "H", "N", {"NS": "random", "EW": "random"},
                  seed=7)
    assert len(p.play) == 32
    res = play_match(make_match("random", "heuristic", deals=2, seed=4, trump="C",
                                first="E"), workers=1)
    assert set(res.rows.trump) == {"C"} and set(res.rows.first) == {"E"}
    assert set(res.rows.trump_bot) == {""}
    assert res.stats.playing == (2, 2)


def test_regret_is_a_judged_loss_per_card_and_by_trick(tmp_path):
    out = tmp_path / "r.csv"
    r = run("--deals", 1, "--seed", 2, "--ns", "random", "--ew", "heuristic", "--regret", 8,
            "--out", out, "--workers", 1)
    assert r.exit_code == 0, r.output
    df = read_match(out)
    assert "regret" in df.columns
    for row in df.itertuples():
        words = row.regret.split(" ")
        assert len(words) == 32
        pos = Position(row.deal, row.trump, row.first, row.rules)
        for card, w in zip(row.play.split(" "), words):
            forced = len(pos.legal()) == 1
            assert (w == "-") == forced
            if not forced:
                assert float(w) >= 0
            pos.play(card)
    assert "Regret per decision by trick" in r.stdout
    s = match_stats(df)
    assert sum(e.n for e in s.regret_by_trick[0]) + sum(e.n for e in s.regret_by_trick[1]) \
        == sum(w != "-" for x in df.regret for w in x.split(" "))


def test_a_dask_cluster_gives_the_same_file(reference, tmp_path):
    pytest.importorskip("distributed")
    out = tmp_path / "dask.csv"
    r = run(*ARGS, "--out", out, "--scheduler", "local:1", "--quiet")
    assert r.exit_code == 0, r.output
    assert out.read_bytes() == reference[0].read_bytes()


def test_a_match_on_deals_that_meet_a_condition(tmp_path):
    """--where/--predeal as kraken-batch: only the deals that meet the condition are played
    (checked by the plain evaluator), the condition is in the sidecar, a resume with another
    condition is refused, and a bad one is one line with status 2 before any work."""
    import naive_where
    out = tmp_path / "m.csv"
    r = CliRunner().invoke(main, ["--deals", 3, "--seed", 2, "--ns", "heuristic", "--ew",
                                  "random", "--where", "hearts(S) >= 4", "--predeal", "N:SJ",
                                  "--out", str(out), "--quiet"])
    assert r.exit_code == 0, r.output
    df = pd.read_csv(out)
    assert len(df) == 6
    from kraken_solver.dealing.predicate import parse_predicate
    from kraken_solver.game.cards import parse_card
    from kraken_solver.game.deal import Deal
    node = parse_predicate("hearts(S) >= 4")
    predeal = (1 << parse_card("SJ"), 0, 0, 0)
    assert all(naive_where.meets(node, Deal.from_pbn(text), predeal) for text in df["deal"])
    meta = json.loads((tmp_path / "m.csv.meta.json").read_text())
    assert meta["config"]["where"] == "hearts(S) >= 4" and meta["config"]["predeal"]
    # the sidecar's command is the match's own, as given (it was once recorded as kraken-batch)
    assert meta["tool"] == "kraken-arena" and meta["command"].startswith("kraken-arena ")
    assert "--ns heuristic" in meta["command"] and "--where 'hearts(S) >= 4'" in \
        meta["command"]
    r = CliRunner().invoke(main, ["--deals", 3, "--seed", 2, "--ns", "heuristic", "--ew",
                                  "random", "--where", "hearts(S) >= 5", "--predeal", "N:SJ",
                                  "--out", str(out), "--resume", "--quiet"])
    assert r.exit_code == 1 and "the configuration differs" in r.stderr
    r = CliRunner().invoke(main, ["--deals", 3, "--ns", "heuristic", "--ew", "random",
                                  "--where", "hearts(S >= 4", "--out", str(tmp_path / "x.csv")])
    assert r.exit_code == 2 and r.stderr.count("\n") == 1 and "column" in r.stderr
    assert not (tmp_path / "x.csv").exists()


@pytest.mark.parametrize("args, text", [
    (["--trump", "H", "--ew-trump", "heuristic"], "a fixed trump leaves no trump to choose"),
    (["--input", "datasets/part_played.txt"], "expected deals as dealt, but this deal has "
                                              "played cards"),
])
def test_options_that_cannot_both_hold_are_one_line(args, text):
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if "--input" in args:
        args = [a if a != "datasets/part_played.txt" else os.path.join(root, a) for a in args]
    else:
        args = args + ["--deals", "2"]
    r = run("--ns", "random", "--ew", "random", *args)
    assert r.exit_code == 1 and r.stderr.count("\n") == 1, r.output
    assert r.stderr.startswith("kraken-arena: error: ") and text in r.stderr, r.stderr


def _one_error_line(r, *words):
    assert r.exit_code == 1, r.output
    assert r.stderr.startswith("kraken-arena: error: ") and r.stderr.count("\n") == 1, r.stderr
    for w in words:
        assert w in r.stderr, (w, r.stderr)


def test_records_or_out_on_a_sidecar_or_the_work_directory_is_refused(tmp_path):
    """--records x.csv.meta.json (the run's own sidecar) exited 0 and left PBN in the sidecar
    (--resume: "the sidecar is damaged"); --records b.csv.meta.json (another run's) and --out
    b.csv.meta.json replaced that run's sidecar.  Now any output named *.meta.json, and a
    --records in --out's work directory, is one line (naming the option) before any work."""
    small = ["--deals", 2, "--seed", SEED, "--ns", "heuristic", "--ew", "random", "--quiet"]
    r = run(*small, "--out", tmp_path / "b.csv")
    assert r.exit_code == 0, r.output
    sidecar = tmp_path / "b.csv.meta.json"
    kept = sidecar.read_bytes()
    before = sorted(os.listdir(tmp_path))
    x = tmp_path / "x.csv"
    for args, words in [
            (["--out", x, "--records", tmp_path / "x.csv.meta.json"],
             ["--records must not be named *.meta.json", "sidecar"]),
            (["--out", x, "--records", sidecar], ["--records must not be named *.meta.json"]),
            (["--records", sidecar], ["--records must not be named *.meta.json"]),
            (["--out", sidecar], ["--out must not be named *.meta.json"]),
            (["--out", tmp_path / "b.csv.META.JSON"], ["--out must not be named *.meta.json"]),
            (["--out", x, "--records", tmp_path / "x.csv.parts"],
             ["--records would be the work directory of --out"]),
            (["--out", x, "--records", tmp_path / "x.csv.parts" / "r.pbn"],
             ["--records would be in the work directory of --out"])]:
        _one_error_line(run(*small, *args), *words)
        assert sidecar.read_bytes() == kept
        assert sorted(os.listdir(tmp_path)) == before, args
    # the earlier run is intact: its resume finds it complete
    r = run(*small[:-1], "--out", tmp_path / "b.csv", "--resume")
    assert r.exit_code == 0 and "already complete" in r.stderr, r.output
    assert sidecar.read_bytes() == kept
    # records beside the output, not on its store, still work and resume
    r = run(*small, "--out", x, "--records", tmp_path / "x.pbn")
    assert r.exit_code == 0, r.output
    assert (tmp_path / "x.pbn").read_text().count("[Deal ") == 4     # 2 deals x 2 tables
    json.loads((tmp_path / "x.csv.meta.json").read_text())


def test_a_folder_as_out_or_records_is_one_clear_line(tmp_path):
    """--out arenadir/ (no such folder) said "arenadir/.meta.json: the output's sidecar's
    folder cannot be used"; a trailing slash names a folder: refused as such.  An existing
    folder is refused too (by the option's type: exit 2)."""
    small = ["--deals", 2, "--ns", "heuristic", "--ew", "random", "--quiet"]
    r = run(*small, "--out", f"{tmp_path}/arenadir/")
    _one_error_line(r, f"--out: expected a file name, not a folder: {tmp_path}/arenadir/")
    r = run(*small, "--out", tmp_path / "x.csv", "--records", f"{tmp_path}/newdir/")
    _one_error_line(r, f"--records: expected a file name, not a folder: {tmp_path}/newdir/")
    assert os.listdir(tmp_path) == []
    (tmp_path / "made").mkdir()
    for option in ("--out", "--records"):
        r = run(*small, "--out" if option == "--records" else "--records",
                tmp_path / "a.csv", option, tmp_path / "made")
        assert r.exit_code == 2 and "is a directory" in r.stderr and option in r.stderr, \
            r.output
    assert os.listdir(tmp_path) == ["made"] and os.listdir(tmp_path / "made") == []
