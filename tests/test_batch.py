"""Tests of ``kraken-batch`` (kraken_solver.batch, kraken_solver.batch.summary, cli/batch.py).

Full deals take 0.2-0.5 s each for four trumps, so the batches here are a few deals with small
chunks.  One reference batch (module fixture) is compared with: a run with another number of
workers and chunk size, a run killed with SIGKILL and resumed, and a run from a deal file in
Parquet.  Files are compared on every column but the timing columns ``nodes`` and ``ms``.
"""

from __future__ import annotations

import io
import json
import os
import re
import stat
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from batch_kill import kill_after_first_chunk, wait_gone
from click.testing import CliRunner

from kraken_solver import Deal, Position, Rules, trump_table
from kraken_solver.batch.config import COLUMNS, TIMING_COLUMNS, make_config
from kraken_solver.batch.run import run_batch
from kraken_solver.batch.store import read_results
from kraken_solver.batch.summary import hand_features, summarize
from kraken_solver.cli.batch import main
from kraken_solver.dealing.seeded import GEN_BLOCK, generate_deals
from kraken_solver.engine.trumps import forces_pit, pit_ruled_out, solve_trumps
from kraken_solver.errors import KrakenError
from kraken_solver.game.cards import SEATS, SUITS, mask_of
from kraken_solver.workers.task import worker_searcher

SEED = 11
DEALS = 6


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def values(path):
    """The batch file without its timing columns."""
    df = read_results(path)
    return df.drop(columns=[c for c in TIMING_COLUMNS if c in df.columns])


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """An uninterrupted batch: 6 deals, seed 11, score and points, 2 workers, chunks of 2."""
    out = tmp_path_factory.mktemp("ref") / "ref.csv"
    r = run("--deals", DEALS, "--seed", SEED, "--out", out, "--objective", "score,points",
            "--workers", 2, "--chunk-size", 2, "--quiet")
    assert r.exit_code == 0, r.output
    return out


# ------------------------------------------------------------------------------ deals
def test_generated_deals_depend_on_seed_and_index_only():
    all_ = generate_deals(5, 0, GEN_BLOCK + 6)
    assert len(all_) == GEN_BLOCK + 6
    assert generate_deals(5, GEN_BLOCK - 2, GEN_BLOCK + 3) == all_[GEN_BLOCK - 2:GEN_BLOCK + 3]
    assert generate_deals(5, 3, 4) == all_[3:4]
    assert generate_deals(6, 0, 3) != all_[:3]
    for d in all_:
        assert d.size == 8 and d.all_cards == 0xFFFFFFFF
    # deal i comes from child i // 64 of SeedSequence(seed): its (i % 64)-th permutation
    child = np.random.SeedSequence(5).spawn(2)[1]
    rng = np.random.default_rng(child)
    perms = [rng.permutation(32) for _ in range(3)]
    p = perms[2]
    assert all_[GEN_BLOCK + 2] == Deal(tuple(mask_of(int(c) for c in p[8 * k:8 * k + 8])
                                             for k in range(4)))


# ------------------------------------------------------------------------------ pit
def _can_force_pit(pos: Position) -> bool:
    """Brute force: can the playing team win every remaining trick?"""
    if pos.flag_lost:
        return False
    if pos.over:
        return True
    mine = (pos.to_move & 1) == pos.dteam
    results = []
    for c in pos.legal():
        child = pos.copy()
        child.play(c)
        r = _can_force_pit(child)
        if mine and r:
            return True
        if not mine and not r:
            return False
        results.append(r)
    return not mine


def test_forces_pit_matches_brute_force():
    rng = np.random.default_rng(3)
    searcher = worker_searcher()
    seen = {True: 0, False: 0}
    for _ in range(60):
        size = int(rng.integers(1, 4))
        perm = rng.permutation(32)
        deal = Deal(tuple(mask_of(int(c) for c in perm[k * size:(k + 1) * size])
                          for k in range(4)))
        trump, first = int(rng.integers(4)), int(rng.integers(4))
        rules = Rules(pit_bonus=int(rng.choice([0, 100])))
        pos = Position(deal, trump, first, rules)
        expected = _can_force_pit(pos)
        assert forces_pit(searcher, pos) == expected, (str(deal), trump, first)
        seen[expected] += 1
    assert seen[True] >= 5 and seen[False] >= 5


def test_pit_ruled_out_only_where_no_pit_can_be_forced():
    # small deals under every multiplier and pit bonus (brute force), then full deals (the
    # pit test's search): the score never rules out a pit that can be forced, and it rules
    # out most of those that cannot
    rng = np.random.default_rng(11)
    searcher = worker_searcher()
    ruled, pits = 0, 0
    for i in range(160):
        size = int(rng.integers(1, 4))
        perm = rng.permutation(32)
        deal = Deal(tuple(mask_of(int(c) for c in perm[k * size:(k + 1) * size])
                          for k in range(4)))
        rules = Rules(pit_bonus=int(rng.choice([0, 100])), multiplier=int(rng.choice([1, 2, 8])),
                      trick_roem=bool(rng.integers(2)), hand_roem=bool(rng.integers(2)))
        pos = Position(deal, int(rng.integers(4)), int(rng.integers(4)), rules)
        can = _can_force_pit(pos)
        pits += can
        if pit_ruled_out(pos, searcher.value(pos, "score")):
            ruled += 1
            assert not can, (str(deal), pos.trump, pos.first, rules)
    for deal in generate_deals(5, 0, 40):
        for t in range(4):
            pos = Position(deal, t, 0, Rules())
            can = forces_pit(searcher, pos)
            pits += can
            if pit_ruled_out(pos, searcher.value(pos, "score")):
                ruled += 1
                assert not can, (str(deal), t)
    assert pits >= 10 and ruled >= 200


