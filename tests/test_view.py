"""kraken-view without a browser: the JSON API (Flask's test client), the score sheet, the
exported page, the command's options and errors, and the real server stopped by Ctrl-C.

The page itself, in headless Chromium, is tested in test_view_browser.py."""

from __future__ import annotations

import dataclasses
import io
import json
import re
import signal
import socket
import subprocess
import sys
import threading
import urllib.request
from pathlib import Path

import numpy as np
import pytest
import tomllib
from click.testing import CliRunner

from kraken_solver import Rules, Searcher, hand_roem, solve, trump_table
from kraken_solver.cli import view as view_cli
from kraken_solver.errors import KrakenError
from kraken_solver.game.cards import card_str, parse_card
from kraken_solver.game.position import Position
from kraken_solver.notation.dealfile import parse_deal_text
from kraken_solver.notation.reader import parse_deal_file
from kraken_solver.view.app import create_app
from kraken_solver.view.board import RANK_SHOWN, melds_of, rank_shown, state_of
from kraken_solver.view.page import (MAX_DEALS, MAX_EXPORT_DEALS, MAX_PASTE_CHARS, deal_entry,
                                     export_page, page_html)
from kraken_solver.view.query import ENDPOINT_WORDS, Query, error_json, query_params, read_query
from kraken_solver.view.session import MAX_VIEW_SAMPLES, BoardSolver, BusyError

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "datasets"
DEAL = "N:AT8.T.8.QJ9 9.A.AQJ7.K7 QJ7.J987..8 K.KQ.KT9.AT"
FULL = "N:A8.98..KQJ8 KQJ97.Q.7.7 .AKT.AQJ8.T T.J7.KT9.A9"


@pytest.fixture(scope="module")
def solver():
    return BoardSolver()


@pytest.fixture(scope="module")
def client(solver):
    specs = parse_deal_file(DATA / "many_deals.txt")
    app = create_app([deal_entry(s, i) for i, s in enumerate(specs)],
                     source="many_deals.txt", solver=solver)
    return app.test_client()


def random_line(deal, trump, first, rules, rng, n=None):
    """A random legal line of ``n`` cards (all of them by default) as card texts."""
    pos = Position(deal, trump, first, rules)
    line = []
    while not pos.over and (n is None or len(line) < n):
        c = pos.legal()[rng.integers(len(pos.legal()))]
        pos.play(c)
        line.append(card_str(c))
    return line


# ------------------------------------------------------------------------------ queries
def test_query_round_trip():
    rules = dataclasses.replace(Rules.preset("klaverjas-rotterdam"), multiplier=4)
    line = random_line(FULL, 2, 1, rules, np.random.default_rng(1), n=6)
    q = Query(Position(FULL, 2, 1).deal, 2, 1, rules, tuple(parse_card(c) for c in line))
    words = query_params(q)
    assert words["rules"] == "klaverjas-rotterdam" and words["double"] == "4"
    back = read_query(words)
    assert back == q


@pytest.mark.parametrize("words, message", [
    ({}, "deal: no deal given"),
    ({"deal": "N:AKX"}, "deal, column 6: a PBN deal has four hands"),
    ({"deal": DEAL.replace("AT8", "AX8")}, "deal, column 4: expected a rank"),
    ({"deal": DEAL, "trump": "X"}, "trump: expected a trump suit S, H, D or C (got 'X')"),
    ({"deal": DEAL, "first": "Q"}, "first: expected a first player N, E, S or W"),
    ({"deal": DEAL, "rules": "bridge"}, "rules: unknown rules preset"),
    ({"deal": DEAL, "double": "3"}, "double: expected a multiplier 1, 2 (kraken), 4 or 8"),
    ({"deal": DEAL, "play": "SA"}, "trump: cards are played, so a trump is needed"),
    ({"deal": DEAL, "trump": "H", "play": "SA SX"}, "play, card 2: expected a card"),
    ({"deal": DEAL, "trump": "H", "play": "SA HA"},
     "play, card 2: E may not play HA here (legal: S9; rules kraken) (got 'HA')"),
    ({"deal": DEAL, "trump": "H", "play": "SA SK"},
     "play, card 2: E is to play but SK is in W's hand (got 'SK')"),
    ({"deal": DEAL, "trump": "H", "play": "SA " * 33}, "play: at most 32 cards"),
    ({"deal": "N:" + "A" * 500}, "deal: at most 400 characters"),
])
def test_query_errors_say_where(words, message):
    with pytest.raises(KrakenError) as e:
        read_query(words)
    assert error_json(e.value)["error"].startswith(message), str(e.value)


