"""``--where`` and ``--predeal`` on ``kraken-batch`` and ``kraken-advise``: the same deals with
1 or 2 workers and after a kill -9 and a resume, recorded in the sidecar and summarize's
header, checked on resume; the advice's layouts meet the condition.
"""

from __future__ import annotations

import json
import os
import sys

import naive_where
import pandas as pd
import pytest
from batch_kill import kill_after_first_chunk, wait_gone
from click.testing import CliRunner
from test_batch import run as batch
from test_batch import values

from kraken_solver import Deal, deal_where, trump_table
from kraken_solver.cli.advise import main as advise_main
from kraken_solver.dealing.predicate import parse_predicate
from kraken_solver.game.cards import hand_text
from kraken_solver.playerview.advise import advise

WHERE = "has(N, HJ) and hearts(N) >= 3"
PREDEAL = "E:SA"
SEED, DEALS = 4, 5


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    out = tmp_path_factory.mktemp("ref") / "ref.csv"
    r = batch("--deals", DEALS, "--seed", SEED, "--where", WHERE, "--predeal", PREDEAL,
              "--out", out, "--workers", 2, "--chunk-size", 2, "--quiet")
    assert r.exit_code == 0, r.output
    return out


def test_batch_deals_are_the_api_deals_and_meet_the_condition(reference):
    df = values(reference)
    deals = df.drop_duplicates("deal_id")["deal"].tolist()
    assert deals == [str(d) for d in deal_where(WHERE, PREDEAL, n=DEALS, seed=SEED)]
    node = parse_predicate(WHERE)
    assert all(naive_where.meets(node, Deal.from_pbn(d)) for d in deals)
    with open(f"{reference}.meta.json") as f:
        meta = json.load(f)
    assert meta["config"]["where"] == "has(N, HJ) and hearts(N) >= 3"
    assert meta["config"]["predeal"] == "E:SA"
    assert meta["max_tries"] == 10**7 and "meet 'where'" in meta["deal_generation"]
    r = batch("summarize", reference)
    assert r.exit_code == 0, r.output
    assert ("Deals: only those that meet the condition, where has(N, HJ) and hearts(N) >= 3; "
            "predeal E:SA") in r.stdout


def test_batch_one_worker_and_other_chunks_give_the_same_file(reference, tmp_path):
    out = tmp_path / "w1.csv"
    r = batch("--deals", DEALS, "--seed", SEED, "--where", WHERE, "--predeal", PREDEAL,
              "--out", out, "--workers", 1, "--chunk-size", 3, "--quiet")
    assert r.exit_code == 0, r.output
    pd.testing.assert_frame_equal(values(out), values(reference))


def test_batch_resume_checks_the_condition(reference, tmp_path):
    out = tmp_path / "r.csv"
    base = ["--deals", DEALS, "--seed", SEED, "--out", out, "--workers", 1, "--quiet"]
    r = batch(*base, "--where", WHERE, "--predeal", PREDEAL)
    assert r.exit_code == 0, r.output
    for extra, words in ([[], "where None (was has(N, HJ) and hearts(N) >= 3)"],
                         [["--where", WHERE], "predeal None (was E:SA)"],
                         [["--where", "void(N)", "--predeal", PREDEAL], "where void(N)"]):
        r = batch(*base, *extra, "--resume")
        assert r.exit_code == 1 and "cannot resume" in r.stderr and words in r.stderr, r.stderr
    # the same condition written another way reads the same: nothing to do
    r = batch(*base[:-1], "--where", "has(N, HJ)  AND  hearts(N)>=3", "--predeal", "E: SA",
              "--resume")
    assert r.exit_code == 0 and "already complete" in r.stderr, r.output


@pytest.mark.parametrize("args, words", [
    (["--where", "hearts(S) >="], "--where, column 13"),
    (["--where", "has(N, HJ)", "--predeal", "S:HJ"], "no deal can meet"),
    (["--predeal", "S:HJ N:HJ"], "--predeal"),
    (["--where", "roem(S, H) >= 300", "--max-tries", "1000"], "no deal met the condition"),
])
def test_batch_bad_condition_is_one_line_exit_2_nothing_written(tmp_path, args, words):
    out = tmp_path / "x.csv"
    r = batch("--deals", 3, "--out", out, *args)
    assert r.exit_code == 2 and words in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    assert os.listdir(tmp_path) == []


