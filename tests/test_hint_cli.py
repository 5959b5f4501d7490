"""Tests of ``kraken-hint`` (cli/hint.py) through CliRunner, and of the deal-file additions
it reads (hands written ``-``, ``[Declared]``)."""

from __future__ import annotations

import csv
import io
import json
import os

import pytest
from click.testing import CliRunner

from kraken_solver import Deal, hand_roem
from kraken_solver.cli.hint import CSV_FIELDS, main
from kraken_solver.cli.solve import main as solve_main
from kraken_solver.errors import DealFileError, KrakenError
from kraken_solver.game.cards import SEATS
from kraken_solver.notation.dealfile import parse_deal_text
from kraken_solver.notation.partial import PartialDeal
from kraken_solver.notation.reader import parse_deal_file
from kraken_solver.playerview.hint import hint

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")


DATASETS = os.path.join(os.path.dirname(__file__), os.pardir, "datasets")


def run(*args, cmd=main):
    return CliRunner().invoke(cmd, [str(a) for a in args])


def golden(name, number):
    with open(os.path.join(DATA, name + ".jsonl"), encoding="utf-8") as f:
        return json.loads(f.readlines()[number - 1])


def deal_file(case, *, hidden=True, declared=True) -> str:
    """A golden case as a deal file, the hands the player to move cannot see written '-'."""
    d = Deal.from_pbn(case["deal"])
    seat = SEATS.index(case["seat"])
    pbn = "N:" + " ".join(
        ("-" if hidden and s != seat else Deal(d.hands).pbn(0).split(":")[1].split()[s])
        for s in range(4))
    from kraken_solver.game.rules import Rules
    rules = Rules.from_dict(case["rules"])
    lines = [f'[Deal "{pbn}"]', f'[Trump "{case["trump"]}"]', f'[First "{case["first"]}"]',
             f'[Rules "{"kraken" if rules.hand_roem else "klaverjas-rotterdam"}"]']
    if declared:
        hr = hand_roem(d, case["trump"], case["first"], rules=rules)
        lines.append(f'[Declared "{hr[0]} {hr[1]}"]')
    lines.append(f'[Play "{case["first"]}"]')
    played = case["played"]
    lines += [" ".join(played[i:i + 4]) for i in range(0, len(played), 4)]
    return "\n".join(lines) + "\n"


# a kraken-rules golden case (the file above writes kraken or klaverjas-rotterdam rules)
CASE = next(c for c in (golden("single_dummy_3", i) for i in range(1, 21))
            if c["rules"] == {**c["rules"], "trump_rule": "rotterdam", "undertrump":
                              "forbidden", "trick_roem": True, "hand_roem": True,
                              "double_spades": False, "multiplier": 1, "pit_bonus": 100,
                              "long_runs_100": False} and c["objective"] == "score")


def test_text_of_an_exact_hint(tmp_path):
    f = tmp_path / "hint.txt"
    f.write_text(deal_file(CASE))
    r = run(f, "--ascii", "--workers", 1)
    assert r.exit_code == 0, r.output
    out = r.stdout
    assert f"{CASE['seat']} to play" in out
    assert f"Layouts: all {CASE['layouts']:,} consistent" in out and "(exact)" in out
    for card, want in CASE["cards"].items():
        line = next(x for x in out.splitlines() if x.strip().startswith(card + " "))
        assert f"{want['sum'] / CASE['layouts']:+.1f}" in line
        assert f"{want['made'] / CASE['layouts']:.3f}" in line
    assert "Best for" in out
    assert "kraken-hint: deal 1" in r.stderr


def test_json_equals_the_library_and_no_peeking(tmp_path):
    f = tmp_path / "hint.txt"
    f.write_text(deal_file(CASE))
    full = tmp_path / "full.txt"
    full.write_text(deal_file(CASE, hidden=False, declared=False))
    a = run(f, "--json", "--workers", 1)
    b = run(full, "--json", "--workers", 1)
    assert a.exit_code == 0 and b.exit_code == 0, a.output + b.output
    da, db = json.loads(a.stdout), json.loads(b.stdout)
    assert da["cards"] == db["cards"] and da["exact"] and da["layouts"] == CASE["layouts"]
    h = hint(CASE["deal"], CASE["trump"], CASE["first"], rules=CASE["rules"],
             played=CASE["played"], both=True, workers=1)
    assert da["cards"] == {k: v.to_dict() for k, v in h.cards.items()}
    assert da["line"] == 1 and da["source"] == str(f) and da["deal_number"] == 1
    assert list(da)[:4] == ["deal_number", "source", "line", "deal"]