# ------------------------------------------------------------------------ score sheet
@pytest.mark.parametrize("preset, multiplier, seed", [
    ("kraken", 1, 1), ("kraken", 2, 2), ("klaverjas-rotterdam", 1, 3),
    ("kraken-amsterdam", 8, 4), ("klaverjas-amsterdam", 1, 5)])
def test_sheet_adds_up_to_the_final_score(preset, multiplier, seed):
    """At the end of a deal the sheet's totals give the score the solver's rules give
    (rule 19), made or nat, and the hand roem melds add up to hand_roem()."""
    rng = np.random.default_rng(seed)
    rules = dataclasses.replace(Rules.preset(preset), multiplier=multiplier)
    for _ in range(6):
        deal = Position(FULL, 0, 0).deal.rotated(int(rng.integers(4)))
        trump, first = int(rng.integers(4)), int(rng.integers(4))
        line = random_line(deal, trump, first, rules, rng)
        q = read_query({"deal": str(deal), "trump": "SHDC"[trump], "first": "NESW"[first],
                        "rules": preset, "double": str(multiplier), "play": " ".join(line)})
        st = state_of(q)
        pos = Position(deal, trump, first, rules, line)
        final = st["sheet"]["final"]
        assert st["over"] and final["score"] == pos.final_value("score")
        assert final["made"] == (final["score"] > 0)
        sheet = st["sheet"]
        pt, df = sheet["playing_team"], sheet["defenders"]       # the sides named
        assert pt["card_points"] + df["card_points"] + pt["last_trick"] + df["last_trick"] \
            == pos.total_points
        assert pt["tricks"] + df["tricks"] == 8
        assert set(sheet) == {"playing_team", "defenders", "pit_bonus", "pit_possible",
                              "final", "total_points", "last_bonus"}
        counted = [sum(m["value"] for m in st["melds"] if m["counts"]
                       and ("NESW".index(m["seat"]) % 2 == first % 2) == side)
                   for side in (True, False)]
        assert tuple(counted) == hand_roem(deal, trump, first, rules=rules)
        assert [pt["hand_roem"], df["hand_roem"]] == counted
        for t in (pt, df):
            assert t["total"] == (t["card_points"] + t["last_trick"] + t["trick_roem"]
                                  + t["hand_roem"] + (sheet["pit_bonus"] if t is pt else 0))


def test_sheet_names_the_pit():
    """N holds every trump: the playing team takes every trick and the sheet adds the pit
    bonus (rule 18)."""
    deal = "N:AKQJT987... .AKQJT987.. ..AKQJT987. ...AKQJT987"
    value = solve(deal, "S", "N").value
    line = solve(deal, "S", "N").pv
    st = state_of(read_query({"deal": deal, "trump": "S", "first": "N",
                              "play": " ".join(line)}))
    final = st["sheet"]["final"]
    sheet = st["sheet"]
    assert final["pit"] and sheet["pit_bonus"] == 100
    assert (sheet["playing_team"]["tricks"], sheet["defenders"]["tricks"]) == (8, 0)
    assert final["score"] == value == sheet["playing_team"]["total"]


def test_melds_describe_runs_and_fours():
    """N's four jacks take the jack of the run 9 T J (rule 13: 200 beats 20); N holds the best
    meld, so E's run does not count (rule 15) but E's stuk does (rule 16)."""
    deal = "N:JT9.J7.J.J7 AKQ.KQ.8.98 87.A9.AQ.AQ .T8.KT97.KT"
    melds = melds_of(Position(deal, 1, 0).deal, 1, 0, Rules())
    assert [(m["seat"], m["text"], m["value"], m["counts"]) for m in melds] == [
        ("N", "four jacks", 200, True), ("E", "run \u2660 Q K A", 20, False),
        ("E", "stuk \u2665 K Q", 20, True)]
    assert sum(m["value"] for m in melds if m["counts"] and m["seat"] in "NS") == \
        hand_roem(deal, "H", "N")[0]
    assert melds_of(Position(deal, 1, 0).deal, 1, 0, Rules.preset("klaverjas-rotterdam")) == []


