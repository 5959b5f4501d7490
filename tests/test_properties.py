"""Properties of the solver that must hold on every position (Hypothesis).

The ``ci`` profile of conftest.py makes the examples the same on every run (derandomize);
each test sets its own ``max_examples`` so that this file runs in well under a minute
(``KRAKEN_EXAMPLES_SCALE`` multiplies them for a longer search).
Positions hold 3 to 5 cards a hand (a few tests use full 8-card deals), and are sometimes
played part-way by random legal cards, possibly ending inside a trick.
"""

from __future__ import annotations

import dataclasses
import os

import naive
from hypothesis import given, settings
from hypothesis import strategies as st

from kraken_solver import Deal, Rules, card_str, hand_roem, parse_card, solve
from kraken_solver.engine.solver import Searcher
from kraken_solver.game.position import Position
from kraken_solver.kernels import table

SUITS = "SHDC"
SEATS = "NESW"

#: KRAKEN_EXAMPLES_SCALE=20 multiplies every max_examples below (for a long local bug hunt,
#: best with HYPOTHESIS_PROFILE=dev so that the examples are new ones).
SCALE = float(os.environ.get("KRAKEN_EXAMPLES_SCALE", "1"))


def examples(n: int) -> int:
    return max(1, int(n * SCALE))

rules_strategy = st.builds(
    Rules,
    trump_rule=st.sampled_from(["rotterdam", "amsterdam"]),
    undertrump=st.sampled_from(["forbidden", "forced"]),
    trick_roem=st.booleans(),
    hand_roem=st.booleans(),
    double_spades=st.booleans(),
    multiplier=st.sampled_from([1, 2, 4, 8]),
    pit_bonus=st.sampled_from([0, 100]) | st.integers(0, 300),
    long_runs_100=st.booleans(),
)


@st.composite
def positions(draw, min_k=3, max_k=5, rules=rules_strategy, max_tricks_played=None):
    """A dict(deal, trump, first, rules, played) with k cards a hand; ``played`` is a random
    legal line from the first lead, ending anywhere before the end of the deal."""
    k = draw(st.integers(min_k, max_k))
    order = draw(st.permutations(range(32)))
    deal = Deal(tuple(sum(1 << c for c in order[i * k:(i + 1) * k]) for i in range(4)))
    trump = draw(st.integers(0, 3))
    first = draw(st.integers(0, 3))
    r = draw(rules)
    most = 4 * k - 1 if max_tricks_played is None else 4 * max_tricks_played + 3
    # half the time within the first trick, where the trees are largest
    n = draw(st.one_of(st.integers(0, min(3, most)), st.integers(0, most)))
    pos = Position(deal, trump, first, r)
    played = []
    for _ in range(n):
        card = draw(st.sampled_from(pos.legal()))
        pos.play(card)
        played.append(card_str(card))
    return {"deal": deal, "trump": trump, "first": first, "rules": r, "played": played}


def repro(p: dict) -> str:
    return (f"deal={str(p['deal'])!r} trump={SUITS[p['trump']]!r} first={SEATS[p['first']]!r} "
            f"rules={p['rules'].to_dict()!r} played={p['played']!r}")


def values(p: dict, searcher=None, **changes) -> tuple:
    """(score, score card values, points, points card values) of position ``p`` with some of
    its fields replaced."""
    q = {**p, **changes}
    kw = dict(rules=q["rules"], played=q["played"], all_cards=True, pv=False,
              searcher=searcher)
    s = solve(q["deal"], q["trump"], q["first"], objective="score", **kw)
    t = solve(q["deal"], q["trump"], q["first"], objective="points", **kw)
    return s.value, s.card_values, t.value, t.card_values


def naive_hands(deal: Deal) -> dict:
    return naive.parse_pbn(str(deal))


def total_card_points(deal: Deal, trump: int, rules: Rules) -> int:
    """C of SOLVER-NOTES.md: every card's points plus the last trick's 10 (doubled under
    double spades with spades trump), computed with the reference's tables."""
    t = SUITS[trump]
    cards = [c for h in naive_hands(deal).values() for c in h]
    return (sum(naive.card_points(c, t, rules.double_spades) for c in cards)
            + naive.last_trick_bonus(t, rules.double_spades))