def test_csv_one_row_a_card(tmp_path):
    f = tmp_path / "hint.txt"
    f.write_text(deal_file(CASE) + "\n" + deal_file(golden("single_dummy_3", 1)))
    r = run(f, "--csv", "--workers", 1, "--no-points")
    assert r.exit_code == 0, r.output
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    assert list(rows[0]) == list(CSV_FIELDS)
    first = [x for x in rows if x["deal_number"] == "1"]
    assert {x["card"] for x in first} == set(CASE["cards"])
    for x in first:
        # 2 decimals, the tools' number style
        assert float(x["mean"]) == pytest.approx(CASE["cards"][x["card"]]["mean"], abs=0.005)
        assert x["mean_points"] == ""                  # --no-points
        # booleans as kraken-batch writes them
        assert x["exact"] == "True" and x["best"] in ("True", "False")
    assert {x["deal_number"] for x in rows} == {"1", "2"}
    # deal is the deal's PBN text, as in every command's CSV
    assert {x["deal"] for x in first} == {str(parse_deal_file(str(f), hidden=True)[0].deal)}


def test_sampled_hint_from_the_dataset():
    r = run("datasets/hint_part_played.txt", "--samples", 12, "--seed", 3, "--workers", 1,
            "--json")
    assert r.exit_code == 0, r.output
    d = json.loads(r.stdout)
    assert d["seat"] == "W" and not d["exact"] and d["layouts"] == 12
    # pairs named by side, as kraken-solve's JSON: never an unlabelled [20, 0]
    assert d["declared"] == {"playing_team": 20, "defenders": 0} and d["consistent"] is None
    assert (d["playing_team"], d["defenders"]) == ("E-W", "N-S") and d["first"] == "W"
    assert set(d["cards"]) == {"SA", "ST", "S7", "CT", "C8", "C7"}
    again = run("datasets/hint_part_played.txt", "--samples", 12, "--seed", 3, "--workers", 2,
                "--json")
    assert json.loads(again.stdout)["cards"] == d["cards"]


def _error(tmp_path, text, *args):
    f = tmp_path / "bad.txt"
    f.write_text(text)
    r = run(f, "--workers", 1, *args)
    assert r.exit_code == 1, r.output
    assert r.stderr.startswith("kraken-hint: error: ") and r.stderr.count("\n") == 1, r.stderr
    return r.stderr, str(f)


# N holds S A K Q J, H A K, D A, C A; clubs trump, no hand roem (klaverjas-rotterdam)
HEAD = '[Deal "N:AKQJ.AK.A.A - - -"]\n[Trump "C"]\n[First "N"]\n[Rules "klaverjas-rotterdam"]\n'


