"""Tests of ``kraken-batch --scheduler`` (kraken_solver.workers.cluster): batches on a Dask cluster.

A LocalCluster of two worker processes on the loopback interface is started inside the tests
(module fixture) and the batch is pointed at its ``tcp://`` address, as it would be at a
cluster of several machines.  Every Dask run is compared with a run of the local process pool
on the same seed, on every column but the timing columns ``nodes`` and ``ms``: after a worker
is killed with SIGKILL in the middle of a chunk, after an interrupted run is resumed, and with
``--scheduler local:N``.
"""

from __future__ import annotations

import json
import os
import signal
import time

import pytest
from click.testing import CliRunner

distributed = pytest.importorskip("distributed")

from kraken_solver.batch.config import TIMING_COLUMNS, make_config
from kraken_solver.batch.run import run_batch  # noqa: E402
from kraken_solver.batch.store import read_results
from kraken_solver.cli.batch import main  # noqa: E402
from kraken_solver.errors import KrakenError  # noqa: E402
from kraken_solver.workers.cluster import DaskPool, max_local_workers, parse_scheduler  # noqa: E402

SEED = 23
# 6 chunks of 4 deals: each chunk takes long enough (about 0.1 s on a fast core) for a test to
# find a chunk in flight after the first result (with a deal a chunk, the whole batch could be
# over by then)
DEALS = 24
CHUNK = 4


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def values(path):
    df = read_results(path)
    return df.drop(columns=[c for c in TIMING_COLUMNS if c in df.columns])


def config(**kw):
    kw.setdefault("deals", DEALS)
    kw.setdefault("seed", SEED)
    kw.setdefault("objectives", ("score", "points"))
    kw.setdefault("chunk_size", CHUNK)
    return make_config(**kw)


@pytest.fixture(scope="module")
def local_pool_file(tmp_path_factory):
    """The batch by the local process pool: what every Dask run must reproduce."""
    out = tmp_path_factory.mktemp("pool") / "pool.csv"
    res = run_batch(config(), out, workers=2)
    assert res.solved == DEALS
    return out


@pytest.fixture(scope="module")
def cluster():
    """A LocalCluster of 2 single-threaded worker processes, scheduler on 127.0.0.1."""
    import logging
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  host="127.0.0.1", dashboard_address=":0",
                                  silence_logs=logging.ERROR) as c:
        yield c


# ------------------------------------------------------------------------------ options
@pytest.mark.parametrize("text, expected", [
    ("local:1", ("local", 1)),
    ("local:2", ("local", 2)),
    ("tcp://10.0.0.5:8786", ("address", "tcp://10.0.0.5:8786")),
    ("tls://scheduler.example:8786", ("address", "tls://scheduler.example:8786")),
    ("scheduler.example:8786", ("address", "tcp://scheduler.example:8786")),
])
def test_parse_scheduler(text, expected):
    assert parse_scheduler(text) == expected


@pytest.mark.parametrize("text", ["local", "local:0", "local:x", "local:-2", "http://h:1",
                                  "tcp://", "scheduler", "host:port", "", "tcp://127.0.0.1",
                                  "tcp://127.0.0.1:99999", "tcp://h:0", "inproc://x", "h:",
                                  f"local:{max_local_workers() + 1}",
                                  # ASCII digits only ('²' made int() fail, '٢' read as 2)
                                  "local:\u00b2", "local:\u0662", "tcp://h:\u00b2", "h:\u0662",
                                  "local:" + "9" * 30])
def test_parse_scheduler_refuses(text):
    with pytest.raises(KrakenError) as e:
        parse_scheduler(text)
    assert e.value.token == text.strip()
    assert "local:N" in str(e.value) or "tcp://" in str(e.value)


def test_cli_errors(tmp_path):
    out = tmp_path / "r.csv"
    r = run("--deals", 2, "--out", out, "--scheduler", "local:0")
    assert r.exit_code == 1 and r.stderr.startswith("kraken-batch: error: ")
    assert r.stderr.count("\n") == 1 and "local:0" in r.stderr
    r = run("--deals", 2, "--out", out, "--scheduler", "local:2", "--workers", 2)
    assert r.exit_code == 2 and "--workers and --scheduler" in r.output
    assert not os.path.exists(out) and not os.path.exists(f"{out}.parts")


