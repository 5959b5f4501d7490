"""The fast solver against the slow reference of tests/naive.py on many random positions.

Positions are small (2 or 3 cards left in each hand), drawn from deals of 2 to 8 cards a hand
that are sometimes played part-way by random legal cards (so completed tricks, a lost trick
and roem already won count), sometimes ending inside a trick.  Every draw comes from a numpy
generator seeded by the test's index, so a failure names a reproducible position and its
message prints everything needed to reproduce it.

Rule options: the tree of legal play depends on ``trump_rule`` and ``undertrump`` only, so each
test item takes one of those four combinations and checks, on the same tree, every
combination of ``trick_roem`` x ``hand_roem`` x ``double_spades``, each with a multiplier,
pit bonus (0 included) and ``long_runs_100`` drawn from the generator; both objectives, the
value of every legal card, and the legal cards themselves.
"""

from __future__ import annotations

import itertools
import json
import os

import naive
import numpy as np
import pytest

from kraken_solver import Rules, hand_roem, legal_cards, parse_card, solve
from kraken_solver.game.cards import card_str
from kraken_solver.game.position import Position

ALL_CARDS = [s + r for s in naive.SUITS for r in naive.NATURAL_ORDER]
LEGAL_COMBOS = [(tr, ut) for tr in ("rotterdam", "amsterdam") for ut in ("forbidden", "forced")]
SCORING_COMBOS = list(itertools.product((False, True), repeat=3))  # trick_roem, hand_roem, dbl
MULTIPLIERS = (1, 2, 4, 8)
PIT_BONUSES = (0, 100, 100, 35, 250)


# ------------------------------------------------------------------------- generators
def random_hands(rng: np.random.Generator, k: int) -> dict:
    """Four hands of k cards.  Card pools vary so that following, ruffing, over- and
    undertrumping, runs, stuk and fours of a kind all come up often."""
    style = int(rng.integers(5))
    if style == 1 and k <= 6:          # few suits: many voids and ruffs
        n_suits = 2 if k <= 4 else 3
        suits = list(rng.choice(list(naive.SUITS), n_suits, replace=False))
        pool = [c for c in ALL_CARDS if c[0] in suits]
    elif style == 2:                   # a band of neighbouring ranks: runs and fours
        width = int(min(8, k + rng.integers(0, 3)))
        lo = int(rng.integers(0, 8 - width + 1))
        band = naive.NATURAL_ORDER[lo:lo + width]
        pool = [c for c in ALL_CARDS if c[1] in band]
    elif style == 3:                   # the high cards: points and stuk
        pool = [c for c in ALL_CARDS if c[1] in "9TJQKA"]
        if len(pool) < 4 * k:
            pool = ALL_CARDS
    else:
        pool = ALL_CARDS
    cards = [str(c) for c in rng.choice(pool, 4 * k, replace=False)]
    return {seat: sorted(cards[i * k:(i + 1) * k]) for i, seat in enumerate(naive.SEATS)}


def random_position(index: int) -> dict:
    """A random position; test item ``index`` always gets the same one."""
    rng = np.random.default_rng([20240917, index])
    trump_rule, undertrump = LEGAL_COMBOS[index % 4]
    deal_size = int(rng.choice([2, 3, 3, 3, 4, 5, 6, 8]))
    left = int(min(deal_size, rng.choice([2, 3, 3])))
    extra = int(rng.choice([0, 0, 1, 2, 3])) if left >= 2 else 0
    n_played = 4 * (deal_size - left) + extra
    hands = random_hands(rng, deal_size)
    trump = "S" if rng.random() < 0.4 else str(rng.choice(list(naive.SUITS)))
    first = str(rng.choice(list(naive.SEATS)))
    opts = naive.Options(trump_rule=trump_rule, undertrump=undertrump)
    state = naive.start_state(hands, first)
    played = []
    for _ in range(n_played):
        card = str(rng.choice(state.legal(trump, opts)))
        played.append(card)
        state = state.after(card, trump)
    variants = []
    for trick_roem, hand_roem_on, double_spades in SCORING_COMBOS:
        variants.append(dict(trump_rule=trump_rule, undertrump=undertrump,
                             trick_roem=trick_roem, hand_roem=hand_roem_on,
                             double_spades=double_spades,
                             multiplier=int(rng.choice(MULTIPLIERS)),
                             pit_bonus=int(rng.choice(PIT_BONUSES)),
                             long_runs_100=bool(rng.random() < 0.5)))
    start = str(rng.choice(list(naive.SEATS)))       # PBN may name any seat first
    return {"deal": naive.to_pbn(hands, start), "trump": trump, "first": first,
            "played": played, "variants": variants}


def repro(pos: dict, rules: dict, objective: str | None = None) -> str:
    text = (f"deal={pos['deal']!r} trump={pos['trump']!r} first={pos['first']!r} "
            f"rules={rules!r} played={pos['played']!r}")
    return text + (f" objective={objective!r}" if objective else "")


