"""Tests of kraken_solver.playerview.layouts: the layouts consistent with what a seat knows.

The counts and the layouts themselves are checked against a brute force over every way to
deal the unseen cards (``observed.brute_layouts``, on the reference rules of ``naive.py``),
on random part-played deals under every rules variant; the sampler for uniformity and its
seeded stream (the one ``kraken-advise`` has always drawn); and the errors for observations
that cannot happen.
"""

from __future__ import annotations

import json
import math
import os
import random
from collections import Counter

import naive
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from observed import brute_layouts, layout_key, random_position

from kraken_solver import Deal, hand_roem
from kraken_solver.dealing.seeded import generate_deals, seeded_permutations
from kraken_solver.errors import DealError, IllegalCardError, KrakenError
from kraken_solver.game.cards import SEATS, card_str, cards_of, popcount
from kraken_solver.game.roem import hand_roem_masks
from kraken_solver.game.rules import Rules
from kraken_solver.notation.partial import PartialDeal, parse_partial_pbn
from kraken_solver.playerview.advise import parse_hand, parse_known, sample_deals
from kraken_solver.playerview.layouts import Layouts
from kraken_solver.playerview.observation import ObservationError, declared_roem, observe

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
VARIANTS = [
    {},
    {"trump_rule": "amsterdam"},
    {"undertrump": "forced"},
    {"trump_rule": "amsterdam", "undertrump": "forced", "hand_roem": False},
    {"hand_roem": False, "long_runs_100": True},
]


def as_cards(hands) -> tuple:
    return tuple(frozenset(card_str(c) for c in cards_of(h)) for h in hands)


# ------------------------------------------------------------------------------ rules 8-9a
def _pairwise_case(data_seed):
    rng = random.Random(data_seed)
    trump = rng.choice("SHDC")
    deck = [s + r for s in "SHDC" for r in naive.NATURAL_ORDER]
    cards = rng.sample(deck, 12)
    tlen = rng.randint(1, 3)
    leader = rng.choice(SEATS)
    trick = [(naive.next_seat(leader, i), cards[i]) for i in range(tlen)]
    seat = naive.next_seat(leader, tlen)
    hand = cards[tlen:tlen + rng.randint(1, 8)]
    return trump, trick, seat, hand


@settings(max_examples=400)
@given(st.integers(0, 2**32 - 1), st.sampled_from(["rotterdam", "amsterdam"]),
       st.sampled_from(["forbidden", "forced"]))
def test_a_card_is_legal_exactly_when_it_is_legal_beside_each_other_card(seed, rule, under):
    # the ground of Observation's inferences: each play rules out a set of cards
    trump, trick, seat, hand = _pairwise_case(seed)
    legal = naive.legal_cards(hand, trick, seat, trump, rule, under)
    for c in hand:
        pairwise = all(c in naive.legal_cards([c, x], trick, seat, trump, rule, under)
                       for x in hand if x != c)
        assert (c in legal) == pairwise, (trump, trick, seat, hand, c)


# ------------------------------------------------------------------------------ counting
def _observation(pbn, trump, first, options, played, declared=None):
    return observe(pbn, trump, first, rules=Rules.from_dict(options), played=played,
                   declared=declared)


CASES = []
for _i in range(24):
    _rng = random.Random(1000 + _i)
    _opts = VARIANTS[_i % len(VARIANTS)]
    if _i % 3 == 0:
        _pos = random_position(_rng, size=3, left=_rng.randint(1, 2), extra=_rng.randint(0, 3),
                               options=_opts)
    else:
        _pos = random_position(_rng, size=8, left=_rng.choice([2, 3]),
                               extra=_rng.randint(0, 3), options=_opts)
    CASES.append(pytest.param(_pos, _opts, id=f"case{_i}"))


@pytest.mark.parametrize("pos, options", CASES)
def test_layouts_equal_a_brute_force(pos, options):
    pbn, trump, first, played = pos
    lay = Layouts(_observation(pbn, trump, first, options, played))
    want = {layout_key(x) for x in brute_layouts(pbn, trump, first, options, played)}
    got = [as_cards(h) for h in lay.enumerate()]
    assert len(got) == len(set(got)), "a layout enumerated twice"
    assert set(got) == want
    assert lay.count() == len(want)
    # before the roem test: the same brute force with the roem of each layout declared
    every = {layout_key(x) for x in brute_layouts(pbn, trump, first, {**options,
                                                                        "hand_roem": False},
                                                  played)}
    assert lay.count_plays() == len(every)
    for h in lay.draws(3, 0, 40):
        assert as_cards(h) in every
        assert lay.is_consistent(h) == (as_cards(h) in want)