def test_errors_say_what_and_where(tmp_path):
    # E shows out of spades at card 2 yet plays a spade at card 6: located at card 2
    err, f = _error(tmp_path, HEAD + '[Play "N"]\nSA H7 S8 S7\nHA S9 H9 H8\n')
    assert f"{f}, line 6, column 4: no layout makes E's H7 (card 2) legal" in err
    # hand sizes that cannot add up: at the deal's line
    err, f = _error(tmp_path, HEAD + '[Play "N"]\nSA H7 S8 S7\nHA D7 H8 H9\nDA D8 D9 DT\n')
    assert f"{f}, line 1: no layout is consistent with the play: E must still hold 5" in err
    # cards that no hidden seat may hold (N, E and S all out of clubs and of trump): an
    # IndexError traceback, where a seat could be left with no cap at all
    for trump, lead in (("S", "C8"), ("H", "ST")):
        err, f = _error(tmp_path, f'[Deal "W:AJT7...AT87 - - -"]\n[Trump "{trump}"]\n'
                        f'[First "W"]\n[Declared "0 0"]\n[Play "W"]\n{lead} D7 D8 D9\n',
                        *(("--samples", 50) if trump == "H" else ()))
        assert f"{f}, line 1: no layout is consistent with the play: N and E must still " \
            "hold 14 unseen cards" in err, err
    # a declared roem no layout gives
    err, f = _error(tmp_path, HEAD.replace("klaverjas-rotterdam", "kraken")
                    + '[Declared "100 200"]\n', "--samples", 5)
    assert "no layout found that gives the declared hand roem (N-S 100, E-W 200)" in err
    # no [Declared] with a hidden hand and hand roem on
    err, _ = _error(tmp_path, HEAD.replace("klaverjas-rotterdam", "kraken"))
    assert "[Declared" in err and "line 1" in err
    # a bad [Declared]
    err, f = _error(tmp_path, HEAD + '[Declared "15 0"]\n')
    assert f"{f}, line 5, column 12: expected the declared hand roem" in err
    # the player's own card not in their hand, at its line and column
    err, f = _error(tmp_path, HEAD + '[Play "N"]\nSA S7 S8 S9\nS7\n')
    assert f"{f}, line 7, column 1:" in err and "S7 was already played" in err
    err, f = _error(tmp_path, HEAD + '[Play "N"]\nC7\n')
    assert f"{f}, line 6, column 1: N played C7, which is not in N's hand" in err
    # no trump; the player to move hidden
    err, _ = _error(tmp_path, HEAD.replace('[Trump "C"]\n', ""))
    assert "no trump" in err
    err, _ = _error(tmp_path, HEAD + '[Play "N"]\nSA\n')
    assert "the hand of the player to move, E, is hidden" in err


def test_errors_echo_the_users_own_text(tmp_path):
    """An error echoed the deal rewritten from N ("got 'N:- - - AJT7...AT87'") when the file
    had W:AJT7...AT87 - - -, and a card as the canonical HT when the file had h10: every
    token is now the file's own text."""
    head = '[Deal "W:AJT7...AT87 - - -"]\n[Trump "H"]\n[Rules "klaverjas-rotterdam"]\n'
    err, f = _error(tmp_path, head + '[First "N"]\n')
    assert err.endswith("the hand of the player to move, N, is hidden; give it (the others "
                        "may be '-') (got 'W:AJT7...AT87 - - -')\n"), err
    err, f = _error(tmp_path, head + '[First "W"]\n[Play "W"]\nh10\n')
    assert err == f"kraken-hint: error: {f}, line 6, column 1: W played HT, which is not in " \
        "W's hand (got 'h10')\n"
    err, f = _error(tmp_path, head + '[First "W"]\n[Play "W"]\nsj s10 s8 sj\n')
    assert f"{f}, line 6, column 4: N played ST, which is in W's hand (got 's10')" in err
    # the one-line form, and the library given text
    err, f = _error(tmp_path, "W:AJT7...AT87 - - - trump=H first=E rules=klaverjas-rotterdam\n")
    assert err.endswith("(got 'W:AJT7...AT87 - - -')\n"), err
    from kraken_solver.playerview.observation import observe
    with pytest.raises(KrakenError) as e:
        observe("W:AJT7...AT87 - - -", "H", "W", rules="klaverjas-rotterdam", played=["h10"])
    assert e.value.token == "h10"
    with pytest.raises(KrakenError) as e:
        observe("W:AJT7...AT87 - - -", "H", "S", rules="klaverjas-rotterdam")
    assert e.value.token == "W:AJT7...AT87 - - -"


