"""What kraken-solve and kraken-analyse show of the score sheet, the full table, files written by
other programs and the first run (CliRunner; values against solve() and the sheet library).

The headline ``Score:`` must be the sum the sheet shows, on many deals: checked on the text (the
numbers a player reads), on --json, and against the solver's value along the line.
"""

from __future__ import annotations

import csv
import io
import json
import pathlib
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from click.testing import CliRunner

from kraken_solver import Deal, Position, card_str, full_table, solve, trump_table
from kraken_solver.cli import analyse as analyse_cli
from kraken_solver.cli import solve as solve_cli
from kraken_solver.engine.kernel_cache import FIRST_RUN_MESSAGE
from kraken_solver.game.cards import SEATS, SUITS, mask_of
from kraken_solver.notation.report import TABLE_CSV_FIELDS

ROOT = pathlib.Path(__file__).resolve().parent.parent
DATASETS = ROOT / "datasets"
RULES = ["kraken", "klaverjas-rotterdam", "kraken-amsterdam+multiplier=2",
         "kraken+pit_bonus=0+double_spades=true", "kraken+long_runs_100=true+multiplier=8"]


def solve_run(*args, input=None):
    return CliRunner().invoke(solve_cli.main, [str(a) for a in args], input=input)


def analyse_run(*args):
    return CliRunner().invoke(analyse_cli.main, [str(a) for a in args])


def random_positions(n, seed):
    """``n`` one-line or tagged deals (2 to 5 cards a hand), each with a random trump, first
    player, rules and a few cards played: the text of a deal file and the records."""
    rng = np.random.default_rng(seed)
    text, recs = [], []
    for _ in range(n):
        k = int(rng.integers(2, 6))
        perm = rng.permutation(32)
        deal = Deal(tuple(mask_of(int(c) for c in perm[i * k:(i + 1) * k]) for i in range(4)))
        trump, first = SUITS[int(rng.integers(4))], SEATS[int(rng.integers(4))]
        rules = RULES[int(rng.integers(len(RULES)))]
        pos = Position(deal, trump, first, rules)
        played = []
        for _ in range(int(rng.integers(0, 4 * k - 1))):
            c = pos.legal()[int(rng.integers(len(pos.legal())))]
            pos.play(c)
            played.append(card_str(c))
        text.append(f'[Deal "{deal.pbn(0)}"]\n[Trump "{trump}"]\n[First "{first}"]\n'
                    f'[Rules "{rules}"]\n' + (f'[Play "{first}"]\n{" ".join(played)}\n'
                                              if played else ""))
        recs.append((deal, trump, first, rules, played))
    return "".join(text), recs


def sheet_numbers(block: str) -> dict:
    """The numbers a player reads off a text sheet."""
    rows = {}
    for name in ("card points", "last trick", "trick roem", "hand roem", "total",
                 "final score", "tricks won"):
        m = re.search(rf"^  {name} +(-?\d+) +(-?\d+)", block, re.M)
        rows[name] = (int(m.group(1)), int(m.group(2)))
    m = re.search(r"^  pit bonus +(\d+)", block, re.M)
    rows["pit bonus"] = int(m.group(1))
    m = re.search(r"^  multiplier +x(\d+)", block, re.M)
    rows["multiplier"] = int(m.group(1))
    m = re.search(r"^  score: (-?\d+) - (-?\d+) = ([+-]\d+) \((made|nat|pit)\)", block, re.M)
    rows["score"] = (int(m.group(1)), int(m.group(2)), int(m.group(3)), m.group(4))
    return rows


def check_text_sheet(block: str, headline: int, word: str):
    """The sheet adds up, and to the headline."""
    r = sheet_numbers(block)
    d_final, o_final, score, result = r["score"]
    assert score == headline and result == word
    assert (d_final, o_final) == r["final score"] and d_final - o_final == score
    for i in (0, 1):
        assert r["total"][i] == (r["card points"][i] + r["last trick"][i] + r["trick roem"][i]
                                 + r["hand roem"][i] + (r["pit bonus"] if i == 0 else 0))
    m = r["multiplier"]
    if result == "nat":
        assert d_final == 0 and o_final == m * (r["total"][0] - r["pit bonus"] + r["total"][1])
    else:
        assert r["final score"] == (m * r["total"][0], m * r["total"][1])