def test_pit_ruled_out_after_cards_played():
    # part-played positions (tricks taken by either side, a trick in progress): where the
    # exact score rules a pit out, none can be forced (brute force); and it rules some out
    rng = np.random.default_rng(12)
    searcher = worker_searcher()
    ruled, pits = 0, 0
    for _ in range(120):
        size = int(rng.integers(2, 4))
        perm = rng.permutation(32)
        deal = Deal(tuple(mask_of(int(c) for c in perm[k * size:(k + 1) * size])
                          for k in range(4)))
        rules = Rules(pit_bonus=int(rng.choice([0, 100])), multiplier=int(rng.choice([1, 2])),
                      trick_roem=bool(rng.integers(2)), hand_roem=bool(rng.integers(2)))
        pos = Position(deal, int(rng.integers(4)), int(rng.integers(4)), rules)
        for _ in range(int(rng.integers(1, 4 * size - 1))):
            legal = pos.legal()
            pos.play(legal[int(rng.integers(len(legal)))])
        can = _can_force_pit(pos)
        assert forces_pit(searcher, pos) == can
        pits += can
        if pit_ruled_out(pos, searcher.value(pos, "score")):
            ruled += 1
            assert not can, (str(deal), pos.trump, pos.first, rules, pos.played)
    assert pits >= 5 and ruled >= 20


def test_solve_trumps_equals_trump_table():
    deal = generate_deals(2, 0, 1)[0]
    rows = solve_trumps(worker_searcher(), deal, 1, Rules(), points=True)
    table = trump_table(deal, "E")
    assert [(r.trump, r.score, r.points, r.made) for r in rows] == \
        [(t.trump, t.score, t.points, t.made) for t in table]
    for r in rows:
        assert r.pit == forces_pit(worker_searcher(), Position(deal, r.trump, 1))
        assert r.nodes > 0 and r.ms > 0


# ------------------------------------------------------------------------------ the file
def test_reference_file_and_sidecar(reference):
    df = read_results(reference)
    assert list(df.columns) == [c[0] for c in COLUMNS]
    assert len(df) == 4 * DEALS
    assert df["deal_id"].tolist() == [i for i in range(DEALS) for _ in range(4)]
    assert df["trump"].tolist() == list(SUITS) * DEALS
    assert (df["first"] == "N").all() and (df["rules"] == "kraken").all()
    assert (df["made"] == (df["score"] > 0)).all()
    deals = generate_deals(SEED, 0, DEALS)
    assert df["deal"].tolist() == [str(d) for d in deals for _ in range(4)]
    # values equal a direct solve of deal 0
    table = trump_table(deals[0], "N")
    assert df["score"][:4].tolist() == [t.score for t in table]
    assert df["points"][:4].tolist() == [t.points for t in table]
    meta = json.loads(open(f"{reference}.meta.json").read())
    assert meta["status"] == "complete" and meta["rows"] == 4 * DEALS
    assert meta["seed"] == SEED and meta["deals"] == DEALS and meta["chunk_size"] == 2
    assert meta["format"] == "csv" and meta["version"]
    assert meta["rules"]["name"] == "kraken" and meta["rules"]["options"]["pit_bonus"] == 100
    assert [c["name"] for c in meta["columns"]] == [c[0] for c in COLUMNS]
    assert meta["timing_columns"] == ["nodes", "ms"]
    assert "--deals" in meta["command"]
    assert not os.path.exists(f"{reference}.parts")


def test_workers_and_chunk_size_do_not_change_the_file(reference, tmp_path):
    out = tmp_path / "w1.csv"
    r = run("--deals", DEALS, "--seed", SEED, "--out", out, "--objective", "score,points",
            "--workers", 1, "--chunk-size", 4)
    assert r.exit_code == 0, r.output
    assert "6 deals x 4 trumps" in r.stderr
    pd.testing.assert_frame_equal(values(out), values(reference))
    assert read_results(out)["nodes"].gt(0).all()


