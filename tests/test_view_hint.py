"""kraken-view's player's-view hint (kraken_solver/py) with the real kraken_solver.playerview.hint:
/api/hint answers with the hint's own means for a played position and from the player's view
only; the samples a page may ask for are bounded; a hint shows its progress, and a cancel or a
later request of the same page stops it (its workers stopped at once) while the double-dummy
values go on being answered.  The page itself: test_view_browser.py."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from kraken_solver.errors import KrakenError
from kraken_solver.game.cards import card_str
from kraken_solver.game.position import Position
from kraken_solver.playerview.hint import hint
from kraken_solver.view.app import create_app
from kraken_solver.view.query import read_query
from kraken_solver.view.session import (MAX_VIEW_SAMPLES, BoardSolver, HintCancelled,
                                        check_view_samples, hint_available)

FULL = "N:A8.98..KQJ8 KQJ97.Q.7.7 .AKT.AQJ8.T T.J7.KT9.A9"
LEAD = "S:7.KQ9.JT8.7 9.8.AK9.AK9 AJT.JT7.7.Q KQ8.A.Q.JT8"     # datasets/full_deal.txt


def played_line(deal, trump, first, n, seed):
    rng = np.random.default_rng(seed)
    pos = Position(deal, trump, first)
    for _ in range(n):
        pos.play(pos.legal()[int(rng.integers(len(pos.legal())))])
    return [card_str(c) for c in pos.played]


def words(deal, trump, first, play=(), **more):
    return dict({"deal": deal, "trump": trump, "first": first, "play": " ".join(play)}, **more)


@pytest.fixture(scope="module")
def solver():
    s = BoardSolver(hint_workers=2)
    yield s
    s.close()


@pytest.fixture(scope="module")
def client(solver):
    return create_app([], solver=solver).test_client()


def test_api_hint_is_the_hint(client):
    assert hint_available()
    # 3 cards a hand and one card of the next trick; 3 legal cards (seed 3 made a forced one,
    # which the board names without a hint: test_forced_hint.py)
    play = played_line(FULL, "H", "N", 21, 4)
    assert client.get("/api/info").get_json()["hint"] is True
    r = client.get("/api/hint", query_string=words(FULL, "H", "N", play))
    assert r.status_code == 200, r.get_json()
    body = r.get_json()
    h = hint(FULL, "H", "N", played=play, workers=1)
    assert h.exact and body["exact"] is True and body["layouts"] == h.layouts == h.consistent
    assert body["seat"] == h.seat and body["best"] == h.best and body["side"] == h.side
    # the hint's own values, in the tools' number style (points to 2 decimals, shares to 3)
    keys = ("mean", "se", "p_made", "min", "max", "loss", "loss_se")
    assert body["cards"] == {c: {k: e.to_dict()[k] for k in keys} for c, e in h.cards.items()}
    # what the player to move knows: their hand as dealt, the play, the declared hand roem
    assert body["hand"] == h.hand and body["played"] == play
    assert body["declared"] == {"playing_team": h.declared[0], "defenders": h.declared[1]}
    assert body["samples"] is None
    assert h.layouts > 1                # every layout N cannot tell apart, not the deal given
    # points: the mean points, P(made) still by score
    r = client.get("/api/hint", query_string=words(FULL, "H", "N", play, objective="points"))
    hp = hint(FULL, "H", "N", played=play, objective="points", workers=1)
    assert {c: e["mean"] for c, e in r.get_json()["cards"].items()} == \
        {c: e.to_dict()["mean"] for c, e in hp.cards.items()}
    assert {c: e["p_made"] for c, e in r.get_json()["cards"].items()} == \
        {c: e.to_dict()["p_made"] for c, e in h.cards.items()}


def test_samples_are_bounded(client):
    for bad in ("0", "1001", "-5", "x", "1e3", "99999999"):
        r = client.get("/api/hint", query_string=words(LEAD, "H", "S", samples=bad))
        assert r.status_code == 400 and r.get_json()["field"] == "samples", bad
        assert "from 1 to 1,000" in r.get_json()["error"]
    with pytest.raises(KrakenError):
        check_view_samples(MAX_VIEW_SAMPLES + 1)
    # a few layouts drawn at the first lead: the hint's own draws and means
    r = client.get("/api/hint", query_string=words(LEAD, "H", "S", samples="6"))
    body = r.get_json()
    h = hint(LEAD, "H", "S", samples=6, exact_limit=2000, workers=1)
    assert r.status_code == 200 and body["exact"] is False and body["layouts"] == 6
    assert {c: (e["mean"], e["se"]) for c, e in body["cards"].items()} == \
        {c: (e.to_dict()["mean"], e.to_dict()["se"]) for c, e in h.cards.items()}
    assert body["consistent"] is None and body["consistent_estimate"] > 2000


def test_job_names_and_progress_errors(client):
    r = client.get("/api/hint", query_string=words(LEAD, "H", "S", job="a b"))
    assert r.status_code == 400 and r.get_json()["field"] == "job"
    r = client.get("/api/hint/progress", query_string={"job": "never-asked"})
    assert r.status_code == 400 and "no such hint job" in r.get_json()["error"]
    r = client.get("/api/hint/progress")
    assert r.status_code == 400 and r.get_json()["field"] == "job"
    for body in ({"job": 7}, {"job": "a", "client": 7}, {"job": "a", "jbo": "b"}, [1], "x"):
        r = client.post("/api/hint/cancel", json=body)
        assert r.status_code == 400 and set(r.get_json()) == {"error", "field"}, body
    r = client.post("/api/hint/cancel", json={"job": "a", "jbo": "b"})
    assert "unknown key (got 'jbo')" in r.get_json()["error"]
    r = client.post("/api/hint/cancel", json={"job": "never-asked"})   # whose? 400
    assert r.status_code == 400 and r.get_json()["field"] == "client"
    r = client.post("/api/hint/cancel", json={"job": "never-asked", "client": "page-1"})
    assert r.status_code == 200 and r.get_json() == {"job": "never-asked", "cancelled": False}
    r = client.post("/api/hint/cancel", data='{"job": "a", "client": "p", "client": "q"}',
                    content_type="application/json")
    assert r.status_code == 400 and "a key given twice (got 'client')" in r.get_json()["error"]
    over = played_line(FULL, "H", "N", 32, 1)
    r = client.get("/api/hint", query_string=words(FULL, "H", "N", over))
    assert r.status_code == 400 and "the deal is over" in r.get_json()["error"]


def wait_for(cond, what, timeout=60.0):
    t0 = time.monotonic()
    while not cond():
        if time.monotonic() - t0 > timeout:
            raise AssertionError(f"waited {timeout} s for {what}")
        time.sleep(0.02)


def state_of_job(solver, name, client):
    """The job's state, or None before it is asked for."""
    try:
        return solver.hint_progress(name, client)["state"]
    except KrakenError:
        return None


