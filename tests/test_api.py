"""The public API: PBN deals, rules and presets, errors, and what solve / legal_cards accept.

Expected values here are derived by hand from RULES.md in the comments next to them.
"""

from __future__ import annotations

import dataclasses

import naive
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kraken_solver import (PRESETS, CardParseError, Deal, DealError, IllegalCardError, KrakenError,
                           Rules, RulesError, card_str, hand_roem, legal_cards, parse_card, solve)
from kraken_solver.game.cards import mask_of

SEATS = "NESW"


# ------------------------------------------------------------------------- PBN round trip
@st.composite
def deals(draw):
    k = draw(st.integers(1, 8))
    order = draw(st.permutations(range(32)))
    return Deal(tuple(sum(1 << c for c in order[i * k:(i + 1) * k]) for i in range(4)))


@settings(max_examples=200)
@given(deal=deals(), start=st.integers(0, 3))
def test_pbn_round_trip(deal, start):
    text = str(deal)
    assert text.startswith("N:")
    assert Deal.from_pbn(text) == deal
    assert Deal.from_pbn(deal.pbn(start)) == deal
    # The reference's own PBN writer, from any seat, reads back to the same deal, and the
    # library writes exactly what the reference writes.
    hands = {SEATS[s]: sorted(card_str(c) for c in range(32) if deal.hands[s] >> c & 1)
             for s in range(4)}
    assert Deal.from_pbn(naive.to_pbn(hands, SEATS[start])) == deal
    assert text == naive.to_pbn(hands, "N")
    assert {s: sorted(h) for s, h in naive.parse_pbn(text).items()} == hands
    # "10" may stand for T; extra spaces between and around the hands are allowed.
    assert Deal.from_pbn(text.replace("T", "10")) == deal
    assert Deal.from_pbn("  " + text.replace(" ", "   ") + " ") == deal
    assert deal.size * 4 == bin(deal.all_cards).count("1")


def test_pbn_names_the_first_hand():
    # "E:" lists E, S, W, N: the spade ace is E's and N holds the fourth hand (the SJ).
    deal = Deal.from_pbn("E:A... K... Q... J...")
    assert deal.holder(parse_card("SA")) == SEATS.index("E")
    assert deal.holder(parse_card("SK")) == SEATS.index("S")
    assert deal.holder(parse_card("SQ")) == SEATS.index("W")
    assert deal.holder(parse_card("SJ")) == SEATS.index("N")
    assert deal.holder(parse_card("HA")) == -1
    assert str(deal) == "N:J... A... K... Q..."
    assert deal.rotated(1) == Deal.from_pbn("N:Q... J... A... K...")


# ------------------------------------------------------------------------- PBN errors
def pbn_error(text: str) -> DealError:
    with pytest.raises(DealError) as info:
        Deal.from_pbn(text)
    err = info.value
    assert isinstance(err, KrakenError) and isinstance(err, ValueError)
    return err


def test_duplicate_card():
    # "N:A... A... K... Q...": the second hand starts at column 8 with SA again.
    err = pbn_error("N:A... A... K... Q...")
    assert (err.column, err.token) == (8, "SA")
    assert "SA" in str(err) and "column 8" in str(err)
    # ".K.." x2: the fourth hand ".K.." spans columns 18-21; its K (HK) is at column 19.
    err = pbn_error("N:.K.. .Q.. .J.. .K..")
    assert (err.column, err.token) == (19, "HK")
    # Leading blanks shift the column: two spaces put the duplicate SA at column 10.
    err = pbn_error("  N:A... A... K... Q...")
    assert (err.column, err.token) == (10, "SA")


def test_bad_rank():
    # The second hand "X..." starts at column 8.
    err = pbn_error("N:A... X... K... Q...")
    assert (err.column, err.token) == (8, "X")
    # "J.1.." is the fourth hand (column 18); the lone "1" is at column 20.
    err = pbn_error("N:A... K... Q... J.1..")
    assert (err.column, err.token) == (20, "1")
    # a suit letter is not a rank: "AS" in the spade field, S at column 4
    err = pbn_error("N:AS... K... Q... J...")
    assert (err.column, err.token) == (4, "S")


