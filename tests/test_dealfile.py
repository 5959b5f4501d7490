"""Tests of the deal-file parser (kraken_solver.notation.dealfile) and of the example data sets.

Run ``python tests/test_dealfile.py`` to (re)write datasets/*.txt from the seeded generator
below; ``test_datasets_are_reproducible`` checks that the files are its output.
"""

from __future__ import annotations

import pathlib

import numpy as np
import pytest

from kraken_solver import (CardParseError, Deal, DealError, DealFileError, IllegalCardError,
                           KrakenError, Rules, RulesError, legal_cards, parse_card)
from kraken_solver.game.cards import SEATS, SUITS, mask_of
from kraken_solver.notation.dealfile import (DealSpec, parse_card_at, parse_deal_text,
                                             skipped_tags_warning)
from kraken_solver.notation.reader import parse_deal_file

ROOT = pathlib.Path(__file__).resolve().parent.parent
DATASETS = ROOT / "datasets"

FULL = "N:AT8.T.8.QJ9 9.A.AQJ7.K7 QJ7.J987..8 K.KQ.KT9.AT"
# 2 cards a hand: N S7 H7, E S8 H8, S S9 H9, W ST HT
SMALL = "N:7.7.. 8.8.. 9.9.. T.T.."
# rule 9a's example: trump S, the trick so far C8 SJ, the third hand D7 S7
UNDER = "N:...8A J.7.. 7..7. .98.."


def cards(text):
    return [parse_card(c) for c in text.split()]


# ------------------------------------------------------------------------- good files
def test_tag_form_minimal():
    specs = parse_deal_text(f'[Deal "{FULL}"]\n', "f.txt")
    assert len(specs) == 1
    s = specs[0]
    assert isinstance(s, DealSpec)
    assert s.deal == Deal.from_pbn(FULL)
    assert s.trump is None and s.first == 0 and s.rules == Rules()
    assert s.played == [] and s.played_at == []
    assert (s.source, s.line) == ("f.txt", 1) and s.where == "f.txt, line 1"
    assert not s.first_given


def test_first_defaults_to_the_seat_of_the_deal_text():
    d = Deal.from_pbn(FULL)
    s = parse_deal_text(f'[Deal "{d.pbn(2)}"]\n')[0]
    assert s.first == 2 and s.deal == d
    s = parse_deal_text(d.pbn(3) + " trump=S\n")[0]
    assert s.first == 3 and s.trump == 0


def test_tag_form_all_tags_and_play_positions():
    text = (
        "% a comment\n"
        "; another comment\n"
        "\n"
        f'[Deal "{FULL}"]\n'          # line 4
        '[Trump "H"]\n'
        '[First "N"]\n'
        '[Rules "klaverjas-amsterdam"]\n'
        '[Double "4"]\n'
        '[Play "N"]\n'                # line 9
        "SA S9 SQ SK\n"               # line 10
        "  % a comment inside the play\n"
        "H10  HA\n"                   # line 12
        "*\n"
    )
    s = parse_deal_text(text, "deals.txt")[0]
    assert s.trump == 1 and s.first == 0 and s.first_given
    assert s.rules == Rules.preset("klaverjas-amsterdam", multiplier=4)
    assert s.played == cards("SA S9 SQ SK HT HA")
    assert s.played_at == [(10, 1), (10, 4), (10, 7), (10, 10), (12, 1), (12, 6)]
    assert s.line == 4


def test_trailing_comments():
    text = (f'[Deal "{FULL}"]   ; the deal\n'
            '[Trump "H"]%hearts\n'
            '[Play "N"] % the play\n'
            "SA S9;two cards\n"
            f"{SMALL} trump=C  % a one-line deal\n")
    a, b = parse_deal_text(text, "c.txt")
    assert a.trump == 1 and a.played == cards("SA S9") and a.played_at == [(4, 1), (4, 4)]
    assert b.trump == 3 and b.line == 5
    with pytest.raises(DealFileError) as e:  # a comment cannot hide the end of a tag
        parse_deal_text(f'[Deal "{FULL}" % no ]\n', "c.txt")
    assert (e.value.line, e.value.column) == (1, 58)


def test_the_module_docstring_example_parses():
    from kraken_solver.notation import dealfile as mod
    doc = mod.__doc__
    block = doc.split("::\n\n", 1)[1].split("\n\n", 1)[0]
    text = "\n".join(line[4:] for line in block.splitlines())
    (s,) = parse_deal_text(text)
    assert s.trump == 1 and s.first == 0 and s.rules == Rules(multiplier=2)
    assert s.played == cards("SA S9 SQ SK HT HA")
    example = doc.split("e.g. ``", 1)[1].split("``", 1)[0]
    (s,) = parse_deal_text(example)
    assert (s.trump, s.first) == (1, 0)


def test_suit_symbols_and_lower_case():
    text = f'[deal "{FULL}"]\n[trump "\u2665"]\n[play "n"]\n\u2660A s9 SQ sk\n'
    s = parse_deal_text(text)[0]
    assert s.trump == 1 and s.played == cards("SA S9 SQ SK")


