"""Tests of kraken_solver.playerview.hint: the value of each card from the player's own view.

Golden: every line of tests/data/single_dummy_{2,3}.jsonl (exact sums, made counts and layout
counts from an independent brute force), with the full deal and with the other hands hidden.
Against a brute force over naive.py (``observed.brute_hint``).  Sampling: means within a few
standard errors of the exact ones, seeds reproducible, the same for 1 or 2 workers and on a
Dask cluster, and the answer never depends on the hidden hands (no peeking).
"""

from __future__ import annotations

import json
import os
import random

import pytest
from observed import brute_hint, random_position

from kraken_solver import Deal, Position, hand_roem
from kraken_solver.dealing.seeded import generate_deals
from kraken_solver.errors import KrakenError
from kraken_solver.game.cards import SEATS
from kraken_solver.game.rules import Rules
from kraken_solver.notation.partial import PartialDeal
from kraken_solver.playerview.hint import (DEFAULT_SAMPLES, EXACT_LIMIT, choose_layouts, hint,
                                           layout_position)
from kraken_solver.playerview.layouts import Layouts
from kraken_solver.playerview.observation import observe

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")


def load(name):
    out = []
    with open(os.path.join(DATA, name + ".jsonl"), encoding="utf-8") as f:
        for no, line in enumerate(f, start=1):
            out.append(pytest.param(json.loads(line), id=f"{name}:{no}"))
    return out


GOLDEN = load("single_dummy_2") + load("single_dummy_3")


def hidden_deal(case) -> PartialDeal:
    """The case's deal with every hand but the player to move's hidden."""
    d = Deal.from_pbn(case["deal"])
    seat = SEATS.index(case["seat"])
    return PartialDeal(tuple(h if s == seat else None for s, h in enumerate(d.hands)), 8)


def declared_of(case):
    return hand_roem(case["deal"], case["trump"], case["first"], rules=case["rules"])


def check_golden(h, case):
    assert h.exact and h.layouts == case["layouts"] == h.consistent
    assert h.seat == case["seat"]
    assert list(h.cards) == sorted(case["cards"], key=list(h.cards).index)
    assert set(h.cards) == set(case["cards"])
    for j, (card, est) in enumerate(h.cards.items()):
        want = case["cards"][card]
        assert est.sum == want["sum"] and est.n == case["layouts"], card
        assert est.mean == want["sum"] / case["layouts"]
        assert abs(est.mean - want["mean"]) < 1e-9
        # the files' made: the layouts whose value of the line's objective is > 0 (for
        # objective score the P(made), checked against est.made too)
        assert int((h.values[:, j] > 0).sum()) == want["made"], card
        if case["objective"] == "score":
            assert est.made == want["made"] and est.p_made == want["made"] / case["layouts"]
        assert est.se == 0 and est.loss_se == 0
    top = (max if h.side == "playing team" else min)(e.sum for e in h.cards.values())
    assert h.best == [c for c, e in h.cards.items() if e.sum == top]


def test_golden_files_are_all_here():
    assert len(GOLDEN) == 60 + 20


@pytest.mark.parametrize("case", GOLDEN)
def test_golden_full_deal(case):
    h = hint(case["deal"], case["trump"], case["first"], rules=case["rules"],
             played=case["played"], objective=case["objective"], workers=1)
    check_golden(h, case)


@pytest.mark.parametrize("case", GOLDEN)
def test_golden_hidden_hands(case):
    rules = Rules.from_dict(case["rules"])
    h = hint(hidden_deal(case), case["trump"], case["first"], rules=rules,
             played=case["played"], objective=case["objective"],
             declared=declared_of(case) if rules.hand_roem else None, workers=1)
    check_golden(h, case)


# ------------------------------------------------------------------------------ reference
BRUTE = []
for _i in range(8):
    _rng = random.Random(500 + _i)
    _opts = [{}, {"trump_rule": "amsterdam"}, {"undertrump": "forced", "hand_roem": False},
             {"trick_roem": False}][_i % 4]
    _size = 8 if _i % 2 else 4
    BRUTE.append(pytest.param(random_position(_rng, size=_size, left=2 if _size == 8 else 3,
                                              extra=_rng.randint(0, 3), options=_opts),
                              _opts, ["score", "points"][_i % 2], id=f"brute{_i}"))


@pytest.mark.parametrize("pos, options, objective", BRUTE)
def test_hint_equals_a_brute_force(pos, options, objective):
    pbn, trump, first, played = pos
    n, sums = brute_hint(pbn, trump, first, options, played, objective)
    h = hint(pbn, trump, first, rules=options, played=played, objective=objective, workers=1)
    assert h.exact and h.layouts == n
    assert {c: (e.sum, e.made) for c, e in h.cards.items()} == sums


