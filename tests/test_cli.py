"""Tests of the ``kraken-solve`` command (kraken_solver.cli.solve) with Click's CliRunner.

Values are checked against calling ``solve``/``trump_table`` directly; the only hard-coded
results are one-card deals scored by hand from RULES.md.  Most deals are small (2-3 cards a
hand) to keep the tests fast; two data sets give full 8-card deals.
"""

from __future__ import annotations

import csv
import io
import json
import os
import pathlib

import numpy as np
import pytest
from click.testing import CliRunner

from kraken_solver import (Deal, Position, card_str, hand_roem, legal_cards, score_sheet, solve,
                           trump_table)
from kraken_solver.cli.solve import main
from kraken_solver.game.cards import SEATS, SUITS, mask_of
from kraken_solver.notation.reader import parse_deal_file
from kraken_solver.notation.report import CSV_FIELDS

ROOT = pathlib.Path(__file__).resolve().parent.parent
DATASETS = ROOT / "datasets"
SYMBOLS = "\u2660\u2665\u2666\u2663"

JSON_KEYS = {"deal_number", "source", "line", "deal", "trump", "trump_given", "first", "playing_team",
             "defenders", "rules", "rules_options", "played", "to_move", "objective", "score",
             "result", "made", "pit", "points", "hand_roem", "card_values", "best_cards", "pv",
             "tricks", "sheet", "best_by", "trump_table", "tags", "nodes", "seconds"}


def run(*args, input=None):
    return CliRunner().invoke(main, [str(a) for a in args], input=input)


def write(tmp_path, text, name="deals.txt"):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def json_lines(result):
    assert result.exit_code == 0, result.output
    return [json.loads(line) for line in result.stdout.splitlines()]


