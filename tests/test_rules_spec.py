"""Rules specs on the command line: ``PRESET+option=value+...`` (``as_rules``,
``Rules.from_name``), read back from every name the tools print (``Rules.name``), in deal files
(``[Rules]``, ``rules=``) and in every command's ``--rules``."""

from __future__ import annotations

import dataclasses
import itertools

import pytest
from click.testing import CliRunner

from kraken_solver import PRESETS, Rules, RulesError
from kraken_solver.game.rules import OPTION_VALUES, as_rules, parse_rules_spec
from kraken_solver.notation.dealfile import parse_deal_text

FULL = "N:AT8.T.8.QJ9 9.A.AQJ7.K7 QJ7.J987..8 K.KQ.KT9.AT"


def every_rules():
    """Every combination of the options (pit_bonus at 0, the default, another value and the
    largest allowed)."""
    for tr, ut, trick, hand, ds, m, pit, long_runs in itertools.product(
            ("rotterdam", "amsterdam"), ("forbidden", "forced"), (False, True), (False, True),
            (False, True), (1, 2, 4, 8), (0, 100, 250, 10000), (False, True)):
        yield Rules(trump_rule=tr, undertrump=ut, trick_roem=trick, hand_roem=hand,
                    double_spades=ds, multiplier=m, pit_bonus=pit, long_runs_100=long_runs)


def test_every_name_reads_back_to_the_same_rules():
    names = set()
    n = 0
    for r in every_rules():
        n += 1
        name = r.name
        assert as_rules(name) == r, name
        assert Rules.from_name(name) == r
        assert as_rules(name.upper()) == r          # case does not matter
        names.add(name)
    assert n == 1024 and len(names) == n            # one name per set of rules


def test_spec_examples():
    assert as_rules("kraken+multiplier=2") == Rules(multiplier=2)
    r = as_rules("klaverjas-rotterdam+trick_roem=false+double_spades=true")
    assert r == dataclasses.replace(PRESETS["klaverjas-rotterdam"], trick_roem=False,
                                    double_spades=True)
    assert as_rules("multiplier=4") == Rules(multiplier=4)      # starts from kraken
    assert as_rules(" kraken + pit_bonus = 50 ") == Rules(pit_bonus=50)
    # leading zeros are not digits too many: 0010000 was refused where 010 was read as 10
    assert as_rules("kraken+pit_bonus=0010000") == Rules(pit_bonus=10000)
    assert as_rules("kraken+multiplier=" + "0" * 50 + "2").name == "kraken+multiplier=2"
    assert as_rules("kraken+hand_roem=off+trick_roem=0") == Rules(hand_roem=False,
                                                                  trick_roem=False)
    assert parse_rules_spec("kraken-amsterdam+undertrump=forced") == (
        "kraken-amsterdam", {"undertrump": "forced"})
    for name, preset in PRESETS.items():
        assert as_rules(name) == preset and preset.name == name
    # every option of Rules can be given
    assert set(OPTION_VALUES) == {f.name for f in dataclasses.fields(Rules)}