# ------------------------------------------------------------------------- the headline
@pytest.mark.parametrize("objective", ["score", "points"])
def test_the_headline_is_the_sum_of_the_sheet_on_many_deals(tmp_path, objective):
    text, recs = random_positions(40, seed=11 if objective == "score" else 12)
    p = tmp_path / "many.txt"
    p.write_text(text)
    res = solve_run(p, "--json", "--objective", objective)
    assert res.exit_code == 0, res.output
    docs = [json.loads(line) for line in res.stdout.splitlines()]
    assert len(docs) == 40
    for d, (deal, trump, first, rules, played) in zip(docs, recs):
        sheet = d["sheet"]
        value = solve(deal, trump, first, rules=rules, played=played, objective=objective)
        line = played + value.pv
        assert d["pv"] == value.pv and sheet["played"] == len(played)
        end = Position(deal, trump, first, rules, line)
        # the sheet is the line's: the solver's final value along it
        assert sheet["score"] == end.final_value("score")
        assert sheet["points"] == end.final_value("points")
        dt, ot = sheet["playing_team"], sheet["defenders"]
        assert sheet["score"] == dt["final"] - ot["final"]
        for t in (dt, ot):
            assert t["total"] == (t["card_points"] + t["last_trick"] + t["trick_roem"]
                                  + t["hand_roem"] + t["pit_bonus"])
        assert dt["team"] == d["playing_team"] and ot["team"] == d["defenders"]
        assert (dt["hand_roem"], ot["hand_roem"]) == (d["hand_roem"]["playing_team"],
                                                      d["hand_roem"]["defenders"])
        if objective == "score":
            assert d["score"] == sheet["score"] == value.value
            assert d["pit"] == sheet["pit"] and d["result"] == sheet["result"]
        else:
            assert d["points"] == sheet["points"] == value.value
            assert d["score"] == solve(deal, trump, first, rules=rules, played=played).value
    # the same on the text a player reads
    res = solve_run(p, "--ascii", "--objective", objective)
    assert res.exit_code == 0, res.output
    blocks = res.stdout.split("=== Deal ")[1:]
    assert len(blocks) == 40
    for block, d in zip(blocks, docs):
        m = re.search(r"^Score: ([+-]\d+) \((made|nat|pit)\)", block, re.M)
        assert int(m.group(1)) == d["score"] and m.group(2) == d["result"]
        sheet = block[block.index("Score sheet of"):]
        if objective == "score":
            check_text_sheet(sheet, d["score"], d["result"])
            assert "\n  points: " not in sheet      # Points is not this line's
        else:
            check_text_sheet(sheet, d["sheet"]["score"], d["sheet"]["result"])
            m = re.search(r"^Points: (\d+)", block, re.M)
            assert int(m.group(1)) == d["points"] == d["sheet"]["points"]
            # the reader need not do the sum: the sheet's points line adds up its own rows
            # (hand roem is not among them: the sheet's total is not the points)
            rows = sheet_numbers(sheet)
            m = re.search(r"^  points: (\d+) \+ (\d+) \+ (\d+) = (\d+) \(card points \+ "
                          r"last trick \+ trick roem, rule 24\)$", sheet, re.M)
            assert m, sheet
            parts = [int(x) for x in m.groups()]
            assert parts[:3] == [rows["card points"][0], rows["last trick"][0],
                                 rows["trick roem"][0]]
            assert sum(parts[:3]) == parts[3] == d["points"]


def test_full_deals_text_sheet_and_what_points_is():
    for name in ("full_deal.txt", "part_played.txt"):
        res = solve_run(DATASETS / name, "--ascii")
        assert res.exit_code == 0, res.output
        out = res.stdout
        score = int(re.search(r"^Score: ([+-]\d+)", out, re.M).group(1))
        word = re.search(r"^Score: [+-]\d+ \((\w+)\)", out, re.M).group(1)
        check_text_sheet(out[out.index("Score sheet of"):], score, word)
        # Points says what it is: a second solve, not the points of the line shown
        points_line = " ".join(out[out.index("Points:"):out.index("to play;")].split())
        assert "a second solve (rule 24)" in points_line
        assert "not the" in points_line and "points of the line below" in points_line
    # with --objective points, Points says which rows of the sheet make it
    res = solve_run(DATASETS / "full_deal.txt", "--ascii", "--objective", "points")
    out = res.stdout
    points_line = " ".join(out[out.index("Points:"):out.index("Score:")].split())
    assert "'points:' line adds them up" in points_line and "no hand roem" in points_line
    assert "  points: 114 + 10 + 20 = 144 (card points + last trick + trick roem, rule 24)" \
        in out.splitlines()