def test_unequal_hands():
    # The error points at the odd hand: N's "AK..." (2 cards, the others 1) at column 3.
    err = pbn_error("N:AK... Q... J... T...")
    assert "unequal" in str(err)
    assert (err.column, err.token) == (3, "AK...")
    # The third hand "JT..." (column 13) is the odd one here.
    err = pbn_error("N:A... Q... JT... 9...")
    assert (err.column, err.token) == (13, "JT...")
    with pytest.raises(DealError):
        Deal((0b11, 0b100, 0b1000, 0b10000))


def test_wrong_number_of_hands():
    # three hands: the fourth is missing at the end of the 16-character text -> column 17
    err = pbn_error("N:A... K... Q...")
    assert "four hands" in str(err) and "found 3" in str(err)
    assert err.column == 17
    # five hands: the fifth ("T...") starts at column 23
    err = pbn_error("N:A... K... Q... J... T...")
    assert "found 5" in str(err)
    assert (err.column, err.token) == (23, "T...")
    with pytest.raises(DealError):
        Deal((1, 2, 4))


def test_other_pbn_errors():
    err = pbn_error("X:A... K... Q... J...")       # not a seat
    assert (err.column, err.token) == (1, "X")
    err = pbn_error("NA... K... Q... J...")         # no colon
    assert err.column == 1
    err = pbn_error("N:A.. K... Q... J...")         # three suits in the first hand
    assert (err.column, err.token) == (3, "A..")
    err = pbn_error("N:... ... ... ...")            # no cards at all
    assert "1 to 8" in str(err)
    with pytest.raises(DealError):
        Deal.from_pbn(None)
    with pytest.raises(DealError):                  # the same card in two masks
        Deal((1, 1, 2, 4))


# ------------------------------------------------------------------------- rules
def test_presets_are_those_of_rule_9b():
    assert set(PRESETS) == {"kraken", "kraken-amsterdam", "klaverjas-rotterdam",
                            "klaverjas-amsterdam"}
    # kraken: all defaults (the G4A app)
    assert Rules.preset("kraken") == Rules() == Rules(
        trump_rule="rotterdam", undertrump="forbidden", trick_roem=True, hand_roem=True,
        double_spades=False, multiplier=1, pit_bonus=100, long_runs_100=False)
    assert Rules.preset("kraken-amsterdam") == dataclasses.replace(Rules(),
                                                                   trump_rule="amsterdam")
    assert Rules.preset("klaverjas-rotterdam") == dataclasses.replace(
        Rules(), trump_rule="rotterdam", undertrump="forced", trick_roem=True, hand_roem=False)
    assert Rules.preset("klaverjas-amsterdam") == dataclasses.replace(
        Rules(), trump_rule="amsterdam", trick_roem=True, hand_roem=False)
    # names are case-insensitive; overrides apply on top
    assert Rules.preset("Klaverjas-Amsterdam", multiplier=2) == dataclasses.replace(
        PRESETS["klaverjas-amsterdam"], multiplier=2)
    for name, r in PRESETS.items():
        assert r.name == name
    assert Rules(multiplier=2).name == "kraken+multiplier=2"


def test_rules_from_dict_and_round_trip():
    r = Rules.from_dict({"trump_rule": "amsterdam", "pit_bonus": 0})
    assert r == Rules(trump_rule="amsterdam", pit_bonus=0)
    assert Rules.from_dict(r.to_dict()) == r
    assert Rules.from_dict({}) == Rules()


@pytest.mark.parametrize("options", [
    {"trump_rule": "paris"},
    {"trump_rule": None},
    {"undertrump": "sometimes"},
    {"multiplier": 3},
    {"multiplier": 0},
    {"multiplier": True},
    {"pit_bonus": -1},
    {"pit_bonus": 1.5},
    {"pit_bonus": True},
    {"pit_bonus": 10001},
    {"trick_roem": "yes"},
    {"hand_roem": 1},
    {"double_spades": None},
    {"long_runs_100": "false"},
])
def test_bad_rule_options(options):
    with pytest.raises(RulesError) as info:
        Rules(**options)
    assert isinstance(info.value, ValueError)
    assert info.value.token is not None


