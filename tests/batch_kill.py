"""A kraken-batch killed with SIGKILL after its first finished chunk (Linux: reads /proc), for
the tests that resume it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time


def children(pid):
    """The process ids whose parent is ``pid``."""
    kids = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as f:
                    stat = f.read()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                kids.append(int(d))
    return kids


def alive(pid):
    """Is ``pid`` a live process (not gone, not a zombie)?"""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def kill_after_first_chunk(args, parts, timeout: float = 120.0) -> list:
    """Run ``python -m kraken_solver.cli.batch ARGS``, wait until the work directory
    ``parts`` holds a finished chunk, kill the run with SIGKILL; return its workers' ids (the
    caller checks that they exit).  Fails when the run ends before a chunk is seen."""
    proc = subprocess.Popen([sys.executable, "-m", "kraken_solver.cli.batch", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.time() + timeout
    while time.time() < deadline:
        done = [p for p in (os.listdir(parts) if parts.exists() else [])
                if p.startswith("chunk-")]
        if done or proc.poll() is not None:
            break
        time.sleep(0.05)
    assert proc.poll() is None, proc.communicate()
    workers = children(proc.pid)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    return workers


def wait_gone(pids, timeout: float = 20.0) -> bool:
    """Wait until none of ``pids`` is alive; whether they are all gone."""
    deadline = time.time() + timeout
    while any(alive(p) for p in pids) and time.time() < deadline:
        time.sleep(0.1)
    return not any(alive(p) for p in pids)