# ------------------------------------------------------------------------- solve vs naive
N_POSITIONS = 480


@pytest.mark.parametrize("index", range(N_POSITIONS))
def test_solver_matches_reference(index):
    pos = random_position(index)
    variants = [naive.Options(**v) for v in pos["variants"]]
    expected = naive.solve_many(pos["deal"], pos["trump"], pos["first"], variants,
                                pos["played"])
    legal = legal_cards(pos["deal"], pos["trump"], pos["first"], rules=pos["variants"][0],
                        played=pos["played"])
    assert sorted(legal) == sorted(expected[0]["legal"]), repro(pos, pos["variants"][0])
    for rules, exp in zip(pos["variants"], expected):
        for k, objective in enumerate(naive.OBJECTIVES):
            got = solve(pos["deal"], pos["trump"], pos["first"], rules=rules,
                        played=pos["played"], objective=objective, all_cards=True, pv=False)
            want_cards = {c: v[k] for c, v in exp["card_values"].items()}
            assert (got.value, got.card_values) == (exp[objective], want_cards), \
                f"{repro(pos, rules, objective)}: expected {exp[objective]} {want_cards}, " \
                f"got {got.value} {got.card_values}"
            # without every card valued the value is a search of its own (with them, the
            # best card's value)
            alone = solve(pos["deal"], pos["trump"], pos["first"], rules=rules,
                          played=pos["played"], objective=objective, pv=False).value
            assert alone == exp[objective], f"{repro(pos, rules, objective)}: value {alone}"


def test_generated_positions_cover_the_options():
    """The random positions really reach the situations the options are about."""
    seen = set()
    for i in range(N_POSITIONS):
        pos = random_position(i)
        for v in pos["variants"]:
            seen.add(("mult", v["multiplier"]))
            seen.add(("pit", v["pit_bonus"]))
            seen.add((v["trump_rule"], v["undertrump"], v["trick_roem"], v["hand_roem"],
                      v["double_spades"]))
        seen.add(("spades trump", pos["trump"] == "S"))
        seen.add(("inside a trick", len(pos["played"]) % 4 != 0))
        seen.add(("tricks done", len(pos["played"]) >= 4))
    assert {("mult", m) for m in MULTIPLIERS} <= seen
    assert {("pit", p) for p in PIT_BONUSES} <= seen
    assert len([s for s in seen if len(s) == 5]) == 4 * 8
    for flag in ("spades trump", "inside a trick", "tricks done"):
        assert (flag, True) in seen and (flag, False) in seen


def test_reference_positions_are_interesting():
    """Enough of the positions have made and nat outcomes, pit, trick roem and hand roem
    that matter, so the comparison above is not trivially about zeros."""
    made = nat = roem_matters = hand_roem_matters = pit = 0
    for i in range(0, N_POSITIONS, 4):
        pos = random_position(i)
        plain = naive.Options(trump_rule=pos["variants"][0]["trump_rule"],
                              undertrump=pos["variants"][0]["undertrump"])
        variants = [plain,
                    naive.Options(**{**plain.__dict__, "trick_roem": False}),
                    naive.Options(**{**plain.__dict__, "hand_roem": False}),
                    naive.Options(**{**plain.__dict__, "pit_bonus": 0})]
        res = naive.solve_many(pos["deal"], pos["trump"], pos["first"], variants,
                               pos["played"])
        made += res[0]["score"] > 0
        nat += res[0]["score"] <= 0
        roem_matters += res[0]["points"] != res[1]["points"]
        hand_roem_matters += res[0]["score"] != res[2]["score"]
        pit += res[0]["score"] != res[3]["score"]
    assert min(made, nat, roem_matters, hand_roem_matters, pit) >= 3, \
        (made, nat, roem_matters, hand_roem_matters, pit)


# ------------------------------------------------------------------------- legal cards
def compare_legal_tree(hands: dict, trump: str, first: str, rules: dict) -> int:
    """Walk every line of play; at each node the library's legal cards must equal the
    reference's.  Returns the number of distinct nodes compared."""
    opts = naive.Options(**rules)
    seen = set()

    def walk(lib: Position, ref: naive.State):
        key = (tuple(int(h) for h in lib.hands), tuple(int(c) for c in lib.trick[:lib.tlen]),
               lib.leader)
        if key in seen:
            return
        seen.add(key)
        got = sorted(card_str(c) for c in lib.legal())
        want = sorted(ref.legal(trump, opts)) if not ref.over() else []
        assert got == want, (f"deal={naive.to_pbn(hands)!r} trump={trump!r} first={first!r} "
                             f"rules={rules!r} played={[card_str(c) for c in lib.played]!r}: "
                             f"expected {want}, got {got}")
        for card in want:
            child = lib.copy()
            child.play(parse_card(card))
            walk(child, ref.after(card, trump))

    walk(Position(naive.to_pbn(hands), trump, first, rules), naive.start_state(hands, first))
    return len(seen)