def test_bad_rules_arguments():
    with pytest.raises(RulesError) as info:
        Rules.preset("bridge")
    assert info.value.token == "bridge"
    with pytest.raises(RulesError) as info:
        Rules.from_dict({"trumprule": "amsterdam"})
    assert info.value.token == "trumprule"
    deal = "N:A... K... Q... J..."
    with pytest.raises(RulesError):
        solve(deal, "S", "N", rules="bridge")
    with pytest.raises(RulesError):
        solve(deal, "S", "N", rules={"multiplier": 3})
    with pytest.raises(RulesError):
        legal_cards(deal, "S", "N", rules=42)
    with pytest.raises(KrakenError):
        solve(deal, "S", "N", objective="tricks")
    with pytest.raises(KrakenError):
        solve(deal, "X", "N")
    with pytest.raises(KrakenError):
        solve(deal, "S", "Q")


def test_rules_accepted_as_preset_name_dict_or_object():
    deal = "N:KQ... 7.T.. 8.J.. A.9.."
    a = solve(deal, "S", "N", rules="klaverjas-rotterdam", all_cards=True)
    b = solve(deal, "S", "N", rules=Rules.preset("klaverjas-rotterdam"), all_cards=True)
    c = solve(deal, "S", "N", rules=PRESETS["klaverjas-rotterdam"].to_dict(), all_cards=True)
    assert (a.value, a.card_values) == (b.value, b.card_values) == (c.value, c.card_values)
    assert a.rules == b.rules == c.rules == PRESETS["klaverjas-rotterdam"]
    d = solve(deal, "S", "N")
    assert d.rules == Rules()


# ------------------------------------------------------------------------- illegal cards
# A 2-card deal, trump S.  N: C8 H7, E: SJ H8, S: D7 S7, W: C7 H9.
# N leads C8; E is void in clubs and must trump (SJ); S is void in clubs and cannot
# overtrump SJ: rule 9a's example, "forbidden" allows only D7, "forced" only S7.
UNDER = "N:.7..8 J.8.. 7..7. .9..7"


def test_undertrump_example_of_rule_9a():
    assert legal_cards(UNDER, "S", "N") == ["H7", "C8"]   # sorted S H D C
    assert legal_cards(UNDER, "S", "N", played=["C8"]) == ["SJ"]
    for trump_rule in ("rotterdam", "amsterdam"):   # E, not the partner, is winning
        r = {"trump_rule": trump_rule}
        assert legal_cards(UNDER, "S", "N", rules=r, played=["C8", "SJ"]) == ["D7"]
        assert legal_cards(UNDER, "S", "N", rules={**r, "undertrump": "forced"},
                           played=["C8", "SJ"]) == ["S7"]
    with pytest.raises(IllegalCardError) as info:
        solve(UNDER, "S", "N", played=["C8", "SJ", "S7"])
    assert (info.value.column, info.value.token) == (3, "S7")
    with pytest.raises(IllegalCardError) as info:
        solve(UNDER, "S", "N", rules={"undertrump": "forced"}, played=["C8", "SJ", "D7"])
    assert (info.value.column, info.value.token) == (3, "D7")


def test_amsterdam_exemption_of_rule_9():
    # Trump S.  N: CA H7, E: C7 H8, S: D7 S7, W: C8 H9.  N leads CA, E follows C7; S is void
    # in clubs with the partner winning: Rotterdam must trump (S7), Amsterdam may play
    # anything (no trump in the trick, so no lower trump to forbid).
    deal = "N:.7..A .8..7 7..7. .9..8"
    assert legal_cards(deal, "S", "N", played=["CA", "C7"]) == ["S7"]
    assert legal_cards(deal, "S", "N", rules="kraken-amsterdam", played=["CA", "C7"]) == \
        ["S7", "D7"]
    assert legal_cards(deal, "S", "N", rules={"trump_rule": "amsterdam",
                                              "undertrump": "forced"},
                       played=["CA", "C7"]) == ["S7", "D7"]


