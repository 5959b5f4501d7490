"""The real kraken-view server (waitress, in a subprocess) under load and attack: 800+ half-open
connections, abandoned expensive hints, a foreign Origin and Host, oversized URL, headers and
bodies, a garbage request line, and Ctrl-C or SIGTERM while a hint is solved.  Each server runs
with a short idle timeout (the hidden ``--idle-timeout``) so that the tests take seconds."""

from __future__ import annotations

import http.client
import json
import os
import re
import select
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from urllib.parse import urlencode

import pytest

from kraken_solver.view.hints import LANE_JOBS
from kraken_solver.view.server import MAX_BODY_BYTES, MAX_HEADER_BYTES, THREADS

LEAD = "S:7.KQ9.JT8.7 9.8.AK9.AK9 AJT.JT7.7.Q KQ8.A.Q.JT8"     # datasets/full_deal.txt
IDLE_S = 2          # the test servers' idle timeout (the cleanup runs every second)


class Server:
    """``kraken-view ARGS --no-browser --quiet --idle-timeout IDLE`` in a subprocess."""

    def __init__(self, *args, idle=IDLE_S):
        exe = Path(sys.executable).with_name("kraken-view")
        self.proc = subprocess.Popen([str(exe), *args, "--no-browser", "--quiet",
                                      "--idle-timeout", str(idle)],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()
        m = re.search(r"serving http://127\.0\.0\.1:(\d+)/", line)
        if not m:
            self.proc.kill()
            raise AssertionError(f"no address: {line!r} {self.proc.stderr.read()}")
        self.port = int(m.group(1))
        self.pid = self.proc.pid

    def request(self, method, path, body=None, headers=None, timeout=30):
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            c.request(method, path, body=body, headers=headers or {})
            r = c.getresponse()
            return r.status, dict(r.getheaders()), r.read()
        finally:
            c.close()

    def raw(self, data: bytes, timeout=10) -> bytes:
        with socket.create_connection(("127.0.0.1", self.port), timeout=timeout) as s:
            s.sendall(data)
            out = b""
            try:
                while chunk := s.recv(65536):
                    out += chunk
            except ConnectionResetError:    # closed with part of a refused request unread
                pass
            return out

    def stop(self, sig=signal.SIGINT, timeout=30):
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        _, err = self.proc.communicate(timeout=timeout)
        return self.proc.returncode, err


def threads_of(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/task"))


def tree(pid: int) -> list[int]:
    """``pid`` and its descendants."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        try:
            for t in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{t}/children") as f:
                    todo.extend(int(c) for c in f.read().split())
        except OSError:
            pass
    return out


def state_of(pid: int) -> str | None:
    """The state letter of process ``pid`` (``Z``: a zombie), None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return None


def cpu_seconds(pids) -> float:
    """User and system CPU seconds of ``pids`` (those still alive)."""
    total = 0.0
    for p in pids:
        try:
            with open(f"/proc/{p}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except OSError:
            pass
    return total


def late_play(n=20, seed=1) -> str:
    """A legal line of ``n`` cards of LEAD with hearts trump (12 cards left: a cheap hint)."""
    import numpy as np

    from kraken_solver.game.cards import card_str
    from kraken_solver.game.position import Position
    rng = np.random.default_rng(seed)
    pos = Position(LEAD, 1, 2)
    for _ in range(n):
        pos.play(pos.legal()[int(rng.integers(len(pos.legal())))])
    return " ".join(card_str(c) for c in pos.played)


def hint_path(play="", **more):
    words = {"deal": LEAD, "trump": "H", "first": "S", "play": play}
    words.update(more)
    return "/api/hint?" + urlencode(words)


@pytest.fixture
def server():
    s = Server()
    yield s
    s.stop(signal.SIGKILL)


def test_half_open_connections_cost_nothing(server):
    """850 connections that send half a request: a whole request is still answered at once,
    the threads stay bounded, and the half-open ones are closed after the idle timeout."""
    half = []
    for _ in range(850):
        s = socket.create_connection(("127.0.0.1", server.port), timeout=10)
        s.sendall(b"GET /api/info HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        half.append(s)
    try:
        t0 = time.monotonic()
        status, _, body = server.request("GET", "/api/info", timeout=10)
        answered = time.monotonic() - t0
        assert status == 200 and "deals" in json.loads(body)
        assert answered < 3, answered
        assert threads_of(server.pid) <= THREADS + 8
        # closed by the server: each socket reads its end within timeout + cleanup interval
        deadline = time.monotonic() + IDLE_S + 1 + 3
        for s in half:
            s.settimeout(max(0.1, deadline - time.monotonic()))
            try:
                assert s.recv(1) == b""
            except ConnectionResetError:
                pass
        assert time.monotonic() < deadline
        assert server.request("GET", "/api/info")[0] == 200
    finally:
        for s in half:
            s.close()


def test_abandoned_hints_stop_and_cheap_ones_pass(server):
    """Eight expensive hints (the first lead, different samples: eight jobs) whose clients hang
    up: the lane takes at most its bound (the rest 503 with Retry-After), a cheap hint is
    answered meanwhile in well under 5 s, and once the clients have gone no CPU is spent."""
    socks = []
    for i in range(8):
        s = socket.create_connection(("127.0.0.1", server.port), timeout=30)
        s.sendall(f"GET {hint_path(samples=200 + i, job='big', client=f'c{i}')} HTTP/1.1\r\n"
                  "Host: 127.0.0.1\r\n\r\n".encode())
        socks.append(s)
    busy, waiting = 0, set(socks)
    deadline = time.monotonic() + 3     # the ones past the lane's bound are answered at once
    while busy < 8 - LANE_JOBS["expensive"] and time.monotonic() < deadline:
        for s in select.select(list(waiting), [], [], 0.1)[0]:
            head = s.recv(4096)
            assert head.startswith(b"HTTP/1.1 503") and b"Retry-After: 2" in head, head[:200]
            waiting.discard(s)
            busy += 1
    assert busy == 8 - LANE_JOBS["expensive"]
    t0 = time.monotonic()
    status, _, body = server.request("GET", hint_path(late_play(), client="cheap"), timeout=10)
    assert status == 200, body
    assert time.monotonic() - t0 < 5
    assert json.loads(body)["exact"] is True
    assert len(tree(server.pid)) > 1            # the expensive lane's workers run
    assert not select.select(list(waiting), [], [], 0.5)[0]    # the lane's jobs: no answer
    for s in socks:
        s.close()
    time.sleep(1.0)             # noticed within 0.2 s; the workers stopped at once
    pids = tree(server.pid)
    c0 = cpu_seconds(pids)
    time.sleep(2.0)
    spent = cpu_seconds(pids) - c0
    assert spent < 0.3, f"{spent:.2f} CPU s in 2 s after the clients left"
    assert tree(server.pid) == [server.pid]     # no worker process left
    # the same hint asked again is solved from the start (it was not cached half done)
    status, _, body = server.request("GET", hint_path(samples=24, client="again"))
    assert status == 200 and json.loads(body)["layouts"] == 24


def test_foreign_origin_and_host_are_refused(server):
    for headers in ({"Origin": "http://evil.example"}, {"Sec-Fetch-Site": "cross-site"},
                    {"Host": "evil.example"}):
        status, h, body = server.request("GET", "/api/info", headers=headers)
        assert status == 403 and h["Content-Type"] == "application/json", headers
        assert set(json.loads(body)) == {"error", "field"}
    status, _, body = server.request("POST", "/api/parse", body=json.dumps({"text": "x"}),
                                     headers={"Origin": "http://evil.example",
                                              "Content-Type": "application/json"})
    assert status == 403
    out = server.raw(b"GET http://127.0.0.1/api/info HTTP/1.1\r\nHost: evil.example\r\n"
                     b"Connection: close\r\n\r\n")
    assert out.startswith(b"HTTP/1.1 403") and b'"field":null' in out
    out = server.raw(b"GET http://evil.example/api/info HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                     b"Connection: close\r\n\r\n")
    assert out.startswith(b"HTTP/1.1 403")


def plain_refusal(out: bytes, status: bytes):
    head, _, body = out.partition(b"\r\n\r\n")
    assert head.split(b"\r\n")[0].split(b" ")[1] == status, out[:300]
    assert b"text/plain" in head and len(body) < 300
    assert b"Traceback" not in body and b"<html" not in body.lower()


def test_oversized_and_broken_requests(server):
    plain_refusal(server.raw(b"GET /api/info?" + b"x" * 70_000 + b" HTTP/1.1\r\n"
                             b"Host: 127.0.0.1\r\n\r\n"), b"431")
    plain_refusal(server.raw(b"GET /api/info HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: "
                             + b"y" * MAX_HEADER_BYTES + b"\r\n\r\n"), b"431")
    plain_refusal(server.raw(b"GARBAGE\r\n\r\n"), b"400")
    plain_refusal(server.raw(b"POST /api/parse HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                             b"Content-Length: 100000000\r\n\r\n"), b"413")
    # chunked, 100 MB announced by no length: refused once past the bound, not read whole
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as s:
        s.sendall(b"POST /api/parse HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                  b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
        chunk = b"10000\r\n" + b"[" * 0x10000 + b"\r\n"
        sent = 0
        try:
            while sent < 100_000_000:
                s.sendall(chunk)
                sent += 0x10000
        except (BrokenPipeError, ConnectionResetError):
            pass
        out = s.recv(65536)
    assert sent < 4 * MAX_BODY_BYTES
    assert out.startswith(b"HTTP/1.1 413")
    # what reaches the app is answered in JSON
    status, h, body = server.request("POST", "/api/parse", body=b"[" * 100_000,
                                     headers={"Content-Type": "application/json"})
    assert status == 400 and h["Content-Type"] == "application/json"
    assert json.loads(body)["error"].startswith("expected JSON")
    status, h, body = server.request("GET", "/no/such/page")
    assert status == 404 and h["Content-Type"] == "application/json"
    assert json.loads(body) == {"error": "no such page: /no/such/page", "field": None}
    code, err = server.stop()
    assert code == 130 and "Traceback" not in err and "RecursionError" not in err


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_stop_mid_hint_answers_and_exits(sig):
    """Ctrl-C (or SIGTERM) while the first lead's hint is solved over worker processes: the
    waiting client gets 409 "the server stopped", the workers stop, and the server exits in
    seconds."""
    server = Server()
    try:
        got = {}

        def ask():
            got["r"] = server.request("GET", hint_path(job="j", client="p"), timeout=30)
        t = threading.Thread(target=ask)
        t.start()
        deadline = time.monotonic() + 60
        while True:
            status, _, body = server.request("GET", "/api/hint/progress?job=j&client=p")
            if status == 200 and json.loads(body)["state"] == "solving" and \
                    len(tree(server.pid)) > 1:
                break
            assert time.monotonic() < deadline, body
            time.sleep(0.1)
        pids = tree(server.pid)
        t0 = time.monotonic()
        code, err = server.stop(sig)
        took = time.monotonic() - t0
        t.join(timeout=10)
        assert code == 128 + sig and took < 5, (code, took, err)
        assert err.strip().splitlines()[-1] == "kraken-view: stopped" and "Traceback" not in err
        status, _, body = got["r"]
        assert status == 409 and json.loads(body)["cancelled"] is True
        assert "the server stopped" in json.loads(body)["error"]
        time.sleep(0.5)
        alive = [p for p in pids if state_of(p) not in (None, "Z")]
        assert alive == [], alive
    finally:
        if server.proc.poll() is None:
            server.proc.kill()