@pytest.mark.parametrize("index", range(48))
def test_legal_cards_every_node(index):
    rng = np.random.default_rng([77, index])
    hands = random_hands(rng, 3)
    trump = str(rng.choice(list(naive.SUITS)))
    first = str(rng.choice(list(naive.SEATS)))
    tr, ut = LEGAL_COMBOS[index % 4]
    assert compare_legal_tree(hands, trump, first, {"trump_rule": tr, "undertrump": ut}) > 4


@pytest.mark.parametrize("index", range(12))
def test_legal_cards_full_deal_prefixes(index):
    """Along random lines through full 8-card deals, the public legal_cards equals the
    reference at every card."""
    rng = np.random.default_rng([78, index])
    hands = random_hands(rng, 8)
    trump = str(rng.choice(list(naive.SUITS)))
    first = str(rng.choice(list(naive.SEATS)))
    tr, ut = LEGAL_COMBOS[index % 4]
    rules = {"trump_rule": tr, "undertrump": ut}
    opts = naive.Options(**rules)
    pbn = naive.to_pbn(hands)
    state = naive.start_state(hands, first)
    played = []
    while True:
        want = [] if state.over() else sorted(state.legal(trump, opts))
        got = sorted(legal_cards(pbn, trump, first, rules=rules, played=played))
        assert got == want, f"deal={pbn!r} trump={trump!r} first={first!r} " \
                            f"rules={rules!r} played={played!r}"
        if not want:
            break
        card = str(rng.choice(want))
        played.append(card)
        state = state.after(card, trump)
    assert len(played) == 32


# ------------------------------------------------------------------------- hand roem
def planted_hands(rng: np.random.Generator) -> dict:
    """8-card hands that often hold fours of a kind, long runs, runs through a four of a
    kind, and equal best melds in two hands (so rules 13-15 and their ties all come up)."""
    deck = list(ALL_CARDS)
    hands = {s: [] for s in naive.SEATS}
    for seat in naive.SEATS:
        roll = rng.random()
        if roll < 0.3:                                     # a four of a kind
            r = str(rng.choice(list(naive.NATURAL_ORDER)))
            want = [s + r for s in naive.SUITS]
        elif roll < 0.75:                                  # a run of 3 to 7
            length = int(rng.integers(3, 8))
            s = str(rng.choice(list(naive.SUITS)))
            lo = int(rng.integers(0, 8 - length + 1))
            want = [s + r for r in naive.NATURAL_ORDER[lo:lo + length]]
        else:
            want = []
        for c in want:
            if c in deck and len(hands[seat]) < 8:
                hands[seat].append(c)
                deck.remove(c)
    rng.shuffle(deck)
    for seat in naive.SEATS:
        while len(hands[seat]) < 8:
            hands[seat].append(deck.pop())
    return hands


@pytest.mark.parametrize("chunk", range(8))
def test_hand_roem_matches_reference(chunk):
    rng = np.random.default_rng([79, chunk])
    nonzero = 0
    for _ in range(100):
        k = int(rng.choice([8, 8, 8, 6, 5, 4, 3]))
        if k == 8:
            hands = planted_hands(rng)
        else:
            hands = random_hands(rng, k)
        trump = str(rng.choice(list(naive.SUITS)))
        first = str(rng.choice(list(naive.SEATS)))
        long_runs = bool(rng.random() < 0.5)
        pbn = naive.to_pbn(hands)
        want = naive.hand_roem(hands, trump, first, long_runs)
        got = hand_roem(pbn, trump, first, rules=Rules(long_runs_100=long_runs))
        assert tuple(got) == want, f"deal={pbn!r} trump={trump!r} first={first!r} " \
                                   f"long_runs_100={long_runs}"
        assert hand_roem(pbn, trump, first, rules=Rules(hand_roem=False)) == (0, 0)
        nonzero += want != (0, 0)
    assert nonzero >= 30


# ------------------------------------------------------------------------- the reference itself
DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")


def small_golden_cases() -> list:
    out = []
    for name in ("solve_small", "solve_small_undertrump"):
        with open(os.path.join(DATA, name + ".jsonl"), encoding="utf-8") as f:
            for no, line in enumerate(f, start=1):
                case = json.loads(line)
                size = len(naive.parse_pbn(case["deal"])["N"])
                if 4 * size - len(case["played"]) <= 12:       # at most 3 cards a hand left
                    out.append(pytest.param(case, id=f"{name}:{no}"))
    return out


@pytest.mark.parametrize("case", small_golden_cases())
def test_reference_matches_golden(case):
    """The reference reproduces the independent golden values it can reach quickly, so a
    disagreement above points at the solver, not at the reference."""
    res = naive.solve(case["deal"], case["trump"], case["first"], case["rules"],
                      case["played"])
    assert (res["score"], res["points"]) == (case["score"], case["points"])
    if "card_values" in case:
        assert {c: v[0] for c, v in res["card_values"].items()} == case["card_values"]
