"""Tests of the hint benchmarks (``kraken-bench --hint``): they run, time what they say, and
their values are the hints' own."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from kraken_solver.bench.hints import read_positions, run_hint_suite
from kraken_solver.cli.bench import main
from kraken_solver.errors import KrakenError
from kraken_solver.game.rules import Rules


def test_each_mode_runs():
    lead = run_hint_suite("random-2-seed1", "lead", Rules(), samples=3, workers=1)
    assert lead["deals"] == 2 and lead["exact"] == 0 and lead["mean_layouts"] == 3
    assert len(lead["ms"]) == 2 and lead["median_nodes"] > 0
    exact = run_hint_suite("tests/data/single_dummy_3.jsonl", "exact3", Rules(), workers=1,
                           limit=2)
    assert exact["exact"] == 2 and exact["rules_note"] == "each position's own"
    review = run_hint_suite("random-1-seed1", "review", Rules(), samples=2, workers=1)
    assert review["deals"] == 1 and review["mean_layouts"] > 0
    again = run_hint_suite("random-1-seed1", "review", Rules(), samples=2, workers=1)
    assert again["checksum"] == review["checksum"]


def test_errors():
    with pytest.raises(KrakenError, match="one of"):
        run_hint_suite("random-1-seed1", "fast", Rules())
    with pytest.raises(KrakenError, match="exact3"):
        run_hint_suite("tests/data/single_dummy_3.jsonl", "lead", Rules())
    with pytest.raises(KrakenError, match="cannot read"):
        read_positions("no/such/file.jsonl")


def test_cli(tmp_path):
    out = tmp_path / "r.json"
    r = CliRunner().invoke(main, ["--hint", "exact3", "--suite",
                                  "tests/data/single_dummy_2.jsonl", "--limit", "3",
                                  "--workers", "1", "--json", str(out)])
    assert r.exit_code == 0, r.output
    assert "hint benchmark exact3 on single_dummy_2: 3 items" in r.stdout
    assert json.loads(out.read_text())["exact"] == 3
    r = CliRunner().invoke(main, ["--hint", "lead", "--check", str(out)])
    assert r.exit_code == 1 and "not with --hint" in r.stderr


@pytest.mark.parametrize("args, says", [
    (["--samples", "5"], "--samples applies only with --hint lead, exact3 or review"),
    (["--workers", "1", "--samples", "3"],
     "--samples and --workers apply only with --hint lead, exact3 or review"),
    (["--hint", "lead", "--tt-bits", "10"], "--tt-bits does not apply with --hint"),
    (["--hint", "exact3", "--objective", "points", "--tt-bits", "12"],
     "--tt-bits and --objective do not apply with --hint"),
])
def test_options_of_the_other_mode_are_refused(args, says):
    """kraken-bench --samples 5 without --hint timed the solver as if it were not there."""
    r = CliRunner().invoke(main, ["--suite", "random-1-seed1", *args])
    assert r.exit_code == 2 and says in r.output, r.output


def test_hints_solved_in_this_process_report_no_worker_memory():
    """'0 MB (largest worker)' when every hint was small enough to be solved without the
    pool (10 layouts): no worker ran, and the report says so."""
    r = CliRunner().invoke(main, ["--suite", "random-1-seed1", "--hint", "lead", "--samples",
                                  "10", "--workers", "2", "--quiet"])
    assert r.exit_code == 0, r.output
    assert "no worker ran (every hint small enough for this process)" in r.stdout
    assert "0 MB (largest worker)" not in r.stdout