def test_layout_position_is_the_replayed_position():
    c = GOLDEN[3].values[0]
    obs = observe(c["deal"], c["trump"], c["first"], rules=c["rules"], played=c["played"])
    every = list(Layouts(obs).enumerate())
    template = Position(Deal(every[0]), c["trump"], c["first"], c["rules"], c["played"])
    gone = sum(1 << x for x in template.played)
    for hands in every:
        p = layout_position(template, hands, gone, (template.hr_d, template.hr_o))
        q = Position(Deal(hands), c["trump"], c["first"], c["rules"], c["played"])
        for name in ("deal", "trump", "first", "rules", "tlen", "leader", "flag_lost",
                     "past_margin", "past_roem", "past_dpoints", "hr_d", "hr_o",
                     "total_points", "played", "last_bonus", "dteam"):
            assert getattr(p, name) == getattr(q, name), name
        assert (p.hands == q.hands).all() and (p.trick == q.trick).all()
        assert [vars(t) for t in p.tricks] == [vars(t) for t in q.tricks]


# ------------------------------------------------------------------------------ no peeking
def _other_layout(case):
    """The case's deal with the hidden hands replaced by another consistent layout."""
    obs = observe(case["deal"], case["trump"], case["first"], rules=case["rules"],
                  played=case["played"])
    real = Deal.from_pbn(case["deal"]).hands
    other = next(h for h in Layouts(obs).enumerate() if h != real)
    return Deal(other)


@pytest.mark.parametrize("case", [p.values[0] for p in GOLDEN
                                  if p.values[0]["layouts"] >= 6][::10])
def test_no_peeking_exact(case):
    swapped = _other_layout(case)
    assert swapped != Deal.from_pbn(case["deal"])
    kw = dict(rules=case["rules"], played=case["played"], objective=case["objective"],
              workers=1)
    a = hint(case["deal"], case["trump"], case["first"], **kw)
    b = hint(swapped, case["trump"], case["first"], **kw)
    assert a.cards == b.cards and a.best == b.best and a.layouts == b.layouts
    assert (a.values == b.values).all()


def test_no_peeking_sampled_at_the_first_lead():
    deal = generate_deals(8, 0, 1)[0]
    obs = observe(deal, "D", "E", rules="kraken")
    other = Layouts(obs).sample(5, 99)[-1]
    assert Deal(other) != deal
    kw = dict(samples=6, seed=2, workers=1)
    a = hint(deal, "D", "E", **kw)
    b = hint(Deal(other), "D", "E", **kw)
    c = hint(PartialDeal((None, deal.hands[1], None, None), 8), "D", "E",
             declared=hand_roem(deal, "D", "E"), **kw)
    assert a.cards == b.cards == c.cards and a.layout_hands == b.layout_hands
    assert not a.exact and a.layouts == 6 and a.consistent is None


# ------------------------------------------------------------------------------ sampling
def test_sampled_means_are_within_a_few_standard_errors():
    case = GOLDEN[60].values[0]                    # single_dummy_3:1, 560 layouts, score
    assert case["layouts"] == 560 and case["objective"] == "score"
    kw = dict(rules=case["rules"], played=case["played"], workers=1)
    h = hint(case["deal"], case["trump"], case["first"], samples=300, seed=4, **kw)
    assert not h.exact and h.layouts == 300 and h.samples == 300
    for card, est in h.cards.items():
        exact = case["cards"][card]["mean"]
        assert est.se > 0
        assert abs(est.mean - exact) < 4 * est.se, (card, est.mean, exact, est.se)
        assert abs(est.p_made - case["cards"][card]["made"] / 560) < 0.15
    # exact_limit with samples: every layout when they number at most the limit
    e = hint(case["deal"], case["trump"], case["first"], samples=300, exact_limit=600, **kw)
    assert e.exact and e.layouts == 560


def test_seeds_are_reproducible():
    case = GOLDEN[79].values[0]
    kw = dict(rules=case["rules"], played=case["played"], samples=40, workers=1)
    a = hint(case["deal"], case["trump"], case["first"], seed=3, **kw)
    b = hint(case["deal"], case["trump"], case["first"], seed=3, **kw)
    c = hint(case["deal"], case["trump"], case["first"], seed=4, **kw)
    assert a.layout_hands == b.layout_hands and (a.values == b.values).all()
    assert a.cards == b.cards
    assert c.layout_hands != a.layout_hands


def _midgame():
    deal = generate_deals(11, 0, 1)[0]
    rng = random.Random(3)
    pos = Position(deal, "S", "W")
    for _ in range(9):
        pos.play(rng.choice(pos.legal()))
    from kraken_solver.game.cards import card_str
    return deal, [card_str(c) for c in pos.played]


def test_workers_1_and_2_give_the_same_hint():
    deal, played = _midgame()
    kw = dict(played=played, samples=60, seed=8, both=True)
    a = hint(deal, "S", "W", workers=1, **kw)
    b = hint(deal, "S", "W", workers=2, **kw)
    assert b.workers == 2 and a.workers == 1
    assert a.layout_hands == b.layout_hands
    assert (a.values == b.values).all() and (a.scores == b.scores).all()
    assert a.cards == b.cards
    assert all(e.mean_points is not None for e in a.cards.values())


