"""kraken-view's game against the computer (kraken_solver.view.play) through Flask's test
client: every bot card is the card play_deal's loop plays with the same seed, the user's
turn is refused to the bots, bad tables get 400 and one line."""

from __future__ import annotations

import pytest

from kraken_solver.bots import play_deal
from kraken_solver.view.app import create_app

DEAL = "N:AQ9.AQJ8.8. K8.97.KJ7.8 J7.KT.A.QT9 T..QT9.AKJ7"
BASE = {"deal": DEAL, "first": "N", "seat": "S", "bots": "N=heuristic,E=random,W=heuristic",
        "seed": "7"}


@pytest.fixture(scope="module")
def client():
    return create_app(port_check=False).test_client()


def test_the_page_and_its_script_are_served(client):
    assert client.get("/play").status_code == 200
    assert client.get("/static/play.js").status_code == 200


@pytest.mark.parametrize("seat", ["S", "E"])
def test_a_game_is_the_deal_play_deal_plays(client, seat):
    base = dict(BASE, seat=seat, bots=",".join(f"{s}={b}" for s, b in
                                               zip("NESW", ("heuristic", "random", "heuristic",
                                                            "random")) if s != seat))
    r = client.get("/api/play/trump", query_string=base)
    assert r.status_code == 200, r.json
    trump = r.json["trump"]
    rec = play_deal(DEAL, trump, "N", {"NS": "heuristic", "EW": "random"}, seed=7)
    play, yours = [], 0
    for card in rec.play:
        r = client.get("/api/play/move", query_string=dict(base, trump=trump,
                                                           play=" ".join(play)))
        if r.status_code == 400:
            assert "your turn" in r.json["error"]
            yours += 1
        else:
            assert r.status_code == 200, r.json
            assert r.json["card"] == card
        play.append(card)
    assert yours == 8
    r = client.get("/api/play/move", query_string=dict(base, trump=trump, play=" ".join(play)))
    assert r.status_code == 400 and "over" in r.json["error"]


def test_the_user_names_trump_when_first(client):
    r = client.get("/api/play/trump", query_string=dict(BASE, seat="N",
                                                        bots="E=random,S=random,W=random"))
    assert r.status_code == 400 and "you name trump" in r.json["error"]


@pytest.mark.parametrize("bots,text", [
    ("N=pimc:0,E=random,W=random", "from 1 to"), ("N=pimc:300,E=random,W=random", "200"),
    ("N=foo,E=random,W=random", "unknown bot"), ("N=random,E=random", "no bot for W"),
    ("N=advise:5,E=random,W=random", "plays cards"), ("N=random,E=random,S=random", "your seat"),
    ("N=random,N=random,E=random,W=random", "twice"), ("X", "SEAT=BOT")])
def test_bad_tables_are_one_line(client, bots, text):
    r = client.get("/api/play/move", query_string=dict(BASE, trump="S", bots=bots))
    assert r.status_code == 400 and r.json["field"] == "bots"
    assert text in r.json["error"] and "\n" not in r.json["error"]


def test_bad_seed_and_unknown_words(client):
    r = client.get("/api/play/move", query_string=dict(BASE, trump="S", seed="-1"))
    assert r.status_code == 400 and r.json["field"] == "seed"
    r = client.get("/api/play/move", query_string=dict(BASE, trump="S", who="x"))
    assert r.status_code == 400 and "unknown word" in r.json["error"]