@pytest.mark.parametrize("spec, token, words", [
    ("bridge", "bridge", ["unknown rules preset", "kraken, kraken-amsterdam",
                          "multiplier", "long_runs_100"]),
    ("", "", ["unknown rules preset"]),
    ("\u212araken", "\u212araken", ["ASCII"]),            # the Kelvin sign lowers to 'k'
    ("kraken+multiplier=\u0662", "kraken+multiplier=\u0662", ["ASCII"]),
    ("kraken+multiplier=3", "multiplier=3", ["multiplier takes 1, 2, 4 or 8"]),
    ("kraken+pit_bonus=-5", "pit_bonus=-5", ["pit_bonus takes a whole number"]),
    ("kraken+pit_bonus=10001", "pit_bonus=10001", ["0 to 10000"]),
    ("kraken+pit_bonus=0000010001", "pit_bonus=0000010001", ["0 to 10000"]),
    ("kraken+trick_roem=maybe", "trick_roem=maybe", ["trick_roem takes true or false"]),
    ("kraken+trump_rule=paris", "trump_rule=paris", ["rotterdam or amsterdam"]),
    ("kraken+colour=red", "colour", ["unknown rules option", "trump_rule (rotterdam or "
                                     "amsterdam)", "multiplier (1, 2, 4 or 8)"]),
    ("kraken+multiplier", "multiplier", ["option=value"]),
    ("kraken++multiplier=2", "kraken++multiplier=2", ["option=value"]),
    ("kraken+multiplier=2+multiplier=4", "multiplier=4", ["given twice"]),
    # a sign inside a value splits the spec: named as typed, not as 'pit_bonus='
    ("kraken+pit_bonus=+5", "kraken+pit_bonus=+5",
     ["pit_bonus has no value", "'pit_bonus=+5' is read as 'pit_bonus=' and '5'",
      "e.g. pit_bonus=5"]),
    # nothing after the sign: an example that is accepted, not 'pit_bonus=' again
    ("kraken+pit_bonus=+", "kraken+pit_bonus=+",
     ["pit_bonus has no value", "e.g. pit_bonus=100"]),
    ("kraken+pit_bonus=", "pit_bonus=", ["pit_bonus takes a whole number"]),
    # a misspelt option gets the one it is near, as a misspelt tag does
    ("kraken+multipler=2", "multipler", ["did you mean multiplier?", "1, 2, 4 or 8"]),
])
def test_bad_specs_say_what_is_allowed(spec, token, words):
    with pytest.raises(RulesError) as info:
        as_rules(spec)
    msg = str(info.value)
    for w in words:
        assert w in msg, msg
    if token:
        assert info.value.token == token


def test_deal_files_take_specs():
    (a,) = parse_deal_text(f"{FULL} trump=H rules=kraken+multiplier=2+pit_bonus=50")
    assert a.rules == Rules(multiplier=2, pit_bonus=50)
    (b,) = parse_deal_text(f'[Deal "{FULL}"]\n[Rules "klaverjas-rotterdam+double_spades=true"]'
                           '\n[Double "4"]\n')
    assert b.rules == dataclasses.replace(PRESETS["klaverjas-rotterdam"], double_spades=True,
                                          multiplier=4)
    # the spec and [Double] may agree, not contradict
    (c,) = parse_deal_text(f'[Deal "{FULL}"]\n[Rules "kraken+multiplier=2"]\n[Double "2"]\n')
    assert c.rules.multiplier == 2
    with pytest.raises(RulesError) as info:
        parse_deal_text(f'[Deal "{FULL}"]\n[Rules "kraken+multiplier=2"]\n[Double "4"]\n', "f")
    assert (info.value.line, info.value.column) == (3, 10)
    assert "multiplier=2" in info.value.message
    # a bad option is located at itself
    with pytest.raises(RulesError) as info:
        parse_deal_text(f"{FULL} rules=kraken+multiplier=3", "f")
    line = f"{FULL} rules=kraken+multiplier=3"
    assert info.value.column == line.index("multiplier=3") + 1
    # a name printed by the tools reads back from a file
    r = Rules(trump_rule="amsterdam", hand_roem=False, double_spades=True, pit_bonus=0)
    (d,) = parse_deal_text(f'[Deal "{FULL}"]\n[Rules "{r.name}"]\n')
    assert d.rules == r


def _commands():
    from kraken_solver.cli import advise, analyse, batch, bench, solve
    return {"kraken-solve": solve.main, "kraken-analyse": analyse.main,
            "kraken-batch": batch.main, "kraken-bench": bench.main,
            "kraken-advise": advise.main}


@pytest.mark.parametrize("prog", ["kraken-solve", "kraken-analyse", "kraken-batch",
                                  "kraken-bench", "kraken-advise"])
