"""A forced card (the only legal one, RULES.md rules 8, 9, 9a) is named, not valued: kraken-hint
and the board's player's view say "forced (the only legal card)" and draw and solve no layout,
as kraken-analyse's review does.  Observation.legal_now, which tells, is checked against the
rules' own Position on random positions."""

from __future__ import annotations

import csv
import io
import json

import numpy as np
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from kraken_solver.cli.hint import CSV_FIELDS, main
from kraken_solver.game.cards import card_str
from kraken_solver.game.deal import Deal
from kraken_solver.game.position import Position
from kraken_solver.game.roem import hand_roem
from kraken_solver.playerview.hint import forced_hint, hint
from kraken_solver.playerview.observation import observe

LEAD = "S:7.KQ9.JT8.7 9.8.AK9.AK9 AJT.JT7.7.Q KQ8.A.Q.JT8"     # datasets/full_deal.txt
W_VIEW = "S:- 9.8.AK9.AK9 - -"          # W's hand alone; S leads the spade 7: W holds one spade
FILE = '[Deal "S:- 9.8.AK9.AK9 - -"]\n[Trump "H"]\n[First "S"]\n[Declared "20 0"]\n[Play "S"]\nS7\n'


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(0, 31), st.sampled_from("SHDC"),
       st.sampled_from("NESW"), st.sampled_from(["kraken", "kraken-amsterdam",
                                                 "klaverjas-rotterdam"]))
def test_legal_now_is_the_rules_legal_cards(seed, n, trump, first, rules):
    rng = np.random.default_rng(seed)
    deck = rng.permutation(32)
    deal = Deal(tuple(int(sum(1 << int(c) for c in deck[8 * i:8 * i + 8])) for i in range(4)))
    pos = Position(deal, trump, first, rules)
    for _ in range(n):
        pos.play(pos.legal()[int(rng.integers(len(pos.legal())))])
    played = [card_str(c) for c in pos.played]
    declared = tuple(hand_roem(deal, trump, first, rules=rules))
    obs = observe(deal, trump, first, rules=rules, played=played, declared=declared)
    assert obs.legal_now() == pos.legal()
    if len(pos.legal()) == 1:
        f = forced_hint(obs, obs.legal_now()[0])
        assert f.forced and f.best == [card_str(pos.legal()[0])]
        assert f.layouts == 0 and f.cards == {} and f.exact and f.nodes == 0
        # the library's hint still gives the definition's mean, and says it is forced
        h = hint(deal, trump, first, rules=rules, played=played, declared=declared, workers=1,
                 samples=2)
        assert h.forced and h.best == f.best and list(h.cards) == f.best


def test_a_forced_card_is_named_and_nothing_is_solved():
    h = forced_hint(observe(W_VIEW, "H", "S", played=["S7"], declared=(20, 0)), 0)
    assert h.forced and h.best == ["S7"] and h.layouts == 0 and h.cards == {}
    assert h.to_dict()["forced"] is True and h.consistent is None and h.allowed_by_play > 0
    h = hint(W_VIEW, "H", "S", played=["S7"], declared=(20, 0), samples=4, workers=1)
    assert h.forced and h.best == ["S9"] and h.layouts == 4
    # a choice is not forced: the lead
    h = hint("S:7.KQ9.JT8.7 - - -", "H", "S", declared=(20, 0), samples=3, workers=1)
    assert not h.forced and len(h.cards) == 8 and h.to_dict()["forced"] is False


def test_kraken_hint_says_forced_in_every_format(tmp_path):
    path = tmp_path / "forced.txt"
    path.write_text(FILE)
    runner = CliRunner()
    r = runner.invoke(main, [str(path)])
    assert r.exit_code == 0, r.output
    assert "Forced: \u26609 (the only legal card); nothing to choose, no layout solved" in r.stdout
    assert "a forced card, no layout solved" in r.stderr and "Best for" not in r.stdout
    r = runner.invoke(main, [str(path), "--csv", "--quiet"])
    rows = list(csv.reader(io.StringIO(r.stdout)))
    assert tuple(rows[0]) == CSV_FIELDS and len(rows) == 2
    row = dict(zip(CSV_FIELDS, rows[1]))
    assert row["card"] == "S9" and row["forced"] == row["best"] == row["exact"] == "True"
    assert row["mean"] == row["se"] == "" and row["layouts"] == "0"
    r = runner.invoke(main, [str(path), "--json", "--quiet"])
    body = json.loads(r.stdout)
    assert body["forced"] is True and body["best"] == ["S9"] and body["cards"] == {}


def test_the_boards_players_view_says_forced():
    from kraken_solver.view.app import create_app
    from kraken_solver.view.session import BoardSolver
    solver = BoardSolver(hint_workers=1)
    try:
        client = create_app([], solver=solver).test_client()
        r = client.get("/api/hint", query_string={"deal": LEAD, "trump": "H", "first": "S",
                                                  "play": "S7"})
        assert r.status_code == 200, r.get_json()
        body = r.get_json()
        assert body["forced"] is True and body["best"] == ["S9"] and body["layouts"] == 0
        assert body["cards"] == {} and body["seat"] == "W"
        r = client.get("/api/hint", query_string={"deal": LEAD, "trump": "H", "first": "S",
                                                  "play": "S7 S9 SA SK"})
        assert r.status_code == 200 and r.get_json()["forced"] is False
    finally:
        solver.close()
