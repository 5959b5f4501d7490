"""Only the board's own page drives kraken-view's API: a foreign Host, a foreign authority in
the request line, a foreign Origin and a cross-site Sec-Fetch-Site are refused (JSON 403) on
every /api/ endpoint (kraken_solver.view.guard), while the page, curl and the tests are served.
The same checks against the real server: test_view_server.py."""

from __future__ import annotations

import pytest

from kraken_solver.view.app import create_app
from kraken_solver.view.guard import host_name, refusal
from kraken_solver.view.query import ENDPOINT_WORDS
from kraken_solver.view.session import BoardSolver


@pytest.fixture(scope="module")
def client():
    return create_app([], solver=BoardSolver()).test_client()


def env(path="/api/info", host="127.0.0.1:5000", uri=None, **headers):
    e = {"PATH_INFO": path, "HTTP_HOST": host, "REQUEST_URI": uri or path}
    e.update({"HTTP_" + k.upper(): v for k, v in headers.items()})
    return e


def test_host_names():
    assert [host_name(a) for a in ("127.0.0.1:80", "LOCALHOST", "[::1]:8000", "::1",
                                   "evil.example:5000")] == \
        ["127.0.0.1", "localhost", "::1", "::1", "evil.example"]


@pytest.mark.parametrize("e", [
    env(), env(host="localhost:5000"), env(host="[::1]:5000"),
    env(origin="http://127.0.0.1:5000"), env(origin="HTTP://127.0.0.1:5000"),
    env(sec_fetch_site="same-origin"), env(sec_fetch_site="none"),
    env(uri="http://127.0.0.1:5000/api/info"),
    env(path="/", origin="http://evil.example", sec_fetch_site="cross-site"),   # a link here
])
def test_served(e):
    assert refusal(e) is None


@pytest.mark.parametrize("e, says", [
    (env(host="evil.example"), "loopback address only"),
    (env(host="127.0.0.1.evil.example"), "loopback address only"),
    (env(host=""), "loopback address only"),
    (env(uri="http://evil.example/api/info"), "loopback address only"),
    (env(host="evil.example", uri="http://127.0.0.1/api/info"), "loopback address only"),
    (env(uri="http://127.0.0.1@evil.example/api/info"), "loopback address only"),
    (env(origin="http://evil.example"), "not a page of 'http://evil.example'"),
    (env(origin="null"), "not a page of 'null'"),
    (env(origin="http://127.0.0.1:5001"), "not a page of"),     # another port: another page
    (env(origin="https://127.0.0.1:5000"), "not a page of"),
    (env(origin="http://127.0.0.1:5000/x"), "not a page of"),
    (env(sec_fetch_site="cross-site"), "Sec-Fetch-Site: cross-site"),
    (env(sec_fetch_site="same-site"), "Sec-Fetch-Site: same-site"),
])
def test_refused(e, says):
    why = refusal(e)
    assert why is not None and says in why


@pytest.mark.parametrize("path", sorted(ENDPOINT_WORDS) + ["/api/no-such-endpoint"])
def test_every_api_endpoint_refuses_a_foreign_origin(client, path):
    for headers in ({"Origin": "http://evil.example"}, {"Sec-Fetch-Site": "cross-site"}):
        for method in (client.get, client.post):
            r = method(path, headers=headers, json={"text": "x", "job": "a"})
            assert r.status_code == 403, (path, headers)
            body = r.get_json()
            assert set(body) == {"error", "field"} and body["field"] is None
            assert "this server's own page only" in body["error"]
    r = client.get("/api/info", headers={"Origin": "http://localhost",
                                         "Sec-Fetch-Site": "same-origin"})
    assert r.status_code == 200 and "deals" in r.get_json()