# ----------------------------------------------------------------------- symmetries
@settings(max_examples=examples(150))
@given(p=positions(), turn=st.integers(1, 3))
def test_rotating_the_seats_changes_nothing(p, turn):
    """Every hand and the first player move ``turn`` seats; the cards played stay."""
    rotated = values(p, deal=p["deal"].rotated(turn), first=(p["first"] + turn) % 4)
    assert rotated == values(p), f"{repro(p)} turn={turn}"


@settings(max_examples=examples(4))
@given(p=positions(min_k=8, max_k=8, max_tricks_played=1), turn=st.integers(1, 3))
def test_rotating_a_full_deal_changes_nothing(p, turn):
    a = solve(p["deal"], p["trump"], p["first"], rules=p["rules"], played=p["played"],
              pv=False)
    b = solve(p["deal"].rotated(turn), p["trump"], (p["first"] + turn) % 4, rules=p["rules"],
              played=p["played"], pv=False)
    assert a.value == b.value, f"{repro(p)} turn={turn}"


def relabel_card(card: str, perm: tuple) -> str:
    return SUITS[perm[SUITS.index(card[0])]] + card[1]


def relabel_deal(deal: Deal, perm: tuple) -> Deal:
    hands = []
    for h in deal.hands:
        m = 0
        for c in range(32):
            if h >> c & 1:
                m |= 1 << (perm[c >> 3] * 8 + (c & 7))
        hands.append(m)
    return Deal(tuple(hands))


@settings(max_examples=examples(150))
@given(p=positions(), perm=st.permutations(range(4)))
def test_relabelling_the_suits_changes_nothing(p, perm):
    """Renaming the suits (trump renamed with them) changes no value, provided hand roem is off
    (its ties look at the suit, rule 14) and double spades still applies exactly when it did
    (rule 5 looks at whether spades are trump; spades may otherwise take part)."""
    perm = tuple(perm)
    rules = dataclasses.replace(p["rules"], hand_roem=False)
    if (p["trump"] == 0) != (perm[p["trump"]] == 0):
        rules = dataclasses.replace(rules, double_spades=False)
    p = {**p, "rules": rules}
    renamed = values(p, deal=relabel_deal(p["deal"], perm), trump=perm[p["trump"]],
                     played=[relabel_card(c, perm) for c in p["played"]])
    s, s_cards, t, t_cards = values(p)
    back = {relabel_card(c, perm): v for c, v in s_cards.items()}
    back_t = {relabel_card(c, perm): v for c, v in t_cards.items()}
    assert renamed == (s, back, t, back_t), f"{repro(p)} perm={perm}"


# ----------------------------------------------------------------------- search internals
@settings(max_examples=examples(120))
@given(p=positions())
def test_transposition_table_changes_nothing(p):
    """Without a table, and with a 16-entry table that collides all the time, the values are
    those of the default searcher."""
    reference = values(p)
    assert values(p, searcher=Searcher(use_tt=False)) == reference, repro(p)
    assert values(p, searcher=Searcher(tt_bits=4)) == reference, repro(p)


@settings(max_examples=examples(120))
@given(p=positions())
def test_pruning_near_equivalent_cards_changes_nothing(p):
    """Without the pruning of near-equivalent cards (``kernels.ordering.prune_dominated_last``), with
    and without a table, the values are those of the default searcher."""
    reference = values(p)
    assert values(p, searcher=Searcher(near_cards=False)) == reference, repro(p)
    assert values(p, searcher=Searcher(near_cards=False, use_tt=False)) == reference, repro(p)


@settings(max_examples=examples(60))
@given(p=positions())
def test_prefetching_the_table_changes_nothing(p):
    """With the table's buckets prefetched at the fourth hand and without (``Searcher``'s
    ``prefetch``: only where the keys are worked out differs), the values and the node
    counts are the same: the same tree is searched."""
    on, off = Searcher(prefetch=True), Searcher(prefetch=False)
    assert values(p, searcher=on) == values(p, searcher=off), repro(p)
    assert on.nodes == off.nodes, repro(p)


