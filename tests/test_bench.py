"""The benchmark suites are deterministic and the solver still gives their stored values."""

import hashlib
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from kraken_solver.bench.solves import check_against, format_report, load_report, run_suite
from kraken_solver.bench.suites import checksum, deals_checksum, random_deals, suite_deals
from kraken_solver.cli.bench import main as bench_main
from kraken_solver.errors import KrakenError
from kraken_solver.game.rules import Rules

EXPECTED = Path(__file__).resolve().parent.parent / "benchmarks" / "expected"
SCORE_FILE = EXPECTED / "random-100-seed1.kraken.score.json"
POINTS_FILE = EXPECTED / "random-100-seed1.klaverjas-rotterdam-noroem.points.json"


def test_suites_are_seeded_and_prefix_stable():
    a = random_deals(100, 1)
    assert random_deals(5, 1) == a[:5]
    assert suite_deals("random-5-seed1") == a[:5]
    assert random_deals(5, 2) != a[:5]
    for d in a[:5]:
        assert d.size == 8 and d.all_cards == 0xFFFFFFFF


def test_bad_suite_name():
    with pytest.raises(KrakenError):
        suite_deals("hard-10")
    # ASCII digits of a sane length only: no OverflowError, no int() of '²' or of 5,000 digits
    for name in ("random-99999999999999999999-seed1", "random-" + "9" * 5000 + "-seed1",
                 "random-\u00b2-seed1", "random-2-seed\u0662", "random-0-seed1",
                 "random-2-seed1\n"):
        with pytest.raises(KrakenError, match="a suite is random-N-seedS"):
            suite_deals(name)


@pytest.mark.parametrize("path, rules, objective", [
    (SCORE_FILE, Rules(), "score"),
    (POINTS_FILE, Rules.preset("klaverjas-rotterdam", trick_roem=False, hand_roem=False),
     "points"),
    (EXPECTED / "random-1000-seed1.kraken.score.json", Rules(), "score"),
    (EXPECTED / "random-1000-seed1.klaverjas-rotterdam-noroem.points.json",
     Rules.preset("klaverjas-rotterdam", trick_roem=False, hand_roem=False), "points"),
])
def test_stored_values_still_hold(path, rules, objective):
    expected = json.loads(path.read_text())
    assert expected["checksum"] == checksum(expected["values"])
    assert len(expected["values"]) == 4 * expected["deals"]
    report = run_suite(expected["suite"], rules, objective, limit=3)
    assert report["rules"] == expected["rules"]
    assert report["values"] == expected["values"][:12]
    assert check_against(report, str(path)) == []


def test_the_1000_deal_suites_extend_the_100_deal_ones():
    for small, big in ((SCORE_FILE, "random-1000-seed1.kraken.score.json"),
                       (POINTS_FILE, "random-1000-seed1.klaverjas-rotterdam-noroem.points.json")):
        report = json.loads((EXPECTED / big).read_text())
        assert report["solves"] == 4000 and report["checksum"] == checksum(report["values"])
        assert check_against(report, str(small)) == []


def test_cli_check_detects_a_changed_value(tmp_path):
    expected = json.loads(SCORE_FILE.read_text())
    runner = CliRunner()
    ok = runner.invoke(bench_main, ["--limit", "1", "--quiet", "--check", str(SCORE_FILE)])
    assert ok.exit_code == 0, ok.output
    assert "median" in ok.output and "values equal" in ok.output
    expected["values"][2] += 2
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(expected))
    res = runner.invoke(bench_main, ["--limit", "1", "--quiet", "--check", str(bad)])
    assert res.exit_code == 1
    assert "MISMATCH solve 2" in res.output