def test_batch_refuses_a_condition_with_an_input_file(tmp_path):
    src = tmp_path / "in.txt"
    src.write_text("N:AKQJ.T987.. ..AKQJ.T987 T987.AKQJ.. ..T987.AKQJ\n")
    r = batch("--input", src, "--out", tmp_path / "x.csv", "--where", "void(N)")
    assert r.exit_code == 2 and "not --input" in r.stderr


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="uses /proc and SIGKILL")
def test_batch_kill_9_then_resume_gives_the_uninterrupted_file(reference, tmp_path):
    out = tmp_path / "killed.csv"
    args = ["--deals", str(DEALS), "--seed", str(SEED), "--where", WHERE, "--predeal",
            PREDEAL, "--out", str(out), "--workers", "1", "--chunk-size", "1", "--quiet"]
    parts = tmp_path / "killed.csv.parts"
    workers = kill_after_first_chunk(args, parts)
    assert wait_gone(workers)   # the orphaned worker notices its parent is gone and exits
    assert not out.exists()
    done = [p for p in os.listdir(parts) if p.startswith("chunk-")]
    assert 1 <= len(done) < DEALS
    r = batch(*args[:-1], "--resume")
    assert r.exit_code == 0, r.output
    assert "resuming" in r.stderr
    pd.testing.assert_frame_equal(values(out), values(reference))


# ----------------------------------------------------------------------------- advise
HAND = "AJ9.K7.T8.A"


def test_advise_where_fixes_the_layout():
    """N's hand and all but two unseen cards known (one of E's, one of W's): of the two
    layouts only one has E holding its card; with where has(E, card) every sample is that
    deal, and the advice is that deal's trump table."""
    from kraken_solver.dealing.seeded import generate_deals
    from kraken_solver.game.cards import card_str, cards_of
    deal = generate_deals(8, 0, 1)[0]
    e_card, w_card = cards_of(deal.hands[1])[0], cards_of(deal.hands[3])[0]
    known = [f"E:{_cards(deal.hands[1] & ~(1 << e_card))}", f"S:{_cards(deal.hands[2])}",
             f"W:{_cards(deal.hands[3] & ~(1 << w_card))}"]
    where = f"has(E, {card_str(e_card)})"
    a = advise(hand_text(deal.hands[0]), seat="N", samples=4, seed=3, known=known,
               where=where, workers=1)
    assert a.where == where and a.to_dict()["where"] == where
    table = trump_table(deal, first="N")
    for row in a.rows:
        want = next(c for c in table if "SHDC"[c.trump] == row.trump)
        assert row.mean_score == want.score and row.se_score == 0
    from kraken_solver.playerview.advise import format_advice
    assert f"Layouts: only those where {where}" in format_advice(a, ascii=True)


def _cards(mask):
    from kraken_solver.game.cards import card_str, cards_of
    return ",".join(card_str(c) for c in cards_of(mask))


def test_advise_samples_are_the_conditions_deals():
    from kraken_solver.dealing.generator import condition_for
    from kraken_solver.dealing.predeal import predeal_text
    from kraken_solver.playerview.advise import parse_hand
    known = [parse_hand(HAND), 0, 0, 0]
    deals = condition_for("has(E, HA) and void(W)", predeal_text(known)).deals(2, 0, 100)
    node = parse_predicate("has(E, HA) and void(W)")
    assert all(naive_where.meets(node, d, known) for d in deals)
    assert all(hand_text(d.hands[0]) == HAND for d in deals)


@pytest.mark.parametrize("args, words", [
    (["--where", "has(N, HA)"], "no deal can meet"),
    (["--where", "has(E, HA"], "--where, column 10"),
    (["--predeal", "E:SA"], "SA is in N's own hand"),
    (["--predeal", "E:HA", "--where", "has(W, HA)"], "no deal can meet"),
])
def test_advise_bad_condition_is_one_line_exit_2(args, words):
    r = CliRunner().invoke(advise_main, [HAND, "--samples", "4", "--quiet", *args])
    assert r.exit_code == 2, r.output
    assert words in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