def test_golden_layout_counts():
    # the single_dummy files' layout counts (an independent brute force) and seats
    for name in ("single_dummy_2", "single_dummy_3"):
        with open(os.path.join(DATA, name + ".jsonl"), encoding="utf-8") as f:
            for line in f:
                c = json.loads(line)
                obs = _observation(c["deal"], c["trump"], c["first"], c["rules"], c["played"])
                assert SEATS[obs.seat] == c["seat"]
                assert Layouts(obs).count() == c["layouts"], c


def test_first_lead_count_is_the_multinomial():
    deal = generate_deals(4, 0, 1)[0]
    obs = observe(PartialDeal((deal.hands[0], None, None, None), 8), "H", "N",
                  declared=hand_roem(deal, "H", "N"))
    assert Layouts(obs).count_plays() == 9465511770          # 24! / (8!)^3
    with pytest.raises(KrakenError, match="too many layouts"):
        Layouts(obs).count()


def test_declared_roem_equals_hand_roem():
    rng = np.random.default_rng(5)
    for i in range(3000):
        perm = rng.permutation(32)
        hands = tuple(int(sum(1 << int(c) for c in perm[8 * k:8 * k + 8])) for k in range(4))
        trump, first = i % 4, (i // 4) % 4
        rules = Rules(long_runs_100=bool(i % 2))
        assert declared_roem(hands, trump, first, rules) == \
            hand_roem_masks(hands, trump, first, rules)
    with open(os.path.join(DATA, "hand_roem.jsonl"), encoding="utf-8") as f:
        for line in f:
            c = json.loads(line)
            d = Deal.from_pbn(c["deal"])
            rules = Rules.from_dict(c.get("rules", {}))
            assert list(declared_roem(d.hands, "SHDC".index(c["trump"]),
                                      SEATS.index(c["first"]), rules)) == c["hand_roem"]


# ------------------------------------------------------------------------------ sampling
def _golden(name, number):
    with open(os.path.join(DATA, name + ".jsonl"), encoding="utf-8") as f:
        return json.loads(f.readlines()[number - 1])


def _chi2_ok(counts, n, cells):
    """Pearson's statistic of ``counts`` (a Counter over ``cells`` equally likely cells)
    below its mean + 6 standard deviations (about 1e-7 false alarm: a fixed seed decides)."""
    e = n / cells
    stat = sum((counts.get(k, 0) - e) ** 2 / e for k in range(cells))
    df = cells - 1
    return stat < df + 6 * (2 * df) ** 0.5, stat


def test_sampler_is_uniform_with_voids_and_the_roem_test():
    c = _golden("single_dummy_3", 2)          # 41 layouts, hand roem on
    lay = Layouts(_observation(c["deal"], c["trump"], c["first"], c["rules"], c["played"]))
    every = list(lay.enumerate())
    assert len(every) == c["layouts"] == 41 and lay.count_plays() > 41
    index = {h: i for i, h in enumerate(every)}
    n = 10_000                                # about 240 a layout
    draws = lay.sample(n, 11)
    ok, stat = _chi2_ok(Counter(index[h] for h in draws), n, len(every))
    assert ok, stat
    # before the roem test: uniform over what the plays allow
    allowed = {h: i for i, h in enumerate(Layouts(_observation(
        c["deal"], c["trump"], c["first"], {**c["rules"], "hand_roem": False},
        c["played"])).enumerate())}
    raw = lay.draws(12, 0, n)
    ok, stat = _chi2_ok(Counter(allowed[h] for h in raw), n, len(allowed))
    assert ok, stat


def test_draws_are_seeded_and_random_access():
    c = _golden("single_dummy_3", 20)
    lay = Layouts(_observation(c["deal"], c["trump"], c["first"], c["rules"], c["played"]))
    a = lay.draws(5, 0, 150)
    assert lay.draws(5, 130, 150) == a[130:]
    assert lay.draws(5, 0, 7) == a[:7]
    assert lay.draws(6, 0, 150) != a
    assert lay.sample(30, 5) == [h for h in a if lay.roem_ok(h)][:30]
    with pytest.raises(KrakenError, match="seed"):
        lay.draws(-1, 0, 3)
    with pytest.raises(KrakenError, match="range"):
        lay.draws(1, 5, 3)


def _advise_stream_before(known, seed, start, stop):
    """kraken-advise's sampling as it was written before layouts.py (its own copy here):
    a permutation of the unknown cards cut in seat order."""
    taken = known[0] | known[1] | known[2] | known[3]
    pool = np.array([c for c in range(32) if not taken >> c & 1], dtype=np.int64)
    need = [8 - popcount(k) for k in known]
    out = []
    for perm in seeded_permutations(seed, pool, start, stop):
        hands, at = list(known), 0
        for s in range(4):
            for c in perm[at:at + need[s]]:
                hands[s] |= 1 << int(c)
            at += need[s]
        out.append(Deal(tuple(hands)))
    return out


@pytest.mark.parametrize("seat, known", [(0, []), (1, ["N:DJ"]), (3, ["E:HA,HQ", "S:SK"]),
                                         (2, ["N:SK,SQ,ST,S8,S7,HA,HQ,HJ"])])
def test_advise_samples_the_stream_it_always_drew(seat, known):
    m = parse_hand("AJ9.K7.T8.A")
    k = parse_known(known, seat, m)
    for seed in (0, 1, 7):
        assert sample_deals(k, seed, 0, 130) == _advise_stream_before(k, seed, 0, 130)
        assert sample_deals(k, seed, 70, 75) == _advise_stream_before(k, seed, 70, 75)


# ------------------------------------------------------------------------------ deals with -
def test_partial_pbn():
    d, seat = parse_partial_pbn("E:- AJ9.K7.T8.A - -")
    assert isinstance(d, PartialDeal) and seat == 1 and d.size == 8
    assert d.hidden == (0, 1, 3) and d.hands[2] == parse_hand("AJ9.K7.T8.A")
    assert str(d) == "N:- - AJ9.K7.T8.A -"
    assert parse_partial_pbn(str(d))[0] == d
    full, _ = parse_partial_pbn("N:A.K.Q.J K.Q.J.A Q.J.A.K J.A.K.Q")
    assert isinstance(full, Deal)
    for text, col, what in [("N:AJ9.K7.T8.A - -", 1, "four hands"),
                            ("N:AJ9.K7.T8.A - X.K.Q.J -", 17, "rank"),
                            ("N:AJ9.K7.T8.A - AJ.K.Q.J -", 17, "twice"),
                            ("N:AJ9.K7.T8.A - K.Q.J.T -", 17, "unequal"),
                            ("N:- - - -", 1, "every hand is hidden"),
                            # case folding is ASCII only: no letter becomes a card or a seat
                            ("N:AJ9.K7.T8.A - \u017f.K.Q.J -", 17, "rank"),
                            ("\u017f:AJ9.K7.T8.A - - -", 1, "seat")]:
        with pytest.raises(DealError, match=what) as info:
            parse_partial_pbn(text)
        assert info.value.column == col, (text, info.value.column)


# ------------------------------------------------------------------------------ errors
# N holds S A K Q J, H A K, D A, C A; clubs trump, no hand roem: N leads every trick below
HIDDEN = "N:AKQJ.AK.A.A - - -"


def _observe(played, **kw):
    return observe(HIDDEN, "C", "N", rules=kw.pop("rules", "klaverjas-rotterdam"),
                   played=played.split(), **kw)


def test_a_play_no_layout_makes_legal():
    # E shows out of spades (and, discarding a heart, has no trump) at card 2, yet plays a
    # spade at card 6: E held S9 at card 2, so H7 was not legal
    with pytest.raises(ObservationError) as e:
        _observe("SA H7 S8 S7 HA S9 H9 H8")
    assert "no layout makes E's H7 (card 2) legal" in str(e.value)
    assert "S9 (played at card 6)" in str(e.value)
    assert e.value.column == 2 and e.value.token == "H7"


def test_hand_sizes_that_cannot_add_up_are_explained():
    # E: no S and no C (card 2), no H (card 6): only diamonds; after trick 3 three unseen
    # diamonds are left for E's five cards
    with pytest.raises(ObservationError, match="E must still hold 5 unseen cards but the play "
                                               "leaves it only 3") as e:
        Layouts(_observe("SA H7 S8 S7 HA D7 H8 H9 DA D8 D9 DT"))
    assert "E: card 2 (H7): no S, no C (trump); card 6 (D7): no H" in str(e.value)
    # one trick fewer: exactly six diamonds for E's six cards, one layout for E
    obs = _observe("SA H7 S8 S7 HA D7 H8 H9")
    lay = Layouts(obs)
    assert lay.count_plays() == math.comb(12, 6)     # S and W share the other 12 unseen cards
    assert all(h[1] >> 16 & 0xFF == 0x7F for h in lay.draws(0, 0, 20))   # E: D7 to DK


def test_bad_play_records():
    with pytest.raises(ObservationError, match="E played HA, which is in N's hand") as e:
        _observe("SA HA")
    assert e.value.column == 2
    with pytest.raises(ObservationError, match="S7 was already played") as e:
        _observe("SA S7 S8 S7")
    assert e.value.column == 4
    with pytest.raises(IllegalCardError, match="N played S7, which is not in N's hand") as e:
        _observe("S7")
    assert e.value.column == 1
    with pytest.raises(IllegalCardError, match="N may not play HA here") as e:
        observe(HIDDEN, "C", "W", rules="klaverjas-rotterdam", played=["S7", "HA"])
    assert e.value.column == 2
    with pytest.raises(IllegalCardError, match="not in this deal"):
        observe("N:A.K.Q.J K.Q.J.A Q.J.A.K J.A.K.Q", "S", "N", played=["S7"])


def test_declared_roem_no_layout_gives():
    # N holds the four aces (100, the best meld any hand can have here): the defenders can
    # never score melds, so 200 for them is impossible; no draw finds it
    lay = Layouts(_observe("", rules="kraken", declared=(100, 200)))
    assert lay.count_plays() == 9465511770
    with pytest.raises(ObservationError, match="no layout found that gives the declared hand "
                                               "roem .N-S 100, E-W 200. in 3,000 draws"):
        lay.sample(1, 0, max_draws=3000)
    # a small position: none of its layouts gives the declared roem
    c = _golden("single_dummy_3", 2)
    seat = SEATS.index(c["seat"])
    hidden = PartialDeal(tuple(h if s == seat else None
                               for s, h in enumerate(Deal.from_pbn(c["deal"]).hands)), 8)
    obs = _observation(hidden, c["trump"], c["first"], c["rules"], c["played"],
                       declared=(300, 300))
    from kraken_solver.playerview.hint import choose_layouts
    with pytest.raises(ObservationError, match="no layout gives the declared hand roem"):
        choose_layouts(Layouts(obs), samples=None, seed=0, exact_limit=None)


def test_a_declaration_the_given_hands_rule_out_is_named():
    """S holding the trump stuk with [Declared "0 0"] was "impossible or too rare to
    sample" after 20,000 draws: the stuk always scores 20 for its team (rule 16), and a
    given hand's best meld is scored by its team or beaten by the other's (rules 14-15)."""
    from kraken_solver.playerview.observation import DeclaredRoemError
    with pytest.raises(DeclaredRoemError, match=r"S holds the stuk \(HK HQ, rule 16\), so N-S "
                                                r"\(the playing team\) declared at least 20"):
        observe("S:7.KQ9.JT8.7 - - -", "H", "S", declared=(0, 0))
    with pytest.raises(DeclaredRoemError, match=r"so E-W \(the defenders\) declared at least"):
        observe("N:- 7.KQ9.JT8.7 - -", "H", "N", played=["SA"], declared=(50, 0))
    with pytest.raises(DeclaredRoemError, match="S holds a meld of 50 .* at least 50 together"):
        observe("S:AKQJ.7.8.78 - - -", "H", "S", declared=(20, 0))
    with pytest.raises(DeclaredRoemError, match="at least 70 together .with the stuk's 20."):
        observe("S:AKQJ.KQ.8.7 - - -", "H", "S", declared=(20, 40))
    assert observe("S:7.KQ9.JT8.7 - - -", "H", "S", declared=(20, 0)).declared == (20, 0)
    assert observe("S:AKQJ.7.8.78 - - -", "H", "S", declared=(0, 100)).declared == (0, 100)
    # sound: what four dealt hands declare is never ruled out by any one of them
    # (the first player's hand given, alone or with one other)
    for i, deal in enumerate(generate_deals(7, 0, 300)):
        trump, first = i % 4, (i // 4) % 4
        declared = hand_roem(deal, trump, first)
        for seat in range(4):
            hands = tuple(h if s in (first, seat) else None for s, h in enumerate(deal.hands))
            observe(PartialDeal(hands, 8), trump, first, declared=declared)


def test_hidden_hands_need_what_was_declared():
    with pytest.raises(KrakenError, match="declared"):
        observe("N:AJ9.K7.T8.A - - -", "H", "N")
    obs = observe("N:AJ9.K7.T8.A - - -", "H", "N", rules="klaverjas-rotterdam")
    assert not obs.roem_test
    with pytest.raises(KrakenError, match="off"):
        observe("N:AJ9.K7.T8.A - - -", "H", "N", rules="klaverjas-rotterdam",
                declared=(20, 0))
    for bad in [(15, 0), (-10, 0), (20,), "20 0", (20, 2000), (20.0, 0)]:
        with pytest.raises(KrakenError, match="declared hand roem"):
            observe("N:AJ9.K7.T8.A - - -", "H", "N", declared=bad)
    with pytest.raises(DealError, match="hand of the player to move, E, is hidden"):
        observe("N:AJ9.K7.T8.A - - -", "H", "N", declared=(0, 0), played=["SA"])
    with pytest.raises(DealError, match="full deal"):
        observe("N:AJ.K.. - - -", "H", "N", declared=(0, 0))
    deal = generate_deals(3, 0, 1)[0]
    hr = hand_roem(deal, "S", "N")
    with pytest.raises(ObservationError, match="not what the given hands declare"):
        observe(deal, "S", "N", declared=(hr[0] + 10, hr[1]))