def test_messages_say_what_they_count_in_the_right_number(tmp_path):
    """'1 deals x 4 trumps' and 'resuming: 18 chunks (1152 deals) done already of 157'
    (157 what?): every count names its noun, in the singular for one."""
    out = tmp_path / "one.csv"
    r = run("--deals", 1, "--seed", 3, "--out", out, "--workers", 1)
    assert r.exit_code == 0, r.output
    line = r.stderr.strip().splitlines()[-1]
    assert line.startswith(f"kraken-batch: 1 deal x 4 trumps -> {out}; solved 1 deal in "), line
    assert " with 1 worker, peak memory " in line and "deals" not in line.split("deals/s")[0]
    r = run("summarize", out)
    assert r.exit_code == 0, r.output
    assert r.stdout.startswith(f"{out}: 1 deal x 4 trumps = 4 rows"), r.stdout[:200]
    # a run stopped after its first chunk of three, then resumed
    out = tmp_path / "r.csv"

    def stop(pool, res):
        raise KeyboardInterrupt
    with pytest.raises(KeyboardInterrupt):
        run_batch(make_config(deals=3, seed=3, chunk_size=1), out, workers=1, on_chunk=stop)
    r = run("--deals", 3, "--seed", 3, "--chunk-size", 1, "--workers", 1, "--out", out,
            "--resume")
    assert r.exit_code == 0, r.output
    assert "kraken-batch: resuming: 1 of 3 chunks done already (1 of 3 deals)\n" in r.stderr
    assert f"kraken-batch: 3 deals x 4 trumps -> {out} (1 chunk from before); solved 2 deals " \
        "in " in r.stderr, r.stderr
    r = run("--deals", 3, "--seed", 3, "--chunk-size", 1, "--workers", 1, "--out", out,
            "--resume")
    assert f"kraken-batch: {out} is already complete (12 rows); nothing to do" in r.stderr


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="uses /proc and SIGKILL")
def test_kill_9_then_resume_gives_the_uninterrupted_file(reference, tmp_path):
    out = tmp_path / "killed.csv"
    args = ["--deals", str(DEALS), "--seed", str(SEED), "--out", str(out), "--objective",
            "score,points", "--workers", "1", "--chunk-size", "1", "--quiet"]
    parts = tmp_path / "killed.csv.parts"
    workers = kill_after_first_chunk(args, parts)
    assert not out.exists()
    done = [p for p in os.listdir(parts) if p.startswith("chunk-")]
    assert 1 <= len(done) < DEALS
    # the orphaned workers notice their parent is gone and exit
    assert wait_gone(workers)
    # the unfinished run's sidecar is in the work directory, none beside the output yet
    assert not (tmp_path / "killed.csv.meta.json").exists()
    meta = json.loads((parts / "run.meta.json").read_text())
    assert meta["status"] == "running"

    r = run(*args[:-1], "--resume")
    assert r.exit_code == 0, r.output
    assert "resuming" in r.stderr
    df = read_results(out)
    assert sorted(df["deal_id"].unique()) == list(range(DEALS))
    assert df.groupby("deal_id").size().eq(4).all()
    pd.testing.assert_frame_equal(values(out), values(reference))
    assert not parts.exists()
    meta = json.loads((tmp_path / "killed.csv.meta.json").read_text())
    assert meta["status"] == "complete" and len(meta["sessions"]) == 2
    # resuming a finished run does nothing
    r = run(*args[:-1], "--resume")
    assert r.exit_code == 0 and "already complete" in r.stderr


def test_resume_refuses_another_configuration(tmp_path):
    out = tmp_path / "r.csv"
    base = ["--deals", 2, "--seed", 4, "--out", out, "--chunk-size", 1, "--workers", 1,
            "--quiet"]
    assert run(*base).exit_code == 0
    os.makedirs(f"{out}.parts")             # as if a run had been interrupted
    # a format that contradicts the output's name is refused before anything is done
    r = run(*base, "--format", "parquet")
    assert r.exit_code == 1 and "the format is parquet but the output's name says csv" \
        in r.stderr
    for change in (["--seed", 5], ["--deals", 3], ["--objective", "score,points"],
                   ["--rules", "klaverjas-rotterdam"], ["--first", "E"],
                   ["--chunk-size", 2]):
        args = list(base)
        i = args.index(change[0]) if change[0] in args else None
        if i is not None:
            args[i + 1] = change[1]
        else:
            args += change
        r = run(*args, "--resume")
        assert r.exit_code == 1, (change, r.output)
        assert r.stderr.startswith("kraken-batch: error: ") and r.stderr.count("\n") == 1
        assert "configuration differs" in r.stderr
        assert change[0].lstrip("-").replace("-", "_") in r.stderr
    # a run that stopped before finishing any chunk has no work to lose: it starts over
    assert run(*base).exit_code == 0 and not os.path.exists(f"{out}.parts")
    # without --resume an unfinished run with finished chunks is not thrown away
    with pytest.raises(KeyboardInterrupt):
        run_batch(make_config(deals=2, seed=4, chunk_size=1), out, workers=1,
                  on_chunk=_interrupt_after_first_chunk)
    r = run(*base)
    assert r.exit_code == 1 and "unfinished run (1 chunk done)" in r.stderr
    assert "--resume" in r.stderr


def test_input_file_in_parquet(reference, tmp_path):
    pytest.importorskip("pyarrow")
    deals = generate_deals(SEED, 0, DEALS)
    src = tmp_path / "deals.txt"
    src.write_text("".join(f"{d} trump=H\n" for d in deals))   # trump is ignored: all four
    out = tmp_path / "in.parquet"
    r = run("--input", src, "--out", out, "--objective", "score,points", "--workers", 2,
            "--chunk-size", 4, "--quiet")
    assert r.exit_code == 0, r.output
    with open(out, "rb") as f:
        assert f.read(4) == b"PAR1"
    got = values(out)
    assert got.dtypes["made"] == bool and got.dtypes["score"].kind == "i"
    pd.testing.assert_frame_equal(got, values(reference))
    meta = json.loads(open(f"{out}.meta.json").read())
    assert meta["format"] == "parquet" and meta["config"]["source"] == "input"
    assert meta["config"]["input_sha256"]


