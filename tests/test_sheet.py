"""The score sheet (kraken_solver.game.sheet), the melds behind hand roem (roem.declared_melds) and
the double-dummy tables (kraken_solver.engine.tables).

The sheet must add up to the solver's value along the line it describes; each team's column is
checked against the slow reference (tests/naive.py, written from RULES.md alone); the melds add
up to the hand roem of the reference; every table cell equals solve() of that cell.
"""

from __future__ import annotations

import naive
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_properties import examples, rules_strategy

from kraken_solver import Deal, Rules, card_str, hand_roem, solve
from kraken_solver.engine.tables import full_table, line_is_pit, trump_cells
from kraken_solver.game.cards import SEATS, SUITS, mask_of
from kraken_solver.game.position import Position
from kraken_solver.game.roem import declared_melds, hand_roem_masks
from kraken_solver.game.sheet import score_sheet

FULL_DEALS = ["S:7.KQ9.JT8.7 9.8.AK9.AK9 AJT.JT7.7.Q KQ8.A.Q.JT8",      # datasets/full_deal.txt
              "W:J7.QT7.87.A AK..JT9.JT7 9.A9.Q.KQ98 QT8.KJ8.AK."]       # datasets/played_deal


def random_deal(rng, k):
    perm = rng.permutation(32)
    return Deal(tuple(mask_of(int(c) for c in perm[i * k:(i + 1) * k]) for i in range(4)))


def naive_check(sheet, deal, trump, first, rules, line):
    """The sheet's columns equal the reference's tally of the same line."""
    pos = Position(deal, trump, first, rules, line)
    tricks = [list(zip([SEATS[(t.leader + j) % 4] for j in range(4)],
                       [card_str(c) for c in t.cards])) for t in pos.tricks]
    hr = naive.hand_roem(naive.parse_pbn(str(deal)), SUITS[trump], SEATS[first],
                         rules.long_runs_100) if rules.hand_roem else (0, 0)
    ref = naive.final_result(tricks, SUITS[trump], SEATS[first],
                             naive.Options(**rules.to_dict()), *hr)
    d, o = sheet.playing, sheet.defenders
    assert d.card_points + d.last_trick == ref["Dc"]
    assert o.card_points + o.last_trick == ref["Oc"]
    assert (d.trick_roem, o.trick_roem) == (ref["Dr"], ref["Or"])
    assert (d.hand_roem, o.hand_roem) == tuple(hr)
    assert d.pit_bonus == ref["pit"]
    assert sheet.made == ref["made"] and sheet.score == ref["score"]
    assert sheet.points == ref["points"]


def sheet_adds_up(sheet):
    """What a player checks by eye: the columns add up, the final scores follow rule 19."""
    d, o = sheet.playing, sheet.defenders
    assert d.tricks + o.tricks == len(sheet.tricks)
    assert d.total == (d.card_points + d.last_trick + d.trick_roem + d.hand_roem
                       + d.pit_bonus)
    assert o.pit_bonus == 0 and {d.last_trick, o.last_trick} >= {0}
    m = sheet.multiplier
    if sheet.made:
        assert (d.final, o.final) == (m * d.total, m * o.total) and d.total > o.total
    else:
        assert d.final == 0 and o.final == m * (d.total - d.pit_bonus + o.total)
        assert d.total <= o.total
    assert sheet.score == d.final - o.final
    assert sheet.pit == (o.tricks == 0 and sheet.made)
    assert sheet.result == ("pit" if sheet.pit else "made" if sheet.made else "nat")


# ------------------------------------------------------------------------- the sheet
@settings(max_examples=examples(120))
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(1, 4), rules=rules_strategy)
def test_the_sheet_of_the_principal_variation_adds_up_to_the_solvers_value(seed, k, rules):
    rng = np.random.default_rng(seed)
    deal = random_deal(rng, k)
    trump, first = int(rng.integers(4)), int(rng.integers(4))
    # a few cards played first, then the principal variation to the end
    pos = Position(deal, trump, first, rules)
    played = []
    for _ in range(int(rng.integers(0, 4 * k))):
        c = pos.legal()[int(rng.integers(len(pos.legal())))]
        pos.play(c)
        played.append(card_str(c))
    for objective in ("score", "points"):
        res = solve(deal, trump, first, rules=rules, played=played, objective=objective)
        line = played + res.pv
        sheet = score_sheet(deal, trump, first, rules=rules, line=line, played=len(played))
        sheet_adds_up(sheet)
        assert (sheet.score if objective == "score" else sheet.points) == res.value
        end = Position(deal, trump, first, rules, line)
        assert sheet.score == end.final_value("score")
        assert sheet.points == end.final_value("points")
        naive_check(sheet, deal, trump, first, rules, line)


