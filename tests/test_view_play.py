"""kraken-view's game against the computer (kraken_solver.view.play) through Flask's test
client: the game lives on the server and no answer holds a card of another hand before the
end; every bot move is the move choose_and_play's loop makes with the same seed; every
refusal is one line naming its field (wrong client 403, unknown game 404)."""

from __future__ import annotations

import json
import random
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs

from kraken_solver.bots import choose_and_play
from kraken_solver.dealing.seeded import generate_deals
from kraken_solver.game.cards import card_str, cards_of
from kraken_solver.game.deal import parse_pbn
from kraken_solver.view.app import create_app
from kraken_solver.view.play import PlayTable

DEAL = "N:AQ9.AQJ8.8. K8.97.KJ7.8 J7.KT.A.QT9 T..QT9.AKJ7"
CLIENT = "page-1"
TABLE = {"client": CLIENT, "seat": "S", "bots": "N=heuristic,E=random,W=heuristic",
         "seed": "7", "first": "N"}
ALL_CARDS = {s + r for s in "SHDC" for r in "AKQJT987"}
_WORD_SEP = re.compile(r"[^A-Za-z0-9]+")


def words_of(answer):
    """Every word of every key and text value of a JSON answer (the game id aside)."""
    if isinstance(answer, dict):
        for k, v in answer.items():
            yield from _WORD_SEP.split(k)
            if k != "game":
                yield from words_of(v)
    elif isinstance(answer, list):
        for v in answer:
            yield from words_of(v)
    elif isinstance(answer, str):
        yield from _WORD_SEP.split(answer)


@pytest.fixture(scope="module")
def client():
    return create_app(port_check=False).test_client()


def new(client, **kw):
    r = client.post("/api/play/new", json=dict(TABLE, **kw))
    assert r.status_code == 200, r.json
    return r.json


def post(client, path, game, **kw):
    return client.post(f"/api/play/{path}", json=dict(game=game, client=CLIENT, **kw))


def state(client, game, who=CLIENT):
    return client.get("/api/play/state", query_string={"game": game, "client": who})


def known_to_user(answer: dict, dealt: list) -> set:
    """The cards the user may know: their hand as dealt and the cards played so far."""
    return set(dealt) | {p["card"] if isinstance(p, dict) else p   # the hint: card texts
                         for p in answer.get("played", [])}


def hidden_cards_in(answer, allowed: set, deal) -> list:
    """Every card text (as a value, a key, or inside any text: PBN suits included) of the
    JSON ``answer`` that the user may not know."""
    text = json.dumps(answer)
    found = set(words_of(answer)) & ALL_CARDS - allowed
    # PBN hands: a hand of another seat written as its suits
    d, _ = parse_pbn(deal) if isinstance(deal, str) else (deal, None)
    for mask in d.hands:
        cards = [card_str(c) for c in cards_of(mask)]
        if not set(cards) <= allowed:
            from kraken_solver.game.cards import hand_text
            if hand_text(mask) in text:
                found.add(hand_text(mask))
    return sorted(found)


def play_game(client, seat, bots, seed, first="N", deal=None, chooser_trump=None, cards=None,
              hint_at=()):
    """Play a whole game by the endpoints, checking every answer for hidden cards; the user
    plays ``cards`` (their cards in order) or a random legal card.  Returns the last view."""
    rng = random.Random(seed)
    kw = {"seat": seat, "bots": bots, "seed": str(seed), "first": first}
    if deal:
        kw["deal"] = deal
    st = new(client, **kw)
    game = st["game"]
    dealt = list(st["hand"])
    the_deal = deal or str(generate_deals(seed, 0, 1)[0])
    mine = list(cards or [])
    answers = [st]
    while st["phase"] != "over":
        if not st["your_turn"]:
            r = post(client, "bot", game)
        elif st["phase"] == "trump":
            r = post(client, "trump", game, trump=chooser_trump or "H")
        else:
            if len(st["played"]) in hint_at:
                h = client.get("/api/play/hint", query_string={"game": game, "client": CLIENT,
                                                               "job": "h1"})
                assert h.status_code == 200, h.json
                assert sorted(h.json["cards"]) == sorted(st["legal"]) or h.json["forced"]
                answers.append(h.json)
            card = mine.pop(0) if cards else rng.choice(st["legal"])
            r = post(client, "card", game, card=card)
        assert r.status_code == 200, r.json
        st = r.json
        answers.append(st)
        answers.append(state(client, game).json)
    for a in answers[:-2]:       # every answer before the last card
        assert "deal" not in a and "hands" not in a and "review" not in a
        assert hidden_cards_in(a, known_to_user(a, dealt), the_deal) == [], a
    return st


