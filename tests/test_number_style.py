"""Numbers in one style in every output (kraken_solver/notation/numbers.py): points to at most
2 decimals, shares (p_*, share) to 3, times to 3, rates and sizes to 1, counts whole.  Every
tool is run on datasets/ through its Click command and every number of its JSON and CSV, the
files it writes included, is checked by the unit its field names; /api/hint too.  And what the
text shows adds up as read: the doubling multiples of the mean shown, the player's-view cost
as the difference of the two means shown."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import shlex

import pytest
from click.testing import CliRunner

from kraken_solver.cli.advise import main as advise_main
from kraken_solver.cli.analyse import main as analyse_main
from kraken_solver.cli.batch import main as batch_main
from kraken_solver.cli.bench import main as bench_main
from kraken_solver.cli.hint import main as hint_main
from kraken_solver.cli.solve import main as solve_main

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
D = os.path.join(ROOT, "datasets")
TOOLS = {"kraken-solve": solve_main, "kraken-analyse": analyse_main, "kraken-hint": hint_main,
         "kraken-advise": advise_main, "kraken-batch": batch_main, "kraken-bench": bench_main}
#: fields that count things: whole numbers, never floats
COUNTS = {"layouts", "consistent", "consistent_estimate", "allowed_by_play", "samples", "nodes",
          "n", "sum", "made", "pit", "deals", "rows", "workers", "cards", "chunks",
          "mean_nodes", "median_nodes", "max_nodes"}
CASES = [
    "kraken-solve {D}/many_deals.txt --json",
    "kraken-solve {D}/full_deal.txt --table --json",
    "kraken-analyse {D}/played_deal.txt --json",
    "kraken-analyse {D}/played_deal.txt --view player --samples 8 --seed 1 --workers 1 --json",
    "kraken-analyse {D}/played_deal.txt --view player --samples 8 --seed 1 --workers 1 --csv",
    "kraken-hint {D}/hint_lead.txt --samples 30 --seed 1 --workers 1 --json --quiet",
    "kraken-hint {D}/hint_lead.txt --samples 30 --seed 1 --workers 1 --csv --quiet",
    "kraken-hint {D}/hint_part_played.txt --samples 20 --workers 1 --json --quiet",
    "kraken-advise AJ9.K7.T8.A --samples 16 --seed 2 --workers 1 --quiet --json --known E:HJ",
    "kraken-advise AJ9.K7.T8.A --seat E --first N --trump H --samples 12 --workers 1 --quiet "
    "--json",
    "kraken-batch --deals 48 --seed 9 --workers 1 --out {tmp}/s.csv --quiet "
    "--objective score,points",
    "kraken-batch summarize {tmp}/s.csv --csv {tmp}/tables",
    "kraken-bench --suite random-100-seed1 --limit 4 --json {tmp}/bench.json --quiet",
]


def decimals(text: str) -> int:
    """Decimals of a number as written (``"-32.6"`` -> 1, ``"1e-05"`` -> many)."""
    if re.fullmatch(r"-?[0-9]+", text):
        return 0
    m = re.fullmatch(r"-?[0-9]+\.([0-9]+)", text)
    return len(m.group(1).rstrip("0")) if m else 99


def allowed(key) -> int | None:
    """The most decimals the field may have; None: a count (no decimal point at all)."""
    k = str(key)
    if k in COUNTS or k.endswith("nodes"):
        return None
    if k.startswith("p_") or k in ("share", "p_made", "p_pit"):
        return 3
    if k.endswith(("_mb", "_per_s")):
        return 1
    if k.endswith(("_ms", "_s", "seconds")) or k == "ms":
        return 3
    return 2


def check_value(key, value, where, bad):
    if isinstance(value, dict):
        for k, v in value.items():
            # a card's or a multiplier's value is named by its card (or m): points
            check_value(key if re.fullmatch(r"[SHDC][AKQJT987]|[1248]", k) else k, v, where,
                        bad)
    elif isinstance(value, list):
        for v in value:
            check_value(key, v, where, bad)
    elif isinstance(value, float):
        most = allowed(key)
        if most is None or decimals(repr(value)) > most:
            bad.append(f"{where}: {key} = {value!r}")


def check_csv(text, where, bad):
    rows = list(csv.reader(io.StringIO(text)))
    for row in rows[1:]:
        for key, cell in zip(rows[0], row):
            if not re.fullmatch(r"-?[0-9]+(\.[0-9]+)?(e-?[0-9]+)?", cell):
                continue
            most = allowed(key)
            d = decimals(cell)
            if (most is None and "." in cell) or d > (most or 0):
                bad.append(f"{where}: {key} = {cell}")


@pytest.fixture(scope="module")
def outputs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("numbers")
    runner = CliRunner()
    made = []
    cwd = os.getcwd()
    os.chdir(ROOT)          # the bench suites are named from the project root
    try:
        for case in CASES:
            words = shlex.split(case.format(D=D, tmp=tmp))
            r = runner.invoke(TOOLS[words[0]], words[1:])
            assert r.exit_code == 0, (case, r.output)
            made.append((case, r.stdout))
    finally:
        os.chdir(cwd)
    files = [os.path.join(dp, f) for dp, _, fs in os.walk(tmp) for f in fs]
    return made, files


def test_every_number_written_is_in_the_style(outputs):
    made, files = outputs
    bad = []
    checked = 0
    for case, out in made:
        if "--json" in case and "--json {tmp}" not in case:
            for line in out.splitlines():
                check_value(None, json.loads(line), case, bad)
                checked += 1
        elif "--csv" in case and "--csv {tmp}" not in case:
            check_csv(out, case, bad)
            checked += 1
    for path in files:
        if path.endswith(".json"):
            with open(path) as f:
                check_value(None, json.load(f), path, bad)
            checked += 1
        elif path.endswith(".csv"):
            with open(path) as f:
                check_csv(f.read(), path, bad)
            checked += 1
    assert checked >= 20
    assert not bad, "\n".join(bad[:30])


def test_the_checker_catches_what_the_tools_wrote_before():
    """The numbers the issue found, as they were written, are caught."""
    bad = []
    check_value(None, {"se": 9.345037540489916, "consistent_estimate": 233008.7511218502,
                       "seconds": 4.644699368996953, "p_made": 0.54, "mean": -32.62}, "old", bad)
    check_csv("mean,loss_se,n\n-32.62,1.2974561504388336,3.0\n", "old", bad)
    assert len(bad) == 5, bad


def test_api_hint_numbers_are_in_the_style():
    from kraken_solver.view.app import create_app
    from kraken_solver.view.session import BoardSolver
    solver = BoardSolver(hint_workers=1)
    try:
        client = create_app([], solver=solver).test_client()
        r = client.get("/api/hint", query_string={
            "deal": "S:7.KQ9.JT8.7 9.8.AK9.AK9 AJT.JT7.7.Q KQ8.A.Q.JT8", "trump": "H",
            "first": "S", "samples": 20})
        assert r.status_code == 200, r.get_json()
        body = r.get_json()
        bad = []
        check_value(None, body, "/api/hint", bad)
        assert not bad, bad
        assert body["samples"] == 20 == body["layouts"] and not body["exact"]
        assert isinstance(body["consistent_estimate"], int)
    finally:
        solver.close()


def test_shown_arithmetic_adds_up():
    runner = CliRunner()
    r = runner.invoke(advise_main, ["AJ9.K7.T8.A", "--seat", "E", "--first", "N", "--trump", "H",
                                    "--samples", "40", "--workers", "1", "--quiet"])
    assert r.exit_code == 0, r.output
    m = re.search(r"expected score is m x ([-+0-9.]+) ", r.stdout)
    base = float(m.group(1))
    pairs = re.findall(r"goes from ([-+0-9.]+) to ([-+0-9.]+)", r.stdout)
    assert len(pairs) == 3
    for (a, b), (m_a, m_b) in zip(pairs, ((1, 2), (2, 4), (4, 8))):
        assert abs(abs(float(a)) - m_a * abs(base)) < 1e-9
        assert abs(abs(float(b)) - m_b * abs(base)) < 1e-9
    r = runner.invoke(analyse_main, [os.path.join(D, "played_deal.txt"), "--view", "player",
                                     "--samples", "12", "--seed", "3", "--workers", "1",
                                     "--quiet"])
    assert r.exit_code == 0, r.output
    rows = re.findall(r"  ([-+][0-9]+\.[0-9])  \S+(?: \S+)* +([-+][0-9]+\.[0-9])  +"
                      r"([0-9]+\.[0-9]) (?:exact|\+-)", r.stdout)
    assert len(rows) >= 3, r.stdout
    for mean, best, cost in rows:
        assert abs(abs(float(best) - float(mean)) - float(cost)) < 1e-9, (mean, best, cost)