def small_deals(n, size=3, seed=7):
    """``n`` random deals of ``size`` cards a hand with a trump and first player."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        perm = rng.permutation(32)
        deal = Deal(tuple(mask_of(int(c) for c in perm[i * size:(i + 1) * size])
                          for i in range(4)))
        out.append((deal, SUITS[int(rng.integers(4))], SEATS[int(rng.integers(4))]))
    return out


def one_line(deal, trump, first, extra=""):
    return f"{deal.pbn(0)} trump={trump} first={first}{extra}\n"


# ------------------------------------------------------------------------- values by hand
def test_one_card_deal_made_with_pit(tmp_path):
    """N leads SA, E S7, S ST, W S8 (trump H): N wins 11+10 card points + 10 for the last trick
    = 31, no roem (7 8 T A is no run); N-S win every trick: pit 100.  Made: score 131, points
    31 (rules 18-19, 24)."""
    p = write(tmp_path, "N:A... 7... T... 8... trump=H first=N\n")
    (d,) = json_lines(run(p, "--json"))
    assert (d["score"], d["made"], d["points"]) == (131, True, 31)
    assert d["card_values"] == {"SA": 131} and d["best_cards"] == ["SA"]
    assert d["pv"] == ["SA", "S7", "ST", "S8"]
    assert d["tricks"] == [{"number": 1, "leader": "N", "cards": ["SA", "S7", "ST", "S8"],
                            "winner": "N", "points": 31, "roem": 0, "already_played": 0}]


def test_one_card_deal_nat_with_roem_and_double(tmp_path):
    """N S7, E SA, S S8, W S9 (trump H): E wins 11 + 10 (last trick) = 21 and the roem of
    S7 S8 S9 (three in a row) = 20.  N-S have 0: nat, the defenders score everything:
    score -(21 + 20) = -41; doubled -82; points 0 (rules 10, 19, 20)."""
    p = write(tmp_path, "N:7... A... 8... 9... trump=H first=N\n"
                        "N:7... A... 8... 9... trump=H first=N double=2\n")
    a, b = json_lines(run(p, "--json"))
    assert (a["score"], a["made"], a["points"]) == (-41, False, 0)
    assert a["tricks"][0]["winner"] == "E" and a["tricks"][0]["roem"] == 20
    assert (b["score"], b["points"], b["rules"]) == (-82, 0, "kraken+multiplier=2")
    assert b["rules_options"]["multiplier"] == 2


# ------------------------------------------------------------------------- values = solve
def check_against_solve(d, deal, trump, first, rules="kraken", played=(), objective="score"):
    other = "points" if objective == "score" else "score"
    ref = solve(deal, trump, first, rules=rules, played=played, objective=objective,
                all_cards=True)
    ref_other = solve(deal, trump, first, rules=rules, played=played, objective=other,
                      pv=False)
    assert d[objective] == ref.value and d[other] == ref_other.value
    assert d["made"] == (d["score"] > 0)
    assert d["card_values"] == ref.card_values
    assert d["best_cards"] == ref.best_cards
    assert d["pv"] == ref.pv
    # the tricks replay the played cards and the pv, and add up to the deal's card points
    seq = [c for t in d["tricks"] for c in t["cards"]]
    assert seq == list(d["played"]) + d["pv"]
    assert len(d["tricks"]) == deal.size
    pos = Position(deal, trump, first, rules)
    total = pos.total_points
    assert sum(t["points"] for t in d["tricks"]) == total
    end = Position(deal, trump, first, rules, seq)
    assert end.final_value(objective) == ref.value  # the pv keeps the value


def test_json_values_equal_solve(tmp_path):
    deals = small_deals(4)
    p = write(tmp_path, "".join(one_line(*x) for x in deals))
    out = json_lines(run(p, "--json"))
    assert len(out) == 4
    for d, (deal, trump, first) in zip(out, deals):
        assert set(d) == JSON_KEYS
        assert d["deal"] == str(deal) and d["trump"] == trump and d["first"] == first
        assert d["trump_given"] is True and d["trump_table"] is None
        assert d["rules"] == "kraken" and d["objective"] == "score" and d["played"] == []
        assert d["to_move"] == first and d["source"] == str(p)
        assert d["deal_number"] == out.index(d) + 1
        assert isinstance(d["nodes"], int) and d["seconds"] >= 0
        check_against_solve(d, deal, trump, first)


def test_objective_points(tmp_path):
    deals = small_deals(2, seed=11)
    p = write(tmp_path, "".join(one_line(*x) for x in deals))
    for d, (deal, trump, first) in zip(json_lines(run(p, "--json", "--objective", "points")),
                                       deals):
        assert d["objective"] == "points"
        check_against_solve(d, deal, trump, first, objective="points")


def test_overrides_trump_first_rules(tmp_path):
    (deal, trump, first), = small_deals(1, seed=3)
    p = write(tmp_path, one_line(deal, trump, first, " rules=kraken double=2"))
    new_trump = SUITS[(SUITS.index(trump) + 1) % 4]
    new_first = SEATS[(SEATS.index(first) + 1) % 4]
    (d,) = json_lines(run(p, "--json", "--trump", new_trump.lower(), "--first", new_first,
                          "--rules", "klaverjas-rotterdam"))
    assert (d["trump"], d["first"]) == (new_trump, new_first)
    assert d["rules"] == "klaverjas-rotterdam+multiplier=2"
    rules = {"trump_rule": "rotterdam", "undertrump": "forced", "hand_roem": False,
             "multiplier": 2}
    check_against_solve(d, deal, new_trump, new_first, rules=rules)


def test_trump_table_when_no_trump_is_given(tmp_path):
    (deal, _, first), = small_deals(1, seed=5)
    p = write(tmp_path, f'[Deal "{deal.pbn(0)}"]\n[First "{first}"]\n')
    (d,) = json_lines(run(p, "--json"))
    table = trump_table(deal, first)
    assert [r["trump"] for r in d["trump_table"]] == list(SUITS)
    for row, ref in zip(d["trump_table"], table):
        assert (row["score"], row["made"], row["points"]) == (ref.score, ref.made, ref.points)
    top = max(r.score for r in table)
    assert [r["best"] for r in d["trump_table"]] == [r.score == top for r in table]
    best = max(table, key=lambda r: (r.score, r.points, -r.trump))
    assert d["trump"] == SUITS[best.trump] and d["trump_given"] is False
    assert (d["score"], d["points"]) == (best.score, best.points)
    check_against_solve(d, deal, d["trump"], first)

    res = run(p, "--ascii")
    assert res.exit_code == 0
    assert f"Trump table for {first}" in res.stdout
    assert f"Trump: {SUITS[best.trump]} (best of the trump table by score)" in res.stdout


def test_part_played_small_deal(tmp_path):
    (deal, trump, first), = small_deals(1, seed=9)
    played = []
    for _ in range(5):  # one trick and one card of the next
        played.append(legal_cards(deal, trump, first, played=played)[-1])
    text = (f'[Deal "{deal.pbn(0)}"]\n[Trump "{trump}"]\n[First "{first}"]\n'
            f'[Play "{first}"]\n{" ".join(played[:4])}\n{played[4]}\n')
    p = write(tmp_path, text)
    (d,) = json_lines(run(p, "--json"))
    assert d["played"] == played
    check_against_solve(d, deal, trump, first, played=played)
    assert d["tricks"][0]["already_played"] == 4 and d["tricks"][1]["already_played"] == 1
    assert all(t["already_played"] == 0 for t in d["tricks"][2:])
    pos = Position(deal, trump, first, played=played)
    assert d["to_move"] == SEATS[pos.to_move]

    res = run(p, "--ascii")
    assert res.exit_code == 0
    out = res.stdout
    assert "Played so far (5 cards):" in out
    # the trick in progress names each card's player: "E led DJ DK" read as if E led both
    leader = SEATS[Position(deal, trump, first, played=played[:4]).leader]
    assert f"trick 2: {leader} {played[4]}   (in progress)" in out
    assert "Hands now:" in out and "(to play)" in out
    assert f"({played[4]})" in out  # the played card of the trick in progress in the pv


def test_a_deal_played_to_the_end(tmp_path):
    p = write(tmp_path, '[Deal "N:A... 7... T... 8..."]\n[Trump "H"]\n[Play "N"]\n'
                        "SA S7 ST S8\n")
    (d,) = json_lines(run(p, "--json"))
    assert (d["score"], d["points"], d["to_move"]) == (131, 31, None)
    assert d["card_values"] == {} and d["pv"] == []
    res = run(p)
    assert res.exit_code == 0 and "The deal is over" in res.stdout


# ------------------------------------------------------------------------- text output
def test_text_output(tmp_path):
    (deal, trump, first), = small_deals(1, seed=13)
    p = write(tmp_path, one_line(deal, trump, first))
    res = run(p)
    assert res.exit_code == 0, res.output
    out = res.stdout
    ref = solve(deal, trump, first, all_cards=True)
    pts = solve(deal, trump, first, objective="points", pv=False).value
    assert "Traceback" not in res.output
    assert f"=== Deal 1: {p}, line 1 ===" in out
    assert "Rules: kraken" in out
    assert f"Score: {ref.value:+d} ({'made' if ref.value > 0 else 'nat'})" in out
    assert f"Points: {pts}" in out
    assert any(s in out for s in SYMBOLS)
    lines = out.splitlines()
    # the diagram: N's label above W's and E's on one line, S below
    n_row = next(i for i, l in enumerate(lines) if l.strip().startswith("N"))
    we_row = next(i for i, l in enumerate(lines) if l.startswith("W") and " E" in l)
    s_row = next(i for i, l in enumerate(lines) if l.strip().startswith("S") and i > we_row)
    assert n_row < we_row < s_row
    # every legal card with its value, best ones marked
    for card, v in ref.card_values.items():
        sym = SYMBOLS[SUITS.index(card[0])] + card[1]
        row = next(l for l in lines if l.strip().startswith(sym + " "))
        assert f"{v:+d}" in row
        assert row.rstrip().endswith("*") == (card in ref.best_cards)
    assert "Principal variation" in out
    assert len([l for l in lines if l.strip()[:1].isdigit()]) >= deal.size


def test_ascii_and_symbols(tmp_path):
    (deal, trump, first), = small_deals(1, seed=17)
    p = write(tmp_path, one_line(deal, trump, first))
    plain = run(p, "--ascii")
    assert plain.exit_code == 0
    assert not any(s in plain.stdout for s in SYMBOLS)
    assert f"Trump: {trump}" in plain.stdout
    fancy = run(p)
    assert f"Trump: {SYMBOLS[SUITS.index(trump)]}" in fancy.stdout


def test_csv(tmp_path):
    deals = small_deals(3, seed=19)
    p = write(tmp_path, "".join(one_line(*x) for x in deals))
    res = run(p, "--csv")
    assert res.exit_code == 0, res.output
    rows = list(csv.reader(io.StringIO(res.stdout)))
    assert tuple(rows[0]) == CSV_FIELDS and len(rows) == 4
    for k, (row, (deal, trump, first)) in enumerate(zip(rows[1:], deals)):
        rec = dict(zip(CSV_FIELDS, row))
        ref = solve(deal, trump, first, all_cards=True)
        pts = solve(deal, trump, first, objective="points", pv=False).value
        assert (rec["source"], rec["line"]) == (str(p), str(k + 1))
        assert rec["deal"] == str(deal) and rec["trump"] == trump and rec["first"] == first
        assert rec["playing_team"] == ("N-S" if first in "NS" else "E-W")
        assert rec["rules"] == "kraken" and rec["played"] == "" and rec["to_move"] == first
        assert (rec["trump_given"], rec["best"]) == ("True", "")
        assert int(rec["score"]) == ref.value and int(rec["points"]) == pts
        assert rec["made"] == ("True" if ref.value > 0 else "False")
        assert rec["pit"] == str(score_sheet(deal, trump, first, line=ref.pv).pit)
        hr = hand_roem(deal, trump, first)
        assert (int(rec["hand_roem_playing_team"]), int(rec["hand_roem_defenders"])) == hr
        assert rec["best_cards"].split() == ref.best_cards and rec["pv"].split() == ref.pv


def test_csv_has_a_row_per_trump_of_the_trump_table(tmp_path):
    (deal, _, first), = small_deals(1, size=3, seed=31)
    played_deal = small_deals(1, size=2, seed=32)[0]
    pd, pt, pf = played_deal
    played = [legal_cards(pd, pt, pf)[0]]
    p = write(tmp_path, f'[Deal "{deal.pbn(0)}"]\n[First "{first}"]\n'
                        f'[Deal "{pd.pbn(0)}"]\n[Trump "{pt}"]\n[First "{pf}"]\n'
                        f'[Play "{pf}"]\n{played[0]}\n')
    res = run(p, "--csv")
    assert res.exit_code == 0, res.output
    rows = [dict(zip(CSV_FIELDS, r)) for r in list(csv.reader(io.StringIO(res.stdout)))[1:]]
    assert len(rows) == 5
    table = trump_table(deal, first)
    top = max(r.score for r in table)
    for rec, ref in zip(rows[:4], table):
        assert rec["trump"] == SUITS[ref.trump] and rec["line"] == "1"
        assert (int(rec["score"]), int(rec["points"])) == (ref.score, ref.points)
        assert rec["made"] == str(ref.made) and rec["trump_given"] == "False"
        assert rec["best"] == str(ref.score == top)
        full = solve(deal, ref.trump, first, all_cards=True)
        assert rec["pv"].split() == full.pv and rec["best_cards"].split() == full.best_cards
    last = rows[4]
    assert last["played"] == played[0] and last["line"] == "3" and last["trump"] == pt
    assert int(last["score"]) == solve(pd, pt, pf, played=played).value
    # booleans as kraken-batch writes them
    assert {r["made"] for r in rows} | {r["pit"] for r in rows} <= {"True", "False"}


def test_several_files_stdin_and_timings(tmp_path):
    deals = small_deals(2, size=2, seed=23)
    a = write(tmp_path, one_line(*deals[0]), "a.txt")
    res = run(a, "-", "--json", input=one_line(*deals[1]))
    out = json_lines(res)
    assert [d["source"] for d in out] == [str(a), "<stdin>"]
    assert "deal 1 (" in res.stderr and "deal 2 (<stdin>, line 1)" in res.stderr
    assert "nodes" in res.stderr and "2 deals in" in res.stderr
    res = run(a, a)
    assert res.exit_code == 0 and "=== Deal 2:" in res.stdout


# ------------------------------------------------------------------------- data sets
def test_dataset_part_played_json():
    p = DATASETS / "part_played.txt"
    (spec,) = parse_deal_file(p)
    (d,) = json_lines(run(p, "--json"))
    played = [card_str(c) for c in spec.played]
    assert d["played"] == played
    check_against_solve(d, spec.deal, SUITS[spec.trump], SEATS[spec.first], played=played)


def test_dataset_full_deal_text():
    p = DATASETS / "full_deal.txt"
    (spec,) = parse_deal_file(p)
    res = run(p, "--ascii")
    assert res.exit_code == 0, res.output
    table = trump_table(spec.deal, spec.first)
    for r in table:
        assert f"  {SUITS[r.trump]}  " in res.stdout
        row = next(l for l in res.stdout.splitlines() if l.startswith(f"  {SUITS[r.trump]}  "))
        assert row.split()[1:4] == [f"{r.score:+d}", "made" if r.made else "nat", str(r.points)]
    assert "Principal variation" in res.stdout and "deal 1 (" in res.stderr


# ------------------------------------------------------------------------- bad input
FULL = "N:AT8.T.8.QJ9 9.A.AQJ7.K7 QJ7.J987..8 K.KQ.KT9.AT"
SMALL = "N:7.7.. 8.8.. 9.9.. T.T.."

BAD = [
    # (file text, line, column, token or None)
    (f'[Deal "{FULL.replace("AT8", "AKX")}"]\n', 1, 12, "X"),                # bad rank
    (f'% comment\n\n[Deal "{FULL}"]\n[Trumps "N"]\n', 4, 2, "Trumps"),       # a typo of a tag
    (f'[Deal "{FULL.replace("K.KQ", "A.KQ")}"]\n', 1, 46, "SA"),                # dealt twice
    (f'[Deal "{FULL.replace(".K7 ", ". ")}"]\n', 1, 22, "9.A.AQJ7."),            # unequal hands
    (f'[Deal "{FULL.replace("N:", "Q:")}"]\n', 1, 8, "Q"),                      # bad seat
    (f'[Deal "{FULL}"]\n[Trump "Z"]\n', 2, 9, "Z"),                              # bad trump
    (f'[Deal "{FULL}"]\n[Rules "bridge"]\n', 2, 9, "bridge"),                    # bad preset
    (f'[Deal "{FULL}"]\n[Double "3"]\n', 2, 10, "3"),                            # bad multiplier
    (f'[Deal "{FULL}"]\n[Trump "H"]\n[Play "N"]\nSA S9 ZQ\n', 4, 7, "Z"),        # bad suit
    (f'[Deal "{FULL}"]\n[Trump "H"]\n[Play "N"]\nSA S9 SQ H9\n', 4, 10, "H9"),   # not in hand
    (f'[Deal "{SMALL}"]\n[Trump "C"]\n[Play "N"]\nS7\n  H8\n', 5, 3, "H8"),      # revoke
    (f'[Deal "{SMALL}"]\n[Trump "C"]\n[Play "N"]\nS7 S8 S9 ST\nHT H7 H8 H9 S7\n', 5, 13, "S7"),
    (f'[Deal "{SMALL}"]\n[Trump "C"]\n[Play "E"]\nS8\n', 3, 8, "E"),            # wrong seat
    (f"{FULL} trump=H colour=red\n", 1, 59, "colour"),                          # one-line key
    (f"{FULL} trump=H\n{FULL} trump=Q\n", 2, 57, "Q"),                          # second deal
]


@pytest.mark.parametrize("text, line, column, token", BAD)
def test_bad_input_one_clear_line(tmp_path, text, line, column, token):
    p = write(tmp_path, text)
    res = run(p, "--json")
    assert res.exit_code == 1
    assert res.stdout == ""  # everything is read before anything is solved
    err = res.stderr
    assert "Traceback" not in res.output
    assert err.count("\n") == 1
    assert err.startswith(f"kraken-solve: error: {p}, line {line}, column {column}: "), err
    if token is not None:
        assert err.rstrip().endswith(f"(got {token!r})"), err


def test_documented_error_message(tmp_path):
    p = write(tmp_path, f'[Deal "{FULL.replace("AT8", "AKX")}"]\n')
    res = run(p)
    assert res.exit_code == 1
    assert res.stderr == (f"kraken-solve: error: {p}, line 1, column 12: expected a rank A, K, "
                          "Q, J, T (or 10), 9, 8 or 7 (got 'X')\n")


@pytest.mark.parametrize("text", ["", "% nothing here\n"])
def test_empty_file(tmp_path, text):
    p = write(tmp_path, text)
    res = run(p)
    assert res.exit_code == 1
    assert res.stderr.startswith(f"kraken-solve: error: {p}: no deal")
    assert "Traceback" not in res.output


def test_missing_file(tmp_path):
    res = run(tmp_path / "nope.txt")
    assert res.exit_code == 1
    assert res.stderr.startswith("kraken-solve: error: ") and "nope.txt" in res.stderr
    assert "Traceback" not in res.output


def test_usage_errors(tmp_path):
    p = write(tmp_path, "N:A... 7... T... 8... trump=H\n")
    assert run(p, "--json", "--csv").exit_code == 2
    assert run(p, "--trump", "X").exit_code == 2
    assert run().exit_code == 2
    res = run(p, "--objective", "points", "--rules", "kraken-amsterdam")
    assert res.exit_code == 0


def test_a_full_disk_is_one_clear_error(tmp_path):
    import subprocess
    import sys
    f = tmp_path / "one.txt"
    f.write_text('[Deal "N:A... K... Q... J..."]\n[Trump "S"]\n')
    with open("/dev/full", "w") as full:
        proc = subprocess.run([sys.executable, "-m", "kraken_solver.cli.solve", str(f)],
                              stdout=full, stderr=subprocess.PIPE, text=True, timeout=300)
    assert proc.returncode == 1
    assert "cannot write the output" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_the_program_ends_at_once_with_mains_output_and_status(tmp_path):
    # kraken-solve enters through cli.run with fast_exit: main, then os._exit after the flush (no interpreter
    # shutdown); its output and exit status are main's
    import subprocess
    import sys
    deal = str(DATASETS / "full_deal.txt")
    proc = subprocess.run([sys.executable, "-m", "kraken_solver.cli.solve", deal, "--json"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    want = CliRunner().invoke(main, [deal, "--json"])
    strip = ("nodes", "seconds")
    got = [{k: v for k, v in json.loads(line).items() if k not in strip}
           for line in proc.stdout.splitlines()]
    assert got == [{k: v for k, v in d.items() if k not in strip} for d in json_lines(want)]
    bad = tmp_path / "bad.txt"
    bad.write_text("N:AKQX... K... Q... J...\n")
    proc = subprocess.run([sys.executable, "-m", "kraken_solver.cli.solve", str(bad)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr.startswith(f"kraken-solve: error: {bad}, line 1"), proc.stderr


# ------------------------------------------------------------------------- standard input
@pytest.mark.parametrize("charset", ["latin-1", "ascii"])
def test_stdin_is_read_as_utf8_whatever_the_locale(charset):
    # the suit symbols on stdin: decoded as UTF-8 as a file is, not with stdin's encoding
    text = "N:A... K... Q... J... trump=\u2665\n".encode("utf-8")
    res = CliRunner(charset=charset).invoke(main, ["-", "--json"], input=text)
    (d,) = json_lines(res)
    assert d["trump"] == "H" and d["source"] == "<stdin>"


@pytest.mark.parametrize("charset", ["latin-1", "ascii", "utf-8"])
def test_binary_stdin_is_not_a_utf8_text_file(charset):
    res = CliRunner(charset=charset).invoke(main, ["-"], input=b"\x7fELF\x02\x01\xff\xfe\n")
    assert res.exit_code == 1 and "Traceback" not in res.output
    assert res.stderr.startswith("kraken-solve: error: <stdin>, line 1, column 7: not a "
                                 "UTF-8 text file"), res.stderr


def test_an_endless_file_is_refused():
    res = run("/dev/zero")
    assert res.exit_code == 1 and "Traceback" not in res.output
    assert res.stderr == ("kraken-solve: error: /dev/zero, line 1, column 1: not a UTF-8 text "
                          "file (a NUL byte; byte 1 of the file)\n")


def test_ctrl_c_exits_130_like_the_other_tools(tmp_path, monkeypatch):
    import kraken_solver.cli.solve as solve_cli
    deals = small_deals(2, size=2, seed=23)
    p = write(tmp_path, one_line(*deals[0]) + one_line(*deals[1]))
    real = solve_cli.analyse
    calls = []

    def analyse(spec, **kw):
        calls.append(spec)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(spec, **kw)

    monkeypatch.setattr(solve_cli, "analyse", analyse)
    res = run(p, "--json")
    assert res.exit_code == 130
    assert res.stderr.rstrip().endswith("kraken-solve: interrupted")
    assert "Aborted" not in res.output and "Traceback" not in res.output
    assert len(json_lines_any(res)) == 1               # the first deal's output is kept


def json_lines_any(result):
    return [json.loads(line) for line in result.stdout.splitlines()]


def test_one_meaning_per_column_name_across_commands(tmp_path):
    """kraken-analyse --csv and kraken-hint --csv had a column 'deal' holding the deal's
    number where kraken-solve's and kraken-batch's 'deal' is the PBN text; 'line' was the
    card's line in one and the deal's in others.  Every CSV and JSON of solve, analyse and
    hint now starts with deal_number (1-based place in the run), source, line (the deal's)
    and deal (PBN from N); kraken-batch's deal_id is a name of its own."""
    from kraken_solver.batch.summary import REQUIRED_COLUMNS
    from kraken_solver.cli.analyse import main as analyse_main
    from kraken_solver.cli.batch import main as batch_main
    from kraken_solver.cli.hint import main as hint_main
    from kraken_solver.notation.reader import parse_deal_file
    from kraken_solver.notation.report import DEAL_FIELDS

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    played = write(tmp_path, open(os.path.join(root, "datasets", "part_played.txt")).read()
                   + "\n" + open(os.path.join(root, "datasets", "played_deal.txt")).read(),
                   "played.txt")
    part = open(os.path.join(root, "datasets", "part_played.txt")).read()
    positions = write(tmp_path, part + "\n" + part, "positions.txt")     # for the hints
    fresh = write(tmp_path, "".join(open(os.path.join(root, "datasets", "many_deals.txt"))
                                    .readlines()[:6]), "fresh.txt")

    def expected(path):
        return [{"deal_number": str(k), "source": str(path), "line": str(s.line),
                 "deal": str(s.deal)} for k, s in enumerate(parse_deal_file(str(path)), 1)]

    hint_args = ["--samples", "4", "--workers", "1", "--no-points", "--quiet"]
    runs = [(main, played, []), (main, fresh, []), (main, fresh, ["--table"]),
            (analyse_main, played, []), (hint_main, positions, hint_args)]
    for cmd, path, extra in runs:
        want = expected(path)
        res = CliRunner().invoke(cmd, [str(path), "--csv", *extra])
        assert res.exit_code == 0, res.output
        rows = list(csv.reader(io.StringIO(res.stdout)))
        assert tuple(rows[0][:4]) == DEAL_FIELDS, (cmd.name, rows[0])
        got = [dict(zip(DEAL_FIELDS, r[:4])) for r in rows[1:]]
        assert {tuple(g.values()) for g in got} == {tuple(w.values()) for w in want}, cmd.name
        res = CliRunner().invoke(cmd, [str(path), "--json", *extra])
        assert res.exit_code == 0, res.output
        docs = [json.loads(line) for line in res.stdout.splitlines()]
        assert [list(d)[:4] for d in docs] == [list(DEAL_FIELDS)] * len(want), cmd.name
        assert [{k: str(d[k]) for k in DEAL_FIELDS} for d in docs] == want, cmd.name
    # kraken-batch: deal is the same PBN text; its number is deal_id, 0-based, a name apart
    out = tmp_path / "b.csv"
    res = CliRunner().invoke(batch_main, ["--input", str(fresh), "--out", str(out),
                                          "--workers", "1", "--quiet"])
    assert res.exit_code == 0, res.output
    rows = list(csv.DictReader(open(out)))
    assert "deal_number" not in rows[0] and {"deal_id", "deal"} <= set(REQUIRED_COLUMNS)
    assert [(int(r["deal_id"]) + 1, r["deal"]) for r in rows[::4]] == \
        [(int(w["deal_number"]), w["deal"]) for w in expected(fresh)]


#: lists of numbers that are no pair whatever their length (card numbers)
NUMBER_LISTS = ("turning_points",)


def number_pairs(obj, path="$"):
    """The places in a JSON document of a list of two numbers: a pair that does not say whose
    number is whose."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            if k not in NUMBER_LISTS:
                yield from number_pairs(v, f"{path}.{k}")
    elif isinstance(obj, list):
        if len(obj) == 2 and all(isinstance(x, (int, float)) and not isinstance(x, bool)
                                 for x in obj):
            yield path
        for i, v in enumerate(obj):
            yield from number_pairs(v, f"{path}[{i}]")


def test_no_json_of_the_tools_holds_an_unlabelled_pair():
    """kraken-hint --json had "declared": [20, 0] (and kraken-view's API its score sheet as
    pairs) while kraken-solve's JSON names its sides: playing_team, defenders.  No document
    of kraken-solve (also --table), kraken-analyse, kraken-hint or kraken-view's state and
    hint answers holds a pair of numbers."""
    from kraken_solver.cli.analyse import main as analyse_main
    from kraken_solver.cli.hint import main as hint_main
    from kraken_solver.view.board import state_of
    from kraken_solver.view.query import read_query
    from kraken_solver.view.session import BoardSolver

    root = pathlib.Path(__file__).resolve().parent.parent / "datasets"
    runs = [(main, [root / "full_deal.txt"]), (main, [root / "part_played.txt"]),
            (main, [root / "club_export.pbn", "--table"]),
            (analyse_main, [root / "played_deal.txt"]),
            (analyse_main, [root / "part_played.txt"]),
            (hint_main, [root / "hint_part_played.txt", "--samples", 4, "--workers", 1]),
            (hint_main, [root / "hint_lead.txt", "--samples", 2, "--workers", 1])]
    docs = []
    for cmd, args in runs:
        res = CliRunner().invoke(cmd, [str(a) for a in args] + ["--json"])
        assert res.exit_code == 0, res.output
        docs += [(cmd.name, json.loads(line)) for line in res.stdout.splitlines()]
    q = read_query({"deal": "W:AJT7...AT87 K.AQJ7.98.Q 8.98.AQJT.9 Q9.KT.K7.KJ", "trump": "H",
                    "first": "W", "play": "SJ SK S8 S9 HA H9 HT CA DJ DK"})
    docs.append(("state", state_of(q)))
    solver = BoardSolver(hint_workers=1)
    try:
        docs.append(("hint", solver.hint(q, samples=3)))
    finally:
        solver.close()
    assert len(docs) >= 10
    for name, d in docs:
        assert list(number_pairs(d)) == [], name
    hint_doc = next(d for n, d in docs if n == "hint")
    assert set(hint_doc["declared"]) == {"playing_team", "defenders"}


def test_count_says_what_it_counts_in_the_right_number(tmp_path):
    """Messages count with formatting.count: '1 deal', '18 chunks', '1,152 deals'."""
    from kraken_solver.notation.text import count
    assert count(1, "deal") == "1 deal"
    assert count(0, "deal") == "0 deals"
    assert count(18, "chunk") == "18 chunks"
    assert count(1152, "deal") == "1,152 deals"
    assert count(2, "index", "indices") == "2 indices"
    # kraken-solve of a deal with one card played: '(1 card)', never '(1 cards)'
    p = write(tmp_path, '[Deal "N:A7... K8... .78.. ..78."]\n[Trump "C"]\n[First "N"]\n'
                        '[Play "N"]\nSA\n')
    res = run(p, "--ascii")
    assert res.exit_code == 0, res.output
    assert "Played so far (1 card):" in res.stdout
    assert "1 cards" not in res.stdout


@pytest.mark.parametrize("command", ["solve", "analyse", "hint"])
def test_standard_input_given_twice_is_refused(tmp_path, command):
    """``kraken-hint - -`` read the deals once and then said 'no deal in this file' of the
    second '-' (kraken-solve and kraken-analyse the same): a usage error before any work,
    naming where '-' was given; '-' once still reads standard input."""
    import importlib
    cli = importlib.import_module(f"kraken_solver.cli.{command}")
    text = pathlib.Path("datasets/played_deal.txt").read_text()
    other = write(tmp_path, text)
    for files, times, where in [(["-", "-"], "twice", "FILE 1 and 2"),
                                (["-", other, "-", "-"], "3 times", "FILE 1, 3 and 4")]:
        r = CliRunner().invoke(cli.main, [str(f) for f in files], input=text)
        assert r.exit_code == 2 and r.stdout == "", r.output
        assert (f"standard input given {times} ('-' is {where}): it is read once, to its end; "
                "give '-' once") in r.stderr
        assert "no deal" not in r.stderr
    args = ["-", "--json"]
    if command == "hint":
        text = pathlib.Path("datasets/hint_lead.txt").read_text()
    r = CliRunner().invoke(cli.main, args, input=text)
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout.splitlines()[0])["source"] == "<stdin>"


def test_a_card_that_keeps_a_pit_says_pit(tmp_path):
    """Score: +352 (pit) above '♥Q +352 made *': the card list said made for the best card
    of a pit.  The best cards take the headline's word, the others made or nat by value."""
    f = tmp_path / "pit.txt"
    f.write_text("N:K8.K.QJ8.QJ JT7.AQ8.9.A Q9.T7.AT7.9 A.J9.K.KT87 trump=H first=E\n")
    r = CliRunner().invoke(main, [str(f), "--ascii"])
    assert r.exit_code == 0, r.output
    assert "Score: +352 (pit)" in r.stdout
    cards = r.stdout.split("* = best:\n")[1].split("\n\n")[0].splitlines()
    assert len(cards) == 8
    for line in cards:
        card, value, word, *mark = line.split()
        if mark == ["*"]:
            assert (value, word) == ("+352", "pit"), line
        else:
            assert int(value) < 352 and word == ("made" if int(value) > 0 else "nat"), line


def test_a_played_out_deal_draws_no_empty_hands_and_ascii_names_the_seats():
    """A fully played deal drew four empty hand diagrams; --ascii put the seat S beside the
    suit S (the diagram's labels are the seats' names with suit letters)."""
    res = run(os.path.join(DATASETS, "played_deal.txt"))
    assert res.exit_code == 0, res.output
    assert "Hands now: none (every card is played)" in res.stdout
    res = run(os.path.join(DATASETS, "full_deal.txt"), "--ascii")
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    assert lines[1].strip() == "North" and any(line.strip() == "South (first)" for line in lines)
    assert any(line.startswith("West") and line.rstrip().endswith("East") for line in lines)