def test_illegal_played_cards():
    # N: SA HK, E: S7 HA, S: SQ H7, W: SJ H8; trump D.  After SA, E must follow spades.
    deal = "N:A.K.. 7.A.. Q.7.. J.8.."
    with pytest.raises(IllegalCardError) as info:
        legal_cards(deal, "D", "N", played=["SA", "HA"])
    assert (info.value.column, info.value.token) == (2, "HA")
    assert "S7" in str(info.value)                   # the message lists the legal card
    # a card of another hand, a card not in the deal, a card played twice
    for played, col, tok in ((["S7"], 1, "S7"), (["SA", "DA"], 2, "DA"),
                             (["SA", "S7", "SQ", "SJ", "SA"], 5, "SA")):
        with pytest.raises(IllegalCardError) as info:
            solve(deal, "D", "N", played=played)
        assert (info.value.column, info.value.token) == (col, tok)
    # an unreadable card
    with pytest.raises(KrakenError) as info:
        solve(deal, "D", "N", played=["SA", "HX"])
    assert (info.value.column, info.value.token) == (2, "HX")
    # a card after the end of the deal
    full = ["SA", "S7", "SQ", "SJ", "HK", "HA", "H7", "H8"]
    with pytest.raises(IllegalCardError) as info:
        legal_cards(deal, "D", "N", played=full + ["HK"])
    assert info.value.column == 9


def test_legal_cards_is_empty_once_the_deal_is_over():
    deal = "N:A.K.. 7.A.. Q.7.. J.8.."
    full = ["SA", "S7", "SQ", "SJ", "HK", "HA", "H7", "H8"]
    for n in range(len(full)):
        assert legal_cards(deal, "D", "N", played=full[:n])
    assert legal_cards(deal, "D", "N", played=full) == []
    # Solving a finished deal gives its final value, with nothing left to play.
    # N/S win trick 1 (SA S7 SQ SJ: 11+0+3+2 = 16); E/W win trick 2 (HK HA H7 H8, HA wins:
    # 4+11+0+0 + 10 for the last trick = 25); trick roem: none (no three in a row); hand roem:
    # none (no runs, no stuk of diamonds).  Not made (16 < 25): score = -(16 + 25) = -41,
    # points = 16.
    res = solve(deal, "D", "N", played=full, all_cards=True)
    assert (res.value, res.card_values, res.pv, res.to_move) == (-41, {}, [], None)
    assert solve(deal, "D", "N", played=full, objective="points").value == 16


# ------------------------------------------------------------------------- accepted inputs
class CardObject:
    """Something that is not a str but whose str() is a card."""

    def __init__(self, text):
        self.text = text

    def __str__(self):
        return self.text


def test_card_objects_and_spellings_are_accepted():
    deal = "N:A.K.. 7.A.. Q.7.. J.8.."
    want = legal_cards(deal, "D", "N", played=["SA", "S7"])
    assert legal_cards(deal, "D", "N", played=[CardObject("SA"), CardObject("S7")]) == want
    assert legal_cards(deal, "D", "N", played=[parse_card("SA"), parse_card("S7")]) == want
    a = solve(deal, "D", "N", played=["SA"], all_cards=True)
    b = solve(deal, "D", "N", played=[CardObject("SA")], all_cards=True)
    assert (a.value, a.card_values, a.played) == (b.value, b.card_values, b.played)
    assert b.played == ["SA"]
    for c in range(32):
        assert parse_card(card_str(c)) == c
        assert parse_card(CardObject(card_str(c))) == c
    assert parse_card("H10") == parse_card("HT")
    for bad in ("", "H", "X7", "H1", "HX", 32, -1):
        with pytest.raises(CardParseError):
            parse_card(bad)


def test_solve_accepts_pbn_text_and_deal_objects():
    text = "W:KQ... 7.T.. 8.J.. A.9.."
    deal = Deal.from_pbn(text)
    a = solve(text, "S", "W", all_cards=True)
    b = solve(deal, "S", "W", all_cards=True)
    c = solve(deal, 0, 3, all_cards=True)             # trump and seat as indices
    assert a.deal == b.deal == deal
    assert (a.value, a.card_values, a.pv) == (b.value, b.card_values, b.pv) == \
        (c.value, c.card_values, c.pv)
    assert legal_cards(text, "S", "W") == legal_cards(deal, 0, 3)
    assert hand_roem(text, "S", "W") == hand_roem(deal, 0, 3)
    d = a.to_dict()
    assert d["deal"] == str(deal) and d["trump"] == "S" and d["first"] == "W"
    assert d["value"] == a.value and d["made"] == (a.value > 0)
    with pytest.raises(DealError):
        solve("W:KQ.A.. 7.T..", "S", "W")