def test_meld_texts_write_the_ten_as_the_cards_do(client):
    """The meld text said 'run ♦ 9 T J' beside cards that show '10': one way on the page."""
    deal = "N:JT9... Q87... AK.A.. ..AK.A"
    melds = melds_of(Position(deal, 1, 0).deal, 1, 0, Rules())
    assert [(m["seat"], m["text"], m["cards"]) for m in melds] == [
        ("N", "run \u2660 9 10 J", ["S9", "ST", "SJ"])]
    status, body = _get(client, "/api/state", deal=deal, trump="H")
    assert status == 200 and [m["text"] for m in body["melds"]] == ["run \u2660 9 10 J"]
    # the page's own rank texts (view.js) are the ones rank_shown gives
    js = (ROOT / "kraken_solver" / "view" / "web" / "view.js").read_text()
    assert 'const RANK_SHOWN = { T: "10" };' in js and RANK_SHOWN == {"T": "10"}
    assert [rank_shown(r) for r in "789TJQKA"] == ["7", "8", "9", "10", "J", "Q", "K",
                                                         "A"]


# ------------------------------------------------------------------------------- API
def _get(client, path, **words):
    r = client.get(path, query_string=words)
    return r.status_code, r.get_json()


def test_values_are_the_solvers(client):
    rng = np.random.default_rng(7)
    searcher = Searcher()
    for spec in parse_deal_file(DATA / "many_deals.txt")[:4]:
        line = random_line(spec.deal, spec.trump, spec.first, spec.rules, rng, n=5)
        q = Query(spec.deal, spec.trump, spec.first, spec.rules,
                         tuple(parse_card(c) for c in line))
        for objective in ("score", "points"):
            status, body = _get(client, "/api/values", objective=objective, **query_params(q))
            assert status == 200, body
            ref = solve(spec.deal, spec.trump, spec.first, rules=spec.rules, played=line,
                        objective=objective, all_cards=True, pv=False, searcher=searcher)
            assert body["card_values"] == ref.card_values
            assert body["best_cards"] == ref.best_cards and body["value"] == ref.value
        again = _get(client, "/api/values", **query_params(q))[1]
        assert again["cached"] is True


def test_trumps_and_line(client):
    spec = parse_deal_file(DATA / "full_deal.txt")[0]
    q = Query(spec.deal, None, spec.first, spec.rules)
    status, body = _get(client, "/api/trumps", **query_params(q))
    assert status == 200
    ref = trump_table(spec.deal, spec.first, rules=spec.rules)
    assert [(r["trump"], r["score"], r["points"], r["best"]) for r in body["rows"]] == \
        [("SHDC"[r.trump], r.score, r.points, r.best) for r in ref]
    words = dict(query_params(q), trump="H", play="S7")
    status, body = _get(client, "/api/line", **words)
    assert status == 200 and len(body["pv"]) == 31
    pos = Position(spec.deal, "H", spec.first, spec.rules, ["S7"] + body["pv"])
    assert pos.final_value("score") == body["value"] == solve(
        spec.deal, "H", spec.first, played=["S7"]).value


def test_api_errors_are_json(client):
    status, body = _get(client, "/api/values", deal=DEAL)
    assert status == 400 and body == {"error": "trump: no trump given: expected S, H, D or C",
                                      "field": "trump"}
    status, body = _get(client, "/api/values", deal=DEAL, trump="H", objective="tricks")
    assert status == 400 and body["field"] == "objective"
    # rules= and double= that name two multipliers (the page gave double= the last word)
    status, body = _get(client, "/api/state", deal=DEAL, trump="H",
                        rules="kraken+multiplier=2", double="1")
    assert status == 400 and body["field"] == "double" and "give it once" in body["error"]
    status, body = _get(client, "/api/state", deal=DEAL, trump="H",
                        rules="kraken+multiplier=2", double="2")
    assert status == 200 and (body["rules_name"], body["double"]) == ("kraken+multiplier=2", 2)
    over = " ".join(solve(DEAL, "H", "N").pv)
    status, body = _get(client, "/api/values", deal=DEAL, trump="H", play=over)
    assert status == 400 and "the deal is over" in body["error"]
    status, body = _get(client, "/api/line", deal=DEAL, trump="H", play=over)
    assert status == 400 and body["error"] == "play: the deal is over: no card left to play"
    status, body = _get(client, "/api/state", deal=DEAL, trump="H", play=over)
    assert status == 200 and body["over"] and body["legal"] == []
    status, body = _get(client, "/api/nothing")
    assert status == 404 and "no such page" in body["error"]
    r = client.post("/api/values")
    assert r.status_code == 405 and "error" in r.get_json()
    r = client.get("/api/info", headers={"Host": "attacker.example:8000"})
    assert r.status_code == 403 and "loopback" in r.get_json()["error"]