@pytest.mark.parametrize("changed", [20, 21, 24])
def test_cli_check_says_how_many_differences_it_did_not_list(tmp_path, changed):
    """--check listed 20 differences and stopped without a word about the rest."""
    expected = json.loads(SCORE_FILE.read_text())
    for i in range(changed):
        expected["values"][i] += 2
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(expected))
    res = CliRunner().invoke(bench_main, ["--limit", "6", "--quiet", "--check", str(bad)])
    assert res.exit_code == 1
    lines = res.stderr.splitlines()
    listed = [x for x in lines if x.startswith("kraken-bench: MISMATCH solve ")]
    assert len(listed) == 20 and listed[-1].startswith("kraken-bench: MISMATCH solve 19 ")
    more = [x for x in lines if "not listed" in x]
    if changed == 20:
        assert more == [] and len(lines) == 20
    else:
        noun = "mismatch" if changed == 21 else "mismatches"
        assert more == [f"kraken-bench: ... and {changed - 20} more {noun} not listed "
                        f"({changed} in all; --json FILE writes the run's values to "
                        "compare)"] and lines[-1] == more[0]


def test_cli_writes_json(tmp_path):
    out = tmp_path / "r.json"
    res = CliRunner().invoke(bench_main, ["--suite", "random-1-seed7", "--quiet",
                                          "--objective", "points", "--json", str(out)])
    assert res.exit_code == 0, res.output
    report = json.loads(out.read_text())
    assert report["solves"] == 4 and len(report["values"]) == 4
    assert report["checksum"] == checksum(report["values"])
    for key in ("median_ms", "p95_ms", "max_ms", "mean_nodes", "max_nodes", "nodes_per_s",
                "compile_or_load_s", "peak_memory_mb"):
        assert key in report


def test_empty_suite_and_unreadable_report_are_clean_errors(tmp_path):
    with pytest.raises(KrakenError):
        suite_deals("random-0-seed1")
    bad = tmp_path / "bad.json"
    bad.write_text("not json")
    res = CliRunner().invoke(bench_main, ["--suite", "random-1-seed1", "--quiet",
                                          "--objective", "points", "--check", str(bad)])
    assert res.exit_code == 1
    assert "cannot read the stored report" in res.output
    assert "Traceback" not in res.output


def test_a_deal_file_is_a_suite(tmp_path):
    deals = random_deals(2, 5)
    path = tmp_path / "two.txt"
    path.write_text("% two deals\n" + "\n".join(str(d) for d in deals) + "\n")
    assert suite_deals(str(path)) == deals
    report = run_suite(str(path), Rules(), "points")
    assert report["suite"] == "two" and report["deals"] == 2
    assert report["values"] == run_suite("random-2-seed5", Rules(), "points")["values"]
    stored = tmp_path / "two.json"
    stored.write_text(json.dumps(report))
    assert check_against(report, str(stored)) == []
    # another file of the same name but other deals is not the stored suite
    other = tmp_path / "other" / "two.txt"
    other.parent.mkdir()
    other.write_text("\n".join(str(d) for d in random_deals(2, 6)) + "\n")
    problems = check_against(run_suite(str(other), Rules(), "points"), str(stored))
    assert problems and problems[0].startswith("suite: the deals differ")


def test_repeat_times_the_fastest_run_of_the_same_work():
    """--repeat solves each (deal, trump) again from an empty table: the same values and
    nodes as one run (not the table's memory of the run before), a time per solve that is
    the fastest run's, and the spread between the runs."""
    once = run_suite("random-2-seed3", Rules(), "score")
    thrice = run_suite("random-2-seed3", Rules(), "score", repeat=3)
    assert thrice["values"] == once["values"] and thrice["checksum"] == once["checksum"]
    for key in ("mean_nodes", "median_nodes", "max_nodes"):
        assert thrice[key] == once[key]
    assert once["repeat"] == 1 and once["run_spread_median"] is None
    assert thrice["repeat"] == 3
    assert 0.0 <= thrice["run_spread_median"] <= thrice["run_spread_p90"]
    assert "the fastest of 3 runs" in format_report(thrice)
    assert "fastest" not in format_report(once)
    for bad in (0, 101, 2.5, "3", True):
        with pytest.raises(KrakenError, match="repeat must be"):
            run_suite("random-1-seed3", Rules(), "score", repeat=bad)
    res = CliRunner().invoke(bench_main, ["--suite", "random-1-seed3", "--quiet",
                                          "--repeat", "0"])
    assert res.exit_code == 2 and "--repeat" in res.output and "Traceback" not in res.output
    res = CliRunner().invoke(bench_main, ["--suite", "random-1-seed3", "--quiet",
                                          "--repeat", "2"])
    assert res.exit_code == 0 and "the fastest of 2 runs" in res.output