def test_the_sheet_lists_the_melds():
    # N: four jacks and H 7 8 9; E: S Q K A (does not count); S: stuk in trump H
    p = "N:J.J987.J.J7 AKQT.T.A7.8 7.KQ.KT8.Q9 98.A.Q9.AKT trump=H first=N\n"
    res = solve_run("-", "--ascii", input=p)
    assert res.exit_code == 0, res.output
    out = res.stdout
    assert re.search(r"^    N  four  SJ HJ DJ CJ +200  counts: the best meld", out, re.M)
    assert re.search(r"^    N  run   H7 H8 H9 +20  counts: N-S hold the best meld", out, re.M)
    assert re.search(r"^    E  run   SQ SK SA +20  does not count: N-S hold the best meld",
                     out, re.M)
    assert re.search(r"^    S  stuk  HQ HK +20  counts: a stuk in the hand always counts",
                     out, re.M)
    assert re.search(r"^  hand roem +240 +0", out, re.M)
    (d,) = [json.loads(x) for x in solve_run("-", "--json", input=p).stdout.splitlines()]
    melds = d["sheet"]["melds"]
    assert [(m["seat"], m["kind"], m["counts"]) for m in melds] == [
        ("N", "four", True), ("N", "run", True), ("E", "run", False), ("S", "stuk", True)]
    assert melds[0]["cards"] == ["SJ", "HJ", "DJ", "CJ"] and melds[0]["best"]


def test_a_pit_is_named_everywhere():
    p = "N:AJT9... KQ87... ..AKQJ. ...AKQJ trump=S first=N\n"
    res = solve_run("-", "--ascii", input=p)
    assert res.exit_code == 0, res.output
    assert re.search(r"^Score: \+\d+ \(pit\)", res.stdout, re.M)
    assert "pit: N-S won every trick" in res.stdout
    assert re.search(r"^  pit bonus +100 +N-S won every trick", res.stdout, re.M)
    (d,) = [json.loads(x) for x in solve_run("-", "--json", input=p).stdout.splitlines()]
    assert d["pit"] is True and d["result"] == "pit" and d["sheet"]["pit"] is True
    assert d["sheet"]["playing_team"]["pit_bonus"] == 100
    rows = list(csv.DictReader(io.StringIO(solve_run("-", "--csv", input=p).stdout)))
    assert rows[0]["pit"] == "True" and rows[0]["made"] == "True"


# ------------------------------------------------------------------------- trump and objective
def find_deal_where_points_and_score_choose_differently():
    rng = np.random.default_rng(3)
    for _ in range(400):
        perm = rng.permutation(32)
        deal = Deal(tuple(mask_of(int(c) for c in perm[i * 3:(i + 1) * 3]) for i in range(4)))
        table = trump_table(deal, "N")
        by_score = max(table, key=lambda r: (r.score, r.points, -r.trump))
        by_points = max(table, key=lambda r: (r.points, r.score, -r.trump))
        if by_score.trump != by_points.trump:
            return deal, by_score.trump, by_points.trump
    raise AssertionError("no such deal")  # pragma: no cover


def test_objective_points_keeps_the_trump_best_by_score():
    deal, s_trump, p_trump = find_deal_where_points_and_score_choose_differently()
    text = f'[Deal "{deal.pbn(0)}"]\n[First "N"]\n'
    docs = {}
    for args in ([], ["--objective", "points"], ["--best-by", "points"],
                 ["--objective", "points", "--best-by", "points"]):
        res = solve_run("-", "--json", *args, input=text)
        assert res.exit_code == 0, res.output
        docs[tuple(args)] = json.loads(res.stdout)
    assert docs[()]["trump"] == SUITS[s_trump]
    assert docs[("--objective", "points")]["trump"] == SUITS[s_trump]
    assert docs[("--best-by", "points")]["trump"] == SUITS[p_trump]
    assert docs[("--objective", "points", "--best-by", "points")]["trump"] == SUITS[p_trump]
    assert docs[("--objective", "points")]["best_by"] == "score"
    best = [r["trump"] for r in docs[("--best-by", "points")]["trump_table"] if r["best"]]
    assert SUITS[p_trump] in best
    text_out = solve_run("-", "--objective", "points", "--ascii", input=text).stdout
    assert "best by score" in text_out and f"Trump: {SUITS[s_trump]}" in text_out