def test_unknown_query_words_are_refused(client):
    """``played=`` for ``play=`` was silently ignored: 200 and the values before the card."""
    status, body = _get(client, "/api/values", deal=DEAL, trump="H", played="SA")
    assert status == 400 and body == {
        "error": "query: unknown word; /api/values reads deal, trump, first, rules, double, "
                 "play, objective (got 'played')", "field": None}
    good = {"deal": DEAL, "trump": "H", "first": "N", "rules": "kraken", "double": "2",
            "play": "SA", "objective": "points"}
    for path, words in ENDPOINT_WORDS.items():
        r = client.get(path, query_string={**{w: good.get(w, "x") for w in words},
                                           "Play": "SA"})
        status, body = r.status_code, r.get_json()
        assert status == 400, (path, body)
        assert body["error"].startswith(f"query: unknown word; {path} reads ")
        assert body["error"].endswith("(got 'Play')") and body["field"] is None
    status, body = _get(client, "/api/info", deal=DEAL)
    assert status == 400 and body["error"] == ("query: unknown word; /api/info reads no query "
                                               "word (got 'deal')")
    # every word each endpoint reads is still read
    for path in ("/api/state", "/api/values", "/api/trumps", "/api/line"):
        status, body = _get(client, path, **good)
        assert status == 200, (path, body)
    assert _get(client, "/api/info")[0] == 200
    status, body = _get(client, "/api/nothing", played="SA")
    assert status == 404 and "no such page" in body["error"]
    r = client.post("/api/parse?text=x", json={"text": DEAL})
    assert r.status_code == 400 and r.get_json()["error"] == (
        "query: unknown word; /api/parse reads no query word (got 'text')")
    status, body = _get(client, "/api/hint/progress", job="nothing-here")
    assert body is not None and "unknown word" not in json.dumps(body)


def test_query_words_given_twice_are_refused(client):
    """``trump=H&trump=S`` was read as trump H without a word: every word an endpoint reads,
    given twice, is 400 naming it (its field), before the position is read."""
    status, body = _get(client, "/api/values", deal=DEAL, trump=["H", "S"])
    assert status == 400 and body == {
        "error": "trump: given 2 times; give each query word once (got 'trump=H&trump=S')",
        "field": "trump"}
    good = {"deal": DEAL, "trump": "H", "first": "N", "rules": "kraken", "double": "2",
            "play": "SA", "objective": "points", "samples": "5", "job": "j1", "client": "c1",
            "seat": "S", "bots": "N=random,E=random,W=random", "seed": "1"}
    for path, words in ENDPOINT_WORDS.items():
        for word in words:
            query = [(w, good[w]) for w in words] + [(word, good[word])]
            r = client.get(path, query_string=query)
            body = r.get_json()
            assert r.status_code == 400, (path, word, body)
            assert body["error"].startswith(f"{word}: given 2 times; give each query word "
                                            "once") and body["field"] == word, (path, body)
    status, body = _get(client, "/api/state", deal=DEAL, trump="H", play=["SA", "SA", "SK"])
    assert status == 400 and body["error"].startswith("play: given 3 times")
    # a word given twice among unknown words: the unknown word is named first
    status, body = _get(client, "/api/values", played="SA", trump=["H", "S"])
    assert status == 400 and body["error"].endswith("(got 'played')")
    assert _get(client, "/api/values", deal=DEAL, trump="H")[0] == 200