@pytest.mark.parametrize("pbn", FULL_DEALS)
def test_full_deals_every_trump(pbn):
    deal = Deal.from_pbn(pbn)
    first = SEATS.index(pbn[0])
    for trump in range(4):
        res = solve(deal, trump, first)
        sheet = score_sheet(deal, trump, first, line=res.pv)
        sheet_adds_up(sheet)
        assert sheet.score == res.value
        assert sheet.playing.card_points + sheet.defenders.card_points == 152
        assert sheet.playing.last_trick + sheet.defenders.last_trick == 10
        naive_check(sheet, deal, trump, first, Rules(), res.pv)


def test_by_hand_a_pit_and_a_nat():
    # N leads SA, E S7, S ST, W S8, trump H: N-S win the only trick: 21 + 10 (last trick),
    # no roem; pit 100: 131 (rules 18-19)
    s = score_sheet("N:A... 7... T... 8...", "H", "N", line="SA S7 ST S8")
    assert (s.playing.card_points, s.playing.last_trick, s.playing.pit_bonus) == (21, 10, 100)
    assert (s.result, s.score, s.playing.final, s.defenders.final) == ("pit", 131, 131, 0)
    # N S7, E SA, S S8, W S9: E-W win 11 + 10 and the run 7 8 9 (20); doubled: -82 (rule 20)
    s = score_sheet("N:7... A... 8... 9...", "H", "N", rules="kraken+multiplier=2",
                    line="S7 SA S8 S9")
    assert (s.defenders.card_points, s.defenders.last_trick, s.defenders.trick_roem) == (
        11, 10, 20)
    assert (s.result, s.multiplier, s.playing.final, s.defenders.final, s.score) == (
        "nat", 2, 0, 82, -82)
    # double spades: the last trick is worth 20 (rule 5)
    s = score_sheet("N:A... 7... T... 8...", "S", "N", rules="kraken+double_spades=true",
                    line="SA S7 ST S8")
    assert s.playing.last_trick == 20 and s.playing.card_points == 2 * (11 + 10)


def test_every_trick_but_nat_is_no_pit():
    """N-S win all three tricks (34 card points, trump C: nobody holds a club) but E-W's two
    runs from the hand (H 7 8 9 and D 7 8 9: 40) are more than that plus a pit bonus of 5:
    nat (rule 19), so no pit; E-W score everything: 34 + 40."""
    deal = "N:A97... ..987. QT8... .987.."
    line = "SA D7 S8 H7 S9 D8 ST H8 SQ H9 S7 D9"
    s = score_sheet(deal, "C", "N", rules="kraken+pit_bonus=5", line=line)
    sheet_adds_up(s)
    assert s.defenders.tricks == 0 and s.playing.pit_bonus == 5
    assert (s.playing.total, s.defenders.total) == (39, 40)
    assert (s.made, s.pit, s.result) == (False, False, "nat")
    assert (s.playing.final, s.defenders.final, s.score) == (0, 74, -74)
    assert s.score == Position(deal, "C", "N", "kraken+pit_bonus=5", line).final_value("score")
    naive_check(s, Deal.from_pbn(deal), 3, 0, Rules(pit_bonus=5), line)


def test_a_line_that_stops_early_is_refused():
    from kraken_solver import KrakenError
    with pytest.raises(KrakenError):
        score_sheet("N:AK... 7Q... T8... 9J...", "H", "N", line="SA SQ ST SJ")


# ------------------------------------------------------------------------- melds
@settings(max_examples=examples(300))
@given(seed=st.integers(0, 2**32 - 1), long_runs=st.booleans(), k=st.integers(3, 8))
def test_the_melds_add_up_to_the_hand_roem(seed, long_runs, k):
    rng = np.random.default_rng(seed)
    deal = random_deal(rng, k)
    trump, first = int(rng.integers(4)), int(rng.integers(4))
    rules = Rules(long_runs_100=long_runs)
    melds = declared_melds(deal.hands, trump, first, rules)
    got = [0, 0]
    for m in melds:
        if m.counts:
            got[m.team] += m.value
        held = deal.hands[m.seat]
        assert all((held >> c) & 1 for c in m.cards)        # declared from its own hand
    d = first & 1
    assert (got[d], got[1 - d]) == hand_roem_masks(deal.hands, trump, first, rules)
    assert (got[d], got[1 - d]) == naive.hand_roem(naive.parse_pbn(str(deal)), SUITS[trump],
                                                   SEATS[first], long_runs)
    # a card serves in one meld only (stuk apart, rule 16)
    used = [c for m in melds if m.kind != "stuk" for c in m.cards]
    assert len(used) == len(set(used))
    assert sum(m.best for m in melds) == (1 if any(m.kind != "stuk" for m in melds) else 0)
    assert declared_melds(deal.hands, trump, first, Rules(hand_roem=False)) == []