@settings(max_examples=examples(40))
@given(ps=st.lists(positions(max_k=4), min_size=2, max_size=4))
def test_a_reused_searcher_gives_fresh_values(ps):
    """One Searcher solving several different deals in turn (its table keeps old entries)
    gives the values of a fresh searcher each time."""
    shared = Searcher()
    for p in ps:
        assert values(p, searcher=shared) == values(p, searcher=Searcher()), repro(p)
    for p in reversed(ps):
        assert values(p, searcher=shared) == values(p, searcher=Searcher()), repro(p)
    # the table generation (10 bits in an entry) wraps around after the first of these deals
    wrapping = Searcher()
    wrapping.gen = table.TT_GEN_LIMIT - 2
    for p in ps:
        assert values(p, searcher=wrapping) == values(p, searcher=Searcher()), repro(p)


# ----------------------------------------------------------------------- values and best cards
@settings(max_examples=examples(150))
@given(p=positions())
def test_card_values_and_best_cards(p):
    """Rule 26: the position's value is the best card value for the side to move (D
    maximises, O minimises); best_cards are exactly the cards of that value."""
    for objective in ("score", "points"):
        res = solve(p["deal"], p["trump"], p["first"], rules=p["rules"], played=p["played"],
                    objective=objective, all_cards=True, pv=False)
        assert res.card_values, repro(p)
        d_to_move = (res.to_move & 1) == (p["first"] & 1)
        best = max(res.card_values.values()) if d_to_move else min(res.card_values.values())
        assert res.value == best, f"{repro(p)} {objective}"
        assert sorted(res.best_cards) == sorted(c for c, v in res.card_values.items()
                                                if v == best)
        pos = Position(p["deal"], p["trump"], p["first"], p["rules"], p["played"])
        assert sorted(res.card_values) == sorted(card_str(c) for c in pos.legal())


def replay(p: dict, line: list) -> Position:
    pos = Position(p["deal"], p["trump"], p["first"], p["rules"], p["played"])
    for card in line:
        pos.play(parse_card(card))
    assert pos.over, f"{repro(p)} line={line}"
    return pos


@settings(max_examples=examples(120))
@given(p=positions())
def test_principal_variation_is_scored_like_the_rules_say(p):
    """Replay the pv to the end; its tricks, scored by the reference's own rules 7, 3-5 and
    10-11, must match the library's trick records; the card points of both teams add up to
    the deal's total; and the reference's final score of that line (rules 18-21) is the
    value."""
    trump = SUITS[p["trump"]]
    r = p["rules"]
    for objective in ("score", "points"):
        res = solve(p["deal"], p["trump"], p["first"], rules=r, played=p["played"],
                    objective=objective)
        pos = replay(p, res.pv)
        tricks = []
        for i, rec in enumerate(pos.tricks):
            seats = [SEATS[(rec.leader + j) % 4] for j in range(4)]
            trick = list(zip(seats, [card_str(c) for c in rec.cards]))
            tricks.append(trick)
            cards = [c for _, c in trick]
            pts = sum(naive.card_points(c, trump, r.double_spades) for c in cards)
            if i == len(pos.tricks) - 1:
                pts += naive.last_trick_bonus(trump, r.double_spades)
            assert SEATS[rec.winner] == naive.trick_winner(trick, trump), repro(p)
            assert rec.points == pts, repro(p)
            assert rec.roem == (naive.trick_roem(cards, trump) if r.trick_roem else 0)
        assert len(tricks) == p["deal"].size
        assert sum(rec.points for rec in pos.tricks) == total_card_points(p["deal"], p["trump"],
                                                                          r)
        hr_d, hr_o = hand_roem(p["deal"], p["trump"], p["first"], rules=r)
        final = naive.final_result(tricks, trump, SEATS[p["first"]], naive.Options(**r.to_dict()),
                                   hr_d, hr_o)
        assert final[objective] == res.value, f"{repro(p)} {objective} pv={res.pv}"
        assert pos.final_value(objective) == res.value
        if objective == "score":
            assert res.made == final["made"] == (res.value > 0)