def test_the_page_and_its_script_are_served(client):
    assert client.get("/play").status_code == 200
    assert client.get("/static/play.js").status_code == 200


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("seat,bots", [("S", "N=random,E=random,W=random"),
                                       ("E", "N=heuristic,S=heuristic,W=random"),
                                       ("N", "E=heuristic,S=heuristic,W=heuristic")])
def test_no_answer_shows_a_hidden_card_before_the_end(client, seed, seat, bots):
    st = play_game(client, seat, bots, seed, hint_at=(28,) if seed == 1 else ())
    assert len(st["played"]) == 32 and st["sheet"]["final"] is not None
    # at the end: the whole deal as dealt (deal 0 of the seed), and the review links
    deal = generate_deals(seed, 0, 1)[0]
    assert parse_pbn(st["deal"])[0] == deal
    for s, cards in st["hands"].items():
        assert sorted(cards) == sorted(card_str(c) for c in cards_of(deal.hands["NESW".index(s)]))
    play = " ".join(p["card"] for p in st["played"])
    assert "play=" + play.replace(" ", "+") in st["review"]["board"]
    assert st["review"]["player"].endswith("&view=player")


@pytest.mark.parametrize("seat", ["S", "E", "N"])
def test_a_game_is_the_deal_the_loop_plays(client, seat):
    specs = dict(zip("NESW", ("heuristic", "random", "heuristic", "random")))
    bots = ",".join(f"{s}={b}" for s, b in specs.items() if s != seat)
    rec = choose_and_play(DEAL, "N", {"NS": "heuristic", "EW": "random"}, seed=7)
    mine = [c for i, c in enumerate(rec.play) if _seat_of(rec, i) == seat]
    st = play_game(client, seat, bots, 7, deal=DEAL, chooser_trump=rec.trump, cards=mine)
    assert st["trump"] == rec.trump
    assert [p["card"] for p in st["played"]] == rec.play
    assert st["sheet"]["final"]["score"] == rec.value


def _seat_of(rec, i):
    from kraken_solver.game.position import Position
    pos = Position(rec.deal, rec.trump, rec.first, rec.rules, rec.play[:i])
    return "NESW"[pos.to_move]


def test_the_check_sees_a_hidden_card(client):
    """The check of the property above flags the board's own answer, which shows every hand,
    and a hand written as PBN suits."""
    dealt = ["SJ", "S7", "HK", "HT", "DA", "CQ", "CT", "C9"]        # S's hand of DEAL
    board = client.get("/api/state", query_string={"deal": DEAL, "trump": "H"}).json
    assert len(hidden_cards_in(board, set(dealt), DEAL)) == 24 + 3       # cards, PBN hands
    assert hidden_cards_in({"error": "K8.97.KJ7.8"}, set(dealt), DEAL) == ["K8.97.KJ7.8"]
    assert hidden_cards_in({"error": "got 'SA'"}, set(dealt), DEAL) == ["SA"]


def test_the_hint_is_a_job_of_the_board(client):
    """The hint goes through the board's hint jobs: its progress and cancel answer with the
    same job and client; a bad job name is refused."""
    small = "N:AQ.AQ.. K8.97.. J7.KT.. T..Q.AK"        # 4 cards a hand: the cheap lane
    st = new(client, seat="N", deal=small, bots="E=random,S=random,W=random")
    st = post(client, "trump", st["game"], trump="H").json
    assert st["your_turn"] and st["phase"] == "play"
    q = {"game": st["game"], "client": CLIENT}
    r = client.get("/api/play/hint", query_string=dict(q, job="bad name"))
    assert r.status_code == 400 and r.json["field"] == "job"
    r = client.get("/api/play/hint", query_string=dict(q, job="first-lead"))
    assert r.status_code == 200 and sorted(r.json["cards"]) == sorted(st["legal"])
    assert r.json["seat"] == "N" and r.json["hand"] == "AQ.AQ.."
    p = client.get("/api/hint/progress", query_string={"job": "first-lead", "client": CLIENT})
    assert p.status_code == 200 and p.json["state"] == "done"
    p = client.get("/api/hint/progress", query_string={"job": "first-lead", "client": "other"})
    assert p.status_code == 400


def test_a_failing_bot_says_so_without_the_deal(client, monkeypatch):
    from kraken_solver.bots.card_bots import RandomBot

    def broken(self, view):
        return "SA" if "SA" not in view.legal_cards() else "HK"
    monkeypatch.setattr(RandomBot, "choose_card", broken)
    st = new(client, deal=DEAL, bots="N=random,E=random,W=random", seed="9")
    st = post(client, "bot", st["game"]).json       # trump
    r = post(client, "bot", st["game"])
    assert r.status_code == 400 and "the bot at N (random) failed" in r.json["error"]
    assert hidden_cards_in(r.json, set(), DEAL) == []