def test_multiplier_must_be_a_whole_number():
    from kraken_solver import Rules, RulesError
    with pytest.raises(RulesError):
        Rules(multiplier=2.0)
    with pytest.raises(RulesError):
        Rules(multiplier=3)
    assert Rules(multiplier=4).name == "kraken+multiplier=4"


# ------------------------------------------------------------------------- argument types
def test_position_play_takes_a_card_text_or_index_and_refuses_the_rest():
    from kraken_solver import Position
    deal = "N:A.K.. 7.A.. Q.7.. J.8.."
    p = Position(deal, "D", "N")
    p.play("SA")                                      # a card text, as the rest of the API
    p.play(parse_card("S7"))
    assert [card_str(c) for c in p.played] == ["SA", "S7"]
    for bad, token in ((99, "99"), (-1, "-1"), (32, "32"), ("SX", "SX"), (None, "None"),
                       (1.5, "1.5"), (True, "True")):
        with pytest.raises(CardParseError) as info:
            p.play(bad)
        assert info.value.token == token
    assert [card_str(c) for c in p.played] == ["SA", "S7"]   # nothing was played
    with pytest.raises(IllegalCardError):
        p.play("HA")                                  # S must follow spades (SQ)


@pytest.mark.parametrize("bits", ["x", None, 4.7, 18.0, True, 3, 29, "18"])
def test_searcher_tt_bits_must_be_an_int_from_4_to_28(bits):
    from kraken_solver import Searcher
    with pytest.raises(KrakenError) as info:
        Searcher(tt_bits=bits)
    assert "tt_bits" in str(info.value)


def test_searcher_takes_numpy_ints():
    import numpy as np

    from kraken_solver import Searcher
    assert Searcher(tt_bits=np.int64(6)).tt_mask == 63


@pytest.mark.parametrize("hands", [None, 5, (1, 2, 4, 8.5), (1, 2, 4, "8"), (1, 2, 4, None),
                                   (True, 2, 4, 8), "N:A... K... Q... J..."])
def test_deal_needs_four_int_masks(hands):
    with pytest.raises(DealError):
        Deal(hands)


def test_deal_takes_lists_and_numpy_ints():
    import numpy as np
    assert Deal([1, 2, 4, 8]) == Deal((1, 2, 4, 8)) == Deal(tuple(np.array([1, 2, 4, 8])))


def test_preset_overrides_are_checked():
    with pytest.raises(RulesError) as info:
        Rules.preset("kraken", foo=1)
    assert info.value.token == "foo" and "unknown rules option" in str(info.value)
    with pytest.raises(RulesError):
        Rules.preset("kraken", multiplier=3)


@pytest.mark.parametrize("card", [40, 32, -1, 1.0, "HK", None, True])
def test_card_str_needs_a_card_index(card):
    with pytest.raises(CardParseError):
        card_str(card)


def test_played_as_none_or_a_string_of_cards():
    deal = "N:A.K.. 7.A.. Q.7.. J.8.."
    want = solve(deal, "D", "N", played=["SA", "S7"], all_cards=True)
    got = solve(deal, "D", "N", played="SA  S7", all_cards=True)      # as in [Play]
    assert (got.value, got.card_values, got.played) == \
        (want.value, want.card_values, want.played)
    assert legal_cards(deal, "D", "N", played=None) == legal_cards(deal, "D", "N")
    assert solve(deal, "D", "N", played=None).value == solve(deal, "D", "N").value
    # one card: read as a card, not letter by letter (S7 is E's: N leads)
    with pytest.raises(IllegalCardError) as info:
        legal_cards(deal, "D", "N", played="S7")
    assert (info.value.column, info.value.token) == (1, "S7")
    with pytest.raises(IllegalCardError) as info:
        legal_cards(deal, "D", "N", played="SA HA")
    assert (info.value.column, info.value.token) == (2, "HA")
    with pytest.raises(IllegalCardError) as info:
        legal_cards(deal, "D", "N", played="SA HX")
    assert (info.value.column, info.value.token) == (2, "HX")
    with pytest.raises(CardParseError):
        legal_cards(deal, "D", "N", played=7)