def test_parse_gives_the_cli_messages(client):
    bad = "N:AKQJ.T98.7.A KQ.J98.T7.KQ 9.KQJ.AQ.JT9 T87.A7.KJ98.7 trump=H"
    r = client.post("/api/parse", json={"text": bad})
    with pytest.raises(KrakenError) as e:
        parse_deal_text(bad, "the pasted text")
    assert r.status_code == 400 and r.get_json()["error"] == str(e.value)
    assert str(e.value).startswith("the pasted text, line 1, column 16: card SK is dealt twice")
    text = (DATA / "part_played.txt").read_text() + "\n" + DEAL + " trump=S\n"
    body = client.post("/api/parse", json={"text": text}).get_json()
    assert [d["params"]["play"].count(" ") + 1 if "play" in d["params"] else 0
            for d in body["deals"]] == [10, 0]
    r = client.post("/api/parse", json={"text": "x" * (MAX_PASTE_CHARS + 1)})
    assert r.status_code == 400 and r.get_json()["error"].startswith(
        "the pasted text: longer than 256 KiB; give a file")
    r = client.post("/api/parse", data="x" * (5 * MAX_PASTE_CHARS),
                    content_type="application/json")
    assert r.status_code == 413 and "too large" in r.get_json()["error"]
    # the same without a length (chunked, as waitress hands it on): 413, not "expected JSON"
    r = client.post("/api/parse", input_stream=io.BytesIO(b"x" * (5 * MAX_PASTE_CHARS)),
                    content_type="application/json", headers={"Transfer-Encoding": "chunked"},
                    environ_overrides={"wsgi.input_terminated": True})
    assert r.status_code == 413 and "too large" in r.get_json()["error"]
    for data in ("not json", "[" * 100_000, '{"text": "x", "txt": 1}', "[]", b"\xff\xfe"):
        r = client.post("/api/parse", data=data, content_type="application/json")
        assert r.status_code == 400 and "expected JSON" in r.get_json()["error"], data


def test_info_lists_the_deals(client):
    status, body = _get(client, "/api/info")
    assert status == 200 and len(body["deals"]) == 12
    assert body["deals"][3]["label"] == "4 \u00b7 line 8 \u00b7 \u2666 \u00b7 first W \u00b7 " \
        "klaverjas-rotterdam \u00b7 \u00d72"
    assert body["deals"][3]["params"]["double"] == "2"
    assert body["hint"] is True and body["limits"]["hint_samples"] == MAX_VIEW_SAMPLES


def test_one_searcher_many_threads(solver):
    """Requests in parallel threads share the one Searcher through its lock and each gets
    its own position's values."""
    solver.cache.clear()
    rng = np.random.default_rng(11)
    specs = parse_deal_file(DATA / "many_deals.txt")[:6]
    queries = []
    for spec in specs:
        line = random_line(spec.deal, spec.trump, spec.first, spec.rules, rng, n=3)
        queries.append(Query(spec.deal, spec.trump, spec.first, spec.rules,
                                    tuple(parse_card(c) for c in line)))
    results = {}

    def run(i):
        results[i] = solver.values(queries[i])["card_values"]
    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(queries)) for _ in
               range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for i, q in enumerate(queries):
        ref = solve(q.deal, q.trump, q.first, rules=q.rules, played=list(q.played),
                    all_cards=True, pv=False, searcher=Searcher())
        assert results[i] == ref.card_values


def test_busy_solver_says_so():
    s = BoardSolver(lock_wait=0.05)
    s.lock.acquire()
    try:
        with pytest.raises(BusyError, match="busy"):
            s.values(read_query({"deal": DEAL, "trump": "H"}))
    finally:
        s.lock.release()


# ----------------------------------------------------------------------------- export
def test_export_page_is_self_contained(solver):
    specs = parse_deal_file(DATA / "part_played.txt") + parse_deal_file(DATA / "full_deal.txt")
    html = export_page(specs, solver, source="x.txt")
    assert "/static/" not in html and not re.search(r"(src|href)=\"(?!data:)", html)
    assert "https://" not in html and "http://" not in html
    data = json.loads(re.search(r"window.KRAKEN_EXPORT = (.*?);</script>", html, re.S)
                      .group(1).replace("<\\/", "</"))
    part, full = data["deals"]
    assert part["line"][:10] == [card_str(c) for c in specs[0].played]
    assert len(part["line"]) == len(part["states"]) - 1 == 32
    assert full["trump_given"] is False and full["entry"]["params"]["trump"] == "H"
    for k in (0, 10, 31):
        ref = solve(specs[0].deal, specs[0].trump, specs[0].first, played=part["line"][:k],
                    all_cards=True, pv=False)
        assert part["values"]["score"][k]["card_values"] == ref.card_values
    assert part["values"]["score"][32] is None
    assert part["states"][32]["sheet"]["final"]["score"] == Position(
        specs[0].deal, specs[0].trump, specs[0].first, played=part["line"]).final_value("score")