def test_one_line_form_and_mixed_file():
    d = Deal.from_pbn(FULL)
    text = (
        f"{FULL} trump=H first=E rules=kraken-amsterdam double=2\n"
        f'[Deal "{d.pbn(1)}"]\n'
        '[Trump "S"]\n'
        f"   {d.pbn(2)}   TRUMP=d\n"
    )
    a, b, c = parse_deal_text(text, "m.txt")
    assert (a.trump, a.first, a.line) == (1, 1, 1)
    assert a.rules == Rules.preset("kraken-amsterdam", multiplier=2)
    assert (b.trump, b.first, b.line, b.rules) == (0, 1, 2, Rules())
    assert (c.trump, c.first, c.line) == (2, 2, 4)
    assert a.deal == b.deal == c.deal == d


def test_play_may_end_mid_trick_and_run_to_the_end():
    s = parse_deal_text(f'[Deal "{SMALL}"]\n[Trump "C"]\n[Play "N"]\nS7 S8 S9\n')[0]
    assert s.played == cards("S7 S8 S9")
    s = parse_deal_text(f'[Deal "{SMALL}"]\n[Trump "C"]\n[Play "N"]\nS7 S8 S9 ST\nHT H7 H8 H9\n')[0]
    assert len(s.played) == 8


def test_empty_play_section_needs_no_trump():
    s = parse_deal_text(f'[Deal "{SMALL}"]\n[Play "N"]\n')[0]
    assert s.trump is None and s.played == []


def test_overrides():
    text = f'[Deal "{FULL}"]\n[Trump "H"]\n[First "N"]\n[Rules "kraken"]\n[Double "2"]\n'
    s = parse_deal_text(text, trump="S", first="E", rules="kraken-amsterdam")[0]
    assert s.trump == 0 and s.first == 1
    assert s.rules == Rules.preset("kraken-amsterdam", multiplier=2)  # [Double] still applies
    s = parse_deal_text(FULL + "\n", trump=3, first=2, rules=Rules(trick_roem=False))[0]
    assert (s.trump, s.first, s.rules) == (3, 2, Rules(trick_roem=False))
    s = parse_deal_text(FULL + " double=4\n", rules={"undertrump": "forced"})[0]
    assert s.rules == Rules(undertrump="forced", multiplier=4)


def test_undertrump_rule_decides_legality():
    """RULES.md rule 9a: trick C8 SJ, hand D7 S7; forbidden allows only D7, forced only S7."""
    base = f'[Deal "{UNDER}"]\n[Trump "S"]\n'
    ok = parse_deal_text(base + '[Play "N"]\nC8 SJ D7\n')[0]
    assert ok.played == cards("C8 SJ D7")
    ok = parse_deal_text(base + '[Rules "klaverjas-rotterdam"]\n[Play "N"]\nC8 SJ S7\n')[0]
    assert ok.played == cards("C8 SJ S7")
    with pytest.raises(IllegalCardError) as e:
        parse_deal_text(base + '[Rules "klaverjas-rotterdam"]\n[Play "N"]\nC8 SJ D7\n', "u.txt")
    assert (e.value.line, e.value.column, e.value.token) == (5, 7, "D7")
    with pytest.raises(IllegalCardError) as e:  # the override decides too
        parse_deal_text(base + '[Play "N"]\nC8 SJ D7\n', "u.txt", rules="klaverjas-rotterdam")
    assert (e.value.line, e.value.column, e.value.token) == (4, 7, "D7")
    assert "under the override rules=klaverjas-rotterdam" in str(e.value)
    assert "override" not in str(pytest.raises(IllegalCardError, parse_deal_text,
                                               base + '[Rules "klaverjas-rotterdam"]\n'
                                               '[Play "N"]\nC8 SJ D7\n').value)
    with pytest.raises(DealFileError, match=r"first trick \(under the override first=E\)"):
        parse_deal_text(base + '[Play "N"]\nC8\n', first="E")


def test_parse_card_at():
    assert parse_card_at("H10") == parse_card("HT")
    with pytest.raises(CardParseError) as e:
        parse_card_at("HX", source="f", line=3, column=5)
    assert (e.value.line, e.value.column, e.value.token) == (3, 6, "X")


def test_parse_deal_file_reads_a_file(tmp_path):
    p = tmp_path / "d.txt"
    p.write_text(f"\ufeff{FULL} trump=H\n", encoding="utf-8")
    s = parse_deal_file(p)[0]
    assert s.source == str(p) and s.trump == 1 and s.line == 1