def test_bad_options(tmp_path):
    f = tmp_path / "hint.txt"
    f.write_text(deal_file(CASE))
    for args, what in [(["--workers", 0], "workers"), (["--rules", "bridge"], "rules preset")]:
        r = run(f, *args)
        assert r.exit_code == 1 and what in r.stderr and r.stderr.count("\n") == 1, r.stderr
    # out of the option's own range: Click's usage error, before any work
    for args, what in [(["--samples", 0], "'--samples': 0 is not in the range 1<=x<=1000000"),
                       (["--seed", -2], "'--seed': -2 is not in the range 0<=x<=")]:
        r = run(f, *args)
        assert r.exit_code == 2 and what in r.stderr, r.stderr
    assert run(f, "--json", "--csv").exit_code == 2
    assert run(f, "--workers", 2, "--scheduler", "local:1").exit_code == 2
    # --no-points is of --objective score: with points it printed the mean score all the same
    r = run(f, "--objective", "points", "--no-points")
    assert r.exit_code == 2 and r.stdout == ""
    assert "--no-points applies only with --objective score" in r.stderr
    r = run(f, "--no-points", "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["objective"] == "score"


def test_deal_files_with_hidden_hands_and_declared():
    specs = parse_deal_text('[Deal "E:- AJ9.K7.T8.A - -"]\n[Trump "H"]\n[Declared "20 0"]\n'
                            '[Play "E"]\nSK\n', "x.txt", hidden=True)
    (spec,) = specs
    assert isinstance(spec.deal, PartialDeal) and spec.declared == (20, 0)
    assert spec.first == 1 and spec.played == [6] and spec.played_at == [(5, 1)]
    # the other commands refuse '-'
    with pytest.raises(DealFileError, match="read by kraken-hint only") as e:
        parse_deal_text('[Deal "E:- AJ9.K7.T8.A - -"]\n', "x.txt")
    assert e.value.line == 1 and e.value.column == 10
    r = CliRunner().invoke(solve_main, ["-"], input='[Deal "N:AJ9.K7.T8.A - - -"]\n')
    assert r.exit_code == 1 and "kraken-hint only" in r.stderr
    # [Declared] is read by the other commands, and checked against the hands given
    spec, = parse_deal_text('[Deal "N:A.K.Q.J K.Q.J.A Q.J.A.K J.A.K.Q"]\n[Declared "0 0"]\n')
    assert spec.declared == (0, 0) and spec.declared_at == (2, 12, "0 0")


WEST_STUK = ('[Deal "W:AJT7...AT87 K.AQJ7.98.Q 8.98.AQJT.9 Q9.KT.K7.KJ"]\n[Trump "H"]\n'
             '[First "W"]\n[Declared "DECL"]\n[Play "W"]\nSJ SK S8 S9\n')


@pytest.mark.parametrize("prog", ["kraken-solve", "kraken-analyse", "kraken-hint"])
def test_a_declared_roem_the_hands_given_do_not_declare_is_refused_at_its_tag(prog, tmp_path):
    """[Declared "0 0"] beside hands that declare 20 0 (N's stuk, E-W playing) was used as
    20 0 by kraken-solve and kraken-analyse without a word."""
    from kraken_solver.cli.analyse import main as analyse_main
    cmd = {"kraken-solve": solve_main, "kraken-analyse": analyse_main, "kraken-hint": main}
    f = tmp_path / "d.txt"
    f.write_text(WEST_STUK.replace("DECL", "0 0"))
    r = CliRunner().invoke(cmd[prog], [str(f)])
    assert r.exit_code == 1 and r.stderr.count("\n") == 1, r.output
    assert r.stderr.startswith(f"{prog}: error: {f}, line 4, column 12: the declared hand roem "
                               "0 0 is not what the hands declare (20 0, playing team first)")
    f.write_text(WEST_STUK.replace("DECL", "20 0"))
    assert CliRunner().invoke(cmd[prog], [str(f)]).exit_code == 0
    # under rules without hand roem only 0 0 is what the hands declare
    with pytest.raises(DealFileError, match="have no hand roem"):
        parse_deal_text(WEST_STUK.replace("DECL", "20 0"), rules="kraken+hand_roem=false")


def test_one_line_deals_take_declared_and_its_errors_point_at_it(tmp_path):
    """A one-line deal with hidden hands could not get a hint with hand roem on: the error
    asked for declared=, and declared= was an unknown key."""
    line = "S:7.KQ9.JT8.7 - - - trump=H declared=20,0"
    (spec,) = parse_deal_text(line, "o.txt", hidden=True)
    assert spec.declared == (20, 0) and spec.declared_at == (1, line.index("20,0") + 1, "20,0")
    f = tmp_path / "o.txt"
    f.write_text(line + "\n")
    r = run(f, "--samples", 4, "--no-points", "--json")
    assert r.exit_code == 0, r.stderr
    assert json.loads(r.stdout)["declared"] == {"playing_team": 20, "defenders": 0}
    # a declared roem no layout gives is reported at the declared= word, not the deal: one
    # that S's own stuk rules out at once, one the sampler does not find
    f.write_text(line.replace("20,0", "0,0") + "\n")
    r = run(f, "--samples", 4)
    assert r.exit_code == 1 and f"{f}, line 1, column {line.index('20,0') + 1}:" in r.stderr
    assert "the declared hand roem 0 0 cannot be: S holds the stuk" in r.stderr
    assert "(got '0,0')" in r.stderr
    f.write_text(line.replace("20,0", "20,300") + "\n")
    r = run(f, "--samples", 4)
    assert r.exit_code == 1 and f"{f}, line 1, column {line.index('20,0') + 1}:" in r.stderr
    assert "declared hand roem (N-S 20, E-W 300)" in r.stderr and "(got '20,300')" in r.stderr
    with pytest.raises(DealFileError, match=r"declared=20,0 in a one-line deal"):
        parse_deal_text(line.replace("20,0", "20"), hidden=True)


def test_readme_example_is_what_the_command_prints():
    import pathlib
    readme = (pathlib.Path(__file__).resolve().parent.parent / "README.md").read_text()
    r = run("datasets/hint_part_played.txt", "--workers", 1)
    assert r.exit_code == 0, r.output
    assert "$ kraken-hint datasets/hint_part_played.txt\n" + r.stdout in readme


def test_more_samples_than_the_draws_allow_say_how_many_can_be_asked(monkeypatch):
    """--samples 1000000 on datasets/hint_lead.txt said the declared roem (42% of the draws)
    was 'too rare to sample': the real bound is the draws a sample may make."""
    import re

    from kraken_solver.playerview import hint as hint_module
    monkeypatch.setattr(hint_module, "MAX_DRAWS", 30_000)   # the bound of 10**6, made quick
    r = run(os.path.join(DATASETS, "hint_lead.txt"), "--no-points", "--samples", 20_000)
    assert r.exit_code == 1 and r.stderr.count("\n") == 1, r.stderr
    m = re.search(r"20,000 samples would take about ([0-9,]+) draws \(([0-9,]+) of ([0-9,]+) "
                  r"draws .* give the declared hand roem, N-S 20, E-W 0\); at most 30,000 are "
                  r"made: ask for at most ([0-9,]+) samples", r.stderr)
    assert m, r.stderr
    need, found, draws, most = (int(g.replace(",", "")) for g in m.groups())
    assert 0.3 < found / draws < 0.6 and most <= found * 30_000 // draws
    assert abs(need - 20_000 * draws / found) <= 1
    # the number it suggests is accepted, and so is the one suggested after asking for the
    # most the checkpoint allows (the draws after it may give fewer: then the exact count)
    from kraken_solver.errors import KrakenError
    from kraken_solver.playerview.layouts import Layouts
    from kraken_solver.playerview.observation import observe
    lay = Layouts(observe("S:7.KQ9.JT8.7 - - -", "H", "S", declared=(20, 0)))
    chosen, exact, _, _ = hint_module.choose_layouts(lay, samples=most, seed=0, exact_limit=None)
    assert len(chosen) == most and not exact
    try:
        chosen, _, _, _ = hint_module.choose_layouts(lay, samples=found * 30_000 // draws,
                                                     seed=0, exact_limit=None)
    except KrakenError as e:
        again = int(re.search(r"ask for at most ([0-9,]+) samples", str(e)).group(1)
                    .replace(",", ""))
        chosen, _, _, _ = hint_module.choose_layouts(lay, samples=again, seed=0,
                                                     exact_limit=None)
        assert len(chosen) == again


def test_an_estimated_count_is_shown_to_two_figures():
    """'about 4,046,248,462' by default and 'about 3,675,926,901' with --samples 200 (the
    same cards, fewer draws): ten figures of an estimate from a few hundred draws."""
    from kraken_solver.cli.hint import two_figures
    assert [two_figures(x) for x in (0.0, 0.4, 7.2, 15.0, 999.0, 203_637.0,
                                     4_046_248_462.0, 3_675_926_901.0)] == [
        "0", "0", "7", "15", "1,000", "200,000", "4,000,000,000", "3,700,000,000"]
    r = run(os.path.join(DATASETS, "hint_part_played.txt"), "--no-points", "--samples", 20)
    assert r.exit_code == 0, r.stderr
    import re
    assert re.search(r"about [1-9]\d{2},000 of them giving the declared roem;", r.stdout), \
        r.stdout
    assert "(sampled; that count estimated from the draws)" in r.stdout
