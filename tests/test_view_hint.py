"""kraken-view's /api/hint (kraken_solver/viewer.py) with the real kraken_solver.hint: the
answer is the hint's own, for a played position and from the player's view only."""

from __future__ import annotations

import numpy as np

from kraken_solver import viewer
from kraken_solver.cards import card_str
from kraken_solver.hint import hint
from kraken_solver.solver import Position
from kraken_solver.viewer import BoardSolver, create_app

FULL = "N:A8.98..KQJ8 KQJ97.Q.7.7 .AKT.AQJ8.T T.J7.KT9.A9"


def test_api_hint_is_the_hint():
    assert viewer.hint_available()
    rng = np.random.default_rng(3)
    pos = Position(FULL, "H", "N")
    for _ in range(21):                 # 3 cards a hand and one card of the next trick
        pos.play(pos.legal()[int(rng.integers(len(pos.legal())))])
    play = [card_str(c) for c in pos.played]
    client = create_app([], solver=BoardSolver()).test_client()
    assert client.get("/api/info").get_json()["hint"] is True
    r = client.get("/api/hint", query_string={"deal": FULL, "trump": "H", "first": "N",
                                              "play": " ".join(play)})
    assert r.status_code == 200, r.get_json()
    body = r.get_json()
    h = hint(FULL, "H", "N", played=play, workers=1)
    assert h.exact and body["exact"] is True and body["layouts"] == h.layouts
    assert body["seat"] == h.seat and body["best"] == h.best
    assert body["cards"] == {c: {"mean": e.mean, "se": e.se, "p_made": e.p_made}
                             for c, e in h.cards.items()}
    assert h.layouts > 1                # every layout N cannot tell apart, not the deal given