def test_cancel_and_supersede(solver, client):
    """The first lead's 200 layouts take seconds: its progress is told, the double-dummy values
    are answered meanwhile, a later request of the same page cancels it (the request gets 409
    at once, not after the 200 layouts), and the next hint is right."""
    solver.cache.clear()
    lead = read_query(words(LEAD, "H", "S"))
    results = {}

    def ask(name, q, client_name, samples=None):
        try:
            results[name] = solver.hint(q, job=name, client=client_name, samples=samples)
        except HintCancelled as e:
            results[name] = e
        results[name + " at"] = time.monotonic()

    t = threading.Thread(target=ask, args=("first", lead, "page1"))
    t.start()
    wait_for(lambda: solver.hint_progress("first", "page1")["state"] == "solving", "the first hint")
    pr = solver.hint_progress("first", "page1")
    assert pr["total"] == 200 and pr["exact"] is False and pr["done"] < 200
    # the double-dummy values do not wait for the hint
    other = read_query(words(FULL, "H", "N"))
    assert solver.values(other)["card_values"]
    assert t.is_alive() and solver.hint_progress("first", "page1")["state"] == "solving"
    # the same page asks for the hint after a card: the first one is cancelled (the diamond
    # jack: W holds three diamonds; after the heart king W's one heart would be forced)
    play = ["DJ"]
    after = read_query(words(LEAD, "H", "S", play))
    asked = time.monotonic()
    t2 = threading.Thread(target=ask, args=("second", after, "page1", 30))
    t2.start()
    t.join(timeout=30)
    assert not t.is_alive() and isinstance(results["first"], HintCancelled)
    assert "a later request of the page replaced it" in str(results["first"])
    assert results["first at"] - asked < 10          # not the whole hint's time
    pr = solver.hint_progress("first", "page1")
    assert pr["state"] == "cancelled" and pr["done"] < 200
    t2.join(timeout=300)
    # W's hint after S's lead (30 layouts, over new worker processes) is the hint's own
    h = hint(LEAD, "H", "S", played=play, samples=30, exact_limit=2000, workers=1)
    body = results["second"]
    assert body["seat"] == "W" and body["layouts"] == h.layouts == 30 and body["workers"] == 2
    assert {c: e["mean"] for c, e in body["cards"].items()} == \
        {c: e.to_dict()["mean"] for c, e in h.cards.items()}
    assert solver.hint_progress("second", "page1")["state"] == "done"


