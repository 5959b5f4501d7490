"""Tests of ``kraken-advise`` (kraken_solver.playerview.advise, cli/advise.py).

The key check: when ``--known`` fixes all 24 unseen cards, every sample is the same deal and
the advice must equal ``solve``/``trump_table`` on that deal.  Sampling is checked without
solving (constraints, determinism, independence of the chunking, uniformity).
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from kraken_solver import Deal, Position, solve, trump_table
from kraken_solver.cli.advise import main
from kraken_solver.dealing.seeded import generate_deals
from kraken_solver.engine.trumps import forces_pit
from kraken_solver.errors import CardParseError, KrakenError
from kraken_solver.game.cards import SEATS, SUITS, card_str, cards_of, hand_text, parse_card
from kraken_solver.playerview.advise import (advise, doubling_advice, format_advice, parse_hand,
                                             parse_known, sample_deals)
from kraken_solver.workers.task import worker_searcher

HAND = "AJ9.K7.T8.A"          # S A J 9, H K 7, D T 8, C A


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def known_args(deal: Deal, skip: int) -> list[str]:
    out = []
    for s in range(4):
        if s != skip:
            out += ["--known", f"{SEATS[s]}:" + ",".join(card_str(c)
                                                         for c in cards_of(deal.hands[s]))]
    return out


# ------------------------------------------------------------------------------ input
def test_parse_hand():
    m = parse_hand(HAND)
    assert sorted(card_str(c) for c in cards_of(m)) == sorted(
        ["SA", "SJ", "S9", "HK", "H7", "DT", "D8", "CA"])
    assert parse_hand("AJ9.K7.108.A") == m
    assert hand_text(m) == HAND
    for bad, what in [("AJ9.K7.T8", "four suits"), ("AJ9.K7.T8.AK", "8 cards"),
                      ("AJX.K7.T8.A", "rank"), ("AJJ.K7.T8.A", "twice")]:
        with pytest.raises(KrakenError, match=what):
            parse_hand(bad)


def test_parse_known_and_impossible_constraints():
    m = parse_hand(HAND)
    k = parse_known(["E:HA,HQ", "W:SK S7", "E:HA"], 0, m)
    assert k[0] == m and k[1] == (1 << parse_card("HA")) | (1 << parse_card("HQ"))
    assert k[3] == (1 << parse_card("SK")) | (1 << parse_card("S7")) and k[2] == 0
    for items, what in [(["W:SA"], "own hand"), (["E:HA", "W:HA"], "both"),
                        (["E:HX"], "card"), (["X:HA"], "SEAT:CARDS"), (["E:"], "no card"),
                        (["N:HA"], "given in full"),
                        (["E:SK,SQ,ST,S8,S7,HA,HQ,HJ,HT"], "9 known cards")]:
        with pytest.raises(KrakenError, match=what):
            parse_known(items, 0, m)
    # the error echoes the user's own text, not the cards rewritten
    with pytest.raises(KrakenError) as e:
        parse_known(["e:sk,sq,st", "E:S8 S7 HA", "E:HQ,HJ,H10"], 0, m)
    assert e.value.token == "e:sk,sq,st E:S8 S7 HA E:HQ,HJ,H10"


# ------------------------------------------------------------------------------ sampling
def test_samples_respect_constraints_and_do_not_depend_on_chunks():
    m = parse_hand(HAND)
    known = parse_known(["E:HA,HQ", "W:SK"], 0, m)
    deals = sample_deals(known, 7, 0, 70)
    assert sample_deals(known, 7, 60, 70) == deals[60:]
    assert sample_deals(known, 7, 0, 5) == deals[:5]
    assert sample_deals(known, 8, 0, 5) != deals[:5]
    for d in deals:
        assert d.hands[0] == m and d.size == 8 and d.all_cards == 0xFFFFFFFF
        assert d.hands[1] & known[1] == known[1] and d.hands[3] & known[3] == known[3]


def test_samples_are_uniform_over_the_other_seats():
    m = parse_hand(HAND)
    deals = sample_deals(parse_known([], 0, m), 3, 0, 3000)
    counts = np.zeros((32, 4))
    for d in deals:
        for s in range(4):
            for c in cards_of(d.hands[s]):
                counts[c, s] += 1
    free = [c for c in range(32) if not m >> c & 1]
    share = counts[free][:, 1:] / len(deals)
    assert np.all(np.abs(share - 1 / 3) < 0.04)      # 3000 draws: sd about 0.009
    assert counts[free][:, 0].sum() == 0


# ------------------------------------------------------------------------------ advice
def test_advice_with_every_card_known_equals_solve():
    deal = generate_deals(21, 0, 1)[0]
    hand = hand_text(deal.hands[2])
    r = run(hand, "--seat", "S", "--samples", 3, "--workers", 1, "--json", "--quiet",
            *known_args(deal, 2))
    assert r.exit_code == 0, r.output
    a = json.loads(r.stdout)
    table = trump_table(deal, "S")
    assert a["first"] == "S" and a["trump"] is None and a["samples"] == 3
    for row, t in zip(a["trumps"], table):
        assert row["trump"] == SUITS[t.trump]
        assert row["mean_score"] == t.score and row["se_score"] == 0
        assert row["mean_points"] == t.points and row["p_made"] == float(t.made)
        assert row["p_pit"] == float(forces_pit(worker_searcher(), Position(deal, t.trump, 2)))
    best = max(table, key=lambda t: (t.score, -t.trump))
    assert a["recommended"] == SUITS[best.trump]
    assert a["doubling"] is None


def test_defenders_advice_with_every_card_known_equals_solve():
    deal = generate_deals(22, 0, 1)[0]
    hand = hand_text(deal.hands[1])
    r = run(hand, "--seat", "E", "--first", "N", "--trump", "H", "--samples", 2, "--workers",
            1, "--json", "--quiet", *known_args(deal, 1))
    assert r.exit_code == 0, r.output
    a = json.loads(r.stdout)
    assert a["first"] == "N" and a["side"] == "defenders"
    score = solve(deal, "H", "N", pv=False).value
    points = solve(deal, "H", "N", objective="points", pv=False).value
    (row,) = a["trumps"]
    assert row["mean_score"] == score and row["mean_points"] == points
    d = a["doubling"]
    assert d["side"] == "defenders" and d["expected_score"] == score
    assert d["by_multiplier"] == {str(m): m * score for m in (1, 2, 4, 8)}
    assert d["double_pays"] == (score < 0) and d["redouble_pays"] == (score > 0)
    assert d["certain"] is True                    # no spread: the standard error is 0
    text = run(hand, "--seat", "E", "--first", "N", "--trump", "H", "--samples", 2,
               "--workers", 1, "--ascii", "--quiet", *known_args(deal, 1))
    assert text.exit_code == 0 and "defenders double (x2): " in text.stdout
    assert "Advice for E, a defender (N is the first player" in text.stdout
    verdict = text.stdout.split("double (x2): ")[1]
    assert verdict.startswith("pays;" if score < 0 else "does not pay;")


def test_advice_does_not_depend_on_workers():
    common = dict(seat="W", first="S", trump="D", samples=6, seed=5, known=["N:DJ"])
    a1 = advise(HAND, workers=1, **common)
    a2 = advise(HAND, workers=2, **common)
    assert a1.first == "S" and a1.side == "defenders"
    assert (a1.scores == a2.scores).all()
    assert a1.rows == a2.rows
    assert a1.rows[0].samples == 6


def test_doubling_advice_is_linear_in_the_multiplier():
    d = doubling_advice(np.array([-40, -20, 0, 20]), 2, "defenders")   # solved at m = 2
    assert d.expected_score == -5 and d.by_multiplier[8] == -40
    assert d.double_pays and d.superdouble_pays and not d.redouble_pays
    assert not d.certain
    d = doubling_advice(np.array([100, 120, 140]), 1, "playing team")
    assert d.redouble_pays and not d.double_pays and d.certain


def test_cli_errors_are_one_line():
    for args, what in [(["AJ9.K7.T8"], "four suits"),
                       ([HAND, "--known", "W:SA"], "own hand"),
                       ([HAND, "--known", "E:HA", "--known", "S:HA"], "both")]:
        r = run(*args)
        assert r.exit_code == 1, r.output
        assert r.stderr.startswith("kraken-advise: error: ") and r.stderr.count("\n") == 1
        assert what in r.stderr
    assert run(HAND, "--samples", 0).exit_code == 2


# ------------------------------------------------------------------------------ argument types
def test_known_as_one_string():
    m = parse_hand(HAND)
    want = parse_known(["E:HA,HQ", "W:SK S7"], 0, m)
    # a bare string is one SEAT:CARDS item, not its letters; an item may name several seats
    assert parse_known("E:HA,HQ W:SK S7", 0, m) == want
    assert parse_known(["E:HA HQ  w:SK,S7"], 0, m) == want
    assert parse_known("E:HA", 0, m) == parse_known(["E:HA"], 0, m)
    assert parse_known(None, 0, m) == parse_known([], 0, m)
    with pytest.raises(CardParseError):
        parse_known(5, 0, m)
    with pytest.raises(CardParseError) as info:
        parse_known("E:HA XX", 0, m)
    assert info.value.token == "XX"
    with pytest.raises(KrakenError, match="own hand"):
        advise(HAND, known="W:SA", samples=1, workers=1)      # read as W:SA, not W, :, S, A


def test_advice_with_known_as_one_string():
    common = dict(seat="W", trump="D", samples=2, seed=5, workers=1)
    a = advise(HAND, known="N:DJ E:HA", **common)
    b = advise(HAND, known=["N:DJ", "E:HA"], **common)
    assert (a.scores == b.scores).all() and a.known == b.known == {"N": ["DJ"], "E": ["HA"]}


@pytest.mark.parametrize("kw, what", [
    (dict(samples=2.5), "samples"), (dict(samples="3"), "samples"), (dict(samples=0), "samples"),
    (dict(samples=True), "samples"), (dict(seed=1.5), "seed"), (dict(seed=-1), "seed"),
    (dict(workers=0), "workers"), (dict(workers=-2), "workers"), (dict(workers=1.5), "workers"),
    (dict(workers="2"), "workers"),
])
def test_bad_sample_seed_and_worker_counts(kw, what):
    with pytest.raises(KrakenError, match=what):
        advise(HAND, **{"samples": 1, **kw})


def test_the_first_player_is_the_seat_with_or_without_a_trump():
    """--trump S moved the first player to the seat before --seat; one default now, and the
    output says whose side the advice is for."""
    a = advise(HAND, seat="E", trump="S", samples=2, workers=1)
    b = advise(HAND, seat="E", samples=2, workers=1)
    assert a.first == b.first == "E" and a.side == b.side == "playing team"
    text = format_advice(a, ascii=True)
    assert "Advice for E, on the playing team (E-W: E is the first player and chooses trump)" \
        in text


def test_one_sample_says_it_cannot_tell():
    """--samples 1 printed '+- 0.0' and firm doubling advice."""
    for trump in (None, "H"):
        a = advise(HAND, trump=trump, samples=1, workers=1)
        assert all(r.se_score is None and r.se_points is None for r in a.rows)
        text = format_advice(a, ascii=True)
        assert "+- 0.0" not in text and "+-   n/a" in text
        assert "One sample: too few to estimate a standard error" in text
        if trump is None:
            assert a.clear is None and "too few samples to tell it from" in text
        else:
            assert a.doubling.se is None and not a.doubling.certain
            assert text.count("cannot tell from one sample") == 3
        json.dumps(a.to_dict())                     # None, not NaN: valid JSON


def test_advice_within_noise_says_so():
    a = advise(HAND, samples=3, seed=2, workers=1)
    assert a.runner_up is not None and a.margin_se is not None
    expected = a.margin > 0 and a.margin >= 2 * a.margin_se
    assert a.clear is expected
    text = format_advice(a, ascii=True)
    assert ("within noise of" in text) is (not expected)
    # the margin is the paired difference of the two trumps' scores, sample by sample
    j = [r.trump for r in a.rows]
    diff = a.scores[:, j.index(a.recommended)] - a.scores[:, j.index(a.runner_up)]
    assert a.margin == pytest.approx(diff.mean())
    assert a.margin_se == pytest.approx(diff.std(ddof=1) / np.sqrt(3))


def test_workers_are_bounded():
    """--workers 9999 forked 9,999 processes: at most 4 per core, refused before any work."""
    from kraken_solver.workers.pool import max_workers
    with pytest.raises(KrakenError, match="from 1 to"):
        advise(HAND, samples=1, workers=max_workers() + 1)
    r = run(HAND, "--workers", 9999, "--samples", 1)
    assert r.exit_code == 1 and r.stderr.count("\n") == 1
    assert f"from 1 to {max_workers()} here (4 per core" in r.stderr


def test_a_hand_is_shown_as_kraken_hint_shows_it(tmp_path):
    """kraken-advise showed a hand as '♠ AJ9', kraken-hint as '♠ A T 7': both use
    formatting.hand_line now, the ranks one space apart as in the deal diagram."""
    from kraken_solver.cli.hint import main as hint_main
    from kraken_solver.notation.text import hand_line
    r = run("AJ9.T8..Q97", "--samples", 2, "--workers", 1)
    assert r.exit_code == 0, r.output
    assert r.stdout.splitlines()[0] == "Hand of N: \u2660 A J 9  \u2665 T 8  \u2666 -  \u2663 Q 9 7"
    r = run("AJ9.T8..Q97", "--samples", 2, "--workers", 1, "--ascii", "--seat", "E")
    assert r.exit_code == 0, r.output
    assert r.stdout.splitlines()[0] == "Hand of E: S A J 9  H T 8  D -  C Q 9 7"
    # kraken-hint's line of the same hand, to lead before any card
    f = tmp_path / "hint.txt"
    f.write_text('[Deal "N:AJ9.T8..Q97 - - -"]\n[Trump "H"]\n[First "N"]\n'
                 '[Declared "0 0"]\n')
    r = CliRunner().invoke(hint_main, [str(f), "--samples", 2, "--workers", 1, "--ascii"])
    assert r.exit_code == 0, r.output
    assert "\nN's hand now: S A J 9  H T 8  D -  C Q 9 7\n" in r.stdout
    # without a trump the plain order of the diagram, with one the trump suit's order
    mask = parse_hand("AKJT.J97.8.")
    assert hand_line(mask, ascii=True) == "S A K J T  H J 9 7  D 8  C -"
    assert hand_line(mask, 1, ascii=True) == "S A T K J  H J 9 7  D 8  C -"


def test_a_defenders_trump_advice_says_whose_choice_it_is():
    """Advice for E, a defender, marked N-S's best trump 'best' and 'Recommended trump': the
    worst for E.  With every card known the lines name N's best (the trump table's highest
    score) and E's team's best (its lowest)."""
    deal = generate_deals(22, 0, 1)[0]
    hand = hand_text(deal.hands[1])
    r = run(hand, "--seat", "E", "--first", "N", "--samples", 2, "--workers", 1, "--ascii",
            "--quiet", *known_args(deal, 1))
    assert r.exit_code == 0, r.output
    table = trump_table(deal, "N")
    best = max(table, key=lambda t: (t.score, -t.trump))
    worst = min(table, key=lambda t: t.score)
    assert "Recommended trump" not in r.stdout and "  best" not in r.stdout
    assert (f"E does not choose trump; the best for E's team would be {SUITS[worst.trump]} "
            "(the lowest mean score for N-S)") in r.stdout
    assert (f"N's best trump, as far as E's hand tells: {SUITS[best.trump]} (highest mean "
            "score for N-S)") in r.stdout
    row = next(x for x in r.stdout.splitlines() if x.endswith("N's best"))
    assert row.split()[0] == SUITS[best.trump]