# ------------------------------------------------------------------------- bad input
BAD = [
    # (text, error class, line, column, token)
    # a tag a letter or two from one of ours is a typo (other unknown tags are skipped)
    (f'[Deal "{FULL}"]\n[Trumps "H"]\n', DealFileError, 2, 2, "Trumps"),
    (f'[Deal "{FULL}"]\n[Trump "H"]\n[plays "N"]\n', DealFileError, 3, 2, "plays"),
    # a tag of ours with no deal after it
    ('[Trump "H"]\n', DealFileError, 1, 1, "[Trump]"),
    (f'[Deal "{FULL}"]\n\n[Event "x"]\n[Trump "H"]\n', DealFileError, 4, 1, "[Trump]"),
    ('[Deal "?"]\n', DealError, 1, 8, "?"),
    (f'[Deal "{FULL}"]\n[Dealer "X"]\n', CardParseError, 2, 10, "X"),
    (f'[Deal "{FULL}"]\n[Dealer "N"]\n[Dealer "S"]\n', DealFileError, 3, 1, "[Dealer]"),
    (f'[Deal "{FULL}"]\n[Trump "H"]\n[Trump "S"]\n', DealFileError, 3, 1, "[Trump]"),
    (f'{FULL} trump=H\n[Play "N"]\nSA\n', DealFileError, 2, 1, "[Play]"),
    (f'[Deal "{FULL}"\n', DealFileError, 1, 58, None),
    ('[Deal N:AKQ]\n', DealFileError, 1, 7, "N:AKQ]"),
    # a bad rank inside the deal text: column in the file, not in the deal text
    (f'[Deal "{FULL.replace("AT8", "AX8")}"]\n', DealError, 1, 11, "X"),
    (f'  [Deal "{FULL.replace("AT8", "AX8")}"]\n', DealError, 1, 13, "X"),
    (f'[Deal "{FULL.replace("K.KQ", "A.KQ")}"]\n', DealError, 1, 46, "SA"),
    (f'[Deal "{FULL.replace(".K7 ", ". ")}"]\n', DealError, 1, 22, "9.A.AQJ7."),
    (f'[Deal "{FULL.replace("K.KQ.KT9.AT", "K.KQ.KT9")}"]\n', DealError, 1, 46, None),
    ('[Deal "X:..."]\n', DealError, 1, 8, "X"),
    (f'[Deal "{FULL}"]\n[Trump "X"]\n', CardParseError, 2, 9, "X"),
    (f'[Deal "{FULL}"]\n[First "Q"]\n', CardParseError, 2, 9, "Q"),
    (f'[Deal "{FULL}"]\n[Rules "bridge"]\n', RulesError, 2, 9, "bridge"),
    (f'[Deal "{FULL}"]\n[Double "3"]\n', RulesError, 2, 10, "3"),
    (f'[Deal "{FULL}"]\n[Double "two"]\n', RulesError, 2, 10, "two"),
    (f'[Deal "{FULL}"]\n[Play "X"]\n', CardParseError, 2, 8, "X"),
    # played cards: syntax, not in the hand, revoke, after the end, wrong seat, no trump
    (f'[Deal "{FULL}"]\n[Trump "H"]\n[Play "N"]\nSA S9 SX\n', CardParseError, 4, 8, "X"),
    (f'[Deal "{FULL}"]\n[Trump "H"]\n[Play "N"]\nSA S9\n  XQ\n', CardParseError, 5, 3, "X"),
    (f'[Deal "{FULL}"]\n[Trump "H"]\n[Play "N"]\nSA\n', None, None, None, None),
    (f'[Deal "{FULL}"]\n[Trump "H"]\n[Play "N"]\nSA S9 SQ H9\n', IllegalCardError, 4, 10, "H9"),
    (f'[Deal "{FULL}"]\n[Trump "H"]\n[Play "N"]\nSA S9 SA\n', IllegalCardError, 4, 7, "SA"),
    (f'[Deal "{SMALL}"]\n[Trump "C"]\n[Play "N"]\nS7 H8\n', IllegalCardError, 4, 4, "H8"),
    (f'[Deal "{SMALL}"]\n[Trump "C"]\n[Play "N"]\nS7 S8 S9 ST\nHT H7 H8 H9\nH9\n',
     IllegalCardError, 6, 1, "H9"),
    (f'[Deal "{SMALL}"]\n[Trump "C"]\n[Play "E"]\nS8\n', DealFileError, 3, 8, "E"),
    (f'[Deal "{SMALL}"]\n[Play "N"]\nS7\n', DealFileError, 2, 1, "[Play]"),
    (f'[Deal "{SMALL}"]\n[Trump "C"]\nS7 S8\n', DealFileError, 3, 1, "S7"),
    (f'[Deal "{SMALL}"]\nhello world\n', DealFileError, 2, 1, "hello"),
    # one-line form
    (f"{FULL} trump=X\n", CardParseError, 1, 57, "X"),
    (f"{FULL} trump=H suit=S\n", DealFileError, 1, 59, "suit"),
    (f"{FULL} trump=H first=\n", DealFileError, 1, 65, "first="),
    (f"{FULL} trump=H trump=S\n", DealFileError, 1, 59, "trump=S"),
    (f"{FULL} trump=H extra\n", DealFileError, 1, 59, "extra"),
    (f"{FULL} rules=rotterdam\n", RulesError, 1, 57, "rotterdam"),
    (f"{FULL} double=16\n", RulesError, 1, 58, "16"),
    (f"{FULL.replace('QJ9', 'QJ9X')} trump=H\n", DealError, 1, 14, "X"),
    (f"   {FULL.replace('QJ9', 'QJ9X')}\n", DealError, 1, 17, "X"),
    ("N:AKQ trump=H\n", DealError, 1, 6, "AKQ"),
]