def test_export_refuses_too_many_deals(solver):
    spec = parse_deal_file(DATA / "full_deal.txt")[0]
    with pytest.raises(KrakenError, match="at most 100"):
        export_page([spec] * (MAX_EXPORT_DEALS + 1), solver)


# ---------------------------------------------------------------------------- package
def test_the_page_ships_as_package_data():
    """Every file of kraken_solver/view/web is matched by pyproject's package-data (so a normal
    install carries it, not only an editable one), and the page names only those files."""
    conf = tomllib.loads((ROOT / "pyproject.toml").read_text())
    globs = conf["tool"]["setuptools"]["package-data"]["kraken_solver.view"]
    web = ROOT / "kraken_solver" / "view" / "web"
    files = sorted(p.name for p in web.iterdir())
    assert files == ["index.html", "play.css", "play.html", "play.js", "view.css", "view.js"]
    for name in files:
        assert any(Path("web", name).match(g) for g in globs), name
    html = page_html()
    assert set(re.findall(r'(?:src|href)="/static/([^"]+)"', html)) == {"view.css", "view.js"}
    # the console script enters through kraken_solver.cli's guard, which runs cli.view's main
    assert conf["project"]["scripts"]["kraken-view"] == "kraken_solver.cli:kraken_view"
    import kraken_solver.cli as cli
    assert callable(cli.kraken_view)


# ---------------------------------------------------------------------------- command
def test_cli_errors():
    run = CliRunner().invoke
    r = run(view_cli.main, [str(DATA / "full_deal.txt"), "--random", "1"])
    assert r.exit_code == 2 and "not both" in r.output
    r = run(view_cli.main, ["--export", "x.html"])
    assert r.exit_code == 2 and "--export needs deals" in r.output
    r = run(view_cli.main, ["--random", "1", "--rules", "bridge", "--no-browser"])
    assert r.exit_code == 1 and "kraken-view: error: --rules: unknown rules preset" in r.output
    r = run(view_cli.main, ["--port", "70000"])
    assert r.exit_code == 2
    r = run(view_cli.main, ["--random", "-1"])
    assert r.exit_code == 2


def test_cli_bad_file_is_one_line(tmp_path):
    f = tmp_path / "bad.txt"
    f.write_text("N:AKQJ.T98.7.A KQ.J98.T7.KQ 9.KQJ.AQ.JT9 T87.A7.KJ98.7 trump=H\n")
    r = CliRunner().invoke(view_cli.main, [str(f), "--no-browser"])
    assert r.exit_code == 1
    assert r.output.strip() == (f"kraken-view: error: {f}, line 1, column 16: card SK is dealt "
                                "twice (N and E) (got 'SK')")


@pytest.mark.parametrize("export", [False, True])
def test_cli_reads_no_deal_past_the_limit(export, tmp_path):
    """A file with more deals than the page takes is refused at the deal past the limit,
    without reading on: a million deals were read whole (1.4 GB, 38 s) first.  The bad line
    after the limit is never reached."""
    limit = MAX_EXPORT_DEALS if export else MAX_DEALS
    f = tmp_path / "many.txt"
    f.write_text("S:7.KQ9.JT8.7 9.8.AK9.AK9 AJT.JT7.7.Q KQ8.A.Q.JT8 trump=H\n" * (limit + 1)
                 + "this line is never read\n")
    out = tmp_path / "page.html"
    r = CliRunner().invoke(view_cli.main, [str(f), *(["--export", str(out)] if export
                                                      else ["--no-browser"])])
    what = "an exported page holds" if export else "the page lists"
    assert r.exit_code == 1, r.output
    assert r.output.strip() == (f"kraken-view: error: {f}: more than {limit} deals: {what} "
                                f"at most {limit} (split the file)")
    assert not out.exists()


