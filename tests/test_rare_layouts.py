"""Layouts.sample_rare: layouts for a declared roem too rare for Layouts.sample (the PIMC bot's
fallback, which stopped matches between bots about once in 150 deals with "no layout found that
gives the declared hand roem ... in 20,000 draws").  Its layouts are consistent and give the
declared roem, they are uniform (chi-square against the enumerated layouts), its array test is
only a necessary one (it keeps every layout the exact test keeps), and the bot plays on."""

from __future__ import annotations

import numpy as np
import pytest

from kraken_solver.bots import make_bot, seat_view
from kraken_solver.game.deal import Deal
from kraken_solver.game.position import Position
from kraken_solver.game.rules import Rules
from kraken_solver.playerview.layouts import Layouts
from kraken_solver.playerview.observation import DeclaredRoemError, declared_roem, observe

#: found by search: from the first player's seat, the declared roem of these deals is given by
#: none of the hint sampler's first 20,000 draws
RARE = [("N:AJ.KJ.7.KQJ T.AQ7.AQ8.8 .T98.JT9.A9 KQ987..K.T7", "S", "E"),
        ("N:K8.T7.K.AK7 AQ.KQ9.Q.Q8 JT97.8.A87. .AJ.JT9.JT9", "S", "N"),
        ("N:AK98.Q9.9.9 Q7.K7.87.J7 J.AJ8..AKQ8 T.T.AKQJT.T", "S", "E")]


def _obs(deal, trump, first, played=()):
    pos = Position(deal, trump, first)
    dec = declared_roem(pos.deal.hands, pos.trump, pos.first, Rules())
    return observe(deal, trump, first, played=list(played), declared=dec)


@pytest.mark.parametrize("deal, trump, first", RARE)
def test_a_rare_declared_roem_is_sampled(deal, trump, first):
    lay = Layouts(_obs(deal, trump, first))
    with pytest.raises(DeclaredRoemError):
        lay.sample(20, 0)
    got = lay.sample_rare(20, 0)
    assert len(got) == 20 and all(lay.is_consistent(h) and lay.roem_ok(h) for h in got)
    assert got == lay.sample_rare(20, 0) and got != lay.sample_rare(20, 1)


def test_sample_rare_is_uniform_and_its_array_test_only_necessary():
    """A position of few layouts with a roem test: every consistent layout turns up, at the
    rate of a uniform draw (chi-square), and none that the exact test refuses."""
    rng = np.random.default_rng(3)
    for attempt in range(200):
        deck = rng.permutation(32)
        hands = tuple(int(sum(1 << int(c) for c in deck[8 * i:8 * i + 8])) for i in range(4))
        pos = Position(Deal(hands), "H", "N")
        for _ in range(19):
            pos.play(pos.legal()[int(rng.integers(len(pos.legal())))])
        dec = declared_roem(hands, pos.trump, pos.first, Rules())
        if dec == (0, 0):
            continue
        played = [c for c in pos.played]
        lay = Layouts(observe(pos.deal, "H", "N", played=played, declared=dec))
        every = list(lay.enumerate())
        if 20 <= len(every) <= 300:
            break
    else:
        pytest.fail("no position of 20 to 300 layouts found")
    n = 40 * len(every)
    got = lay.sample_rare(n, 5)
    index = {h: i for i, h in enumerate(every)}
    assert all(h in index for h in got)
    counts = np.bincount([index[h] for h in got], minlength=len(every))
    assert counts.min() > 0
    # chi-square against uniform; Wilson-Hilferty: z above 3.7 is p below 1e-4
    df = len(every) - 1
    stat = float(((counts - n / len(every)) ** 2 / (n / len(every))).sum())
    z = ((stat / df) ** (1 / 3) - (1 - 2 / (9 * df))) / (2 / (9 * df)) ** 0.5
    assert z < 3.7, (stat, df, counts)


def test_the_pimc_bot_plays_on_a_rare_declared_roem():
    deal, trump, first = RARE[0]
    view = seat_view(deal, trump, first, played=[])
    card = make_bot("pimc:6", seed=1).choose_card(view)
    assert card in view.legal_cards()