@pytest.mark.parametrize("text, cls, line, column, token", BAD)
def test_bad_input_is_located(text, cls, line, column, token):
    if cls is None:  # a sanity row: this one is fine
        parse_deal_text(text, "bad.txt")
        return
    with pytest.raises(cls) as e:
        parse_deal_text(text, "bad.txt")
    err = e.value
    assert isinstance(err, KrakenError) and isinstance(err, ValueError)
    assert err.source == "bad.txt"
    assert (err.line, err.column) == (line, column), str(err)
    if token is not None:
        assert err.token == token, str(err)
    assert str(err).startswith(f"bad.txt, line {line}, column {column}: ")


def test_bad_rank_message_matches_the_documented_form():
    text = f'[Deal "{FULL.replace("AT8", "AKX")}"]\n'
    with pytest.raises(DealError) as e:
        parse_deal_text(text, "deals.txt")
    assert str(e.value) == ("deals.txt, line 1, column 12: expected a rank A, K, Q, J, T "
                            "(or 10), 9, 8 or 7 (got 'X')")


@pytest.mark.parametrize("text", ["", "\n\n", "% only a comment\n; and another\n"])
def test_a_file_without_deals_is_an_error(text):
    with pytest.raises(DealFileError) as e:
        parse_deal_text(text, "empty.txt")
    assert str(e.value).startswith("empty.txt: no deal")


def test_unreadable_files(tmp_path):
    with pytest.raises(DealFileError) as e:
        parse_deal_file(tmp_path / "missing.txt")
    assert "missing.txt" in str(e.value) and "cannot read" in str(e.value)
    p = tmp_path / "latin1.txt"
    p.write_bytes(b"% caf\xe9\n")
    with pytest.raises(DealFileError) as e:
        parse_deal_file(p)
    assert "UTF-8" in str(e.value)


# ------------------------------------------------------------------------- data sets
def test_datasets_parse():
    full = parse_deal_file(DATASETS / "full_deal.txt")
    assert len(full) == 1 and full[0].trump is None and full[0].deal.size == 8
    assert full[0].played == []

    part = parse_deal_file(DATASETS / "part_played.txt")
    assert len(part) == 1 and part[0].trump is not None and part[0].deal.size == 8
    assert 0 < len(part[0].played) < 32 and len(part[0].played) % 4 != 0  # ends mid-trick

    many = parse_deal_file(DATASETS / "many_deals.txt")
    assert 10 <= len(many) <= 20
    assert all(s.trump is not None and s.deal.size == 8 for s in many)
    assert len({s.deal for s in many}) == len(many)


# The generator of datasets/*.txt (seeded, so the files can be rebuilt exactly).
SEED = 20240601
PRESET_CYCLE = ["kraken", "kraken", "kraken-amsterdam", "klaverjas-rotterdam",
                "klaverjas-amsterdam"]


def random_deal(rng, size=8):
    """A random deal of ``size`` cards a hand from the numpy Generator ``rng``."""
    perm = rng.permutation(32)
    return Deal(tuple(mask_of(int(c) for c in perm[i * size:(i + 1) * size]) for i in range(4)))


def make_datasets() -> dict:
    """The text of every example data set, by file name."""
    rng = np.random.default_rng(SEED)
    note = f"% Generated with numpy.random.default_rng({SEED}) (tests/test_dealfile.py).\n"
    d = random_deal(rng)
    first = int(rng.integers(4))
    full = ("% kraken-solver example: one full deal, no trump given, so kraken-solve shows the\n"
            "% trump table of the first player and then analyses the best trump.\n" + note +
            f'\n[Deal "{d.pbn(first)}"]\n[First "{SEATS[first]}"]\n[Rules "kraken"]\n')

    d = random_deal(rng)
    first, trump = int(rng.integers(4)), int(rng.integers(4))
    played = []
    for _ in range(10):  # random legal cards: two tricks and half of the third
        played.append(str(rng.choice(legal_cards(d, trump, first, played=played))))
    lines = [" ".join(played[i:i + 4]) for i in range(0, len(played), 4)]
    part = ("% kraken-solver example: a full deal part-played: two tricks and half of the "
            "third.\n% The [Play] cards are in play order from the first lead, one trick a "
            "line.\n" + note +
            f'\n[Deal "{d.pbn(first)}"]\n[Trump "{SUITS[trump]}"]\n[First "{SEATS[first]}"]\n'
            f'[Rules "kraken"]\n[Play "{SEATS[first]}"]\n' + "\n".join(lines) + "\n")

    many = ["% kraken-solver example: 12 full deals in the one-line form:",
            "% PBN deal, then trump=, first=, rules= and (optionally) double=.", note]
    for i in range(12):
        d = random_deal(rng)
        first, trump = int(rng.integers(4)), int(rng.integers(4))
        words = [d.pbn(int(rng.integers(4))), f"trump={SUITS[trump]}", f"first={SEATS[first]}",
                 f"rules={PRESET_CYCLE[i % len(PRESET_CYCLE)]}"]
        if i % 4 == 3:
            words.append(f"double={2 ** (1 + (i // 4) % 3)}")
        many.append(" ".join(words))
    return {"full_deal.txt": full, "part_played.txt": part,
            "many_deals.txt": "\n".join(many) + "\n"}