def test_check_is_read_before_solving_and_never_overwritten(tmp_path):
    stored = tmp_path / "stored.json"
    stored.write_text(SCORE_FILE.read_text())
    res = CliRunner().invoke(bench_main, ["--suite", "random-1-seed2", "--quiet",
                                          "--json", str(stored), "--check", str(stored)])
    assert res.exit_code == 1 and "--json and --check name the same file" in res.output
    assert stored.read_text() == SCORE_FILE.read_text()
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    out = tmp_path / "out.json"
    res = CliRunner().invoke(bench_main, ["--suite", "random-1-seed2", "--quiet",
                                          "--json", str(out), "--check", str(bad)])
    assert res.exit_code == 1 and "not a kraken-bench JSON report" in res.output
    assert "median" not in res.output and not out.exists()     # failed before solving


def test_a_pbn_deal_file_is_a_suite(tmp_path):
    """kraken-bench --suite datasets/club_export.pbn was refused ("or a deal file NAME.txt")
    though every tool reads it; the same deals as the file renamed .txt, and never
    overwritten by --json."""
    src = Path(__file__).resolve().parent.parent / "datasets" / "club_export.pbn"
    upper = tmp_path / "CLUB.PBN"
    upper.write_bytes(src.read_bytes())
    txt = tmp_path / "club.txt"
    txt.write_bytes(src.read_bytes())
    assert [d.hands for d in suite_deals(str(upper))] == [d.hands for d in suite_deals(str(txt))]
    res = CliRunner().invoke(bench_main, ["--suite", str(upper), "--quiet", "--json",
                                          str(upper)])
    assert res.exit_code == 1 and "is an input of this command" in res.output
    assert upper.read_bytes() == src.read_bytes()


def test_a_suite_file_of_short_hands_is_refused(tmp_path):
    path = tmp_path / "short.txt"
    path.write_text("N:A... .A.. ..A. ...A\n")
    with pytest.raises(KrakenError, match="full deals"):
        suite_deals(str(path))


def test_a_suite_file_with_played_cards_is_refused(tmp_path):
    path = tmp_path / "played.txt"
    path.write_text('[Deal "N:AKQJT987... .AKQJT987.. ..AKQJT987. ...AKQJT987"]\n'
                    '[Trump "S"]\n[Play "N"]\nSA\n')
    res = CliRunner().invoke(bench_main, ["--suite", str(path), "--quiet"])
    assert res.exit_code == 1 and "played cards" in res.output and str(path) in res.output


HARD = Path(__file__).resolve().parent.parent / "benchmarks" / "suites" / "hard-25.txt"


@pytest.mark.parametrize("path, rules, objective", [
    (EXPECTED / "hard-25.kraken.score.json", Rules(), "score"),
    (EXPECTED / "hard-25.klaverjas-rotterdam-noroem.points.json",
     Rules.preset("klaverjas-rotterdam", trick_roem=False, hand_roem=False), "points"),
])
def test_hard_suite_values_still_hold(path, rules, objective):
    """The stored hard set: its deals are the stored report's, and the easiest of them (the
    file is hardest first) still has its stored values."""
    from kraken_solver.engine.solver import Searcher
    from kraken_solver.game.position import Position
    expected = json.loads(path.read_text())
    deals = suite_deals(str(HARD))
    assert expected["suite"] == "hard-25" and expected["deals"] == len(deals) == 25
    assert expected["checksum"] == checksum(expected["values"])
    assert expected["deals_checksum"] == deals_checksum(deals)
    searcher = Searcher()
    last = [searcher.value(Position(deals[-1], t, 0, rules), objective) for t in range(4)]
    assert last == expected["values"][-4:]


def test_cli_progress_only_on_a_terminal_and_version():
    # CliRunner's stderr is no terminal: the report on stdout, nothing on stderr
    res = CliRunner().invoke(bench_main, ["--suite", "random-1-seed3", "--objective", "points"])
    assert res.exit_code == 0, res.output
    assert res.stderr == ""
    assert "suite random-1-seed3: 1 deal x 4 trumps = 4 solves" in res.stdout
    from kraken_solver import __version__
    res = CliRunner().invoke(bench_main, ["--version"])
    assert res.exit_code == 0 and __version__ in res.stdout
    assert "Usage:" in CliRunner().invoke(bench_main, ["-h"]).stdout