def test_cli_export(tmp_path):
    out = tmp_path / "page.html"
    r = CliRunner().invoke(view_cli.main, [str(DATA / "part_played.txt"), "--export", str(out)])
    assert r.exit_code == 0, r.output
    assert "window.KRAKEN_EXPORT" in out.read_text() and "wrote" in r.output
    r = CliRunner().invoke(view_cli.main, [str(DATA / "part_played.txt"), "--export",
                                           str(DATA / "part_played.txt")])
    assert r.exit_code == 1 and "is an input of this command" in r.output
    r = CliRunner().invoke(view_cli.main, ["--random", "5", "--export", str(tmp_path)])
    assert r.exit_code == 2 and "is a directory" in r.output
    link = tmp_path / "null.html"
    link.symlink_to("/dev/null")
    r = CliRunner().invoke(view_cli.main, ["--random", "5", "--export", str(link)])
    assert r.exit_code == 1 and "a character device" in r.output


def test_the_first_run_notice_comes_only_with_a_compile(tmp_path, monkeypatch):
    """Every start said 'loading the solver (the very first run compiles it: about a
    minute)', a warm cache too: now the other commands' notice, only when Numba compiles."""
    from kraken_solver.engine.kernel_cache import FIRST_RUN_MESSAGE
    real = BoardSolver.warm

    def compiling(self):
        from numba import njit

        @njit  # a new function each call: Numba must compile it
        def fresh(x):
            return x + 1
        fresh(1)
        return real(self)
    monkeypatch.setattr(BoardSolver, "warm", compiling)
    r = CliRunner().invoke(view_cli.main, ["--random", "5", "--export", str(tmp_path / "a.html")])
    assert r.exit_code == 0, r.output
    err = r.stderr.splitlines()
    assert err[0] == f"kraken-view: {FIRST_RUN_MESSAGE}" and r.stderr.count("first run") == 1
    assert err[1].startswith("kraken-view: solver ready in ") and "loading" not in r.stderr
    monkeypatch.setattr(BoardSolver, "warm", real)
    r = CliRunner().invoke(view_cli.main, ["--random", "5", "--export", str(tmp_path / "b.html")])
    assert r.exit_code == 0, r.output
    assert r.stderr.startswith("kraken-view: solver ready in ") and "first run" not in r.stderr
    assert "loading" not in r.stderr and "compile" not in r.stderr


def test_cli_random_is_batch_deal_zero():
    from kraken_solver.dealing.seeded import generate_deals
    spec = view_cli.random_spec(42)
    assert spec.deal == generate_deals(42, 0, 1)[0] and spec.first == 0 and spec.trump is None


def test_port_in_use_is_said(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(1)
        port = s.getsockname()[1]
        r = CliRunner().invoke(view_cli.main, ["--random", "1", "--no-browser", "--port",
                                               str(port)])
    assert r.exit_code == 1
    assert r.output.strip() == (f"kraken-view: error: --port: port {port} is in use on "
                                "127.0.0.1: give another --port, or leave it out for a free one")


def start_server(*args, env=None):
    """Start ``kraken-view ARGS --no-browser`` and return (process, address)."""
    exe = Path(sys.executable).with_name("kraken-view")
    proc = subprocess.Popen([str(exe), *args, "--no-browser"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)
    line = proc.stdout.readline()
    m = re.search(r"serving (http://127\.0\.0\.1:\d+/)", line)
    if not m:
        proc.kill()
        raise AssertionError(f"no address: {line!r} {proc.stderr.read()}")
    return proc, m.group(1)


def test_server_answers_and_stops_on_ctrl_c():
    proc, url = start_server(str(DATA / "many_deals.txt"), "--quiet")
    try:
        with urllib.request.urlopen(url + "api/info", timeout=30) as r:
            assert len(json.load(r)["deals"]) == 12
        with urllib.request.urlopen(url, timeout=30) as r:
            assert b'data-seat="N"' in r.read()
        with urllib.request.urlopen(url + "static/view.js", timeout=30) as r:
            assert b"data-card" in r.read()
    finally:
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130
    assert err.strip().splitlines()[-1] == "kraken-view: stopped" and "Traceback" not in err


def test_server_options_are_refused_with_export(tmp_path):
    """kraken-view FILE --port 22 --export page.html ignored --port: the page has no server."""
    out = tmp_path / "page.html"
    for extra, named in ((["--port", "8123"], "--port applies"),
                         (["--no-browser"], "--no-browser applies"),
                         (["--port", "8123", "--no-browser"], "--port and --no-browser apply")):
        r = CliRunner().invoke(view_cli.main, [str(DATA / "part_played.txt"), "--export",
                                               str(out), *extra])
        assert r.exit_code == 2 and f"{named} to the server, not to --export" in r.output
        assert not out.exists()