def test_cancel_through_the_api(solver, client):
    """POST /api/hint/cancel stops a running hint: its request gets 409 with cancelled: true."""
    solver.cache.clear()
    out = {}

    def ask():
        c = create_app([], solver=solver).test_client()
        r = c.get("/api/hint", query_string=words(LEAD, "H", "S", objective="points",
                                                  job="j1", client="page2"))
        out["status"], out["body"] = r.status_code, r.get_json()
    t = threading.Thread(target=ask)
    t.start()
    wait_for(lambda: state_of_job(solver, "j1", "page2") == "solving", "the hint j1")
    r = client.get("/api/hint/progress", query_string={"job": "j1", "client": "page2"})
    assert r.status_code == 200 and r.get_json()["total"] == 200
    # the job is page2's: another page neither sees nor cancels it
    r = client.get("/api/hint/progress", query_string={"job": "j1", "client": "page3"})
    assert r.status_code == 400 and "no such hint job" in r.get_json()["error"]
    r = client.post("/api/hint/cancel", json={"job": "j1"})
    assert r.status_code == 400 and r.get_json()["field"] == "client"
    r = client.post("/api/hint/cancel", json={"job": "j1", "client": "page3"})
    assert r.get_json() == {"job": "j1", "cancelled": False}
    assert state_of_job(solver, "j1", "page2") == "solving"
    r = client.post("/api/hint/cancel", json={"job": "j1", "client": "page2"})
    assert r.get_json() == {"job": "j1", "cancelled": True}
    t.join(timeout=30)
    assert out["status"] == 409 and out["body"]["cancelled"] is True
    assert "the page cancelled it" in out["body"]["error"]
    # another page's hint is not cancelled by this page's requests, and close() stops all
    s = BoardSolver(hint_workers=2)
    res = {}

    def ask2():
        try:
            res["r"] = s.hint(read_query(words(LEAD, "H", "S")), job="k", client="x")
        except HintCancelled as e:
            res["r"] = e
    t = threading.Thread(target=ask2)
    t.start()
    wait_for(lambda: state_of_job(s, "k", "x") == "solving", "k")
    s.close()
    t.join(timeout=30)
    assert isinstance(res["r"], HintCancelled) and "the server stopped" in str(res["r"])


def test_identical_requests_share_one_job():
    """Two pages asking the same hint wait on one job; it is cancelled only when both have
    given it up."""
    s = BoardSolver(hint_workers=2)
    res = {}

    def ask(client):
        try:
            res[client] = s.hint(read_query(words(LEAD, "H", "S")), job="j", client=client)
        except HintCancelled as e:
            res[client] = e
    threads = [threading.Thread(target=ask, args=(c,)) for c in ("a", "b")]
    try:
        for t in threads:
            t.start()
        wait_for(lambda: state_of_job(s, "j", "a") == "solving" and
                 state_of_job(s, "j", "b") == "solving", "both")
        assert len(s.lanes.jobs) == 1
        assert s.cancel_hint("j", "a") == {"job": "j", "cancelled": True}
        threads[0].join(timeout=10)
        assert isinstance(res["a"], HintCancelled)
        time.sleep(0.5)
        assert state_of_job(s, "j", "b") == "solving" and threads[1].is_alive()
        assert s.cancel_hint("j", "b") == {"job": "j", "cancelled": True}
        threads[1].join(timeout=10)
        assert isinstance(res["b"], HintCancelled)
        wait_for(lambda: not s.lanes.jobs, "the lane to drop the cancelled job", timeout=10)
    finally:
        s.close()


def test_job_names_are_per_client_and_bounded(monkeypatch, client):
    """A name in use by the page is refused, another page may use it; past a lane's bound a
    hint gets 503 with Retry-After; a page that stops polling gives its hint up."""
    from kraken_solver.view import hints
    play = played_line(FULL, "H", "N", 24, 2)       # 8 cards left: a cheap hint
    q = words(FULL, "H", "N", play, job="same", client="pa")
    assert client.get("/api/hint", query_string=q).status_code == 200
    r = client.get("/api/hint", query_string=dict(q, objective="points"))
    assert r.status_code == 400 and r.get_json()["field"] == "job"
    assert "in use" in r.get_json()["error"]
    assert client.get("/api/hint", query_string=dict(q, client="pb")).status_code == 200
    s = BoardSolver(hint_workers=2)
    monkeypatch.setattr(hints, "LANE_JOBS", {"cheap": 16, "expensive": 1})
    monkeypatch.setattr(hints, "POLL_GRACE_S", 0.5)
    res = {}

    def ask():
        try:
            res["r"] = s.hint(read_query(words(LEAD, "H", "S")), job="k", client="x")
        except HintCancelled as e:
            res["r"] = e
    t = threading.Thread(target=ask)
    try:
        t.start()
        wait_for(lambda: state_of_job(s, "k", "x") == "solving", "k")     # polled once
        c = create_app([], solver=s).test_client()
        r = c.get("/api/hint", query_string=words(LEAD, "H", "S", samples="50", client="y"))
        assert r.status_code == 503 and r.headers["Retry-After"] == "2"
        assert "expensive hints are queued or running" in r.get_json()["error"]
        t.join(timeout=10)      # no poll for 0.5 s: given up
        assert isinstance(res["r"], HintCancelled)
        assert "stopped asking for its progress" in str(res["r"])
    finally:
        s.close()