def test_datasets_are_reproducible():
    for name, text in make_datasets().items():
        assert (DATASETS / name).read_text(encoding="utf-8") == text, name


if __name__ == "__main__":  # rewrite the data sets
    for name, text in make_datasets().items():
        (DATASETS / name).write_text(text, encoding="utf-8")
        print("wrote", DATASETS / name)


@pytest.mark.parametrize("sep", ["\u2028", "\x0c", "\x85"])
def test_only_newlines_end_lines(sep):
    # a form feed or U+2028 inside a comment is part of the comment, not a line break
    text = f"% comment {sep} more\nN:A... K... Q... X... trump=S\n"
    with pytest.raises(DealError) as e:
        parse_deal_text(text, "w.txt")
    assert (e.value.line, e.value.column, e.value.token) == (2, 18, "X")


def test_text_after_a_tag_is_located():
    text = '[Deal "N:A... K... Q... J..."]\n[Trump "S"]\n[Play "N"] SA\n'
    with pytest.raises(DealFileError) as e:
        parse_deal_text(text, "a.txt")
    assert (e.value.line, e.value.column, e.value.token) == (3, 12, "SA")
    assert "after the tag" in e.value.message


# ------------------------------------------------------------------------- tester's findings
# the multiplier in ASCII digits only: '²' made int() fail, '٢' (Arabic-Indic 2) read as 2
@pytest.mark.parametrize("digit", ["\u00b2", "\u0662", "\uff12", "\u2082"])
def test_double_takes_ascii_digits_only(digit):
    for text, col in ((f"{SMALL} double={digit}\n", 34),
                      (f'[Deal "{SMALL}"]\n[Double "{digit}"]\n', 10)):
        with pytest.raises(RulesError) as e:
            parse_deal_text(text, "d.txt")
        line = text.count("\n")
        assert (e.value.line, e.value.column, e.value.token) == (line, col, digit)
    assert parse_deal_text(f"{SMALL} double=02\n")[0].rules.multiplier == 2


def test_a_double_of_thousands_of_digits_is_a_clear_error():
    # int() refuses strings of more than 4,300 digits: the length is checked first
    for text in (f"{SMALL} double={'9' * 5000}\n", f'[Deal "{SMALL}"]\n[Double "{"9" * 5000}"]\n'):
        with pytest.raises(RulesError, match="expected a multiplier 1, 2"):
            parse_deal_text(text, "d.txt")


def test_a_file_too_large_is_refused(tmp_path, monkeypatch):
    from kraken_solver.notation import reader as dealfile
    with pytest.raises(DealFileError) as e:
        parse_deal_file("/dev/zero")                 # endless, and no text: its first byte
    assert e.value.source == "/dev/zero" and "a NUL byte; byte 1 of the file" in str(e.value)
    p = tmp_path / "big.txt"
    p.write_text(f"{SMALL} trump=S\n" * 10)
    monkeypatch.setattr(dealfile, "MAX_FILE_BYTES", 100)
    with pytest.raises(DealFileError) as e:
        parse_deal_file(p)
    assert "larger than" in str(e.value)
    monkeypatch.setattr(dealfile, "MAX_FILE_BYTES", 10 * len(f"{SMALL} trump=S\n"))
    assert len(parse_deal_file(p)) == 10           # exactly at the limit: read


def test_a_line_too_long_is_refused():
    from kraken_solver.notation.dealfile import MAX_LINE_CHARS
    text = f"{SMALL} trump=S\n% " + "x" * MAX_LINE_CHARS + "\n"
    with pytest.raises(DealFileError) as e:
        parse_deal_text(text, "l.txt")
    assert (e.value.line, e.value.column) == (2, MAX_LINE_CHARS + 1)
    assert "longer than" in e.value.message and len(str(e.value)) < 200
    ok = f"{SMALL} trump=S\n% " + "x" * (MAX_LINE_CHARS - 2) + "\n"
    assert len(parse_deal_text(ok)) == 1