def test_the_guard_covers_the_game(client):
    """A page of another site cannot drive a game (the app's one check before every route)."""
    guarded = create_app().test_client()
    headers = {"Host": "127.0.0.1:8000", "Origin": "http://evil.example"}
    r = guarded.post("/api/play/new", json=TABLE, headers=headers)
    assert r.status_code == 403
    r = guarded.get("/api/play/state", query_string={"game": "g", "client": CLIENT},
                    headers={"Host": "127.0.0.1:8000", "Sec-Fetch-Site": "cross-site"})
    assert r.status_code == 403


def test_same_seed_same_deal(client):
    a, b = new(client, seed="11"), new(client, seed="11")
    assert a["hand"] == b["hand"] and a["game"] != b["game"] and a["dealt"] == "seed"
    assert new(client, deal=DEAL)["dealt"] == "given"


def test_the_refusals(client):
    st = new(client, deal=DEAL)             # N first: a bot names trump
    g = st["game"]
    r = state(client, g, "another-page")
    assert r.status_code == 403 and r.json["field"] == "client"
    r = client.post("/api/play/bot", json={"game": g, "client": "another-page"})
    assert r.status_code == 403
    r = state(client, "no-such-game")
    assert r.status_code == 404 and r.json["gone"] and "new game" in r.json["error"]
    r = post(client, "card", "no-such-game", card="SA")
    assert r.status_code == 404 and r.json["field"] == "game"
    # trump: not the user's to name, and no card before it
    r = post(client, "trump", g, trump="H")
    assert r.status_code == 400 and "names trump" in r.json["error"]
    r = post(client, "card", g, card="SJ")
    assert r.status_code == 400 and "not named" in r.json["error"]
    st = post(client, "bot", g).json
    assert st["trump"] and "trump" in st["move"]
    r = post(client, "trump", g, trump="S")
    assert r.status_code == 400 and "named already" in r.json["error"]
    # N leads: not the user's turn, and a hint only on the user's turn
    r = post(client, "card", g, card="SJ")
    assert r.status_code == 400 and "not your turn" in r.json["error"]
    r = client.get("/api/play/hint", query_string={"game": g, "client": CLIENT})
    assert r.status_code == 400 and "your turn" in r.json["error"]
    while not st["your_turn"]:
        st = post(client, "bot", g).json
    r = post(client, "bot", g)
    assert r.status_code == 400 and "your turn" in r.json["error"]
    illegal = next(c for c in ("SJ", "S7", "HK", "HT", "DA", "CQ", "CT", "C9")
                   if c not in st["legal"])
    r = post(client, "card", g, card=illegal)
    assert r.status_code == 400 and "not a legal card" in r.json["error"]
    assert r.json["field"] == "card" and "\n" not in r.json["error"]
    r = post(client, "card", g, card="XX")
    assert r.status_code == 400 and r.json["field"] == "card"
    # the deal over
    st = play_game(client, "S", "N=random,E=random,W=random", 5)
    for path, kw in (("card", {"card": "SA"}), ("bot", {})):
        r = post(client, path, st["game"], **kw)
        assert r.status_code == 400 and "over" in r.json["error"]


@pytest.mark.parametrize("bots,text", [
    ("N=pimc:0,E=random,W=random", "from 1 to"), ("N=pimc:300,E=random,W=random", "200"),
    ("N=foo,E=random,W=random", "unknown bot"), ("N=random,E=random", "no bot for W"),
    ("N=advise:5,E=random,W=random", "plays cards"), ("N=random,E=random,S=random", "your seat"),
    ("N=random,N=random,E=random,W=random", "twice"), ("X", "SEAT=BOT"),
    ("N=pimc:99999999,E=random,W=random", "on the board takes N from 1 to 200"),
    (" ", "expected the three bots")])
def test_bad_tables_are_one_line(client, bots, text):
    r = client.post("/api/play/new", json=dict(TABLE, bots=bots))
    assert r.status_code == 400 and r.json["field"] == "bots"
    assert text in r.json["error"] and "\n" not in r.json["error"]