# ------------------------------------------------------------------------- the full table
def test_table_text_json_csv_equal_solve(tmp_path):
    rng = np.random.default_rng(8)
    deals = []
    for k in (3, 4):
        perm = rng.permutation(32)
        deals.append(Deal(tuple(mask_of(int(c) for c in perm[i * k:(i + 1) * k])
                                for i in range(4))))
    p = tmp_path / "t.txt"
    p.write_text(f'[Deal "{deals[0].pbn(0)}"]\n[Rules "kraken+multiplier=2"]\n'
                 f"{deals[1].pbn(2)} rules=klaverjas-rotterdam\n")
    res = solve_run(p, "--table", "--json")
    assert res.exit_code == 0, res.output
    docs = [json.loads(x) for x in res.stdout.splitlines()]
    for d, deal, rules in zip(docs, deals, ["kraken+multiplier=2", "klaverjas-rotterdam"]):
        assert d["rules"] == rules and len(d["cells"]) == 16
        for c in d["cells"]:
            ref = solve(deal, c["trump"], c["first"], rules=rules)
            pts = solve(deal, c["trump"], c["first"], rules=rules, objective="points",
                        pv=False)
            assert (c["score"], c["points"], c["made"]) == (ref.value, pts.value,
                                                            ref.value > 0)
            assert c["pv"] == ref.pv
            assert c["playing_team"] == ("N-S" if c["first"] in "NS" else "E-W")
        for f in SEATS:
            row = [c for c in d["cells"] if c["first"] == f]
            top = max(c["score"] for c in row)
            assert [c["best"] for c in row] == [c["score"] == top for c in row]
    # CSV: the same 16 rows a deal
    res = solve_run(p, "--table", "--csv")
    rows = list(csv.reader(io.StringIO(res.stdout)))
    assert tuple(rows[0]) == TABLE_CSV_FIELDS and len(rows) == 1 + 32
    for row, cell in zip(rows[1:17], docs[0]["cells"]):
        rec = dict(zip(TABLE_CSV_FIELDS, row))
        assert (rec["first"], rec["trump"], int(rec["score"]), int(rec["points"])) == (
            cell["first"], cell["trump"], cell["score"], cell["points"])
        assert rec["made"] == str(cell["made"]) and rec["best"] == str(cell["best"])
        assert rec["pit"] == str(cell["pit"])
    # text: a row per first player, the best marked
    res = solve_run(p, "--table", "--ascii")
    assert res.exit_code == 0, res.output
    table = full_table(deals[0], rules="kraken+multiplier=2")
    block = res.stdout.split("=== Deal 2")[0]
    for f in range(4):
        line = next(x for x in block.splitlines() if x.startswith(f"  {SEATS[f]} "))
        cells = re.findall(r"([+-]\d+) (made|nat |pit )\s+(\d+)( \*)?", line)
        assert len(cells) == 4
        for (score, word, points, star), c in zip(cells, table.cells[4 * f:4 * f + 4]):
            assert (int(score), word.strip(), int(points), bool(star)) == (
                c.score, c.result, c.points, c.best)


