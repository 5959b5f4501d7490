"""kraken-batch --play BOT: every (deal, trump) also played out by one bot at all four seats.

The played columns are the score sheet of :func:`kraken_solver.bots.play_deal` with the
batch's play seed (checked row by row against the loop itself); the file is the same whatever
the workers and the chunks, and after a resume; the bot and its seed are in the sidecar and a
resume with another is refused; ``--play dd`` (both teams double dummy) plays the
double-dummy score exactly; summarize shows double dummy beside as played.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd
import pytest

from kraken_solver.batch.config import make_config
from kraken_solver.batch.play import PLAY_NAMES
from kraken_solver.batch.run import run_batch
from kraken_solver.batch.store import read_results
from kraken_solver.batch.summary import format_summary, summarize
from kraken_solver.bots import play_deal
from kraken_solver.game.deal import Deal
from test_batch import run, values

SEED = 5
DEALS = 3


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """3 deals played by heuristic, play seed 9, 2 workers, chunks of 1."""
    out = tmp_path_factory.mktemp("play") / "played.csv"
    r = run("--deals", DEALS, "--seed", SEED, "--out", out, "--play", "heuristic",
            "--play-seed", 9, "--workers", 2, "--chunk-size", 1, "--quiet",
            "--objective", "score,points")
    assert r.exit_code == 0, r.output
    return out


def test_played_columns_are_the_score_sheet_of_play_deal(played):
    df = pd.read_csv(played, keep_default_na=False)
    assert list(df.columns[-len(PLAY_NAMES):]) == list(PLAY_NAMES)
    assert len(df) == 4 * DEALS
    for row in df.itertuples():
        p = play_deal(Deal.from_pbn(row.deal), row.trump, row.first,
                      {"NS": "heuristic", "EW": "heuristic"}, seed=9, rules=row.rules)
        assert row.played_score == p.sheet.score == p.value
        assert row.played_points == p.sheet.points
        assert row.played_made == (p.value > 0) == p.made
        assert row.played_pit == p.pit
        assert row.play.split() == p.play and len(p.play) == 32


def test_double_dummy_columns_unchanged_and_sidecar_records_the_bot(played, tmp_path):
    out = tmp_path / "dd_only.csv"
    r = run("--deals", DEALS, "--seed", SEED, "--out", out, "--workers", 1, "--quiet",
            "--objective", "score,points")
    assert r.exit_code == 0, r.output
    with_play = values(played)
    pd.testing.assert_frame_equal(with_play.drop(columns=list(PLAY_NAMES)), values(out))
    meta = json.loads(Path(f"{played}.meta.json").read_text())
    assert meta["config"]["play"] == {"bot": "heuristic", "seed": 9}
    assert [c["name"] for c in meta["columns"]][-len(PLAY_NAMES):] == list(PLAY_NAMES)
    assert "play" not in json.loads(Path(f"{out}.meta.json").read_text())["config"]
    assert "--play heuristic" in meta["command"]


def test_workers_and_chunks_do_not_change_the_played_file(played, tmp_path):
    out = tmp_path / "one.csv"
    r = run("--deals", DEALS, "--seed", SEED, "--out", out, "--play", "heuristic",
            "--play-seed", 9, "--workers", 1, "--chunk-size", 3, "--quiet",
            "--objective", "score,points")
    assert r.exit_code == 0, r.output
    pd.testing.assert_frame_equal(values(out), values(played))


def test_another_play_seed_plays_other_cards_for_random(tmp_path):
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    for out, seed in ((a, 1), (b, 2)):
        r = run("--deals", 2, "--seed", SEED, "--out", out, "--play", "random",
                "--play-seed", seed, "--workers", 1, "--quiet")
        assert r.exit_code == 0, r.output
    assert (values(a)["play"] != values(b)["play"]).any()


def test_dd_at_all_four_seats_plays_the_double_dummy_score(tmp_path):
    out = tmp_path / "dd.csv"
    r = run("--deals", 2, "--seed", 3, "--out", out, "--play", "dd", "--workers", 2,
            "--chunk-size", 1, "--quiet")
    assert r.exit_code == 0, r.output
    df = values(out)
    assert (df["played_score"] == df["score"]).all()
    assert (df["played_made"] == df["made"]).all()
    assert (df["played_pit"] == df["pit"]).all()


def _interrupt_after_first_chunk(pool, res):
    raise KeyboardInterrupt


def test_resume_gives_the_uninterrupted_file_and_checks_the_bot(played, tmp_path):
    out = tmp_path / "r.csv"
    config = make_config(deals=DEALS, seed=SEED, chunk_size=1, objectives=("score", "points"),
                         play="heuristic", play_seed=9)
    with pytest.raises(KeyboardInterrupt):
        run_batch(config, out, workers=1, on_chunk=_interrupt_after_first_chunk)
    assert not os.path.exists(out)
    base = ["--deals", DEALS, "--seed", SEED, "--out", out, "--chunk-size", 1, "--workers", 1,
            "--objective", "score,points", "--quiet"]
    for change in (["--play", "random", "--play-seed", 9], ["--play", "heuristic"],
                   ["--play", "heuristic", "--play-seed", 8], []):
        r = run(*base, *change, "--resume")
        assert r.exit_code == 1, (change, r.output)
        assert r.stderr.count("\n") == 1 and "configuration differs" in r.stderr
        assert "play" in r.stderr
    r = run(*base, "--play", "heuristic", "--play-seed", 9, "--resume")
    assert r.exit_code == 0, r.output
    pd.testing.assert_frame_equal(values(out), values(played))


def test_refusals_are_one_line(tmp_path):
    out = tmp_path / "o.csv"
    for bot, text in (("advise:5", "chooses trump only"), ("pimc:0", "from 1 to"),
                      ("pimc:100000", "from 1 to"), ("nonsense", "unknown bot"),
                      ("", "card-play bot")):
        r = run("--deals", 1, "--out", out, "--play", bot, "--quiet")
        assert r.exit_code == 1, (bot, r.output)
        assert r.stderr.startswith("kraken-batch: error: ") and r.stderr.count("\n") == 1
        assert text in r.stderr, (bot, r.stderr)
        assert not os.path.exists(out) and not os.path.exists(f"{out}.parts")
    r = run("--deals", 1, "--out", out, "--play-seed", 3)
    assert r.exit_code == 2 and "--play BOT" in r.output
    r = run("--deals", 1, "--out", out, "--play", "random", "--play-seed", -1)
    assert r.exit_code == 2 and "--play-seed" in r.output


def test_summarize_shows_double_dummy_and_as_played(played, tmp_path):
    df = read_results(played)
    s = summarize(df)
    t = s.played.set_index("rule")
    every = t.loc["every trump"]
    assert every["n"] == 4 * DEALS
    assert every["dd_score"] == pytest.approx(df["score"].mean())
    assert every["played_score"] == pytest.approx(df["played_score"].mean())
    assert every["optimism"] == pytest.approx((df["score"] - df["played_score"]).mean())
    assert every["p_made_played"] == pytest.approx(df["played_made"].mean())
    # the double-dummy best trump of each deal, by hand
    best = df.loc[df.groupby("deal_id")["score"].idxmax()]
    row = t.loc["double-dummy best"]
    assert row["n"] == DEALS
    assert row["dd_score"] == pytest.approx(best["score"].mean())
    assert row["played_score"] == pytest.approx(best["played_score"].mean())
    text = format_summary(s)
    assert "Double dummy against as played" in text
    r = run("summarize", played, "--csv", tmp_path / "tables")
    assert r.exit_code == 0, r.output
    assert "as played" in r.stdout
    assert os.path.exists(tmp_path / "tables" / "played.csv")
    # a file without --play has no such table
    plain = df.drop(columns=list(PLAY_NAMES))
    assert summarize(plain).played is None
    assert "as played" not in format_summary(summarize(plain))


def test_a_played_made_that_contradicts_the_played_score_is_refused(played, tmp_path):
    df = pd.read_csv(played, keep_default_na=False, dtype=str)
    df.loc[0, "played_made"] = "False" if df.loc[0, "played_made"] == "True" else "True"
    bad = tmp_path / "bad.csv"
    df.to_csv(bad, index=False)
    r = run("summarize", bad)
    assert r.exit_code == 1 and r.stderr.count("\n") == 1
    assert "played_made" in r.stderr and "line 2" in r.stderr


def test_parquet_holds_the_played_columns(played, tmp_path):
    pytest.importorskip("pyarrow")
    out = tmp_path / "p.parquet"
    r = run("--deals", DEALS, "--seed", SEED, "--out", out, "--play", "heuristic",
            "--play-seed", 9, "--workers", 1, "--quiet", "--objective", "score,points")
    assert r.exit_code == 0, r.output
    got = values(out)
    assert got.dtypes["played_made"] == bool and got.dtypes["played_score"].kind == "i"
    pd.testing.assert_frame_equal(got, values(played))