def test_long_bad_text_is_shortened_in_errors():
    word = "X" * 5000
    with pytest.raises(CardParseError) as info:
        parse_card(word)
    assert len(info.value.token) == 41 and info.value.token.endswith("\u2026")
    with pytest.raises(DealError) as info:
        Deal.from_pbn("N:A... K... Q... J... " + word)
    assert len(str(info.value)) < 200
    with pytest.raises(IllegalCardError) as info:
        legal_cards("N:A... K... Q... J...", "S", "N", played=[word])
    assert len(str(info.value)) < 200


def test_searcher_refuses_an_unknown_objective():
    # only "points" was checked: anything else was taken for the score
    from kraken_solver import KrakenError
    from kraken_solver.engine.solver import Searcher
    from kraken_solver.game.position import Position
    pos = Position("N:AJ.QJ.AJT.Q 987.T987.K. KQT.A.Q9.A8 .K.87.KJT97", "S", "N")
    s = Searcher()
    for objective in ("Points", "SCORE", "made", None):
        with pytest.raises(KrakenError, match="objective must be 'score' or 'points'"):
            s.value(pos, objective)
        with pytest.raises(KrakenError, match="objective must be 'score' or 'points'"):
            s.at_least(pos, objective, 0)
    while not pos.over:
        pos.play(pos.legal()[0])
    with pytest.raises(KrakenError, match="objective must be 'score' or 'points'"):
        pos.final_value("Points")
    assert s.value(pos, "points") == pos.final_value("points")


def test_suit_symbols_sets_and_use_tt():
    # suit symbols as in deal files; a set of played cards has no order; use_tt is a bool
    from kraken_solver import KrakenError, solve
    from kraken_solver.engine.solver import Searcher
    from kraken_solver.game.cards import parse_card, parse_suit
    assert parse_suit("\u2665") == parse_suit("H") and parse_suit("\u2661") == parse_suit("h")
    assert parse_card("\u2666T") == parse_card("DT") and parse_card("\u266010") == parse_card("ST")
    deal = "N:AJ.QJ.AJT.Q 987.T987.K. KQT.A.Q9.A8 .K.87.KJT97"
    assert solve(deal, "\u2660", "N", played=["\u2666T", "\u2666K"]).value \
        == solve(deal, "S", "N", played=["DT", "DK"]).value
    with pytest.raises(CardParseError, match="play order: a list or a string, not a set"):
        solve(deal, "S", "N", played={"DT", "DK"})
    for bad in (None, 1, "yes"):
        with pytest.raises(KrakenError, match="use_tt must be True or False"):
            Searcher(use_tt=bad)
        with pytest.raises(KrakenError, match="near_cards must be True or False"):
            Searcher(near_cards=bad)
    for bad in (1, "yes", 0.5):
        with pytest.raises(KrakenError, match="prefetch must be None, True or False"):
            Searcher(prefetch=bad)


def test_the_table_is_prefetched_where_it_misses_the_l2_cache(tmp_path, monkeypatch):
    """``l2_cache_bytes`` reads a core's L2 size from Linux's sysfs layout (the level-2 data or
    unified entry, sizes in K or M); ``Searcher``'s default prefetches where the table takes
    more than a quarter of it, or where the size is unknown."""
    from kraken_solver.engine import solver
    from kraken_solver.engine.solver import Searcher, l2_cache_bytes, prefetch_pays

    def cache_dir(entries):
        root = tmp_path / f"cache{len(list(tmp_path.iterdir()))}"
        for i, (level, kind, size) in enumerate(entries):
            d = root / f"index{i}"
            d.mkdir(parents=True)
            (d / "level").write_text(f"{level}\n")
            (d / "type").write_text(f"{kind}\n")
            (d / "size").write_text(f"{size}\n")
        return root

    layouts = [
        ([(1, "Data", "48K"), (1, "Instruction", "32K"), (2, "Unified", "2048K"),
          (3, "Unified", "491520K")], 2 << 20),
        ([(1, "Data", "32K"), (2, "Unified", "1M")], 1 << 20),
        ([(1, "Data", "32K"), (2, "Instruction", "1M")], None),   # no L2 for data
        ([(2, "Unified", "big")], None),
        ([], None),
    ]
    for entries, expected in layouts:
        monkeypatch.setattr(solver, "CACHE_SYSFS", str(cache_dir(entries)))
        l2_cache_bytes.cache_clear()
        assert l2_cache_bytes() == expected, entries
    monkeypatch.setattr(solver, "CACHE_SYSFS", str(tmp_path / "missing"))
    l2_cache_bytes.cache_clear()
    assert l2_cache_bytes() is None and prefetch_pays(16) and Searcher().prefetch
    monkeypatch.setattr(solver, "CACHE_SYSFS", str(cache_dir([(2, "Unified", "2048K")])))
    l2_cache_bytes.cache_clear()
    try:
        # the default table (2**15 entries of 16 bytes: 512 KiB) is a quarter of 2 MiB
        assert not Searcher().prefetch and Searcher(tt_bits=16).prefetch
        assert not prefetch_pays(512 << 10) and prefetch_pays((512 << 10) + 1)
        assert Searcher(prefetch=True).prefetch and not Searcher(tt_bits=20, prefetch=False).prefetch
    finally:
        l2_cache_bytes.cache_clear()