def test_cli_check_says_how_many_solves_it_compared(tmp_path):
    stored = tmp_path / "one.json"
    res = CliRunner().invoke(bench_main, ["--suite", "random-1-seed4", "--objective", "points",
                                          "--json", str(stored)])
    assert res.exit_code == 0, res.output
    res = CliRunner().invoke(bench_main, ["--suite", "random-2-seed4", "--objective", "points",
                                          "--check", str(stored)])
    assert res.exit_code == 0, res.output
    assert f"values equal to {stored} in the 4 solves both hold (8 run, 4 stored)" in res.stdout


def test_cli_a_full_disk_is_one_clear_error():
    import subprocess
    import sys
    with open("/dev/full", "w") as full:
        proc = subprocess.run([sys.executable, "-m", "kraken_solver.cli.bench", "--suite",
                               "random-1-seed1", "--objective", "points"],
                              stdout=full, stderr=subprocess.PIPE, text=True, timeout=300)
    assert proc.returncode == 1
    assert proc.stderr.startswith("kraken-bench: error: cannot write the output")
    assert "Traceback" not in proc.stderr


def test_cli_ctrl_c_exits_130(monkeypatch):
    import kraken_solver.cli.bench as cli_bench

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt
    monkeypatch.setattr(cli_bench, "run_suite", interrupted)
    res = CliRunner().invoke(bench_main, ["--suite", "random-1-seed1"])
    assert res.exit_code == 130 and res.stdout == ""
    assert res.stderr.strip() == "kraken-bench: interrupted"


def test_a_json_report_that_cannot_be_written_fails_before_solving(tmp_path):
    where = tmp_path / "no-such-folder" / "report.json"
    res = CliRunner().invoke(bench_main, ["--suite", "random-1-seed2", "--quiet",
                                          "--json", str(where)])
    assert res.exit_code == 1 and "--json's folder cannot be used: No such file" in res.output
    assert "median" not in res.output


def test_a_huge_suite_makes_nothing_before_its_first_solve():
    """random-999999999-seed1 grew to 1.5 GB before solving (the list of a billion seed
    sequences): the deals are made one at a time."""
    import tracemalloc

    from kraken_solver.bench.suites import iter_suite
    tracemalloc.start()
    try:
        it = iter_suite("random-999999999-seed1")
        first = [next(it) for _ in range(3)]
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert first == random_deals(3, 1)
    assert peak < 2_000_000
    # the checksum of the deals is the same whether they come as a list or one at a time
    from kraken_solver.bench.suites import deals_checksum
    assert deals_checksum(iter_suite("random-4-seed2")) == deals_checksum(random_deals(4, 2))
    assert deals_checksum(random_deals(4, 2)) == hashlib.sha256(
        " ".join(str(d) for d in random_deals(4, 2)).encode()).hexdigest()[:16]


def test_json_never_replaces_an_input(tmp_path):
    suite = tmp_path / "h.txt"
    suite.write_text(str(random_deals(1, 3)[0]) + "\n")
    before = suite.read_bytes()
    for args in (["--suite", str(suite), "--json", str(suite)],
                 ["--suite", "random-1-seed1", "--json", "", "--objective", "points"],
                 ["--suite", "random-1-seed1", "--json", "-", "--objective", "points"],
                 ["--suite", "random-1-seed1", "--json", "/dev/null"]):
        res = CliRunner().invoke(bench_main, args + ["--quiet"])
        assert res.exit_code == 1 and res.stderr.count("\n") == 1, (args, res.output)
        assert res.stderr.startswith("kraken-bench: error: ") and "median" not in res.output
    assert suite.read_bytes() == before
    res = CliRunner().invoke(bench_main, ["--suite", str(suite), "--json", str(suite)])
    assert "is an input of this command" in res.stderr