@pytest.mark.parametrize("body,field", [
    (dict(TABLE, seed="-1"), "seed"), (dict(TABLE, seed=2**64), "seed"),
    (dict(TABLE, seat="X"), "seat"), (dict(TABLE, deal="N:AKQ"), "deal"),
    (dict(TABLE, first="Q"), "first"), (dict(TABLE, rules="nonsense"), "rules"),
    (dict(TABLE, client="a b"), "client"), ({k: v for k, v in TABLE.items() if k != "client"},
                                            "client"),
    (dict(TABLE, bots=["N=random"]), "bots"), (dict(TABLE, deal="N" * 500), "deal"),
    (dict(TABLE, who="x"), "body"), (dict(TABLE, seed=""), "seed"),
    (dict(TABLE, seed=1.5), "seed"), (dict(TABLE, seed=1e308), "seed"),
    (dict(TABLE, seat=7), "seat")])
def test_bad_words_name_their_field(client, body, field):
    r = client.post("/api/play/new", json=body)
    assert r.status_code == 400 and r.json["field"] == field, r.json
    assert "\n" not in r.json["error"]


def test_the_messages_say_what_was_expected(client):
    r = client.post("/api/play/new", json=dict(TABLE, seed=1.5))
    assert "seed: expected a seed, a whole number from 0 to " in r.json["error"]
    assert "got the number 1.5" in r.json["error"]
    r = client.post("/api/play/new", json=dict(TABLE, seat=7))
    assert "expected text (a JSON string), got the number 7" in r.json["error"]
    r = client.post("/api/play/new", data='{"client": "a", "client": "b"}',
                    content_type="application/json")
    assert r.status_code == 400 and r.json["field"] == "body"
    assert "a key given twice (got 'client')" in r.json["error"]
    r = client.post("/api/play/new", data='{"client": "a", "seed": ' + "9" * 5000 + "}",
                    content_type="application/json")
    assert r.status_code == 400 and r.json["field"] == "body"
    assert "a number of 5,000 digits (at most 40)" in r.json["error"]
    # no bots given: pimc:20 at each other seat, as the page's form; null is a key not given
    st = new(client, bots=None, seed=None)
    assert st["bots"] == {"N": "pimc:20", "E": "pimc:20", "W": "pimc:20"}
    assert st["options"]["seed"] == "0"


def test_bodies_and_query_words(client):
    r = client.post("/api/play/new", data="not json", content_type="application/json")
    assert r.status_code == 400 and "expected JSON" in r.json["error"]
    r = client.get("/api/play/state", query_string={"game": "a", "client": "b", "x": "1"})
    assert r.status_code == 400 and "unknown word" in r.json["error"]
    assert client.get("/api/play/new").status_code == 405


def test_the_store_drops_the_least_recently_used():
    app = create_app(port_check=False)
    app.extensions["kraken_play"].max_games = 2
    c = app.test_client()
    a, b = new(c)["game"], new(c)["game"]
    assert state(c, a).status_code == 200          # a used last: b is dropped next
    new(c)
    assert state(c, b).status_code == 404 and state(c, a).status_code == 200
    assert isinstance(app.extensions["kraken_play"], PlayTable)


@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(seed=hs.integers(0, 2**63 - 1), seat=hs.sampled_from("NESW"),
       first=hs.sampled_from("NESW"),
       bots=hs.lists(hs.sampled_from(("random", "heuristic")), min_size=3, max_size=3))
def test_no_hidden_card_whatever_the_table(client, seed, seat, first, bots):
    """The property over any seed, seat, first player and random/heuristic bots."""
    others = [s for s in "NESW" if s != seat]
    end = play_game(client, seat, ",".join(f"{s}={b}" for s, b in zip(others, bots)), seed,
                    first=first)
    assert end["phase"] == "over" and len(end["played"]) == 32


