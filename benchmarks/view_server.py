"""How does the kraken-view server hold under load and attack?  Figures for its limits.

Runs the real ``kraken-view`` (waitress) in a subprocess, as ``tests/test_view_server.py`` does
(its helpers are reused), with ``--idle-timeout`` (default 5 s), and measures ``--rounds``
times each:

- ``half-open``: 850 connections that sent half a request; then 20 whole requests, one after
  the other: their latency (median, p95, max ms), the server's threads, and the seconds from the
  half-open connections' last byte until the server has closed every one of them;
- ``abandoned``: eight expensive hints (the first lead of ``datasets/full_deal.txt``, eight
  different jobs) whose clients then hang up; meanwhile a cheap hint (12 cards left): its
  latency; after the clients left, the CPU seconds the server and its workers spend in 2 s;
- ``stop``: SIGINT while the first lead's hint is solved over worker processes: the seconds
  until the server has exited, and the status its waiting client got.

The machine may be shared: the load average before and after is printed.  ::

    python benchmarks/view_server.py                # 3 rounds, idle timeout 5 s
    python benchmarks/view_server.py --rounds 5 --idle-timeout 10
"""

from __future__ import annotations

import argparse
import os
import select
import signal
import socket
import statistics
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import test_view_server as attack


def p95(xs):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, round(0.95 * (len(xs) - 1)))]


def half_open(idle: int) -> dict:
    server = attack.Server(idle=idle)
    try:
        socks = []
        for _ in range(850):
            s = socket.create_connection(("127.0.0.1", server.port), timeout=30)
            s.sendall(b"GET /api/info HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            socks.append(s)
        sent = time.monotonic()
        ms = []
        for _ in range(20):
            t0 = time.perf_counter()
            assert server.request("GET", "/api/info")[0] == 200
            ms.append((time.perf_counter() - t0) * 1000)
        threads = attack.threads_of(server.pid)
        left = set(socks)
        while left and time.monotonic() - sent < idle + 30:
            for s in select.select(list(left), [], [], 0.5)[0]:
                try:
                    s.recv(1)
                except ConnectionResetError:
                    pass
                left.discard(s)
        closed = time.monotonic() - sent
        for s in socks:
            s.close()
        return {"ms": ms, "threads": threads, "closed_s": closed, "open_left": len(left)}
    finally:
        server.stop(signal.SIGKILL)


def abandoned() -> dict:
    server = attack.Server()
    try:
        socks = []
        for i in range(8):
            s = socket.create_connection(("127.0.0.1", server.port), timeout=30)
            path = attack.hint_path(samples=200 + i, job="big", client=f"c{i}")
            s.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
            socks.append(s)
        time.sleep(1.0)
        t0 = time.perf_counter()
        status = server.request("GET", attack.hint_path(attack.late_play(), client="c"))[0]
        cheap = (time.perf_counter() - t0) * 1000
        assert status == 200
        for s in socks:
            s.close()
        time.sleep(1.0)
        pids = attack.tree(server.pid)
        c0 = attack.cpu_seconds(pids)
        time.sleep(2.0)
        return {"cheap_ms": cheap, "cpu_2s": attack.cpu_seconds(pids) - c0,
                "workers_left": len(attack.tree(server.pid)) - 1}
    finally:
        server.stop(signal.SIGKILL)


def stop() -> dict:
    server = attack.Server()
    got = {}
    t = threading.Thread(target=lambda: got.setdefault(
        "r", server.request("GET", attack.hint_path(job="j", client="p"), timeout=60)))
    t.start()
    while len(attack.tree(server.pid)) < 2:     # the workers are solving
        time.sleep(0.05)
    time.sleep(0.5)
    t0 = time.monotonic()
    code, _ = server.stop(signal.SIGINT)
    took = time.monotonic() - t0
    t.join(timeout=10)
    return {"stop_s": took, "exit": code, "client_status": got.get("r", (None,))[0]}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=3, choices=range(1, 21), metavar="1..20")
    ap.add_argument("--idle-timeout", type=int, default=5, choices=range(1, 61),
                    metavar="1..60")
    a = ap.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    ho = [half_open(a.idle_timeout) for _ in range(a.rounds)]
    ms = [m for r in ho for m in r["ms"]]
    closed = ", ".join(f"{r['closed_s']:.1f}" for r in ho)
    print(f"half-open (850 connections, idle timeout {a.idle_timeout} s): /api/info median "
          f"{statistics.median(ms):.1f} ms, p95 {p95(ms):.1f} ms, max {max(ms):.1f} ms; "
          f"threads {max(r['threads'] for r in ho)}; all closed after {closed} s "
          f"(left open: {sum(r['open_left'] for r in ho)})")
    ab = [abandoned() for _ in range(a.rounds)]
    cheap = ", ".join(f"{r['cheap_ms']:.0f}" for r in ab)
    cpu = ", ".join(f"{r['cpu_2s']:.2f}" for r in ab)
    print(f"abandoned (8 expensive hints): cheap hint {cheap} ms; CPU in 2 s after the "
          f"clients left {cpu} s; worker processes left {max(r['workers_left'] for r in ab)}")
    st = [stop() for _ in range(a.rounds)]
    took = ", ".join(f"{r['stop_s']:.2f}" for r in st)
    print(f"stop mid-hint (SIGINT): exited after {took} s, status "
          f"{sorted({r['exit'] for r in st})}, the client got "
          f"{sorted({r['client_status'] for r in st}, key=str)}")
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