def test_a_searcher_that_is_not_one_and_final_value_too_early_are_input_errors():
    from kraken_solver import Position, trump_table
    from kraken_solver.engine.analyse import analyse_play
    deal = "N:AKQJ.T987.. .AKQJ.T987. ..AKQJ.T987 T987...AKQJ"
    for call in (lambda: solve(deal, "S", "N", searcher="x"),
                 lambda: trump_table(deal, "N", searcher=3),
                 lambda: analyse_play(deal, "S", "N", played=[], searcher=object())):
        with pytest.raises(KrakenError, match="searcher must be a Searcher"):
            call()
    pos = Position(deal, "S", "N")
    with pytest.raises(KrakenError, match="not finished") as info:
        pos.final_value("score")
    assert info.value.token == "32 cards left"
    while not pos.over:
        pos.play(pos.legal()[0])
    assert pos.final_value("points") == pos.past_dpoints


# ------------------------------------------------------------------ issue 27: library hygiene
def test_case_folding_invents_no_cards_suits_or_seats():
    """str.upper turns 'ſ' (long s) into 'S' and str.lower the Kelvin sign into 'k': only the
    ASCII letters README lists are read."""
    from kraken_solver.game.cards import parse_rank, parse_seat, parse_suit
    from kraken_solver.notation.dealfile import parse_deal_text
    for bad in ("\u017f", "\u0131", "\u212a"):
        for parse in (parse_suit, parse_seat, parse_rank):
            with pytest.raises(CardParseError):
                parse(bad)
    assert parse_suit("s") == 0 and parse_seat("w") == 3 and parse_rank("k") == 6
    with pytest.raises(CardParseError):
        parse_card("\u017fA")
    with pytest.raises(DealError):
        Deal.from_pbn("N:\u212a... A... Q... J...")
    with pytest.raises(RulesError):
        Rules.preset("\u212araken")
    with pytest.raises(KrakenError, match="trump suit"):
        parse_deal_text('[Deal "N:A... K... Q... J..."]\n[Trump "\u017f"]\n', "t.txt")
    with pytest.raises(KrakenError):
        parse_deal_text("\u017f:A... K... Q... J... trump=H\n", "t.txt")
    from kraken_solver.playerview.advise import parse_hand, parse_known
    with pytest.raises(DealError):
        parse_hand("AKQ\u212a.J9.T8.7")
    with pytest.raises(CardParseError):
        parse_known(["\u017f:HA"], 0, parse_hand("AJ9.K7.T8.A"))