def test_errors_are_one_line(tmp_path):
    for args, text in [
        ([], "--deals"),
        (["--deals", 2], "--out"),
        (["--deals", 2, "--input", "x.txt", "--out", "o.csv"], "together"),
        (["--deals", 2, "--out", "o.csv", "--objective", "score,tricks"], "objective"),
    ]:
        r = run(*args)
        assert r.exit_code == 2 and text in r.output
    bad = tmp_path / "bad.txt"
    bad.write_text("N:AKQ.J9.T8.7 x\n")
    r = run("--input", bad, "--out", tmp_path / "o.csv")
    assert r.exit_code == 1 and r.stderr.count("\n") == 1
    assert r.stderr.startswith("kraken-batch: error: ") and "bad.txt, line 1" in r.stderr
    played = tmp_path / "played.txt"
    played.write_text('[Deal "N:A.K.Q.J K.Q.J.A Q.J.A.K J.A.K.Q"]\n[Trump "S"]\n[Play "N"]\nSA\n')
    r = run("--input", played, "--out", tmp_path / "o.csv")
    assert r.exit_code == 1 and "played cards" in r.stderr
    r = run("summarize", tmp_path / "missing.csv")
    assert r.exit_code == 1 and r.stderr.startswith("kraken-batch: error: ")


# ------------------------------------------------------------------------------ summarize
def _features_by_hand(df):
    """Trump length and J/9 held by the first player, computed from Deal objects."""
    rows = []
    for pbn, first, trump in zip(df["deal"], df["first"], df["trump"]):
        hand = Deal.from_pbn(pbn).hands[SEATS.index(first)]
        s = SUITS.index(trump)
        suit = [c for c in range(s * 8, s * 8 + 8) if hand >> c & 1]
        rows.append((len(suit), s * 8 + 4 in suit, s * 8 + 2 in suit))
    return rows


def test_summarize_against_pandas_by_hand(reference, tmp_path):
    df = read_results(reference)
    feats = _features_by_hand(df)
    assert list(zip(*[hand_features(df)[c] for c in ("length", "has_j", "has_9")])) == feats
    df["length"] = [f[0] for f in feats]
    df["hon"] = ["J+9" if j and n else "J" if j else "9" if n else "neither"
                 for _, j, n in feats]
    s = summarize(read_results(reference))
    for length, g in df.groupby("length"):
        row = s.by_length.set_index("length").loc[length]
        assert row["n"] == len(g)
        assert row["mean_score"] == pytest.approx(g["score"].mean())
        assert row["p_made"] == pytest.approx((g["score"] > 0).mean())
        assert row["mean_points"] == pytest.approx(g["points"].mean())
        assert row["p_pit"] == pytest.approx(g["pit"].mean())
    assert s.by_honours["n"].sum() == len(df)
    for hon, g in df.groupby("hon"):
        assert s.by_honours.set_index("honours").loc[hon, "mean_score"] == \
            pytest.approx(g["score"].mean())
    best = df.groupby("deal_id")["score"].max()
    assert s.best["mean"][0] == pytest.approx(best.mean())
    assert s.best["p_made"][0] == pytest.approx((best > 0).mean())
    assert s.best_hist["deals"].sum() == DEALS
    # "longest suit" by hand: most cards, then trump points, then S H D C
    pts = {"J": 20, "9": 14, "A": 11, "T": 10, "K": 4, "Q": 3}
    cost = []
    for deal_id, g in df.groupby("deal_id"):
        hand = Deal.from_pbn(g["deal"].iloc[0]).hands[0]

        def key(t):
            ranks = [("789TJQKA")[c & 7] for c in range(32)
                     if hand >> c & 1 and c >> 3 == SUITS.index(t)]
            return (len(ranks), sum(pts.get(r, 0) for r in ranks), -SUITS.index(t))
        pick = max(SUITS, key=key)
        cost.append(best[deal_id] - g.set_index("trump").loc[pick, "score"])
    rules = s.rules.set_index("rule")
    assert rules.loc["longest suit", "mean_cost"] == pytest.approx(np.mean(cost))
    assert rules.loc["longest suit", "p_best"] == pytest.approx(np.mean(np.array(cost) == 0))
    assert rules.loc["double-dummy best", "mean_cost"] == 0
    assert rules.loc["double-dummy best", "p_best"] == 1
    assert rules.loc["random suit", "mean_cost"] == pytest.approx(
        (df["deal_id"].map(best) - df["score"]).mean())

    r = run("summarize", reference, "--csv", tmp_path / "tables")
    assert r.exit_code == 0, r.output
    assert "Per trump length" in r.stdout and "longest suit" in r.stdout
    t = pd.read_csv(tmp_path / "tables" / "by_length.csv")
    assert t["n"].sum() == 4 * DEALS
    # the CSV holds the tables in the tools' number style: points to 2 decimals, shares to 3
    from kraken_solver.notation.numbers import tidy_frame
    pd.testing.assert_frame_equal(t, tidy_frame(s.by_length), check_dtype=False)
    assert (t["mean_score"] - s.by_length["mean_score"]).abs().max() <= 0.005
    assert (t["p_made"] - s.by_length["p_made"]).abs().max() <= 0.0005


def test_summarize_plots(reference, tmp_path):
    pytest.importorskip("matplotlib")
    r = run("summarize", reference, "--plots", tmp_path / "png")
    assert r.exit_code == 0, r.output
    for name in ("score_by_rule.png", "made_by_length.png", "best_score.png"):
        with open(tmp_path / "png" / name, "rb") as f:
            assert f.read(8) == b"\x89PNG\r\n\x1a\n"


