"""The computer players (kraken_solver.bots): views without hidden cards, legal play by every
bot, the one loop's scores against the score sheet, seeds that hang on the view only, the
cheater's double-dummy bound, the heuristic's documented rules, bad specs and failing bots."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import naive
from kraken_solver.bots import (SeatView, choose_and_play, make_bot, play_deal, seat_view,
                                trump_view)
from kraken_solver.dealing.seeded import generate_deals
from kraken_solver.errors import BotError, BotSpecError
from kraken_solver.game.cards import SEATS, SUITS, card_str, parse_card
from kraken_solver.game.deal import Deal
from kraken_solver.game.position import Position
from kraken_solver.game.rules import PRESETS
from kraken_solver.game.sheet import score_sheet

DEALS = generate_deals(41, 0, 40)


def test_view_holds_no_hidden_card():
    deal = DEALS[0]
    view = seat_view(deal, "H", "N", played=["SA"] if deal.hands[0] >> parse_card("SA") & 1
                     else [])
    fields = {f.name for f in dataclasses.fields(SeatView)}
    assert fields == {"seat", "hand", "holding", "played", "who", "trump", "first", "chooser",
                      "rules", "declared", "size", "cards", "legal"}
    # the only hand in it is the seat's own
    assert view.hand == deal.hands[view.seat]
    for other in range(4):
        if other != view.seat:
            assert deal.hands[other] not in (view.hand, view.holding)


@settings(max_examples=30)
@given(st.integers(0, len(DEALS) - 1), st.integers(0, 3), st.integers(0, 3),
       st.integers(0, 31), st.sampled_from(sorted(PRESETS)))
def test_view_legal_cards_are_the_positions(i, trump, first, k, preset):
    deal = DEALS[i]
    # a play of k random legal cards
    pos = Position(deal, trump, first, preset)
    bot = make_bot("random", seed=k)
    for _ in range(k):
        v = seat_view(deal, trump, first, pos.played, rules=preset)
        pos.play(bot.choose_card(v))
    view = seat_view(deal, trump, first, pos.played, rules=preset)
    assert list(view.legal) == pos.legal()
    hand = [card_str(c) for c in range(32) if pos.hands[pos.to_move] >> c & 1]
    n = pos.tlen
    trick = [(SEATS[(pos.leader + j) % 4], card_str(c))
             for j, c in enumerate(pos.played[len(pos.played) - n:] if n else [])]
    rules = PRESETS[preset]
    assert view.seat == pos.to_move and view.trick == tuple(parse_card(c) for _, c in trick)
    assert sorted(view.legal_cards()) == naive.legal_cards(
        hand, trick, SEATS[view.seat], SUITS[trump], rules.trump_rule, rules.undertrump)
    assert view.holding == int(pos.hands[pos.to_move])


@settings(max_examples=25)
@given(st.integers(0, len(DEALS) - 1), st.integers(0, 3), st.integers(0, 3),
       st.sampled_from(["random", "heuristic"]), st.sampled_from(["random", "heuristic"]),
       st.integers(0, 10**6), st.sampled_from(sorted(PRESETS)))
def test_cheap_bots_play_legal_cards_and_the_score_is_the_sheets(i, trump, first, ns, ew,
                                                                 seed, preset):
    deal = DEALS[i]
    played = play_deal(deal, trump, first, {"NS": ns, "EW": ew}, seed=seed, rules=preset)
    assert len(played.play) == 32 and len(set(played.play)) == 32
    # every card legal: the Position replays them (and raises on an illegal one)
    sheet = score_sheet(deal, trump, first, rules=preset, line=played.play)
    ns_team = sheet.playing if sheet.playing.team == "N-S" else sheet.defenders
    ew_team = sheet.defenders if ns_team is sheet.playing else sheet.playing
    assert played.score == {"NS": ns_team.final, "EW": ew_team.final}
    assert played.made == sheet.made and played.pit == sheet.pit
    assert played.value == sheet.score
    assert played.bots == {"N": ns, "S": ns, "E": ew, "W": ew}


def test_same_view_same_seed_same_card_for_random():
    deal = DEALS[1]
    view = seat_view(deal, "S", "E")
    a = make_bot("random", seed=5)
    cards = {make_bot("random", seed=5).choose_card(view) for _ in range(3)}
    assert cards == {a.choose_card(view)}
    # other seeds move the card somewhere: not a constant
    assert len({make_bot("random", seed=s).choose_card(view) for s in range(30)}) > 1


@pytest.mark.parametrize("spec, words", [
    ("pimc:0", "1 to 1,000"), ("pimc:100000", "1 to 1,000"), ("advise:-1", "1 to 10,000"),
    ("pimc", "pimc:N takes N layouts"), ("pimc:x", "whole number"),
    ("alphazero", "unknown bot; expected one of: random"), ("random:3", "takes no option"),
])
def test_bad_specs_are_one_line(spec, words):
    with pytest.raises(BotSpecError) as e:
        make_bot(spec)
    assert words in str(e.value) and "\n" not in str(e.value)


def test_spec_names_read_back():
    for spec in ("random", "heuristic", "dd", "pimc:20", "advise:50"):
        assert make_bot(make_bot(spec).name).name == spec
    assert "CHEATS" in make_bot("dd").label and "CHEATS" in make_bot("dd").description


def test_bad_bot_mappings():
    with pytest.raises(BotSpecError, match="no bot for E, W"):
        play_deal(DEALS[0], "S", "N", {"NS": "random"})
    with pytest.raises(BotSpecError, match="team NS or EW or a seat"):
        play_deal(DEALS[0], "S", "N", {"XX": "random"})
    with pytest.raises(BotSpecError, match="seed"):
        make_bot("random", seed=-1)


class Raising:
    name = "raiser"

    def choose_card(self, view):
        if len(view.played) == 5:
            raise RuntimeError("out of ideas")
        return view.legal_cards()[0]


class Illegal:
    name = "cheeky"

    def choose_card(self, view):
        if len(view.played) >= 5:
            return card_str(next(c for c in range(32) if c not in view.legal))
        return view.legal_cards()[0]


class NotACard:
    def choose_card(self, view):
        return "a card"


@pytest.mark.parametrize("bot, words", [
    (Raising(), "bot raiser at E raised RuntimeError: out of ideas"),
    (Illegal(), "which is not legal (legal: "),
    (NotACard(), "bot NotACard at E returned 'a card', which is not a card"),
])
def test_failing_custom_bot_is_a_bot_error_naming_it(bot, words):
    deal = DEALS[2]
    with pytest.raises(BotError) as e:
        play_deal(deal, "C", "N", {"NS": "heuristic", "E": bot, "W": bot})
    text = str(e.value)
    assert words in text and str(deal) in text and "\n" not in text
    assert "after" in text and "trump C, first N" in text


def test_trump_choice_through_bots():
    deal = DEALS[3]
    view = trump_view(deal, "W")
    assert view.hand == deal.hands[3] and view.first == 3
    for spec in ("random", "heuristic", "dd", "advise:4", "pimc:3"):
        played = choose_and_play(deal, "W", {"NS": "random", "EW": "random"},
                                 trump_bots={"NS": "random", "EW": spec}, seed=2)
        assert played.trump in SUITS and played.trump_bot == spec and played.chooser == "W"
    with pytest.raises(BotError, match="chooses no trump"):
        choose_and_play(deal, "W", {"NS": "random", "EW": "random"},
                        trump_bots={"NS": "random", "EW": Raising()})
    with pytest.raises(BotError, match="plays no card"):
        play_deal(deal, "S", "N", {"NS": "advise:3", "EW": "random"})


def test_small_deal():
    deal = Deal.from_pbn("N:AK... .AK.. ..AK. Q...Q")
    played = play_deal(deal, "S", "N", {"NS": "heuristic", "EW": "random"})
    assert len(played.play) == 8