@pytest.mark.parametrize("line, column, token", [
    ('[Deal2 "N:A... K... Q... J..."]', 2, "Deal2"),
    ('[D\u00e9al "N:A... K... Q... J..."]', 2, "D\u00e9al"),
    ('[[Deal "N:A... K... Q... J..."]', 2, "[Deal"),
    ('  [ Tr\u00fcmp "S"]', 5, "Tr\u00fcmp"),
    ("[]", 2, "]"),
    ('["S"]', 2, '"'),
])
def test_a_bad_tag_name_is_named(line, column, token):
    with pytest.raises(DealFileError) as e:
        parse_deal_text(line + "\n", "t.txt")
    assert (e.value.line, e.value.column, e.value.token) == (1, column, token)
    assert "tag name" in e.value.message and "double quotes" not in e.value.message


def test_hands_over_8_cards_say_each_hands_count():
    # N 9, E 9, S 10, W 0 cards: more than 8 a hand is the fault, not "the others 9"
    text = '[Deal "N:AKQJT987.A.. .KQJT987.AK. ..QJT987.AKQJ ..."]\n'
    with pytest.raises(DealError) as e:
        parse_deal_text(text, "h.txt")
    assert (e.value.column, e.value.token) == (10, "AKQJT987.A..")
    assert e.value.message == ("N holds 9 cards; a hand holds 1 to 8 "
                               "(cards a hand: N 9, E 9, S 10, W 0)")
    with pytest.raises(DealError) as e:
        parse_deal_text('[Deal "N:AK... Q... J... T..."]\n', "h.txt")
    assert "N 2, E 1, S 1, W 1" in e.value.message


def test_a_card_twice_in_one_hand():
    with pytest.raises(DealError) as e:
        parse_deal_text("N:A.7.. .1010.. K.8.. Q.9.. trump=S\n", "t.txt")
    assert (e.value.column, e.value.token) == (12, "HT")
    assert e.value.message == "card HT appears twice in E's hand"
    with pytest.raises(DealError) as e:                     # two hands: as before
        parse_deal_text("N:A.7.. .T.. K.T.. Q.9.. trump=S\n", "t.txt")
    assert e.value.message == "card HT is dealt twice (E and S)"


@pytest.mark.parametrize("text, cls", [
    ("x" * 50000 + "\n", DealFileError),                             # not a deal or tag
    (f'[Deal "{SMALL}"]\n[Trump "' + "S" * 50000 + '"]\n', CardParseError),
    (f'[Deal "{SMALL}"]\n[Rules "' + "k" * 50000 + '"]\n', RulesError),
    (f"{SMALL} trump=S " + "k" * 50000 + "=1\n", DealFileError),
    ('[Deal "N:' + "A" * 50000 + '... K... Q... J..."]\n', DealError),
    (f'[Deal "{SMALL}"]\n[Trump "S"]\n[Play "N"]\nS' + "7" * 50000 + "\n", CardParseError),
    ('[Deal "' + "Q" * 50000 + "\n", DealFileError),
], ids=["word", "trump", "rules", "key", "deal", "card", "tag"])
def test_long_bad_text_is_shortened(text, cls):
    with pytest.raises(cls) as e:
        parse_deal_text(text, "long.txt")
    # the message (a rules error lists the presets and options: about 250 characters) plus
    # at most 40 characters of the bad text
    assert len(str(e.value)) < 360
    assert e.value.token is None or len(e.value.token) <= 41


def test_a_binary_file_says_line_and_column(tmp_path):
    p = tmp_path / "bin.txt"
    p.write_bytes(b"% one\r\n% two\n% caf\xe9\n")
    with pytest.raises(DealFileError) as e:
        parse_deal_file(p)
    assert (e.value.source, e.value.line, e.value.column) == (str(p), 3, 6)
    assert "not a UTF-8 text file" in e.value.message and "byte 19" in e.value.message
    p.write_bytes(b"\xef\xbb\xbf% \xe2\x99\xa5\x00\x01\x02\n")   # BOM, '% ♥', then NUL
    with pytest.raises(DealFileError) as e:
        parse_deal_file(p)
    assert (e.value.line, e.value.column) == (1, 4) and "NUL" in e.value.message


# ------------------------------------------------------------------------- PBN's other tags
def test_unknown_values_are_as_if_missing():
    (a,) = parse_deal_text(f'[Deal "{FULL}"]\n[Trump "?"]\n[First "?"]\n[Rules "?"]\n'
                           '[Double "?"]\n')
    assert (a.trump, a.first, a.rules, a.first_given) == (None, 0, Rules(), False)
    (b,) = parse_deal_text(f'[Deal "{FULL}"]\n[Trump ""]\n[Double ""]\n')
    assert b.trump is None and b.rules.multiplier == 1
    (c,) = parse_deal_text(f"{FULL} trump=? first=E rules=? double=?\n")
    assert (c.trump, c.first, c.rules) == (None, 1, Rules())
    # [Play "?"]: the first player leads
    (d,) = parse_deal_text(f'[Deal "{FULL}"]\n[Trump "H"]\n[Play "?"]\nSA S9\n')
    assert len(d.played) == 2