def test_table_best_by_points_marks_by_points(tmp_path):
    """--table --best-by points marks each first player's trumps of the most points, and
    says so in the text, the JSON and the CSV; the deal's marks by score differ in 4 cells."""
    deal = Deal.from_pbn("N:9.T..8 J.9.Q. ..A7.Q K..9.9")
    p = tmp_path / "t.txt"
    p.write_text(f'[Deal "{deal.pbn(0)}"]\n')
    by_score = full_table(deal)
    expected = []
    for f in range(4):
        row = by_score.cells[4 * f:4 * f + 4]
        top = max(c.points for c in row)
        expected += [c.points == top for c in row]
    assert sum(e != c.best for e, c in zip(expected, by_score.cells)) == 4
    res = solve_run(p, "--table", "--best-by", "points", "--json")
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert doc["best_by"] == "points"
    assert [c["best"] for c in doc["cells"]] == expected
    assert json.loads(solve_run(p, "--table", "--json").stdout)["best_by"] == "score"
    res = solve_run(p, "--table", "--best-by", "points", "--csv")
    rows = [dict(zip(TABLE_CSV_FIELDS, r)) for r in csv.reader(io.StringIO(res.stdout))][1:]
    assert [r["best"] for r in rows] == [str(e) for e in expected]
    assert {r["best_by"] for r in rows} == {"points"}
    res = solve_run(p, "--table", "--best-by", "points", "--ascii")
    assert "* = that first player's best trump (by points)." in res.stdout
    stars = []
    for f in range(4):
        line = next(x for x in res.stdout.splitlines() if x.startswith(f"  {SEATS[f]} "))
        stars += [bool(m) for m in re.findall(r"[+-]\d+ (?:made|nat |pit )\s+\d+( \*)?",
                                              line)]
    assert stars == expected
    assert "(by score)." in solve_run(p, "--table", "--ascii").stdout


@pytest.mark.parametrize("value", ["points", "score"])
def test_table_refuses_objective(tmp_path, value):
    """--objective names what card values and the principal variation are by; --table
    shows neither, so it is refused (usage error) before any work, naming both options."""
    p = tmp_path / "t.txt"
    p.write_text('[Deal "N:A... K... Q... J..."]\n')
    res = solve_run(p, "--table", "--objective", value)
    assert res.exit_code == 2 and res.stdout == ""
    assert "--table" in res.stderr and "--objective does not apply" in res.stderr
    assert "--best-by points" in res.stderr
    assert solve_run(p, "--objective", value).exit_code == 0


def test_table_refuses_a_position_and_a_trump(tmp_path):
    p = tmp_path / "p.txt"
    p.write_text('[Deal "N:A... K... Q... J..."]\n[Trump "S"]\n[Play "N"]\nSA\n')
    res = solve_run(p, "--table")
    assert res.exit_code == 1 and res.stdout == ""
    assert res.stderr.startswith(f"kraken-solve: error: {p}, line 1: --table shows")
    assert solve_run(p, "--table", "--trump", "H").exit_code == 2


# ------------------------------------------------------------------------- kraken-analyse
def test_analyse_result_is_the_sum_of_its_sheet():
    for name in ("played_deal.txt", "part_played.txt"):
        res = analyse_run(DATASETS / name, "--ascii")
        assert res.exit_code == 0, res.output
        out = res.stdout
        m = (re.search(r"^Result of the play: score ([+-]\d+) \((\w+)\)", out, re.M)
             or re.search(r"^Double-dummy score after card \d+ of \d+: ([+-]\d+) \((\w+)\)",
                          out, re.M))
        check_text_sheet(out[out.index("Score sheet of"):], int(m.group(1)), m.group(2))
        d = json.loads(analyse_run(DATASETS / name, "--json").stdout)
        assert d["sheet"]["score"] == d["value_end"] == int(m.group(1))
        assert d["playing_team"] != d["defenders"]
        assert set(d["hand_roem"]) == {"playing_team", "defenders"}
        if d["complete"]:
            assert d["continuation"] == [] and d["final_score"] == d["sheet"]["score"]
        else:
            line = d["played"] + d["continuation"]
            spec_deal, trump, first = d["deal"], d["trump"], d["first"]
            end = Position(spec_deal, trump, first, d["rules"], line)
            assert end.final_value("score") == d["value_end"]