def test_unreachable_scheduler_is_a_clear_error(tmp_path, monkeypatch):
    from kraken_solver.workers import cluster as cl
    monkeypatch.setattr(cl, "CONNECT_TIMEOUT", 1.0)
    out = tmp_path / "r.csv"
    t0 = time.monotonic()
    r = run("--deals", 2, "--out", out, "--scheduler", "tcp://127.0.0.1:9")
    assert time.monotonic() - t0 < 20
    assert r.exit_code == 1 and r.stderr.startswith("kraken-batch: error: cannot use the "
                                                     "Dask scheduler: ")
    assert r.stderr.count("\n") == 1 and "tcp://127.0.0.1:9" in r.stderr
    # nothing was solved, so nothing is left behind
    assert not os.path.exists(out) and not os.path.exists(f"{out}.meta.json")
    assert not os.path.exists(f"{out}.parts")
    # nothing was solved: the same command with a working pool starts without --resume
    assert run("--deals", 1, "--out", out, "--workers", 1, "--quiet").exit_code == 0


# ------------------------------------------------------------------------------ batches
def test_tcp_scheduler_gives_the_local_pool_file(cluster, local_pool_file, tmp_path):
    out = tmp_path / "dask.csv"
    res = run_batch(config(), out, scheduler=cluster.scheduler_address)
    assert res.solved == DEALS and res.workers == 2
    assert values(out).equals(values(local_pool_file))
    meta = json.loads(open(f"{out}.meta.json").read())
    assert meta["status"] == "complete" and meta["rows"] == 4 * DEALS
    assert meta["sessions"][0]["scheduler"] == cluster.scheduler_address
    # one Searcher per worker process: the chunks were shared between the two workers
    assert not os.path.exists(f"{out}.parts")


def test_killed_worker_costs_a_retry_not_a_row(cluster, local_pool_file, tmp_path):
    """SIGKILL a worker while it holds a chunk: the scheduler runs that chunk again on
    another worker (the nanny restarts the dead one) and the file is still exact."""
    out = tmp_path / "killed.csv"
    killed = []

    def kill_a_busy_worker(pool, res):
        if killed:
            return
        # one look at what the workers hold (a second could find the chunk just finished)
        processing = pool.client.processing()
        busy = [a for a, keys in processing.items() if keys]
        pids = pool.worker_pids()
        assert busy, "no chunk was in flight"
        pid = pids[busy[0]]
        os.kill(pid, signal.SIGKILL)
        killed.append((pid, list(processing[busy[0]])))

    res = run_batch(config(), out, scheduler=cluster.scheduler_address,
                    on_chunk=kill_a_busy_worker)
    assert killed and killed[0][1], "a worker holding a chunk was killed"
    pid = killed[0][0]
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    assert res.solved == DEALS
    df = values(out)
    assert sorted(df["deal_id"]) == sorted(list(range(DEALS)) * 4)
    assert df.equals(values(local_pool_file))
    cluster.wait_for_workers(2, timeout=60)    # the nanny brought the worker back


def test_interrupted_dask_run_resumes(cluster, local_pool_file, tmp_path):
    out = tmp_path / "resumed.csv"

    def interrupt(pool, res, seen=[]):
        seen.append(res["chunk"])
        if len(seen) == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_batch(config(), out, scheduler=cluster.scheduler_address, on_chunk=interrupt)
    parts = sorted(p for p in os.listdir(f"{out}.parts") if p.startswith("chunk-"))
    assert len(parts) == 2 and not os.path.exists(out)
    res = run_batch(config(), out, scheduler=cluster.scheduler_address, resume=True)
    assert res.chunks_reused == 2 and res.solved == DEALS - 2 * CHUNK
    assert values(out).equals(values(local_pool_file))
    meta = json.loads(open(f"{out}.meta.json").read())
    assert [s["scheduler"] for s in meta["sessions"]] == [cluster.scheduler_address] * 2
    # and a Dask run resumes a local-pool run's parts the same way (the config is the same)
    out2 = tmp_path / "mixed.csv"
    with pytest.raises(KeyboardInterrupt):
        run_batch(config(), out2, workers=1, on_chunk=lambda pool, res: (_ for _ in ()).throw(
            KeyboardInterrupt()))
    res = run_batch(config(), out2, scheduler=cluster.scheduler_address, resume=True)
    assert res.chunks_reused == 1 and values(out2).equals(values(local_pool_file))