def test_summarize_rules_on_a_hand_made_file():
    # deal 0: N holds S: J 9 7 (3, 34 points), H: A K Q T 8 (5, 28), D: none, C: none
    # deal 1: N holds S: A K (2), H: J (1), D: 9 8 7 (3), C: Q T (2)
    d0 = "N:J97.AKQT8.. AKQT8.J97.. ..AKQJT98.7 ..7.AKQJT98"
    d1 = "N:AK.J.987.QT QJT.AKQ.AK. 987.T98.QJ. .7.T.AKJ987"
    assert Deal.from_pbn(d0) and Deal.from_pbn(d1)
    rows = []
    scores = {0: [40, 10, -100, -120], 1: [-50, 30, 30, -10]}
    for i, d in enumerate((d0, d1)):
        for t, sc in zip(SUITS, scores[i]):
            rows.append({"deal_id": i, "deal": d, "first": "N", "trump": t, "rules": "kraken",
                         "score": sc, "made": sc > 0, "pit": False, "nodes": 1, "ms": 1.0})
    s = summarize(pd.DataFrame(rows))
    r = s.rules.set_index("rule")
    # best: deal 0 spades 40, deal 1 hearts 30 (tie with diamonds: both best)
    assert r.loc["double-dummy best", "mean_score"] == 35
    # longest: deal 0 hearts (5) -> 10, cost 30; deal 1 diamonds (3) -> 30, cost 0
    assert r.loc["longest suit", "mean_cost"] == 15 and r.loc["longest suit", "p_best"] == 0.5
    # most trump points: deal 0 spades (J 9 = 34) -> 40; deal 1 hearts (J = 20) -> 30
    assert r.loc["most trump points", "mean_cost"] == 0
    # jack: deal 0 spades, deal 1 hearts -> both best
    assert r.loc["holds the jack", "p_best"] == 1
    # random: mean of (best - score) over all 8 rows
    assert r.loc["random suit", "mean_cost"] == pytest.approx(
        ((40 - 40) + (40 - 10) + (40 + 100) + (40 + 120) + (30 + 50) + 0 + 0 + (30 + 10)) / 8)
    assert s.by_length.set_index("length").loc[5, "n"] == 1
    assert s.best["max"][0] == 40 and s.best["min"][0] == 30
    with pytest.raises(ValueError, match="four trump rows"):
        summarize(pd.DataFrame(rows[:-1]))


# ------------------------------------------------------------------------------ robustness
def _config(seed, deals=2):
    return make_config(deals=deals, seed=seed, chunk_size=1)


def _interrupt_after_first_chunk(pool, res):
    raise KeyboardInterrupt      # as Ctrl-C (or SIGTERM in the CLI) once a chunk is written