# ------------------------------------------------------------------------- files of other tools
def test_a_file_exported_by_another_program_loads():
    p = DATASETS / "club_export.pbn"
    res = solve_run(p, "--json")
    assert res.exit_code == 0, res.output
    docs = [json.loads(x) for x in res.stdout.splitlines()]
    assert len(docs) == 3
    assert [d["first"] for d in docs] == ["N", "E", "S"]        # left of the dealer W, N, E
    assert [d["tags"]["Board"] for d in docs] == ["1", "2", "3"]
    assert all(d["tags"]["Event"] == "Clubavond Kraken" for d in docs)   # "#": as before
    assert "Vulnerable" not in docs[0]["tags"] and "Declarer" not in docs[0]["tags"]
    warnings = [x for x in res.stderr.splitlines() if "warning" in x]
    assert warnings == [f"kraken-solve: warning: {p}: skipped tags that kraken-solver does "
                        "not use: bridge's [Vulnerable] (3 deals, first at line 20); unknown "
                        "[OptimumResultTable] (line 28)"]
    text = solve_run(p, "--ascii").stdout
    assert f"=== Deal 1: {p}, line 21 (Board 1, Clubavond Kraken, 2024.06.15) ===" in text


# ------------------------------------------------------------------------- the first run
def test_the_compile_notice_says_so_once_and_only_on_a_cache_miss(tmp_path):
    """A real Numba cache in a fresh folder: the first process compiles (one notice, before the
    compile), the second loads from the cache (no notice)."""
    mod = tmp_path / "toy_kernels.py"
    mod.write_text(textwrap.dedent("""
        import sys
        from numba import njit
        from kraken_solver.engine.kernel_cache import compile_notice

        @njit(cache=True)
        def inner(x):
            return x * 2

        @njit(cache=True)
        def outer(x):
            return inner(x) + 1

        with compile_notice(lambda: print("NOTICE", flush=True)) as state:
            print("before", flush=True)
            assert outer(20) == 41 and outer(1) == 3
        print("compiles", state.compiles, "told", state.told)
    """))
    env = {**__import__("os").environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    runs = [subprocess.run([sys.executable, str(mod)], capture_output=True, text=True, env=env,
                           timeout=300, cwd=tmp_path) for _ in range(2)]
    for r in runs:
        assert r.returncode == 0, r.stderr
    cold, warm = (r.stdout.splitlines() for r in runs)
    assert cold[:2] == ["before", "NOTICE"] and cold.count("NOTICE") == 1
    assert cold[-1].startswith("compiles ") and cold[-1].endswith("told True")
    assert int(cold[-1].split()[1]) >= 1
    assert warm == ["before", "compiles 0 told False"]


def _compile_something():
    from numba import njit

    @njit  # a new function each call: Numba must compile it
    def fresh(x):
        return x + 1
    fresh(1)


def test_the_commands_print_the_notice_before_compiling(tmp_path, monkeypatch):
    from kraken_solver.engine import kernel_cache as kc
    real = kc._warm_up
    monkeypatch.setattr(kc, "_warm_up", lambda: (_compile_something(), real()))
    p = tmp_path / "d.txt"
    p.write_text('[Deal "N:AK... QJ... T9... 87..."]\n[Trump "H"]\n[Play "N"]\nSA SQ ST S8\n')
    for run in (solve_run, analyse_run):
        res = run(p)
        assert res.exit_code == 0, res.output
        err = res.stderr.splitlines()
        prog = "kraken-solve" if run is solve_run else "kraken-analyse"
        assert err[0] == f"{prog}: {FIRST_RUN_MESSAGE}" and res.stderr.count("first run") == 1
        assert re.fullmatch(rf"{prog}: compiled the search kernels in \d+\.\d+ s \(cached for "
                            r"later runs\), then (solved|reviewed) 1 deal in \d+\.\d{3} s, "
                            r"[\d,]+ nodes", err[-1]), err[-1]
    # warm (nothing to compile): no notice, and the closing line says the cache served
    monkeypatch.setattr(kc, "_warm_up", real)
    res = solve_run(p)
    assert "first run" not in res.stderr
    assert re.fullmatch(r"kraken-solve: loaded the search kernels from Numba's cache in "
                        r"\d+\.\d+ s, then solved 1 deal in \d+\.\d{3} s, [\d,]+ nodes",
                        res.stderr.splitlines()[-1]), res.stderr
    # a typo is reported before anything is compiled
    monkeypatch.setattr(kc, "_warm_up", lambda: (_compile_something(), real()))
    p.write_text(p.read_text() + '[Deal "N:AK... QJ... T9... 8X..."]\n')
    for run in (solve_run, analyse_run):
        res = run(p)
        assert res.exit_code == 1 and "first run" not in res.stderr
        assert "line 5" in res.stderr and res.stderr.count("\n") == 1