@settings(max_examples=examples(200))
@given(p=positions())
def test_score_has_the_forms_of_solver_notes(p):
    """SOLVER-NOTES.md "Checks": made is exactly score > 0, and then score = m * M'; nat is
    -m * (C + HR_D + HR_O + T) with T the table's trick roem: T = 0 with trick roem off,
    else a multiple of 10 (every roem value of rule 10 is)."""
    r = p["rules"]
    m = r.multiplier
    res = solve(p["deal"], p["trump"], p["first"], rules=r, played=p["played"])
    hr = naive.hand_roem(naive_hands(p["deal"]), SUITS[p["trump"]], SEATS[p["first"]],
                         r.long_runs_100) if r.hand_roem else (0, 0)
    c = total_card_points(p["deal"], p["trump"], r)
    if res.value > 0:
        assert res.made and res.value % m == 0, repro(p)
    else:
        table_roem = -res.value // m - c - hr[0] - hr[1]
        assert -res.value % m == 0, repro(p)
        if r.trick_roem:
            assert table_roem >= 0 and table_roem % 10 == 0, repro(p)
        else:
            assert table_roem == 0, f"{repro(p)}: score {res.value}, C {c}, hand roem {hr}"


@settings(max_examples=examples(150))
@given(p=positions())
def test_points_stay_within_the_deal(p):
    """With trick roem off the playing team's points lie between what it already won and the
    deal's total card points; with roem on they are at least what it already won."""
    total = total_card_points(p["deal"], p["trump"], p["rules"])
    pos = Position(p["deal"], p["trump"], p["first"], p["rules"], p["played"])
    won = sum(t.points + t.roem for t in pos.tricks if (t.winner & 1) == (p["first"] & 1))
    no_roem = dataclasses.replace(p["rules"], trick_roem=False)
    v = solve(p["deal"], p["trump"], p["first"], rules=no_roem, played=p["played"],
              objective="points", pv=False).value
    lost = sum(t.points for t in pos.tricks if (t.winner & 1) != (p["first"] & 1))
    assert sum(t.points for t in pos.tricks if (t.winner & 1) == (p["first"] & 1)) <= v
    assert v <= total - lost, repro(p)
    w = solve(p["deal"], p["trump"], p["first"], rules=p["rules"], played=p["played"],
              objective="points", pv=False).value
    assert w >= won, repro(p)


# ----------------------------------------------------------------------- option relations
@settings(max_examples=examples(80))
@given(p=positions())
def test_multiplier_scales_the_score_and_only_the_score(p):
    """Rule 20: the multiplier multiplies everything and does not change who must make it."""
    base = values(p, rules=dataclasses.replace(p["rules"], multiplier=1))
    for m in (2, 4, 8):
        s, s_cards, t, t_cards = values(p, rules=dataclasses.replace(p["rules"], multiplier=m))
        assert s == m * base[0], f"{repro(p)} multiplier {m}"
        assert s_cards == {c: m * v for c, v in base[1].items()}
        assert (t, t_cards) == base[2:]


@settings(max_examples=examples(80))
@given(p=positions(), low=st.integers(0, 150), extra=st.integers(0, 150))
def test_a_bigger_pit_bonus_never_hurts_and_points_ignore_it(p, low, extra):
    """Raising the pit bonus can only raise each finished line's score, so the minimax score
    cannot fall; the points objective (Dc + Dr) ignores pit bonus and hand roem."""
    a = values(p, rules=dataclasses.replace(p["rules"], pit_bonus=low))
    b = values(p, rules=dataclasses.replace(p["rules"], pit_bonus=low + extra))
    assert a[0] <= b[0], f"{repro(p)} pit {low} vs {low + extra}"
    assert all(a[1][c] <= b[1][c] for c in a[1])
    assert a[2:] == b[2:]
    c = values(p, rules=dataclasses.replace(p["rules"], hand_roem=not p["rules"].hand_roem))
    assert c[2:] == a[2:], repro(p)