def test_the_command_line_takes_ascii_letters_and_digits_only(tmp_path):
    from click.testing import CliRunner

    from kraken_solver.cli.solve import main as solve_main
    p = tmp_path / "d.txt"
    p.write_text("N:A... K... Q... J...\n")
    for args in (["--trump", "\u017f"], ["--first", "\u017f"]):
        r = CliRunner().invoke(solve_main, [str(p), *args])
        assert r.exit_code == 2 and "ASCII" in r.output, (args, r.output)
    # --rules is a rules spec, read by as_rules: one error line, exit 1
    r = CliRunner().invoke(solve_main, [str(p), "--rules", "\u212araken"])
    assert r.exit_code == 1 and r.stderr == ("kraken-solve: error: --rules: a rules spec is "
                                             "written in ASCII letters, digits and + = - _ "
                                             "(got '\u212araken')\n"), r.output
    from kraken_solver.cli.batch import main as batch_main
    r = CliRunner().invoke(batch_main, ["--deals", "\u0662", "--out", str(tmp_path / "o.csv")])
    assert r.exit_code == 2 and "ASCII digits" in r.output
    assert CliRunner().invoke(solve_main, [str(p), "--trump", "s", "--json"]).exit_code == 0


def test_rules_hold_plain_python_values():
    """numpy ints and bools in Rules reached the results and to_dict(), which is JSON."""
    import json
    r = Rules(multiplier=np.int64(2), pit_bonus=np.int32(50), trick_roem=np.bool_(False),
              trump_rule=np.str_("amsterdam"))
    d = r.to_dict()
    assert json.loads(json.dumps(d)) == d
    assert type(r.multiplier) is int and type(r.pit_bonus) is int
    assert type(r.trick_roem) is bool and type(r.trump_rule) is str
    assert r == Rules(multiplier=2, pit_bonus=50, trick_roem=False, trump_rule="amsterdam")
    assert Rules.preset("kraken", multiplier=np.int8(4)).to_dict()["multiplier"] == 4
    assert type(Rules.preset("kraken", multiplier=np.int8(4)).multiplier) is int


def test_rules_from_dict_takes_none_and_refuses_the_rest():
    assert Rules.from_dict(None) == Rules()
    assert Rules.from_dict(Rules(multiplier=8).to_dict()) == Rules(multiplier=8)
    for bad in ([("multiplier", 2)], "kraken", 3, {1: 2}):
        with pytest.raises(RulesError):
            Rules.from_dict(bad)


def test_deal_refuses_a_set_and_pbn_a_bad_seat():
    hands = Deal.from_pbn("N:A... K... Q... J...").hands
    for bad in (set(hands), frozenset(hands), dict.fromkeys(hands), b"N:A... K... Q... J..."):
        with pytest.raises(DealError):
            Deal(bad)
    d = Deal(hands)
    assert d.pbn(2) == d.pbn("S") == "S:Q... J... A... K..."
    for bad in (7, -1, "X", None, 1.0, True):
        with pytest.raises(CardParseError):
            d.pbn(bad)
    with pytest.raises(DealError):
        d.rotated(1.5)
    assert d.rotated(np.int64(1)) == d.rotated(1)


def test_played_as_bytes_is_a_clear_error():
    for bad in (b"SA", bytearray(b"SA"), memoryview(b"SA")):
        with pytest.raises(CardParseError, match="not bytes"):
            solve("N:A... K... Q... J...", "S", "N", played=bad)


def test_the_fast_pbn_reader_agrees_with_the_full_one(monkeypatch):
    """parse_pbn reads clean deals through a cached fast path: same hands, same seat, and
    every text it does not take goes to the full reader (which names the error)."""
    from kraken_solver.game import deal as deal_module
    rng = np.random.default_rng(8)
    texts = []
    for _ in range(300):
        n = int(rng.integers(1, 9))
        perm = rng.permutation(32)
        d = Deal(tuple(mask_of(int(c) for c in perm[k * n:(k + 1) * n]) for k in range(4)))
        t = d.pbn(int(rng.integers(4)))
        if rng.random() < 0.3:
            t = t.lower()
        if rng.random() < 0.3:
            t = t.replace("T", "10")
        if rng.random() < 0.3:                          # damage one character
            i = int(rng.integers(len(t)))
            t = t[:i] + str(rng.choice(list("AKX.9 :\u017f"))) + t[i + 1:]
        texts.append(t)

    def read(text):
        try:
            return deal_module.parse_pbn(text)
        except KrakenError as e:
            return type(e), str(e)
    fast = [read(t) for t in texts]
    monkeypatch.setattr(deal_module, "_fast_pbn", lambda body: None)
    slow = [read(t) for t in texts]
    assert fast == slow
    assert sum(isinstance(x, tuple) and isinstance(x[0], Deal) for x in fast) > 150