def test_dealer_sets_the_first_player_left_of_it():
    for dealer, first in zip("NESW", (1, 2, 3, 0)):
        (a,) = parse_deal_text(f'[Dealer "{dealer}"]\n[Deal "{FULL}"]\n')
        assert a.first == first and a.tags["Dealer"] == dealer and a.first_given is False
    (b,) = parse_deal_text(f'[Deal "{FULL}"]\n[Dealer "N"]\n[First "S"]\n')
    assert b.first == 2                  # [First] says otherwise
    (c,) = parse_deal_text(f'[Deal "{FULL}"]\n[Dealer "W"]\n', first="E")
    assert c.first == 1                  # and the override does too


def test_pbn_games_tags_before_the_deal_and_empty_lines():
    text = (f'[Event "A"]\n[Board "1"]\n[Deal "{FULL}"]\n[Contract "?"]\n\n'
            f'[Event "#"]\n[Board "2"]\n[Vulnerable "All"]\n[Deal "{SMALL}"]\n'
            '[Result "3"]\n')
    a, b = parse_deal_text(text, "g.pbn")
    assert a.tags == {"Event": "A", "Board": "1"} and a.skipped == []
    assert b.tags == {"Event": "A", "Board": "2"}
    assert b.skipped == [("Vulnerable", 8, "bridge"), ("Result", 10, "bridge")]
    # our own tags after an empty line still belong to the deal before (as they always did)
    (c,) = parse_deal_text(f'[Deal "{FULL}"]\n\n[Trump "H"]\n\n[Play "N"]\nSA\n')
    assert c.trump == 1 and len(c.played) == 1
    # and may come before it in a game
    (d,) = parse_deal_text(f'[Trump "H"]\n[First "S"]\n[Deal "{FULL}"]\n')
    assert (d.trump, d.first) == (1, 2)


def test_sections_of_skipped_tags_and_brace_comments():
    text = (f'[Deal "{FULL}"]\n{{a comment\nover [Trump "S"] two lines}}\n'
            '[Auction "N"]\n1S Pass 2H Pass\n4H AP\n'
            '[OptimumResultTable "Declarer;Denomination\\2R;Result\\2R"]\nN S 9\nE H 7\n'
            '[Note "1:a {brace} in quotes is text"]\n'
            '[Trump "H"] {the trump}\n[Play "N"]\nSA {the lead} S9\n')
    (a,) = parse_deal_text(text, "s.pbn")
    assert a.trump == 1 and a.played == cards("SA S9")
    assert [(n, why) for n, _, why in a.skipped] == [("Auction", "bridge"),
                                                     ("OptimumResultTable", "unknown"),
                                                     ("Note", "unknown")]
    # the columns after a brace comment stay right
    with pytest.raises(CardParseError) as e:
        parse_deal_text(f'[Deal "{FULL}"]\n[Trump "H"]\n[Play "N"]\n{{x}} SA SX\n')
    assert (e.value.line, e.value.column) == (4, 9)          # the X of SX


@pytest.mark.parametrize("text, where, closed, trumps, played", [
    # a one-line deal, then a '{' never closed: the deals after it had been dropped, exit 0
    (f"{FULL} trump=H\n{{ a note that never closes\n{FULL} trump=S\n", (2, 1),
     f"{FULL} trump=H\n{{ a note that closes }}\n{FULL} trump=S\n", [1, 0], [[], []]),
    # a tagged deal whose [Play] came after the open comment: the fresh deal was solved
    (f'[Deal "{FULL}"]\n[Trump "H"]\n{{ comment\n[Play "N"]\nSA\n', (3, 1),
     f'[Deal "{FULL}"]\n[Trump "H"]\n{{ comment }}\n[Play "N"]\nSA\n', [1], [["SA"]]),
    # opened after a closed one on the same line
    (f'[Deal "{FULL}"]\n[Trump "H"] {{closed}} {{open\n', (2, 22),
     f'[Deal "{FULL}"]\n[Trump "H"] {{closed}} {{open\nover two lines}}\n', [1], [[]]),
])
def test_a_brace_comment_never_closed_is_an_error_where_it_opens(text, where, closed, trumps,
                                                                  played):
    with pytest.raises(DealFileError) as e:
        parse_deal_text(text, "c.txt")
    assert (e.value.source, e.value.line, e.value.column, e.value.token) == ("c.txt", *where,
                                                                             "{")
    assert "never closed" in str(e.value)
    # the same file with the comment closed is read whole
    specs = parse_deal_text(closed, "c.txt")
    assert [s.trump for s in specs] == trumps
    assert [s.played for s in specs] == [cards(" ".join(p)) if p else [] for p in played]


def test_the_warning_is_one_line_a_file():
    specs = parse_deal_text(f'[Vulnerable "NS"]\n[Deal "{FULL}"]\n[Foo "1"]\n\n'
                            f'[Vulnerable "EW"]\n[Deal "{SMALL}"]\n', "w.pbn")
    assert skipped_tags_warning(specs) == [
        "w.pbn: skipped tags that kraken-solver does not use: bridge's [Vulnerable] (2 deals, "
        "first at line 1); unknown [Foo] (line 3)"]
    assert skipped_tags_warning(parse_deal_text(f'[Deal "{FULL}"]\n[Declarer "?"]\n')) == []