def test_every_command_refuses_a_bad_spec_in_one_line(prog, tmp_path):
    deal = tmp_path / "d.txt"
    deal.write_text('[Deal "N:A... K... Q... J..."]\n[Trump "S"]\n[Play "N"]\nSA\n')
    args = {"kraken-solve": [str(deal)], "kraken-analyse": [str(deal)],
            "kraken-batch": ["--deals", "1", "--out", str(tmp_path / "o.csv")],
            "kraken-bench": ["--suite", "random-1-seed1"],
            "kraken-advise": ["AJ9.K7.T8.A", "--samples", "2"]}[prog]
    res = CliRunner().invoke(_commands()[prog], args + ["--rules", "kraken+multiplier=3"])
    assert res.exit_code == 1, res.output
    assert res.stderr == (f"{prog}: error: --rules: multiplier takes 1, 2, 4 or 8 "
                          "(got 'multiplier=3')\n")
    assert res.stdout == "" and not (tmp_path / "o.csv").exists()


def test_solve_analyse_and_bench_use_the_spec(tmp_path):
    from kraken_solver import solve
    cmds = _commands()
    p = tmp_path / "d.txt"
    p.write_text('[Deal "N:AK... 7Q... T8... 9J..."]\n[Trump "H"]\n[Play "N"]\nSA SQ ST SJ\n')
    import json
    spec = "kraken-amsterdam+multiplier=4+pit_bonus=0"
    res = CliRunner().invoke(cmds["kraken-solve"], [str(p), "--json", "--rules", spec])
    assert res.exit_code == 0, res.output
    d = json.loads(res.stdout)
    assert d["rules"] == spec
    ref = solve("N:AK... 7Q... T8... 9J...", "H", "N", rules=spec, played=["SA", "SQ", "ST", "SJ"])
    assert d["score"] == ref.value
    res = CliRunner().invoke(cmds["kraken-analyse"], [str(p), "--json", "--rules", spec])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["rules"] == spec
    res = CliRunner().invoke(cmds["kraken-bench"], ["--suite", "random-1-seed1", "--rules",
                                                    "kraken+multiplier=2"])
    assert res.exit_code == 0, res.output
    assert "kraken+multiplier=2" in res.stdout


@pytest.mark.parametrize("tag, override, multiplier", [
    ('[Double "2"]', "kraken", 2),                        # [Double] stays under --rules
    ('[Rules "kraken+multiplier=2"]', "kraken", 2),       # and so does the spec's multiplier
    ('[Rules "kraken+multiplier=2"]', "klaverjas-rotterdam+multiplier=2", 2),
    ('[Double "4"]', "kraken+pit_bonus=50", 4),
    ("", "kraken+multiplier=8", 8),                       # a deal without one takes --rules'
])
def test_a_deals_multiplier_stays_under_a_rules_override(tag, override, multiplier):
    """--rules kraken on a file's [Rules "kraken+multiplier=2"] played it undoubled, while
    a [Double "2"] stayed: a deal's multiplier is its doubling, whichever way it is written."""
    (a,) = parse_deal_text(f'[Deal "{FULL}"]\n{tag}\n', "f", rules=override)
    assert a.rules == dataclasses.replace(as_rules(override), multiplier=multiplier)


@pytest.mark.parametrize("tag, column", [('[Double "2"]', 10), ('[Rules "kraken+multiplier=2"]', 9)])
def test_a_rules_override_that_names_another_multiplier_is_refused(tag, column):
    """--rules kraken+multiplier=4 on a [Double "2"] file printed 'Rules:
    kraken+multiplier=2', the 4 dropped without a word."""
    with pytest.raises(RulesError) as info:
        parse_deal_text(f'[Deal "{FULL}"]\n{tag}\n', "f", rules="kraken+multiplier=4")
    assert (info.value.source, info.value.line, info.value.column) == ("f", 2, column)
    assert "multiplier is 2 here" in info.value.message
    assert "kraken+multiplier=4" in info.value.message and "give it once" in info.value.message