def test_out_must_be_a_regular_file_or_a_new_path(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    r = run("--deals", 2, "--workers", 1, "--out", fifo, "--quiet")
    assert r.exit_code == 1
    assert r.stderr.startswith("kraken-batch: error: ") and r.stderr.count("\n") == 1
    assert "must be a regular file or a new file name" in r.stderr and "named pipe" in r.stderr
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert sorted(os.listdir(tmp_path)) == ["fifo"]
    if os.geteuid() == 0:       # a copy of the null device stays a device
        dev = tmp_path / "nulldev"
        os.mknod(dev, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
        r = run("--deals", 2, "--workers", 1, "--out", dev, "--quiet")
        assert r.exit_code == 1 and "character device" in r.stderr
        assert stat.S_ISCHR(os.stat(dev).st_mode)


def test_an_earlier_output_is_replaced_only_when_the_new_run_finishes(tmp_path):
    out = tmp_path / "r4.csv"
    run_batch(_config(7), out, workers=1)
    before = out.read_bytes()
    sidecar_bytes = (tmp_path / "r4.csv.meta.json").read_bytes()
    sidecar = json.loads(sidecar_bytes)
    assert sidecar["status"] == "complete"
    # the same run again, interrupted after its first chunk: the earlier file is untouched
    with pytest.raises(KeyboardInterrupt):
        run_batch(_config(7), out, workers=1, on_chunk=_interrupt_after_first_chunk)
    assert out.read_bytes() == before
    # the work directory holds the finished chunk and the unfinished run's sidecar; the
    # finished run's sidecar beside the output is byte for byte as it was
    assert sorted(os.listdir(tmp_path / "r4.csv.parts"))[1:] == ["run.meta.json"]
    assert re.fullmatch(r"chunk-0000000-[0-9a-f]{16}\.csv",
                        sorted(os.listdir(tmp_path / "r4.csv.parts"))[0])
    assert (tmp_path / "r4.csv.meta.json").read_bytes() == sidecar_bytes
    assert not [p for p in os.listdir(tmp_path) if p.endswith(".tmp")]
    # resuming finishes it and replaces the file (same values)
    res = run_batch(_config(7), out, workers=1, resume=True)
    assert res.chunks_reused == 1 and res.solved == 1
    assert not os.path.exists(tmp_path / "r4.csv.parts")
    old = pd.read_csv(io.BytesIO(before))
    new = values(out)
    for c in new.columns:
        assert new[c].tolist() == old[c].tolist(), c


def test_a_refused_run_changes_nothing_and_resume_checks_the_parts(tmp_path):
    fcntl = pytest.importorskip("fcntl")
    out = tmp_path / "r6.csv"
    parts = tmp_path / "r6.csv.parts"
    sidecar = parts / "run.meta.json"
    # run A (seed 5) interrupted after its first chunk; then A "still running": its lock held
    with pytest.raises(KeyboardInterrupt):
        run_batch(_config(5), out, workers=1, on_chunk=_interrupt_after_first_chunk)
    (part,) = [p for p in os.listdir(parts) if p.startswith("chunk-")]
    state = {p: p.read_bytes() for p in (sidecar, parts / part)}
    fd = os.open(parts, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        for extra in ([], ["--resume"]):
            r = run("--deals", 2, "--seed", 6, "--chunk-size", 1, "--workers", 1, "--out", out,
                    "--quiet", *extra)
            assert r.exit_code == 1 and "another run (kraken-batch or kraken-arena) is writing" in r.stderr
            assert r.stderr.count("\n") == 1
            assert {p: p.read_bytes() for p in state} == state
            assert sorted(os.listdir(parts)) == [part, "run.meta.json"]
    finally:
        os.close(fd)
    # part files without a sidecar to check them against are refused, whatever the options
    sidecar.unlink()
    for seed, extra in ((6, ["--resume"]), (5, ["--resume"]), (5, [])):
        r = run("--deals", 2, "--seed", seed, "--chunk-size", 1, "--workers", 1, "--out", out,
                "--quiet", *extra)
        assert r.exit_code == 1 and r.stderr.count("\n") == 1, r.output
        assert "cannot be checked" in r.stderr and "r6.csv.parts" in r.stderr
        # without --resume, too, the advice is to delete them (--resume cannot take them)
        assert "with --resume" not in r.stderr
        assert not out.exists() and not sidecar.exists()
        assert not (tmp_path / "r6.csv.meta.json").exists()
        assert sorted(os.listdir(parts)) == [part]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="uses /proc")
def test_unusable_output_paths_are_one_line_errors(tmp_path):
    (tmp_path / "xfile.parts").write_text("")
    (tmp_path / "notafile").write_text("")
    (tmp_path / "y.csv.meta.json").mkdir()
    # a work directory linked to a folder of the user's: the part files were left there
    (tmp_path / "users").mkdir()
    (tmp_path / "users" / "keep.txt").write_text("mine")
    os.symlink(tmp_path / "users", tmp_path / "linked.csv.parts")
    for out, text in [("/proc/x.csv", "--out's folder takes no new file"),
                      (tmp_path / "xfile", "work directory must be a directory"),
                      (tmp_path / "linked.csv", "work directory must be a directory or a new "
                       "name, and this is a symbolic link"),
                      (tmp_path / "notafile" / "x.csv", "cannot be used: Not a directory"),
                      (tmp_path / "missing" / "x.csv", "No such file or directory"),
                      (tmp_path / "y.csv", "sidecar must be a regular file")]:
        r = run("--deals", 2, "--workers", 1, "--out", out, "--quiet")
        assert r.exit_code == 1, (out, r.output)
        assert r.stderr.startswith("kraken-batch: error: ") and r.stderr.count("\n") == 1, \
            (out, r.output, r.exception)
        assert text in r.stderr, (out, r.stderr)
    assert sorted(os.listdir(tmp_path)) == ["linked.csv.parts", "notafile", "users",
                                            "xfile.parts", "y.csv.meta.json"]
    assert os.listdir(tmp_path / "y.csv.meta.json") == []
    assert os.listdir(tmp_path / "users") == ["keep.txt"]
    os.remove(tmp_path / "linked.csv.parts")
    (tmp_path / "users" / "keep.txt").unlink()
    (tmp_path / "users").rmdir()
    # a failed atomic write leaves no temporary file
    from kraken_solver.notation.outputs import OutputError, write_bytes
    with pytest.raises(OutputError, match="directory"):
        write_bytes(str(tmp_path / "y.csv.meta.json"), b"{}", own_store=True)
    assert sorted(os.listdir(tmp_path)) == ["notafile", "xfile.parts", "y.csv.meta.json"]


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_summarize_to_a_full_stdout_is_one_line(reference):
    with open("/dev/full", "w") as full:
        p = subprocess.run([sys.executable, "-m", "kraken_solver.cli.batch", "summarize",
                            str(reference)], stdout=full, stderr=subprocess.PIPE, text=True)
    assert p.returncode == 1
    assert p.stderr == "kraken-batch: error: cannot write the output: No space left on device\n"


@pytest.mark.parametrize("line, column, value, text", [
    (4, "deal", "N:garbage", "not a deal"),
    (6, "made", "maybe", "expected True or False"),
    (3, "score", "", "expected a whole number"),
    (8, "score", "abc", "expected a whole number"),
    (9, "points", "1.5", "expected a whole number"),
    (3, "score", "99999999999999999999", "expected a whole number"),     # wrapped in int64
    (4, "score", "-9223372036854775809", "expected a whole number"),
    (2, "pit", "", "expected True or False"),
    (5, "trump", "X", "expected a suit"),
    (7, "first", "", "expected a seat"),
])
def test_summarize_refuses_a_corrupted_file(reference, tmp_path, line, column, value, text):
    lines = reference.read_text().split("\n")
    names = lines[0].split(",")
    fields = lines[line - 1].split(",")
    fields[names.index(column)] = value
    lines[line - 1] = ",".join(fields)
    bad = tmp_path / "bad.csv"
    bad.write_text("\n".join(lines))
    r = run("summarize", bad)
    assert r.exit_code == 1, r.output
    assert r.stderr.count("\n") == 1 and r.stdout == ""
    assert r.stderr.startswith(f"kraken-batch: error: {bad}, line {line}: column '{column}': "
                               f"{text}"), r.stderr
    assert f"(got '{value}')" in r.stderr


def test_summarize_checks_a_data_frame():
    df = pd.DataFrame({
        "deal_id": [0] * 4, "deal": [str(generate_deals(1, 0, 1)[0])] * 4, "first": "N",
        "trump": list(SUITS), "score": [10, -5, 0, 20], "made": [True, False, False, True]})
    assert summarize(df).by_length["n"].sum() == 4
    for column, value, text in [("made", "yes", "expected True or False"),
                                ("made", False, "does not match the score 10"),
                                ("score", "x", "expected a whole number"),
                                ("deal", "N:AKQ", "not a deal"),
                                ("score", 1e30, "expected a whole number from"),
                                ("deal", 12345, "expected a PBN deal"),
                                ("deal", b"N:A... K... Q... J...", "expected a PBN deal"),
                                ("deal", ["N:A... K... Q... J..."], "expected a PBN deal")]:
        bad = df.copy()
        bad[column] = bad[column].astype(object)
        bad.at[0, column] = value
        with pytest.raises(KrakenError, match=f"^row 1, column '{column}': {text}"):
            summarize(bad)


def test_deal_hands_reads_deals_as_deal_from_pbn_does():
    """summarize reads the deal column vectorised (kraken_solver.batch.summary.deal_hands): the same
    hands as Deal.from_pbn, for the form kraken-batch writes and for other PBN forms."""
    from kraken_solver.batch.summary import deal_hands
    from kraken_solver.bench.suites import random_deals
    rng = np.random.default_rng(5)
    texts = []
    for d in random_deals(60, 9):
        texts.append(str(d))                                   # N:..., as written
        hands = [Deal(d.hands).hands[(k + 1) % 4] for k in range(4)]
        texts.append("E:" + str(Deal(tuple(hands)))[2:])       # hands from another seat
    for n in (1, 3, 7):                                        # short hands
        perm = rng.permutation(32)
        texts.append(str(Deal(tuple(int(sum(1 << int(c) for c in perm[n * k:n * k + n]))
                                    for k in range(4)))))
    texts += ["n:AJ.QJ.AJT.Q 987.T987.K. KQT.A.Q9.A8 .K.87.KJT97",   # lower-case seat
              "W:AJ.QJ.AJ10.Q 987.10987.K. KQ10.A.Q9.A8 .K.87.KJ1097"]  # 10 for T
    got = deal_hands(pd.Series(texts))
    assert got.shape == (len(texts), 4) and got.dtype == np.uint32
    for text, row in zip(texts, got):
        assert tuple(int(x) for x in row) == Deal.from_pbn(text).hands, text
    with pytest.raises(KrakenError, match=r"row 2, column 'deal': not a deal"):
        deal_hands(pd.Series([texts[0], "N:AA.K.Q.J K.Q.J.A Q.J.A.K J.A.K.Q"]))


def test_out_naming_the_input_file_is_refused(tmp_path):
    src = tmp_path / "deals.txt"
    text = "".join(f"{d}\n" for d in generate_deals(SEED, 0, 2))
    src.write_text(text)
    os.symlink(src, tmp_path / "link.txt")
    for out in (src, tmp_path / "." / "deals.txt", tmp_path / "link.txt"):
        r = run("--input", src, "--out", out, "--workers", 1, "--quiet")
        assert r.exit_code == 1 and "--out is an input of this command" in r.stderr
        assert r.stderr.count("\n") == 1
    assert src.read_text() == text                      # the deals are untouched
    assert not os.path.exists(f"{src}.parts") and not os.path.exists(f"{src}.meta.json")


def test_summarize_refuses_a_file_that_is_not_a_regular_file(tmp_path):
    # /dev/zero was read until the memory was full
    r = run("summarize", "/dev/zero")
    assert r.exit_code == 1 and "a batch file is a regular file; this is a character device" \
        in r.stderr
    with pytest.raises(KrakenError, match="this is a directory"):
        read_results(tmp_path)


@pytest.mark.parametrize("option", ["--csv", "--plots"])
@pytest.mark.parametrize("name", ["", " "])
def test_summarize_refuses_an_empty_folder_name(reference, option, name):
    # an empty name was taken for no option: exit 0, the tables or plots asked for not written
    r = run("summarize", reference, option, name)
    assert r.exit_code == 1 and r.stdout == "", r.output
    assert r.stderr == (f"kraken-batch: error: the {option} folder must be a folder name "
                        f"(got {repr(repr(name))})\n"), r.stderr


def test_absurd_counts_are_refused_before_any_work(tmp_path):
    """A mistyped --deals (or --samples) is refused at once: the chunk list is never built."""
    out = tmp_path / "huge.csv"
    res = CliRunner().invoke(main, ["--deals", str(10**20), "--out", str(out), "--quiet"])
    assert res.exit_code == 2 and "'--deals': 100000000000000000000 is not in the range " \
        "1<=x<=1000000000" in res.output, res.output
    assert not out.exists() and not (tmp_path / "huge.csv.parts").exists()
    with pytest.raises(KrakenError, match="number of deals"):
        make_config(deals=10**9 + 1, seed=1)
    assert make_config(deals=10**9, seed=1).n_chunks == -(-10**9 // 64)
    from kraken_solver.playerview.advise import MAX_SAMPLES, advise
    with pytest.raises(KrakenError, match="number of samples"):
        advise("AJ9.K7.T8.A", samples=MAX_SAMPLES + 1)


def test_summarize_names_the_line_of_a_deal_without_its_four_trumps(reference, tmp_path):
    lines = reference.read_text().splitlines(keepends=True)
    bad = tmp_path / "missing.csv"
    bad.write_text("".join(lines[:6] + lines[7:]))      # deal 1 loses its second trump row
    res = CliRunner().invoke(main, ["summarize", str(bad)])
    assert res.exit_code == 1
    assert f"{bad}, line 6: column 'trump': every deal needs its four trump rows" in res.output
    assert "deal_id 1" in res.output


def test_an_objective_given_twice_is_refused(tmp_path):
    """--objective score,score was taken as score; each objective is named once (points
    alone adds the points column, score is always computed)."""
    out = tmp_path / "o.csv"
    for text in ("score,score", "points,score,points"):
        r = run("--deals", 1, "--out", out, "--objective", text)
        assert r.exit_code == 2 and "is given twice" in r.output and not out.exists(), r.output
    r = run("--deals", 1, "--workers", 1, "--out", out, "--objective", "points", "--quiet")
    assert r.exit_code == 0 and "points" in read_results(out).columns


def test_an_input_error_names_the_file_as_given(tmp_path, monkeypatch):
    """kraken-batch named a bad --input by its absolute path where every other tool repeats
    the name the user typed."""
    (tmp_path / "bad.txt").write_text("N:AKQ.7.8.789 - - -\n")
    monkeypatch.chdir(tmp_path)
    r = run("--input", "bad.txt", "--out", "o.csv")
    assert r.exit_code == 1 and r.output.startswith("kraken-batch: error: bad.txt, line 1, "
                                                    "column 15: "), r.output


def test_out_named_as_a_sidecar_or_a_folder_is_one_clear_line(tmp_path):
    """--out b.csv.meta.json replaced b.csv's sidecar with rows (its --resume: "the sidecar is
    damaged"): any --out named *.meta.json is refused.  --out batchdir/ (no such folder) said
    "batchdir/.meta.json: the output's sidecar's folder cannot be used": a trailing slash
    names a folder, refused as such; an existing folder is refused by the option (exit 2)."""
    r = run("--deals", 2, "--workers", 1, "--out", tmp_path / "b.csv", "--quiet")
    assert r.exit_code == 0, r.output
    sidecar = tmp_path / "b.csv.meta.json"
    kept = sidecar.read_bytes()
    before = sorted(os.listdir(tmp_path))
    for out, text in [(sidecar, "--out must not be named *.meta.json"),
                      (tmp_path / "new.meta.json", "--out must not be named *.meta.json"),
                      (f"{tmp_path}/batchdir/",
                       f"--out: expected a file name, not a folder: {tmp_path}/batchdir/")]:
        r = run("--deals", 2, "--workers", 1, "--out", out, "--quiet")
        assert r.exit_code == 1, (out, r.output)
        assert r.stderr.startswith("kraken-batch: error: ") and r.stderr.count("\n") == 1, \
            (out, r.stderr)
        assert text in r.stderr, (out, r.stderr)
        assert sidecar.read_bytes() == kept and sorted(os.listdir(tmp_path)) == before
    r = run("--deals", 2, "--workers", 1, "--out", tmp_path / "b.csv", "--resume")
    assert r.exit_code == 0 and "already complete" in r.stderr, r.output
    (tmp_path / "made").mkdir()
    r = run("--deals", 2, "--workers", 1, "--out", tmp_path / "made", "--quiet")
    assert r.exit_code == 2 and "'--out'" in r.stderr and "is a directory" in r.stderr
    assert os.listdir(tmp_path / "made") == []


def test_a_sidecar_that_is_a_link_is_refused(tmp_path):
    """OUT.meta.json as a link (to another run's sidecar, or to an unfinished run's
    run.meta.json) was written through: the other run's --resume then failed.  Refused, with
    the other file untouched; the condition file of --where @FILE is an input too."""
    other = tmp_path / "other.csv"
    assert run("--deals", 2, "--seed", 1, "--out", other, "--quiet").exit_code == 0
    sidecar = (tmp_path / "other.csv.meta.json").read_bytes()
    link = tmp_path / "y.csv.meta.json"
    link.symlink_to(tmp_path / "other.csv.meta.json")
    r = run("--deals", 2, "--seed", 1, "--out", tmp_path / "y.csv", "--quiet")
    assert r.exit_code == 1 and r.stderr.count("\n") == 1, r.output
    assert "the output's sidecar must be a file of its own" in r.stderr
    assert (tmp_path / "other.csv.meta.json").read_bytes() == sidecar
    assert not (tmp_path / "y.csv").exists()
    cond = tmp_path / "cond.csv"
    cond.write_text("a = void(N)\na\n")
    r = run("--deals", 2, "--where", f"@{cond}", "--out", cond, "--quiet")
    assert r.exit_code == 1 and "--out is an input of this command" in r.stderr, r.output
    assert cond.read_text() == "a = void(N)\na\n"