def test_a_dask_cluster_gives_the_same_hint():
    pytest.importorskip("distributed")
    deal, played = _midgame()
    kw = dict(played=played, samples=30, seed=8)
    a = hint(deal, "S", "W", workers=1, **kw)
    b = hint(deal, "S", "W", scheduler="local:2", **kw)
    assert (a.values == b.values).all() and a.cards == b.cards


def test_auto_mode_counts_through_the_declared_roem():
    case = GOLDEN[61].values[0]                    # single_dummy_3:2: 41 of 700 layouts
    obs = observe(case["deal"], case["trump"], case["first"], rules=case["rules"],
                  played=case["played"])
    lay = Layouts(obs)
    assert lay.count_plays() == 700 and case["layouts"] == 41
    # limit 50: the draws find only 41 different layouts; enumerating settles it: exact
    chosen, exact, count, _ = choose_layouts(lay, samples=None, seed=0, exact_limit=50)
    assert exact and count == 41 and len(chosen) == 41
    # limit 30: more than 30 different layouts turn up: sampled, the count not needed
    chosen, exact, count, estimate = choose_layouts(lay, samples=None, seed=0, exact_limit=30)
    assert not exact and count is None and len(chosen) == DEFAULT_SAMPLES
    assert 20 < estimate < 70
    assert chosen == lay.sample(DEFAULT_SAMPLES, 0)
    assert EXACT_LIMIT == 2000


# ------------------------------------------------------------------------------ results
def test_the_defenders_best_is_the_lowest_mean():
    case = next(p.values[0] for p in GOLDEN
                if (SEATS.index(p.values[0]["seat"]) - SEATS.index(p.values[0]["first"])) % 2
                and len(set(v["sum"] for v in p.values[0]["cards"].values())) > 1)
    h = hint(case["deal"], case["trump"], case["first"], rules=case["rules"],
             played=case["played"], objective=case["objective"], workers=1)
    assert h.side == "defenders"
    low = min(e.mean for e in h.cards.values())
    assert all(h.cards[c].mean == low for c in h.best)
    for e in h.cards.values():
        assert e.loss == pytest.approx(e.mean - low) and e.loss >= 0
        assert e.min <= e.mean <= e.max
    d = h.to_dict()
    assert json.loads(json.dumps(d))["cards"].keys() == h.cards.keys()


@pytest.mark.parametrize("kw, what", [
    (dict(samples=0), "samples"), (dict(samples=2.5), "samples"), (dict(samples=10**7), "samples"),
    (dict(exact_limit=0), "exact_limit"), (dict(workers=0), "workers"),
    (dict(seed=-1), "seed"), (dict(seed="1"), "seed"), (dict(objective="tricks"), "objective"),
])
def test_bad_arguments(kw, what):
    with pytest.raises(KrakenError, match=what):
        hint("N:AJ9.K7.T8.A - - -", "H", "N", declared=(0, 0), **kw)


def test_hidden_hands_need_the_declared_roem():
    with pytest.raises(KrakenError, match="declared"):
        hint("N:AJ9.K7.T8.A - - -", "H", "N")
    with pytest.raises(KrakenError, match="trump"):
        hint("N:AJ9.K7.T8.A - - -", None, "N", declared=(0, 0))


def test_pit_counts_equal_the_pit_test_of_every_layout(monkeypatch):
    # the hint skips the pit test where a card's exact score rules a pit out: its counts are
    # still those of the test run for every card of every layout (small deals, where pits
    # are common; the pit test run everywhere through a pit_ruled_out that rules nothing out)
    from kraken_solver.engine import trumps
    from kraken_solver.game.cards import mask_of

    rng = random.Random(77)
    cases = []
    for _ in range(30):
        size = rng.randint(2, 3)
        perm = rng.sample(range(32), 4 * size)
        deal = Deal(tuple(mask_of(perm[k * size:(k + 1) * size]) for k in range(4)))
        trump, first = rng.randrange(4), rng.randrange(4)
        rules = Rules(pit_bonus=rng.choice([0, 100]), trick_roem=rng.random() < 0.5)
        pos = Position(deal, trump, first, rules)
        for _ in range(rng.randint(0, 4)):
            pos.play(rng.choice(pos.legal()))
        cases.append((deal, trump, first, rules, pos.played))

    def pit_counts():
        return [{c: e.pit for c, e in hint(deal, trump, first, rules=rules, played=played,
                                           workers=1).cards.items()}
                for deal, trump, first, rules, played in cases]

    skipping = pit_counts()
    monkeypatch.setattr(trumps, "pit_ruled_out", lambda pos, score: False)
    everywhere = pit_counts()
    assert skipping == everywhere
    assert sum(n for counts in everywhere for n in counts.values()) >= 10