def test_melds_by_hand():
    """N: four jacks (200, the best meld) and H 7 8 9 (20); E: S Q K A (20, but E-W do not
    hold the best meld: nothing, rule 15); S: stuk in trump H (20, rule 16)."""
    deal = Deal.from_pbn("N:J.J987.J.J7 AKQT.T.A7.8 7.KQ.KT8.Q9 98.A.Q9.AKT")
    melds = declared_melds(deal.hands, 1, 0, Rules())
    by = {(SEATS[m.seat], m.kind): m for m in melds}
    assert set(by) == {("N", "four"), ("N", "run"), ("E", "run"), ("S", "stuk")}
    four = by[("N", "four")]
    assert four.value == 200 and four.best and four.counts
    assert [card_str(c) for c in four.cards] == ["SJ", "HJ", "DJ", "CJ"]
    run_n = by[("N", "run")]
    assert [card_str(c) for c in run_n.cards] == ["H7", "H8", "H9"] and run_n.counts
    run_e = by[("E", "run")]
    assert [card_str(c) for c in run_e.cards] == ["SQ", "SK", "SA"]
    assert run_e.value == 20 and not run_e.counts and not run_e.best
    stuk = by[("S", "stuk")]
    assert stuk.counts and stuk.value == 20 and [card_str(c) for c in stuk.cards] == ["HQ",
                                                                                     "HK"]
    assert hand_roem(deal, "H", "N") == (240, 0)
    assert hand_roem(deal, "H", "E") == (0, 240)
    # with spades trump E's run still counts nothing, but E's SK SQ are a stuk (rule 16)
    assert hand_roem(deal, "S", "N") == (220, 20)


# ------------------------------------------------------------------------- tables
def check_cell(cell, deal, rules):
    s = solve(deal, cell.trump, cell.first, rules=rules)
    p = solve(deal, cell.trump, cell.first, rules=rules, objective="points", pv=False)
    assert (cell.score, cell.points, cell.made) == (s.value, p.value, s.value > 0)
    assert cell.pv == s.pv
    sheet = score_sheet(deal, cell.trump, cell.first, rules=rules, line=cell.pv)
    assert sheet.score == cell.score and cell.pit == sheet.pit
    assert cell.pit == (cell.made and line_is_pit(deal, cell.trump, cell.first, rules,
                                                  cell.pv))


@pytest.mark.parametrize("seed, k, rules", [(1, 3, "kraken"), (2, 4, "klaverjas-rotterdam"),
                                            (3, 2, "kraken-amsterdam+multiplier=4"),
                                            (4, 3, "kraken+pit_bonus=0+double_spades=true")])
def test_full_table_cells_equal_solve(seed, k, rules):
    deal = random_deal(np.random.default_rng(seed), k)
    table = full_table(deal, rules=rules)
    assert len(table.cells) == 16
    assert [(c.first, c.trump) for c in table.cells] == [(f, t) for f in range(4)
                                                        for t in range(4)]
    for f in range(4):
        row = table.cells[4 * f:4 * f + 4]
        top = max(c.score for c in row)
        assert [c.best for c in row] == [c.score == top for c in row]
        assert table.best_trumps(f) == [c.trump for c in row if c.score == top]
        assert [c.to_dict() for c in trump_cells(deal, f, rules=rules)] == [
            c.to_dict() for c in row]
    for cell in table.cells:
        check_cell(cell, deal, rules)
    assert table.cell("E", "H") is table.cells[5]
    d = table.to_dict()
    assert d["rules"] == table.rules.name and len(d["cells"]) == 16


@pytest.mark.parametrize("seed, k", [(1, 3), (5, 2)])
def test_full_table_best_by_points(seed, k):
    """best_by="points" marks each first player's trumps of the most points (ties all), the
    cells' values the same as by score; another best_by is a ValueError."""
    deal = random_deal(np.random.default_rng(seed), k)
    by_score, by_points = full_table(deal), full_table(deal, best_by="points")
    assert (by_score.best_by, by_points.best_by) == ("score", "points")
    assert by_points.to_dict()["best_by"] == "points"
    for f in range(4):
        row = by_points.cells[4 * f:4 * f + 4]
        top = max(c.points for c in row)
        assert [c.best for c in row] == [c.points == top for c in row]
        assert by_points.best_trumps(f) == [c.trump for c in row if c.points == top]
        assert [c.best for c in trump_cells(deal, f, best_by="points")] == [
            c.best for c in row]
    assert [(c.score, c.points, c.pv) for c in by_points.cells] == [
        (c.score, c.points, c.pv) for c in by_score.cells]
    with pytest.raises(ValueError, match="best_by"):
        full_table(deal, best_by="tricks")


def test_full_table_of_a_full_deal():
    deal = Deal.from_pbn(FULL_DEALS[0])
    table = full_table(deal)
    for cell in table.cells:
        check_cell(cell, deal, Rules())
    # S's row is the trump table of datasets/full_deal.txt: hearts best
    assert table.best_trumps("S") == [1]


def test_a_pit_cell():
    # trump S: N holds J 9 A T, the four best trumps, and leads them: N-S take every trick
    deal = "N:AJT9... KQ87... ..AKQJ. ...AKQJ"
    cells = trump_cells(deal, "N")
    assert cells[0].pit and cells[0].result == "pit"
    assert line_is_pit(deal, 0, 0, Rules(), cells[0].pv)