def test_a_failed_dask_run_says_how_to_finish(cluster, tmp_path):
    out = tmp_path / "failed.csv"

    def fail(pool, res):
        raise KrakenError("chunk 1 failed on the Dask cluster: as if a worker had died")

    with pytest.raises(KrakenError) as e:
        run_batch(config(), out, scheduler=cluster.scheduler_address, on_chunk=fail)
    assert str(e.value).endswith("the finished chunks are kept: run the same command with "
                                 "--resume to finish")
    assert len([p for p in os.listdir(f"{out}.parts") if p.startswith("chunk-")]) == 1


def test_cli_local_cluster(local_pool_file, tmp_path):
    out = tmp_path / "cli.csv"
    r = run("--deals", DEALS, "--seed", SEED, "--out", out, "--objective", "score,points",
            "--chunk-size", 3, "--scheduler", "local:2")
    assert r.exit_code == 0, r.output
    assert "Dask scheduler tcp://127.0.0.1:" in r.stderr and "2 workers (Dask)" in r.stderr
    assert ": 2 worker processes" in r.stderr     # local:N: processes of one thread each
    assert values(out).equals(values(local_pool_file))


def test_a_chunk_that_kills_every_worker_fails_the_batch_clearly():
    """A task that kills its worker is retried by Dask; when it has killed more workers than
    ``allowed-failures`` allows, the run stops with a KrakenError naming the chunk."""
    import dask

    def die(task):
        os._exit(3)

    with dask.config.set({"distributed.scheduler.allowed-failures": 0}):
        pool = DaskPool("local:1")
        with pool:
            with pytest.raises(KrakenError, match=r"chunk 7 failed on the Dask cluster: "
                                                  r"KilledWorker") as e:
                list(pool.run(die, [(7, "x")]))
    assert "\n" not in str(e.value)


def test_advise_on_the_cluster_equals_the_local_pool(cluster):
    from kraken_solver.playerview.advise import advise
    kw = dict(seat="E", trump="H", samples=6, seed=4, known=("N:HJ",))
    here = advise("AJ9.K7.T8.A", workers=1, **kw)
    there = advise("AJ9.K7.T8.A", scheduler=cluster.scheduler_address, **kw)
    assert (there.scores == here.scores).all() and there.workers == 2
    assert [r.__dict__ for r in there.rows] == [r.__dict__ for r in here.rows]
    r = CliRunner().invoke(__import__("kraken_solver.cli.advise", fromlist=["main"]).main,
                           ["AJ9.K7.T8.A", "--scheduler", "local:0"])
    assert r.exit_code == 1 and "local:0" in r.stderr and r.stderr.count("\n") == 1


def test_a_scheduler_that_stops_answering_mid_run_stops_the_batch(cluster, tmp_path,
                                                                   monkeypatch):
    """Every network wait has a time limit: a scheduler silent while chunks run is asked
    after HEARTBEAT seconds and given CALL_TIMEOUT to answer."""
    from kraken_solver.workers import cluster as cl
    monkeypatch.setattr(cl, "HEARTBEAT", 0.05)
    monkeypatch.setattr(cl, "POLL", 0.01)
    monkeypatch.setattr(cl, "CALL_TIMEOUT", 1.0)
    real_enter = cl.DaskPool.__enter__

    def enter(self):
        pool = real_enter(self)
        pool.client.scheduler_info = lambda *a, **k: time.sleep(30)     # as if it hung
        return pool
    monkeypatch.setattr(cl.DaskPool, "__enter__", enter)
    out = tmp_path / "silent.csv"
    t0 = time.monotonic()
    with pytest.raises(KrakenError, match="hear from the Dask scheduler .it stopped "
                                          "answering.*no answer within 1 s"):
        # one chunk of all the deals (0.4 s or more), so the scheduler is asked before it ends
        run_batch(config(chunk_size=DEALS), out, scheduler=cluster.scheduler_address)
    assert time.monotonic() - t0 < 30
    assert not out.exists()
