"""The solver against the golden reference files in tests/data/ (see tests/data/README.md).

Every line of every file is its own test case, named ``<file>:<line number>`` (1-based), so a
failure names the line.  The files were computed by an exhaustive minimax that shares no code
with this project; they are the only hard-coded expected values here.
"""

from __future__ import annotations

import json
import os

import naive
import pytest

from kraken_solver import hand_roem, legal_cards, parse_card, solve
from kraken_solver.game.position import Position

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")


def load(name: str) -> list:
    """[(id, case)] for every line of tests/data/<name>.jsonl."""
    out = []
    with open(os.path.join(DATA, name + ".jsonl"), encoding="utf-8") as f:
        for no, line in enumerate(f, start=1):
            if line.strip():
                out.append(pytest.param(json.loads(line), id=f"{name}:{no}"))
    return out


SOLVE_FILES = ("solve_small", "solve_small_undertrump", "solve_endings")
SOLVE_CASES = [p for name in SOLVE_FILES for p in load(name)]
HAND_ROEM_CASES = load("hand_roem")
PERFT_CASES = load("perft")


def describe(case: dict) -> str:
    """The reproduction of a case, for assertion messages."""
    return (f"deal={case['deal']!r} trump={case['trump']} first={case['first']} "
            f"rules={case.get('rules')} played={case.get('played')}")


def args(case: dict) -> tuple:
    return case["deal"], case["trump"], case["first"]


def test_files_are_not_empty():
    # Guards against a silently empty parametrization (e.g. a data file gone missing).
    assert len(SOLVE_CASES) == 150 + 60 + 190
    assert len(HAND_ROEM_CASES) == 400
    assert len(PERFT_CASES) == 100


# ------------------------------------------------------------------------- solve
@pytest.mark.parametrize("case", SOLVE_CASES)
def test_score_and_card_values(case):
    res = solve(*args(case), rules=case["rules"], played=case["played"], all_cards=True,
                pv=False)
    assert res.value == case["score"], describe(case)
    assert res.made == (case["score"] > 0)
    if "card_values" in case:
        assert res.card_values == case["card_values"], describe(case)
    # The best cards are exactly the cards whose value is the position's value (rule 26).
    assert res.best_cards, describe(case)
    assert sorted(res.best_cards) == sorted(c for c, v in res.card_values.items()
                                            if v == res.value)


@pytest.mark.parametrize("case", SOLVE_CASES)
def test_points(case):
    res = solve(*args(case), rules=case["rules"], played=case["played"], objective="points",
                pv=False)
    assert res.value == case["points"], describe(case)
    assert res.made is None


@pytest.mark.parametrize("case", [p for p in SOLVE_CASES if p.id.startswith("solve_endings")])
def test_endings_hand_roem(case):
    assert list(hand_roem(*args(case), rules=case["rules"])) == case["hand_roem"], describe(case)


def replay_final(case: dict, line: list, objective: str) -> int:
    """Replay ``played`` then ``line`` with Position (which checks every card is legal) and
    return the value of the finished deal."""
    pos = Position(case["deal"], case["trump"], case["first"], case["rules"], case["played"])
    for i, card in enumerate(line):
        assert not pos.over, f"pv continues after the end of the deal at {i}: {line}"
        pos.play(parse_card(card))
    assert pos.over, f"pv stops before the end of the deal: {line}"
    return pos.final_value(objective)


@pytest.mark.parametrize("objective", ["score", "points"])
@pytest.mark.parametrize("case", SOLVE_CASES)
def test_principal_variation(case, objective):
    """solve(...).pv is a legal line to the end of the deal whose final value is the value,
    and every card of it is a best card of its position."""
    expected = case[objective]
    res = solve(*args(case), rules=case["rules"], played=case["played"], objective=objective,
                all_cards=True, pv=True)
    assert res.value == expected, describe(case)
    assert res.pv, describe(case)
    assert res.pv[0] in res.best_cards, describe(case)
    assert res.card_values[res.pv[0]] == expected
    assert replay_final(case, res.pv, objective) == expected, f"{describe(case)} pv={res.pv}"


# ------------------------------------------------------------------------- hand roem
@pytest.mark.parametrize("case", HAND_ROEM_CASES)
def test_hand_roem(case):
    assert list(hand_roem(*args(case), rules=case["rules"])) == case["hand_roem"], describe(case)


@pytest.mark.parametrize("case", HAND_ROEM_CASES)
def test_naive_hand_roem(case):
    """The reference implementation's own hand roem agrees with the golden file too."""
    assert case["rules"]["hand_roem"]
    hands = naive.parse_pbn(case["deal"])
    got = naive.hand_roem(hands, case["trump"], case["first"],
                          case["rules"].get("long_runs_100", False))
    assert list(got) == case["hand_roem"], describe(case)


# ------------------------------------------------------------------------- perft
def perft_rules(case: dict) -> dict:
    return {"trump_rule": case["trump_rule"], "undertrump": case["undertrump"]}


def count_lines_library(pos: Position, memo: dict) -> int:
    """Distinct legal lines from ``pos`` to the end, by the library's legal-card rule.

    The count from a position depends only on the cards still held, the trick in progress
    and its leader, so it is memoised on those (the golden counts reach 12 408 lines)."""
    if pos.over:
        return 1
    key = (tuple(int(h) for h in pos.hands), tuple(int(c) for c in pos.trick[:pos.tlen]),
           pos.leader)
    if key not in memo:
        total = 0
        for card in pos.legal():
            child = pos.copy()
            child.play(card)
            total += count_lines_library(child, memo)
        memo[key] = total
    return memo[key]


@pytest.mark.parametrize("case", PERFT_CASES)
def test_perft_library(case):
    pos = Position(*args(case), perft_rules(case))
    assert count_lines_library(pos, {}) == case["lines"], describe(case)


@pytest.mark.parametrize("case", PERFT_CASES)
def test_perft_naive(case):
    opts = naive.Options(**perft_rules(case))
    state = naive.start_state(naive.parse_pbn(case["deal"]), case["first"])
    assert naive.count_lines(state, case["trump"], opts) == case["lines"], describe(case)


def count_lines_public(case: dict, played: list) -> int:
    """Distinct legal lines, calling the public ``legal_cards`` at every node."""
    cards = legal_cards(*args(case), rules=perft_rules(case), played=played)
    if not cards:
        return 1
    return sum(count_lines_public(case, played + [c]) for c in cards)


@pytest.mark.parametrize("case", [p for p in PERFT_CASES if p.values[0]["lines"] <= 100])
def test_perft_public_legal_cards(case):
    """The public ``legal_cards`` (a fresh Position per call), on the smaller perft cases."""
    assert count_lines_public(case, []) == case["lines"], describe(case)