def test_two_bot_requests_at_once_play_two_moves(client):
    """One move of a game at a time: two bot requests sent together play the next two bot
    moves (no card played twice, none lost)."""
    import threading

    table = {"seat": "S", "bots": "N=random,E=random,W=random", "seed": "4", "first": "W"}
    st0 = new(client, **table)
    g = st0["game"]
    post(client, "bot", g)                          # W names trump, then W and N lead
    results = []
    threads = [threading.Thread(target=lambda: results.append(post(client, "bot", g)))
               for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(r.status_code for r in results) == [200, 200]
    final = state(client, g).json
    assert [p["seat"] for p in final["played"]] == ["W", "N"]
    assert {r.json["move"]["card"] for r in results} == {p["card"] for p in final["played"]}


class _LowestLegal:
    """The user of the budget test: the lowest legal card text."""
    name = "lowest legal"

    def choose_card(self, view):
        return min(view.legal_cards())


def test_the_kept_worlds_stay_within_the_budget(monkeypatch):
    """pimc bots of two games played move by move in turn keep at most MAX_KEPT_WORLDS worlds
    all together (the least recently used bots dropped, the last one forgetting its own when it
    alone holds more), and each game is still the deal the loop plays with the same seed."""
    import kraken_solver.view.play as play
    from kraken_solver.bots import make_bot, play_deal

    monkeypatch.setattr(play, "MAX_KEPT_WORLDS", 6)
    app = create_app(port_check=False)
    store = app.extensions["kraken_play"]
    c = app.test_client()
    pimc = type(make_bot("pimc:4"))
    forgot = []
    real_forget = pimc.forget

    def watch_forget(bot):
        forgot.append(bot.kept_worlds())
        real_forget(bot)

    monkeypatch.setattr(pimc, "forget", watch_forget)
    seeds = (3, 4)
    bots = "N=pimc:4,E=pimc:4,W=pimc:4"
    games = [new(c, bots=bots, seed=str(s), first="S", deal=DEAL)["game"] for s in seeds]
    views = {g: state(c, g).json for g in games}
    kept = []
    while any(v["phase"] != "over" for v in views.values()):
        for g in games:
            v = views[g]
            if v["phase"] == "over":
                continue
            if not v["your_turn"]:
                r = post(c, "bot", g)
            elif v["phase"] == "trump":
                r = post(c, "trump", g, trump="H")
            else:
                r = post(c, "card", g, card=min(v["legal"]))
            assert r.status_code == 200, r.json
            views[g] = r.json
            kept.append(sum(b.kept_worlds() for b in store.bots.values()
                            if hasattr(b, "kept_worlds")))
    assert len(kept) > 40 and 0 < max(kept) <= 6
    assert forgot and max(forgot) > 6           # the budget was met by dropping worlds
    for s, g in zip(seeds, games):
        rec = play_deal(DEAL, "H", "S", {"N": "pimc:4", "E": "pimc:4", "W": "pimc:4",
                                         "S": _LowestLegal()}, seed=s)
        assert [p["card"] for p in views[g]["played"]] == rec.play
        assert views[g]["sheet"]["final"]["score"] == rec.value


def test_bot_requests_past_the_waiters_are_503_at_once():
    """While a move holds the bots, at most MAX_PLAY_WAITERS requests wait (each holds one
    of the server's threads); the next is answered 503 with Retry-After at once, and the
    waiting ones play their moves once the bots are free."""
    import threading
    import time

    from kraken_solver.view.play import MAX_PLAY_WAITERS

    app = create_app(port_check=False)
    store = app.extensions["kraken_play"]
    table = {"seat": "S", "bots": "N=random,E=random,W=random", "first": "N"}
    games = [new(app.test_client(), seed=str(s), **table)["game"]
             for s in range(MAX_PLAY_WAITERS + 1)]
    answers = {}

    def move(g):
        answers[g] = post(app.test_client(), "bot", g)

    store.lock.acquire()                  # a long move holds the bots
    try:
        waiting = [threading.Thread(target=move, args=(g,)) for g in games[:-1]]
        for t in waiting:
            t.start()
        deadline = time.monotonic() + 10
        while store.waiters._value > 0:       # every waiter in place
            assert time.monotonic() < deadline
            time.sleep(0.01)
        t0 = time.monotonic()
        r = post(app.test_client(), "bot", games[-1])
        assert time.monotonic() - t0 < 1.0
        assert r.status_code == 503 and r.headers["Retry-After"]
        assert "wait for it already" in r.json["error"]
    finally:
        store.lock.release()
    for t in waiting:
        t.join(30)
    assert all(answers[g].status_code == 200 and answers[g].json["move"]["trump"]
               for g in games[:-1])
    assert post(app.test_client(), "bot", games[-1]).status_code == 200   # free again


def test_one_page_cannot_push_out_the_games_of_others():
    """A page keeps at most MAX_GAMES_A_CLIENT games (its own least recently used dropped
    first): 64 new games of one page left another page's game on the server."""
    from kraken_solver.view.play import MAX_GAMES, MAX_GAMES_A_CLIENT

    c = create_app(port_check=False).test_client()
    alice = new(c)["game"]
    mine = [c.post("/api/play/new", json=dict(TABLE, client="mallory")).json["game"]
            for _ in range(MAX_GAMES + 1)]
    assert state(c, alice).status_code == 200
    kept = [g for g in mine if state(c, g, who="mallory").status_code == 200]
    assert kept == mine[-MAX_GAMES_A_CLIENT:]
    gone = state(c, mine[0], who="mallory")
    assert gone.status_code == 404 and gone.json["gone"]
