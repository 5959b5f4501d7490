"""The computer players (kraken_solver.bots): views without hidden cards, legal play by every
bot, the one loop's scores against the score sheet, seeds that hang on the view only, the
cheater's double-dummy bound, the heuristic's documented rules, bad specs and failing bots."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import naive
from kraken_solver.bots import (SeatView, TrumpView, choose_and_play, make_bot, play_deal,
                                seat_view, trump_view)
from kraken_solver.dealing.seeded import generate_deals
from kraken_solver.errors import BotError, BotSpecError, KrakenError
from kraken_solver.game.cards import SEATS, SUITS, card_str, mask_of, parse_card
from kraken_solver.game.choice import choose_by_rule
from kraken_solver.game.deal import Deal
from kraken_solver.game.position import Position
from kraken_solver.game.rules import PRESETS, Rules
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
       st.sampled_from(["random", "heuristic", "dd"]), st.sampled_from(["random", "heuristic"]),
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


# ----------------------------------------------------------------------------- heuristic
@pytest.mark.parametrize("deal, trump, played, expected, rule", [
    # 1: the playing team holding the highest trump out pulls trumps with it
    ("N:A.J7.. K.98.. Q.AT.. T.KQ..", "H", [], "HJ", "pull trumps"),
    # 2: a defender on lead cashes its winners, the one of most points first
    ("N:7.7.7. AT..A. 8.8.8. 9.9.9.", "H", ["S7", "SA", "S8", "S9"], "DA", "cash winners"),
    # 3: no winner and no trump to pull: the lowest card of the longest plain suit
    ("N:K..87. A.J.9. Q.7.T. T.8.A.", "H", [], "D7", "lead low"),
    # 4: last to play, partner winning: the card that adds most to the trick
    ("N:7.7.7. A.8.8. 8.9.9. TQ..T.", "H", ["S7", "SA", "S8"], "ST", "last, partner wins"),
    # 4: last to play, losing the trick: the card that gives least
    ("N:A.7.7. 7.8.8. 8.9.9. TQ..T.", "H", ["SA", "S7", "S8"], "SQ", "last, trick lost"),
    # 5: partner winning, not last: discard low
    ("N:A.7.7. 7.8.8. K8..9. T9..T.", "H", ["SA", "S7"], "S8", "partner winning"),
    # 6: partner not winning, not last, a card beats the trick: the highest such
    ("N:7.7.7. 8.8.8. AK..9. T9..T.", "H", ["S7", "S8"], "SA", "play the winner"),
])
def test_heuristic_rules_on_constructed_positions(deal, trump, played, expected, rule):
    view = seat_view(deal, trump, "N", played)
    assert make_bot("heuristic").choose_card(view) == expected, rule


def test_heuristic_last_to_play_keeps_roem_out_of_a_lost_trick():
    # E leads H7 (trump S), S plays H8, W overtakes with HA: N, last, loses the trick.  H9
    # would make a run H7 H8 H9 (20 roem to E-W); HT gives 10 card points and no roem.
    view = seat_view("N:.T9.. .K7.. .J8.. .AQ..", "S", "E", ["H7", "H8", "HA"])
    assert set(view.legal_cards()) == {"H9", "HT"}
    assert make_bot("heuristic").choose_card(view) == "HT"


def test_heuristic_trump_is_jack_and_nine():
    # five spades without the jack or nine; the jack and nine of clubs
    hand = mask_of(parse_card(c) for c in "SA SK SQ ST S8 D7 CJ C9".split())
    view = TrumpView(seat=0, hand=hand, first=0, rules=Rules())
    assert make_bot("heuristic").choose_trump(view) == "C"
    assert SUITS[choose_by_rule(hand, "longest suit")] == "S"


# ----------------------------------------------------------------------------- dd, pimc
def _dd_value(deal, trump, first, rules=None):
    from kraken_solver.engine.solver import solve
    return solve(deal, trump, first, rules=rules, pv=False).value


@pytest.mark.parametrize("i", range(4))
def test_dd_never_does_worse_than_its_double_dummy_value(i):
    deal, trump, first = DEALS[10 + i], "SHDC"[i], "NESW"[i]
    value = _dd_value(deal, trump, first)
    playing = "NS" if "NESW".index(first) % 2 == 0 else "EW"
    other = "EW" if playing == "NS" else "NS"
    for opponents in ("random", "heuristic", "pimc:3"):
        as_playing = play_deal(deal, trump, first, {playing: "dd", other: opponents}, seed=i)
        assert as_playing.value >= value, opponents
        as_defenders = play_deal(deal, trump, first, {other: "dd", playing: opponents}, seed=i)
        assert as_defenders.value <= value, opponents
    both = play_deal(deal, trump, first, {"NS": "dd", "EW": "dd"}, seed=i)
    assert both.value == value


def test_dd_sees_the_deal_only_through_a_cheat_view():
    class Peeker:
        name = "peeker"

        def choose_card(self, view):
            assert not hasattr(view, "deal")
            return view.legal_cards()[-1]

    played = play_deal(DEALS[0], "S", "N", {"NS": Peeker(), "EW": "dd"})
    assert played.labels["E"].startswith("dd (CHEATS")


@settings(max_examples=4)
@given(st.integers(0, len(DEALS) - 1), st.integers(0, 3), st.integers(0, 3),
       st.integers(0, 1000))
def test_pimc_plays_legal_cards(i, trump, first, seed):
    deal = DEALS[i]
    played = play_deal(deal, trump, first, {"NS": "pimc:3", "EW": "heuristic"}, seed=seed)
    sheet = score_sheet(deal, trump, first, line=played.play)
    assert played.value == sheet.score and len(played.play) == 32


def _another_layout(view, seed=9):
    """A deal that looks the same as ``view``'s from its seat: the hidden hands replaced by
    another layout consistent with the view (the plays, the sizes, the declared roem)."""
    from kraken_solver.bots.view import observation_of
    from kraken_solver.playerview.layouts import Layouts
    lay = Layouts(observation_of(view))
    return [Deal(h) for h in lay.sample(30, seed)]


@pytest.mark.parametrize("spec", ["random", "heuristic", "pimc:4"])
def test_same_view_same_seed_same_card_on_another_layout(spec):
    deal, trump, first = DEALS[20], "H", "W"
    # play 9 cards or more with random bots, then look from the seat to move (a choice)
    line = play_deal(deal, trump, first, {"NS": "random", "EW": "random"}, seed=1).play
    k = next(k for k in range(9, 32) if len(seat_view(deal, trump, first, line[:k]).legal) > 1)
    played = line[:k]
    view = seat_view(deal, trump, first, played)
    others = [d for d in _another_layout(view) if d != deal]
    assert others
    # a bot that played the seat's earlier moves on the deal itself ...
    bot = make_bot(spec, seed=7)
    for k in range(len(played)):
        v = seat_view(deal, trump, first, played[:k])
        if v.seat == view.seat:
            bot.choose_card(v)
    card = bot.choose_card(view)
    for other in others[:3]:
        seen = seat_view(other, trump, first, played)
        assert seen == view
        # ... and a new one on another layout choose the same card with the same seed
        assert make_bot(spec, seed=7).choose_card(seen) == card
    if spec.startswith("pimc"):
        fresh = make_bot(spec, seed=7)
        fresh.choose_card(seat_view(others[0], trump, first, played))
        assert fresh.last["means"] == bot.last["means"]


def test_pimc_forced_card_is_played_without_solving():
    bot = make_bot("pimc:5")
    view = seat_view("N:A... K... Q... J...", "H", "N", ["SA"])
    assert bot.choose_card(view) == "SK" and bot.last == {"forced": True, "worlds": 0,
                                                           "nodes": 0}


def test_pimc_enumerates_few_layouts():
    deal, trump, first = DEALS[21], "C", "N"
    played = play_deal(deal, trump, first, {"NS": "heuristic", "EW": "heuristic"}).play[:25]
    view = seat_view(deal, trump, first, played)
    if len(view.legal) == 1:
        view = seat_view(deal, trump, first, played[:24])
    bot = make_bot("pimc:50")
    worlds, exact = bot.worlds(view)
    assert exact and len(set(worlds)) == len(worlds)
    from kraken_solver.bots.view import observation_of
    from kraken_solver.playerview.layouts import Layouts
    assert sorted(worlds) == sorted(Layouts(observation_of(view)).enumerate())


def test_pimc_layouts_give_the_declared_roem():
    from kraken_solver.playerview.observation import declared_roem
    # a deal whose hidden hands declare roem: every world must declare the same
    for deal in DEALS:
        view = seat_view(deal, "S", "N")
        mine = declared_roem((deal.hands[0], 0, 0, 0), 0, 0, Rules())
        if view.declared != (0, 0) and mine == (0, 0):
            break
    else:
        pytest.fail("no deal in the set has hidden roem")
    bot = make_bot("pimc:10", seed=3)
    worlds, exact = bot.worlds(view)
    assert not exact and len(worlds) == 10
    assert all(declared_roem(w, 0, 0, Rules()) == view.declared for w in worlds)
    card = bot.choose_card(view)
    assert card in view.legal_cards()


def test_pimc_that_cannot_draw_raises():
    deal = DEALS[0]
    view = seat_view(deal, "S", "N")
    # a declared roem no layout gives: the bot raises, never plays a weaker card
    bad = dataclasses.replace(view, declared=(990, 990))
    with pytest.raises(KrakenError, match="hand roem"):
        make_bot("pimc:5").choose_card(bad)


def test_simple_trump_rules_pick_as_summarize_does():
    import pandas as pd

    from kraken_solver.batch.summary import summarize
    from kraken_solver.game.choice import SIMPLE_RULES
    rows = [{"deal_id": i, "deal": str(deal), "first": SEATS[i % 4], "trump": t,
             "score": (37 * i + 11 * k) % 50 + 1, "made": True}
            for i, deal in enumerate(DEALS) for k, t in enumerate(SUITS)]
    picks = summarize(pd.DataFrame(rows)).choices
    for rule in SIMPLE_RULES:
        got = picks[picks["rule"] == rule].set_index("deal_id")["trump"]
        for i, deal in enumerate(DEALS):
            assert got[i] == SUITS[choose_by_rule(deal.hands[i % 4], rule)], (rule, i)