def test_the_club_export_dataset():
    specs = parse_deal_file(DATASETS / "club_export.pbn")
    assert [s.first for s in specs] == [0, 1, 2]
    assert [s.tags["Board"] for s in specs] == ["1", "2", "3"]
    assert [s.tags["Date"] for s in specs] == ["2024.06.15"] * 3
    assert all(s.trump is None and s.played == [] for s in specs)
    rng = np.random.default_rng(20240615)          # the deals are those of its seed
    for s in specs:
        perm = rng.permutation(32)
        assert s.deal.hands == tuple(mask_of(int(c) for c in perm[j * 8:(j + 1) * 8])
                                     for j in range(4))


# ------------------------------------------------------------------ streaming (issue 27)
def test_a_large_file_is_read_in_the_memory_of_one_deal(tmp_path):
    """A 64 MiB file took 30x its size in memory and minutes before the first deal: the
    reader holds a block and one deal, and gives the first deal before reading the rest."""
    import tracemalloc

    from kraken_solver.dealing.seeded import generate_deals
    from kraken_solver.notation.reader import DealReader
    # 400 deals, each with a comment of 10,000 characters: 4 MB that parse fast
    lines = [f"{d} trump=H % {'x' * 10000}\n" for d in generate_deals(3, 0, 400)]
    p = tmp_path / "big.txt"
    with open(p, "w") as f:
        f.writelines(lines)
    size = p.stat().st_size
    tracemalloc.start()
    try:
        reader = DealReader(p)
        it = iter(reader)
        first = next(it)
        at_first = reader.bytes_read
        count = 1 + sum(1 for _ in it)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert str(first.deal) == " ".join(lines[0].split()[:4]) and count == 400
    assert at_first <= 2 * 65536 < size            # the first deal after one block
    assert peak < 500_000 and size > 4_000_000     # a block and a deal, not the whole file
    assert reader.deals == 400 and reader.bytes_read == size
    import hashlib
    assert reader.sha256 == hashlib.sha256(p.read_bytes()).hexdigest()


def test_the_stream_reads_lines_and_bytes_as_the_text_reader_does(tmp_path):
    """Lines split across blocks (\\r\\n cut in two, a character of several bytes cut in two)
    give the same deals and the same errors, at the same line and column."""
    from kraken_solver.notation import reader as dealfile
    from kraken_solver.notation.reader import DealReader
    text = ("% caf\u00e9 \u2665\r\n" + f"{SMALL} trump=\u2665\r" + f"[Deal \"{SMALL}\"]\n"
            + '[Trump "S"]\r\n\r\n' + f"{SMALL} trump=C first=E\n")
    p = tmp_path / "t.txt"
    p.write_bytes(("\ufeff" + text).encode("utf-8"))
    want = parse_deal_text(text, str(p))
    for block in (1, 2, 3, 5, 7, 64):
        dealfile.READ_BLOCK = block
        try:
            assert list(DealReader(p)) == want, block
        finally:
            dealfile.READ_BLOCK = 1 << 16
    bad = text + "N:AX... K... Q... J...\n"
    p.write_text(bad, encoding="utf-8")
    with pytest.raises(DealError) as a:
        parse_deal_text(bad, str(p))
    with pytest.raises(DealError) as b:
        list(DealReader(p))
    assert str(a.value) == str(b.value)


def test_check_ahead_reports_a_mistake_before_the_first_deal_is_used(tmp_path):
    from kraken_solver.notation.reader import DealReader
    p = tmp_path / "t.txt"
    p.write_text(f"{SMALL} trump=S\n" * 3 + "N:garbage trump=S\n")
    reader = DealReader(p)
    with pytest.raises(DealError) as e:
        reader.check_ahead()
    assert e.value.line == 4
    ok = tmp_path / "ok.txt"
    ok.write_text(f"{SMALL} trump=S\n" * 3)
    reader = DealReader(ok)
    reader.check_ahead()
    assert len(list(reader)) == 3               # read again after the check: every deal


def test_an_endless_stream_is_stopped_at_the_limit(monkeypatch):
    """A stream has no size to refuse up front: the reader stops at MAX_FILE_BYTES."""
    import io
    import sys

    from kraken_solver.notation import reader as dealfile
    from kraken_solver.notation.reader import DealReader

    class Endless(io.RawIOBase):
        def readable(self):
            return True

        def readinto(self, b):
            line = f"{SMALL} trump=S\n".encode()
            n = len(b) // len(line) * len(line) or len(b)
            b[:n] = (line * (n // len(line) + 1))[:n]
            return n

    monkeypatch.setattr(dealfile, "MAX_FILE_BYTES", 10_000)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BufferedReader(Endless())))
    with pytest.raises(DealFileError, match="larger than"):
        for _ in DealReader("-"):
            pass