def test_check_against_a_report_without_values_fails(tmp_path):
    """'0 solves both hold' passed: a report with no values checks nothing."""
    for text, why in (('{"values": []}', "has no values"),
                      ('{"values": ["x"]}', "not all whole numbers")):
        empty = tmp_path / "empty.json"
        empty.write_text(text)
        res = CliRunner().invoke(bench_main, ["--suite", "random-1-seed1", "--objective",
                                              "points", "--check", str(empty)])
        assert res.exit_code == 1 and why in res.stderr and "median" not in res.output
    report = run_suite("random-1-seed1", Rules(), "points")
    assert check_against(report, {"suite": report["suite"], "objective": "points",
                                  "rules": "kraken", "values": []})


def test_check_refuses_what_is_no_report_at_once(tmp_path, monkeypatch):
    """--check /dev/zero read without end (a MemoryError traceback under a memory limit),
    a named pipe nobody writes to waited for ever, 100,000 '[' gave a RecursionError
    traceback: each is one line naming the file, before any solve."""
    import os

    from kraken_solver.bench import solves as bench

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000)
    bad = tmp_path / "bad.json"
    bad.write_bytes(b"\xff\xfe{}")
    cut = tmp_path / "cut.json"
    cut.write_text('{"values": [1,')
    big = tmp_path / "big.json"
    big.write_text('{"values": [' + "1," * (1 << 19) + '1]}')
    monkeypatch.setattr(bench, "MAX_REPORT_BYTES", 1 << 20)
    for path, why in ((os.devnull, "must be a regular file .* not a character device"),
                      (fifo, "must be a regular file .* not a named pipe"),
                      (deep, "nested too deeply"), (bad, "not UTF-8 text .byte 0."),
                      (cut, r"line 1, column 15: cannot read the stored report: not JSON"),
                      (big, "larger than 1 MiB .1,048,591 bytes.")):
        with pytest.raises(KrakenError, match=why):
            load_report(str(path))
        res = CliRunner().invoke(bench_main, ["--suite", "random-1-seed1", "--quiet",
                                              "--check", str(path)])
        assert res.exit_code == 1 and "median" not in res.output, res.output
        assert "Traceback" not in res.output and res.output.count("\n") == 1, res.output


def test_reports_name_the_machine(monkeypatch):
    """A report records the processor (speed figures depend on it) and prints it as its last
    line; a report stored before the field existed prints none."""
    import builtins
    import os
    import platform

    from kraken_solver.bench import machine as bench

    report = run_suite("random-1-seed3", Rules(), "score")
    assert report["cpu"] == bench.cpu_model() and report["cpu"].strip()
    assert report["cores"] == os.cpu_count()
    last = format_report(report).splitlines()[-1]
    assert last == f"  machine: {report['cpu']}, {os.cpu_count()} cores, {platform.machine()}"
    old = {k: v for k, v in report.items() if k not in ("cpu", "cores")}
    assert "machine:" not in format_report(old)
    # where /proc/cpuinfo cannot be read, the platform's name (or "unknown") stands in
    real_open = builtins.open

    def no_cpuinfo(path, *a, **k):
        if str(path) == "/proc/cpuinfo":
            raise PermissionError(path)
        return real_open(path, *a, **k)

    monkeypatch.setattr(builtins, "open", no_cpuinfo)
    monkeypatch.setattr(platform, "processor", lambda: "")
    assert bench.cpu_model() == "unknown"
    monkeypatch.setattr(platform, "processor", lambda: "x86_64")
    assert bench.cpu_model() == "x86_64"


def test_a_report_says_whether_the_table_was_prefetched(monkeypatch):
    """Speed depends on it (``solver.prefetch_pays``): the report records the searcher's
    choice and prints it beside the table's size; a report stored before says nothing."""
    from kraken_solver.engine import solver
    for l2, prefetched in ((2 << 20, False), (1 << 20, True)):
        monkeypatch.setattr(solver, "l2_cache_bytes", lambda l2=l2: l2)
        report = run_suite("random-1-seed3", Rules(), "points")
        assert report["tt_prefetch"] is prefetched
        text = format_report(report)
        assert f"TT entries 32768 (prefetched: {'yes' if prefetched else 'no, a quarter'}" in text
    del report["tt_prefetch"]
    assert "TT entries 32768\n" in format_report(report)
