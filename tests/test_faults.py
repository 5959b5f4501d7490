"""Issue 27's classes of fault, one test (or a few) each: interrupts and output errors at the
edges of every tool, a batch's files as the user's data (tampered parts, sidecars, inputs
that change or cannot be read twice), network waits with a time limit, and summarize on
files that mix rules or whose rows disagree.

Batches here are two or three generated deals in chunks of one; every refusal is checked to
be one line, exit status 1, and to leave the files as they were.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import time

import pandas as pd
import pytest
from click.testing import CliRunner

from kraken_solver.batch.config import TIMING_COLUMNS, make_config
from kraken_solver.batch.run import run_batch
from kraken_solver.batch.store import read_results
from kraken_solver.cli.batch import main as batch_main
from kraken_solver.errors import KrakenError
from kraken_solver.workers.pool import WorkerPool, max_workers
from kraken_solver.workers.task import report_progress

BIN = os.path.dirname(sys.executable)
TOOLS = ("kraken-solve", "kraken-analyse", "kraken-batch", "kraken-advise", "kraken-bench",
         "kraken-hint", "kraken-view")
linux = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="uses /proc, /dev/full")


def tool(name):
    path = os.path.join(BIN, name)
    if not os.path.exists(path):
        pytest.skip(f"{name} is not installed next to {sys.executable}")
    return path


def ctrl_c_heard():
    """``preexec_fn`` of a tool that a test interrupts: SIGINT as in a foreground process
    (one that pytest passes on from a shell's background job would be ignored)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def batch(*args):
    return CliRunner().invoke(batch_main, [str(a) for a in args])


def one_line_error(res, prog="kraken-batch"):
    assert res.exit_code == 1, res.output
    assert res.stderr.startswith(f"{prog}: error: ") and res.stderr.count("\n") == 1, \
        res.stderr
    assert "Traceback" not in res.output


def values(path):
    df = read_results(path)
    return df.drop(columns=[c for c in TIMING_COLUMNS if c in df.columns])


def parts_of(out):
    d = f"{out}.parts"
    return sorted(p for p in os.listdir(d) if p.startswith("chunk-"))


def interrupted_run(out, deals=3, after=2, **kw):
    """A batch of ``deals`` seed-3 deals, chunks of one, interrupted after ``after`` chunks."""
    seen = []

    def stop(pool, res):
        seen.append(res["chunk"])
        if len(seen) == after:
            raise KeyboardInterrupt
    with pytest.raises(KeyboardInterrupt):
        run_batch(make_config(deals=deals, seed=3, chunk_size=1, **kw), out, workers=1,
                  on_chunk=stop)
    return parts_of(out)


@pytest.fixture(scope="module")
def whole(tmp_path_factory):
    """The uninterrupted batch every repaired run must equal."""
    out = tmp_path_factory.mktemp("whole") / "whole.csv"
    run_batch(make_config(deals=3, seed=3, chunk_size=1), out, workers=1)
    return out


# ----------------------------------------------------------------- interrupts and outputs
def test_an_interrupted_command_leaves_its_callers_ctrl_c_alone():
    """A command run inside another program (CliRunner, a script) that ended on Ctrl-C left
    SIGINT ignored in that program for good, and so in every process it started after (the
    start-up test's tools then ran through every Ctrl-C): only a tool's own process ignores
    a late Ctrl-C."""
    from kraken_solver.cli import guard_output

    @guard_output("kraken-test", needs_stdout=False)
    def stopped():
        raise KeyboardInterrupt
    # as in a program started in the foreground (one started in the background by a shell
    # without job control inherits SIGINT ignored)
    inherited = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(SystemExit) as e:
            stopped()
        assert e.value.code == 130
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    finally:
        signal.signal(signal.SIGINT, inherited)


def test_a_ctrl_c_that_python_wrapped_is_still_an_interruption(capsys):
    """A Ctrl-C as Numba's modules loaded came inside a class being made, and Python (3.11)
    wrapped it: 'RuntimeError: Error calling __set_name__ on 'cached_property' instance'
    and a traceback.  Any exception with a KeyboardInterrupt behind it ends the tool as a
    Ctrl-C does; any other goes on up."""
    from kraken_solver.cli import caused_by_interrupt, guard_output

    class Interrupted:
        def __set_name__(self, owner, name):
            raise KeyboardInterrupt

    @guard_output("kraken-test", needs_stdout=False)
    def loads():
        class Kernel:       # noqa: F841 - made to be interrupted
            cfg = Interrupted()

    inherited = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(SystemExit) as e:
            loads()
    finally:
        signal.signal(signal.SIGINT, inherited)
    assert e.value.code == 130 and capsys.readouterr().err == "\nkraken-test: interrupted\n"
    try:
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt as k:
            raise RuntimeError("wrapped") from k
    except RuntimeError as wrapped:
        assert caused_by_interrupt(wrapped)
    assert not caused_by_interrupt(RuntimeError("a bug")) and not caused_by_interrupt(None)

    @guard_output("kraken-test", needs_stdout=False)
    def bug():
        raise RuntimeError("a bug")
    with pytest.raises(RuntimeError, match="a bug"):
        bug()


@linux
def test_ctrl_c_while_the_pool_forks_is_not_lost(tmp_path):
    """A Ctrl-C (or SIGTERM) that came while the pool forked its workers was handled in
    the logging module's at-fork hook: 'Exception ignored ... KeyboardInterrupt' on stderr,
    and the batch ran on to the end with status 0."""
    script = tmp_path / "fork.py"
    script.write_text(textwrap.dedent("""
        import os, signal, sys
        from kraken_solver.workers.pool import WorkerPool
        # the signal comes just before the fork, as a Ctrl-C pressed during it does
        os.register_at_fork(before=lambda: os.kill(os.getpid(), getattr(signal, sys.argv[1])))
        if sys.argv[1] == "SIGTERM":
            def term(signum, frame):
                raise KeyboardInterrupt
            signal.signal(signal.SIGTERM, term)
        try:
            with WorkerPool(1) as pool:
                print(list(pool.run(abs, [-1])))
            print("finished")
        except KeyboardInterrupt:
            print("interrupted")
    """))
    for sig in ("SIGINT", "SIGTERM"):
        r = subprocess.run([sys.executable, str(script), sig], preexec_fn=ctrl_c_heard,
                           capture_output=True, text=True,
                           timeout=120)
        assert r.returncode == 0 and r.stdout == "interrupted\n", (sig, r.stdout, r.stderr)
        assert "Exception ignored" not in r.stderr and "Traceback" not in r.stderr, r.stderr


def _group_ctrl_c_heard():
    """``preexec_fn``: a process group of its own (so that a test can send it the terminal's
    Ctrl-C, which reaches every process of the group) and SIGINT heard."""
    os.setpgrp()
    ctrl_c_heard()


@linux
@pytest.mark.parametrize("where", [[], ["--scheduler", "local:2"]], ids=["pool", "dask"])
def test_ctrl_c_to_a_running_batch_is_one_line(where, tmp_path):
    """A Ctrl-C at the terminal reaches the batch's workers too.  With a local Dask cluster each
    worker process stopped on its own with Dask's tracebacks (CancelledError, then
    KeyboardInterrupt); and the batch's own line ('interrupted; finished chunks are kept')
    was followed by a second, 'kraken-batch: interrupted' (its exit, raised while it handled
    the interrupt, was taken for another)."""
    out = tmp_path / "o.csv"
    p = subprocess.Popen([tool("kraken-batch"), "--deals", "20000", "--out", str(out),
                          "--quiet", *where], preexec_fn=_group_ctrl_c_heard,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        parts = f"{out}.parts"
        deadline = time.monotonic() + 120
        while not (os.path.isdir(parts) and any(n.startswith("chunk-")
                                                 for n in os.listdir(parts))):
            assert p.poll() is None and time.monotonic() < deadline, p.stderr.read()
            time.sleep(0.1)
        os.killpg(p.pid, signal.SIGINT)
        _, err = p.communicate(timeout=120)
    finally:
        if p.poll() is None:        # pragma: no cover - only if the test failed
            os.killpg(p.pid, signal.SIGKILL)
    assert p.returncode == 130, err
    assert "Traceback" not in err and "Error" not in err, err
    lines = [line for line in err.splitlines() if line.strip()]
    assert lines == [f"kraken-batch: interrupted; finished chunks are kept in {parts}/: run "
                     "the same command with --resume to finish"], err
    # no worker of the group left running (multiprocessing's resource tracker, orphaned,
    # is reaped a second or two later)
    deadline = time.monotonic() + 20
    while True:
        try:
            os.killpg(p.pid, 0)
        except ProcessLookupError:
            break
        assert time.monotonic() < deadline, "a process of the batch's group is still there"
        time.sleep(0.2)


@linux
def test_ctrl_c_during_start_up_is_one_line_and_exit_130(tmp_path):
    """Ctrl-C while numpy, Numba and the kernels load gave a KeyboardInterrupt traceback.
    Each run has seconds of work after its start-up, so that every signal finds it running
    (a one-deal run, warm, ends in under half a second: most signals came after the end)."""
    from kraken_solver.dealing.seeded import generate_deals
    deals = tmp_path / "d.txt"
    deals.write_text("".join(f"{d} trump=S\n" for d in generate_deals(1, 0, 200)))
    runs = {"kraken-solve": [str(deals)], "kraken-bench": ["--suite", "random-1000-seed1"],
            "kraken-batch": ["--deals", "2000", "--out", str(tmp_path / "o.csv"), "--quiet"]}
    outcomes = []
    for name, args in runs.items():
        # from 0.2 s on: the package's code runs (the first ~50 ms are the interpreter's own
        # start-up and the console script's first import, before any of it)
        for delay in (0.2, 0.5, 1.0):
            p = subprocess.Popen([tool(name), *args], preexec_fn=ctrl_c_heard,
                                 stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True)
            time.sleep(delay)
            p.send_signal(signal.SIGINT)
            out, err = p.communicate(timeout=120)
            assert "Traceback" not in err and "Aborted" not in err, (name, delay, err)
            assert p.returncode == 130, (name, delay, p.returncode, err)
            assert err.strip().splitlines()[-1].startswith(f"{name}: interrupted"), err
            outcomes.append(p.returncode)
    assert outcomes == [130] * 9


@linux
def test_ctrl_c_after_the_last_line_never_kills_by_signal(tmp_path):
    """A Ctrl-C in the half second after a complete run (the interpreter tearing down
    Numba's and LLVM's code) killed kraken-bench by SIGINT: status -2 and not a word, after
    its report was out.  Here the signal is sent as soon as the last line has been read: the
    run ends with status 0 (the work was done) or 130 and its one line, never by signal."""
    for attempt in range(3):
        p = subprocess.Popen([tool("kraken-bench"), "--suite", "random-1-seed1"],
                             preexec_fn=ctrl_c_heard,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        lines = [p.stdout.readline() for _ in range(5)]
        assert lines[-1].startswith("  values checksum"), lines
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=120)
        assert p.returncode in (0, 130), (attempt, p.returncode, err)
        assert "Traceback" not in err, err
        if p.returncode == 130:
            assert err.strip().splitlines()[-1] == "kraken-bench: interrupted", err


def test_ctrl_c_while_reading_is_one_line_and_exit_130(tmp_path, monkeypatch):
    """kraken-analyse and kraken-batch --input printed 'Aborted!' with exit 1."""
    from kraken_solver.cli.analyse import main as analyse_main
    from kraken_solver.notation import reader as dealfile

    def interrupted(self, *a, **k):
        raise KeyboardInterrupt
    monkeypatch.setattr(dealfile.DealReader, "check_ahead", interrupted)
    deals = tmp_path / "d.txt"
    deals.write_text("N:A... K... Q... J... trump=S\n")
    for main, args, prog in (
            (analyse_main, [str(deals)], "kraken-analyse"),
            (batch_main, ["--input", str(deals), "--out", str(tmp_path / "o.csv")],
             "kraken-batch")):
        res = CliRunner().invoke(main, args)
        assert res.exit_code == 130, (prog, res.output)
        assert res.stderr.strip() == f"{prog}: interrupted"
        assert "Aborted" not in res.output and "Traceback" not in res.output


@linux
@pytest.mark.parametrize("name", TOOLS)
def test_help_and_version_to_a_full_or_closed_stdout(name):
    """kraken-solve --help > /dev/full gave an OSError traceback; >&- exit 0 and nothing."""
    exe = tool(name)
    # --version goes the same way as --help (one tool is enough for it: each run costs the
    # start-up of a process)
    for flag in ("--help", "--version") if name == "kraken-solve" else ("--help",):
        with open("/dev/full", "w") as full:
            p = subprocess.run([exe, flag], stdout=full, stderr=subprocess.PIPE, text=True,
                               timeout=120)
        assert p.returncode == 1 and p.stderr == (f"{name}: error: cannot write the output: "
                                                  "No space left on device\n"), p.stderr
        p = subprocess.run(f"'{exe}' {flag} >&-", shell=True, stderr=subprocess.PIPE,
                           text=True, timeout=120)
        assert p.returncode == 1 and p.stderr == (f"{name}: error: cannot write the output: "
                                                  "standard output is closed\n"), p.stderr
        # a pipe whose reader has gone ('| head -0'): silent, 141 as cat (Click said 1)
        p = _to_a_closed_pipe([exe, flag])
        assert (p.returncode, p.stderr) == (141, ""), (p.returncode, p.stderr)
    p = subprocess.run([exe, "--help"], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0 and "Usage:" in p.stdout
    # an option without a range of its own (--workers, bounded where it is used) showed
    # "INTEGER RANGE ... [x<=None]"
    assert "None" not in p.stdout, p.stdout
    if "  --workers " in p.stdout:
        text = " ".join(p.stdout.split())
        workers = text[text.index(" --workers INTEGER "):]
        assert re.match(r" --workers INTEGER [^.]*worker processes \(default: one per core; at "
                        r"most 4 per core\)\.", workers, re.IGNORECASE), workers[:120]


def _to_a_closed_pipe(args, **kw):
    """Run ``args`` with stdout a pipe whose reading end is closed before it starts (as
    after ``| head -1`` has read its line): the first write fails with EPIPE."""
    r, w = os.pipe()
    os.close(r)
    try:
        return subprocess.run(args, stdout=w, stderr=subprocess.PIPE, text=True,
                              timeout=300, **kw)
    finally:
        os.close(w)


@linux
def test_results_to_a_closed_pipe_end_silently_and_to_a_full_disk_say_so():
    """'kraken-solve deals.txt | head -1' ended with exit 1 and no word (README said one
    line): a reader that stops reading is no error, so the tools end silently with 141, as
    cat and grep; a full disk is an error that names itself."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    runs = {"kraken-solve": ["datasets/many_deals.txt"],
            "kraken-analyse": ["datasets/played_deal.txt"],
            "kraken-hint": ["datasets/hint_part_played.txt", "--samples", "4", "--workers",
                            "1", "--no-points", "--quiet"]}
    for name, args in runs.items():
        p = _to_a_closed_pipe([tool(name), *args], cwd=root)
        assert p.returncode == 141, (name, p.returncode, p.stderr)
        assert "error" not in p.stderr and "Traceback" not in p.stderr, (name, p.stderr)
        with open("/dev/full", "w") as full:
            p = subprocess.run([tool(name), *args], stdout=full, stderr=subprocess.PIPE,
                               text=True, timeout=300, cwd=root)
        assert p.returncode == 1, (name, p.returncode, p.stderr)
        assert p.stderr.splitlines()[-1] == (f"{name}: error: cannot write the output: "
                                             "No space left on device"), (name, p.stderr)
        # a stdout closed before the start: the same words (it said only 'standard output
        # is closed', where README promises 'cannot write the output: ...')
        p = subprocess.run([tool(name), *args], stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True, timeout=300, cwd=root,
                           preexec_fn=lambda: os.close(1))
        assert p.returncode == 1 and p.stderr == (f"{name}: error: cannot write the output: "
                                                  "standard output is closed\n"), p.stderr


@linux
def test_a_batch_needs_no_stdout_and_its_files_never_take_fd_1(tmp_path):
    out = tmp_path / "o.csv"
    p = subprocess.run(f"'{tool('kraken-batch')}' --deals 1 --workers 1 --out '{out}' "
                       "--quiet >&-", shell=True, stderr=subprocess.PIPE, text=True,
                       timeout=300)
    assert p.returncode == 0, p.stderr
    assert read_results(out)["deal_id"].tolist() == [0] * 4


def test_summarize_refuses_batch_options_before_it(whole):
    """kraken-batch --deals 5 summarize FILE ignored --deals without a word."""
    for args in (["--deals", 5], ["--workers", 2], ["--out", "x.csv"], ["--resume"]):
        res = batch(*args, "summarize", whole)
        assert res.exit_code == 2 and "summarize takes none of the batch's options" in \
            res.output, (args, res.output)
        assert res.stdout == ""
    assert batch("summarize", whole).exit_code == 0


# ----------------------------------------------------------------- a batch's files
@pytest.mark.parametrize("out", ["", "-", "/dev/stdout", "/dev/null", "/proc/self/fd/1"])
def test_outputs_that_are_no_file_are_refused_before_any_work(out, tmp_path, monkeypatch):
    """--out "" solved the whole batch and then failed; --out - wrote a file named '-'; as
    root --out /dev/stdout replaced the system's link."""
    monkeypatch.chdir(tmp_path)
    before = os.lstat("/dev/stdout") if os.path.lexists("/dev/stdout") else None
    t0 = time.monotonic()
    one_line_error(batch("--deals", 2, "--out", out, "--quiet"))
    assert time.monotonic() - t0 < 5                       # nothing was solved
    assert os.listdir(tmp_path) == []
    if before is not None:
        after = os.lstat("/dev/stdout")
        assert (after.st_ino, after.st_mode) == (before.st_ino, before.st_mode)


def test_a_symlink_out_is_written_through(tmp_path):
    """A symlink --out was replaced by a file: it is written through, on purpose, and the
    sidecar goes beside the file it names."""
    real = tmp_path / "data" / "r.csv"
    real.parent.mkdir()
    link = tmp_path / "link.csv"
    link.symlink_to(real)
    assert batch("--deals", 1, "--workers", 1, "--out", link, "--quiet").exit_code == 0
    assert link.is_symlink() and read_results(real)["deal_id"].tolist() == [0] * 4
    assert (tmp_path / "data" / "r.csv.meta.json").exists()
    assert not (tmp_path / "link.csv.meta.json").exists()


def test_typed_numbers_are_bounded_in_the_options_themselves():
    """--deals, --samples and --seed showed [x>=1] or no range and were bounded only later;
    kraken-hint and kraken-analyse took '\u0662' (Arabic-Indic two) for 2; a 5,000-digit
    number was 'not a valid integer' and echoed whole.  The bounds in the options are the
    library's own."""
    import click

    from kraken_solver import limits
    from kraken_solver.batch import config as batch
    from kraken_solver.cli.advise import main as advise_main
    from kraken_solver.cli.analyse import main as analyse_main
    from kraken_solver.cli.hint import main as hint_main
    from kraken_solver.cli.params import AsciiInt
    from kraken_solver.cli.view import main as view_main
    from kraken_solver.playerview import advise, hint

    assert (limits.MAX_BATCH_DEALS, limits.MAX_HINT_SAMPLES, limits.MAX_ADVISE_SAMPLES) == \
        (batch.MAX_DEALS, hint.MAX_SAMPLES, advise.MAX_SAMPLES)
    huge = "9" * 5000
    deal = os.path.join(os.path.dirname(__file__), "..", "datasets", "hint_lead.txt")
    played = os.path.join(os.path.dirname(__file__), "..", "datasets", "played_deal.txt")
    cases = [
        (batch_main, ["--deals", huge, "--out", "x.csv"], "--deals", "1<=x<=1000000000"),
        (batch_main, ["--deals", str(10**9 + 1), "--out", "x.csv"], "--deals", "1<=x<=1000000000"),
        (batch_main, ["--deals", "1", "--seed", huge, "--out", "x.csv"], "--seed",
         "0<=x<=9223372036854775807"),
        (hint_main, [deal, "--samples", huge], "--samples", "1<=x<=1000000"),
        (hint_main, [deal, "--seed", "\u0662"], "--seed", "ASCII digits"),
        (analyse_main, [played, "--view", "player", "--samples", "\u0662"], "--samples",
         "ASCII digits"),
        (advise_main, ["SA,SK,ST,HA,HT,DA,DT,CA", "--samples", str(10**7 + 1)], "--samples",
         "1<=x<=10000000"),
        (view_main, ["--random", huge], "--random", "0<=x<=9223372036854775807"),
    ]
    for main, args, option, why in cases:
        res = CliRunner().invoke(main, args)
        assert res.exit_code == 2, (args, res.output)
        assert f"Invalid value for '{option}'" in res.output and why in res.output, res.output
        assert huge not in res.output and "Traceback" not in res.output
    # leading zeros are not digits too many: 5 written with 5,000 zeros before it is 5
    padded = "0" * 5000 + "5"
    assert AsciiInt(1, 10).convert(padded, None, None) == 5
    with pytest.raises(click.BadParameter, match=r"\(5,031 digits\) is too large"):
        AsciiInt(1, 10).convert("0" * 5000 + "9" * 31, None, None)
    for main in (batch_main, hint_main, analyse_main, advise_main, view_main):
        text = CliRunner().invoke(main, ["--help"]).output
        assert "None" not in text and "x>=1]" not in text, text


def test_a_symlink_out_to_an_earlier_sidecar_is_refused(tmp_path):
    """--out bm.csv with bm.csv -> b.csv.meta.json (an earlier run's sidecar) replaced that
    sidecar with rows and wrote b.csv.meta.json.meta.json; a sidecar name that links to the
    earlier output replaced the output with JSON.  Both are refused before any work, and
    the earlier run's sidecar still reads (it resumes)."""
    out = tmp_path / "b.csv"
    assert batch("--deals", 1, "--workers", 1, "--out", out, "--quiet").exit_code == 0
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    (tmp_path / "bm.csv").symlink_to(tmp_path / "b.csv.meta.json")
    (tmp_path / "bself.csv.meta.json").symlink_to(out)
    for name, says in (("bm.csv", "a file of another kind"),
                       ("bself.csv", "the output's sidecar must be a file of its own")):
        res = batch("--deals", 1, "--workers", 1, "--out", tmp_path / name, "--quiet")
        assert res.exit_code == 1 and says in res.output, res.output
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir() if not p.is_symlink()} == before
    res = batch("--deals", 1, "--workers", 1, "--out", out, "--resume", "--quiet")
    assert res.exit_code == 0, res.output


def test_workers_are_bounded_in_the_batch(tmp_path):
    res = batch("--deals", 2, "--workers", 9999, "--out", tmp_path / "o.csv")
    one_line_error(res)
    assert f"from 1 to {max_workers()} here" in res.stderr and os.listdir(tmp_path) == []


@pytest.mark.parametrize("workers", [0, -1, 9999])
def test_every_command_bounds_workers_with_one_message(tmp_path, workers):
    """--workers 0 said '>= 1 (or None: one per core)' (kraken-hint, kraken-analyse) or
    click's 'not in the range x>=1' (kraken-batch, kraken-advise, kraken-bench) where 9999
    said 'from 1 to N here': every count out of range gets that one message, before work."""
    from kraken_solver.cli import advise, analyse, bench, hint
    from kraken_solver.playerview.hint import hint as hint_fn
    message = (f"the number of workers is a whole number from 1 to {max_workers()} here "
               f"(4 per core; one per core is the default) (got '{workers}')")
    runs = [(batch_main, "kraken-batch", ["--deals", 2, "--out", tmp_path / "o.csv"]),
            (hint.main, "kraken-hint", ["datasets/hint_lead.txt"]),
            (analyse.main, "kraken-analyse", ["datasets/played_deal.txt", "--view", "player"]),
            (advise.main, "kraken-advise", ["AJ9.K7.T8.A", "--samples", 1]),
            (bench.main, "kraken-bench", ["--hint", "lead"])]
    for main, prog, args in runs:
        res = CliRunner().invoke(main, [str(a) for a in args + ["--workers", workers]])
        one_line_error(res, prog)
        assert res.stderr == f"{prog}: error: {message}\n" and res.stdout == ""
    assert os.listdir(tmp_path) == []
    with pytest.raises(KrakenError) as err:
        hint_fn("N:A... K... Q... J...", "S", "N", workers=workers)
    assert str(err.value) == message


@pytest.mark.parametrize("damage", ["bytes changed", "copied over another", "renamed",
                                    "garbage row", "not UTF-8", "cut short", "extra row",
                                    "two of one chunk", "old name"])
def test_a_bad_part_is_refused_by_name_and_never_assembled(damage, whole, tmp_path):
    """A part copied over another, or a row replaced by garbage, was assembled with exit 0."""
    out = tmp_path / "r.csv"
    a, b = interrupted_run(out)
    parts = tmp_path / "r.csv.parts"
    pa, pb = parts / a, parts / b
    text = pa.read_text()
    if damage == "bytes changed":                # a timing digit: only the checksum sees it
        lines = text.split("\n")
        lines[1] = lines[1][:-1] + str((int(lines[1][-1]) + 1) % 10)
        pa.write_text("\n".join(lines))
    elif damage == "copied over another":
        shutil.copy(pa, pb)
    elif damage == "renamed":                   # chunk 0's file under chunk 1's name
        pb.unlink()
        pa.rename(parts / a.replace("chunk-0000000", "chunk-0000001"))
    elif damage == "garbage row":
        lines = text.split("\n")
        lines[2] = "x,y,z"
        pa.write_text("\n".join(lines))
    elif damage == "not UTF-8":
        pa.write_bytes(pa.read_bytes().replace(b"N:", b"\xff:", 1))
    elif damage == "cut short":
        pa.write_text(text[:-20])
    elif damage == "extra row":
        pa.write_text(text + text.split("\n")[1] + "\n")
    elif damage == "two of one chunk":
        shutil.copy(pa, parts / a.replace(a[14:30], "0" * 16))
    elif damage == "old name":
        shutil.copy(pa, parts / "chunk-0000002.csv")
    res = batch("--deals", 3, "--seed", 3, "--chunk-size", 1, "--workers", 1, "--out", out,
                "--resume", "--quiet")
    one_line_error(res)
    assert "--resume" in res.stderr and "delete" in res.stderr, res.stderr
    assert str(parts) in res.stderr
    assert not out.exists() and not (tmp_path / "r.csv.meta.json").exists()
    # deleting the file it names (for two parts of one chunk: both) and resuming repairs it
    named = re.match(r"kraken-batch: error: (.*?)(, line [0-9]+)?: ", res.stderr).group(1)
    if os.path.isfile(named):
        os.remove(named)
    else:
        for p in parts_of(out):
            if p.startswith("chunk-0000000"):
                os.remove(parts / p)
    res = batch("--deals", 3, "--seed", 3, "--chunk-size", 1, "--workers", 1, "--out", out,
                "--resume", "--quiet")
    assert res.exit_code == 0, res.output
    pd.testing.assert_frame_equal(values(out), values(whole))


def test_a_part_changed_during_the_run_is_not_assembled(tmp_path):
    out = tmp_path / "r.csv"

    def tamper(pool, res):
        if res["chunk"] == 1:
            (p,) = [p for p in parts_of(out) if p.startswith("chunk-0000000")]
            path = tmp_path / "r.csv.parts" / p
            path.write_text(path.read_text().replace("kraken", "klaverjas-rotterdam"))
    with pytest.raises(KrakenError, match="part file of chunk 0 .deals 0 to 0. is damaged"):
        run_batch(make_config(deals=2, seed=3, chunk_size=1), out, workers=1, on_chunk=tamper)
    assert not out.exists()


def test_an_interrupted_assembly_keeps_the_earlier_files_and_resumes(whole, tmp_path,
                                                                     monkeypatch):
    """The finished output's sidecar was overwritten by a later run that was killed."""
    from kraken_solver.batch import run as batch_module
    out = tmp_path / "r.csv"
    shutil.copy(whole, out)
    shutil.copy(f"{whole}.meta.json", f"{out}.meta.json")
    before = {p: open(p, "rb").read() for p in (out, f"{out}.meta.json")}
    # killed after its first chunk: the earlier output and sidecar are byte for byte the same
    interrupted_run(out, deals=2, after=1)
    assert {p: open(p, "rb").read() for p in before} == before
    # killed between the output's rename and the sidecar's: the work directory stays
    real = batch_module.write_meta

    def fail_final(path, meta, inputs=()):
        if meta["status"] == "complete":
            raise KeyboardInterrupt
        return real(path, meta, inputs)
    monkeypatch.setattr(batch_module, "write_meta", fail_final)
    with pytest.raises(KeyboardInterrupt):
        run_batch(make_config(deals=2, seed=3, chunk_size=1), out, workers=1, resume=True)
    assert open(f"{out}.meta.json", "rb").read() == before[f"{out}.meta.json"]
    assert os.path.isdir(f"{out}.parts")
    monkeypatch.setattr(batch_module, "write_meta", real)
    res = run_batch(make_config(deals=2, seed=3, chunk_size=1), out, workers=1, resume=True)
    assert res.solved == 0 and not os.path.exists(f"{out}.parts")
    meta = json.loads(open(f"{out}.meta.json").read())
    assert meta["status"] == "complete" and meta["deals"] == 2
    import hashlib
    assert meta["output_sha256"] == hashlib.sha256(out.read_bytes()).hexdigest()
    # and a resume of the finished run checks the output against the sidecar
    out.write_text(out.read_text().replace("True", "False", 1))
    with pytest.raises(KrakenError, match="does not match its sidecar"):
        run_batch(make_config(deals=2, seed=3, chunk_size=1), out, workers=1, resume=True)


@pytest.mark.parametrize("damage, text", [
    (lambda m: m.pop("sessions"), "'sessions' is missing or not a list"),
    (lambda m: m.update(config=[1]), "'config' is missing or not dict"),
    (lambda m: m["config"].update(chunk_size="1"), "'config.chunk_size' is missing or not int"),
    (lambda m: m.update(tool="other"), "not a kraken-batch sidecar"),
    (lambda m: m.update(sessions=[1]), "not a list of objects"),
    (b"\xff{}", "byte 1 is not UTF-8"),
    (b'{"tool": "kraken-batch", ', "not JSON"),
])
def test_a_damaged_sidecar_is_one_line_naming_it(damage, text, tmp_path):
    """A missing or wrongly typed sidecar key, or a non-UTF-8 byte, gave a traceback."""
    out = tmp_path / "r.csv"
    interrupted_run(out, deals=2, after=1)
    path = tmp_path / "r.csv.parts" / "run.meta.json"
    if isinstance(damage, bytes):
        path.write_bytes(damage)
    else:
        meta = json.loads(path.read_text())
        damage(meta)
        path.write_text(json.dumps(meta))
    before = path.read_bytes()
    res = batch("--deals", 2, "--seed", 3, "--chunk-size", 1, "--workers", 1, "--out", out,
                "--resume", "--quiet")
    one_line_error(res)
    assert text in res.stderr and str(path) in res.stderr, res.stderr
    assert path.read_bytes() == before


def test_an_edited_sidecar_is_blamed_not_the_part_files(tmp_path):
    """A resume whose run.meta.json had its seed edited (and given the edited seed) blamed
    the first part file ("is damaged ... delete it"), and deleting it moved the blame to the
    next one, chunk after chunk: the sidecar is named, and nothing is changed."""
    out = tmp_path / "r.csv"
    interrupted_run(out, deals=3, after=2)
    path = tmp_path / "r.csv.parts" / "run.meta.json"
    meta = json.loads(path.read_text())
    meta["config"]["seed"] = 4
    path.write_text(json.dumps(meta))
    state = {p: p.read_bytes() for p in path.parent.iterdir()}
    res = batch("--deals", 3, "--seed", 4, "--chunk-size", 1, "--workers", 1, "--out", out,
                "--resume", "--quiet")
    one_line_error(res)
    assert "the sidecar was changed after it was written" in res.stderr, res.stderr
    assert str(path) in res.stderr and "part file" not in res.stderr
    assert {p: p.read_bytes() for p in path.parent.iterdir()} == state and not out.exists()


@linux
def test_an_input_that_cannot_be_read_twice_is_refused(tmp_path):
    """--input from a pipe was hashed after it had been read (the hash of nothing), and a
    resume with other deals mixed two inputs."""
    out = tmp_path / "r.csv"
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for source in (fifo, "-", "/dev/zero"):
        res = batch("--input", source, "--out", out, "--quiet")
        one_line_error(res)
        assert "must be a regular file" in res.stderr
    p = subprocess.run(f"'{tool('kraken-batch')}' --input <(echo 'N:A... K... Q... J...') "
                       f"--out '{out}' --quiet", shell=True, executable="/bin/bash",
                       stderr=subprocess.PIPE, text=True, timeout=120)
    assert p.returncode == 1 and "must be a regular file, and this is a named pipe" in p.stderr
    assert sorted(os.listdir(tmp_path)) == ["fifo"]


def test_an_input_changed_under_the_run_is_refused(tmp_path):
    from kraken_solver.dealing.seeded import generate_deals
    src = tmp_path / "deals.txt"
    deals = generate_deals(3, 0, 3)
    src.write_text("".join(f"{d}\n" for d in deals))
    out = tmp_path / "r.csv"

    def change(pool, res):
        src.write_text("".join(f"{d}\n" for d in reversed(deals)))
    with pytest.raises(KrakenError, match="the input file changed while the batch"):
        run_batch(make_config(input=str(src), chunk_size=1), out, workers=1, on_chunk=change)
    assert not out.exists()
    # resuming with the changed file is refused: the configuration names the contents
    res = batch("--input", src, "--chunk-size", 1, "--workers", 1, "--out", out, "--resume",
                "--quiet")
    one_line_error(res)
    assert "the input file's contents differ" in res.stderr


def test_an_input_is_checked_to_its_end_alongside_the_run(tmp_path):
    """A streamed input: the first deals are solved at once, and a mistake far into the
    file still stops the run (found by the reading thread, not after the last chunk)."""
    from kraken_solver.dealing.seeded import generate_deals
    from kraken_solver.notation import reader as dealfile
    src = tmp_path / "deals.txt"
    good = "".join(f"{d}\n" for d in generate_deals(4, 0, 2))
    src.write_text(good + "% padding\n" * 200 + "N:garbage\n")
    out = tmp_path / "r.csv"
    old = dealfile.LOOKAHEAD_BYTES
    dealfile.LOOKAHEAD_BYTES = 100             # as if the mistake were megabytes down
    try:
        config = make_config(input=str(src), chunk_size=1)
        with pytest.raises(KrakenError, match="line 203"):
            run_batch(config, out, workers=1)
    finally:
        dealfile.LOOKAHEAD_BYTES = old
    assert not out.exists()


def test_a_bad_byte_in_a_csv_batch_file_is_named_by_its_line(whole, tmp_path):
    """pandas named a position inside one of its chunks."""
    lines = whole.read_bytes().split(b"\n")
    lines[7] = lines[7].replace(b"N:", b"N\xe9:", 1)
    bad = tmp_path / "bad.csv"
    bad.write_bytes(b"\n".join(lines))
    res = batch("summarize", bad)
    one_line_error(res)
    assert f"{bad}, line 8, column " in res.stderr and "not a UTF-8 text file" in res.stderr


def test_a_damaged_parquet_file_is_one_line(whole, tmp_path):
    pytest.importorskip("pyarrow")
    df = read_results(whole)
    good = tmp_path / "good.parquet"
    df.to_parquet(good)
    data = good.read_bytes()
    cases = {"cut.parquet": data[: len(data) // 2] + data[-8:],
             "noise.parquet": b"PAR1" + bytes(range(256)) * 4 + b"PAR1",
             "short.parquet": b"PAR1"}
    for name, blob in cases.items():
        (tmp_path / name).write_bytes(blob)
        res = batch("summarize", tmp_path / name)
        one_line_error(res)
        assert str(tmp_path / name) in res.stderr
    wrong = df.copy()
    wrong["made"] = wrong["made"].map({True: "maybe", False: "no"})
    wrong.to_parquet(tmp_path / "wrong.parquet")
    res = batch("summarize", tmp_path / "wrong.parquet")
    one_line_error(res)
    assert "row 1, column 'made': expected True or False" in res.stderr


def _slow_task(n):
    for i in range(n):
        time.sleep(0.15)
        report_progress(i + 1)
    return n


def test_progress_moves_by_deal_between_finished_chunks():
    """A run of 100 deals on 2 cores showed nothing until a chunk of 64 finished."""
    ticks = []
    with WorkerPool(1) as pool:
        results = list(pool.run(_slow_task, [6], on_tick=ticks.append))
    assert results == [6]
    partial = [t for t in ticks if 0 < t < 6]
    assert len(set(partial)) >= 3, ticks         # the bar moved inside the chunk


def test_the_progress_bar_of_a_batch_counts_deals(tmp_path, monkeypatch):
    import tqdm
    seen = []
    real = tqdm.tqdm

    class Bar(real):
        def update(self, n=1):
            seen.append(n)
            return super().update(n)
    monkeypatch.setattr(tqdm, "tqdm", Bar)
    from kraken_solver.workers import pool as batch_module
    monkeypatch.setattr(batch_module, "TICK", 0.002)     # deals take a few ms each here
    run_batch(make_config(deals=6, seed=3, chunk_size=6), tmp_path / "r.csv", workers=1,
              progress=True)
    assert sum(seen) == 6 and len(seen) >= 2     # not one jump of 6 at the chunk's end


# ----------------------------------------------------------------- network waits
@pytest.fixture
def silent_scheduler():
    """A TCP server that takes connections and never answers (as a hung scheduler)."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    held, stop = [], threading.Event()

    def accept():
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(server.accept()[0])
            except OSError:
                pass
    t = threading.Thread(target=accept, daemon=True)
    t.start()
    yield f"tcp://127.0.0.1:{server.getsockname()[1]}"
    stop.set()
    t.join()
    for c in held:
        c.close()
    server.close()


def test_a_scheduler_that_never_answers_gives_up_clearly(silent_scheduler, tmp_path,
                                                          monkeypatch):
    """It hung for more than 4 minutes and left an empty OUT.parts/."""
    pytest.importorskip("distributed")
    from kraken_solver.workers import cluster as cl
    monkeypatch.setattr(cl, "CONNECT_TIMEOUT", 2.0)
    monkeypatch.setattr(cl, "STILL_TRYING_AFTER", 0.5)
    out = tmp_path / "r.csv"
    t0 = time.monotonic()
    res = batch("--deals", 2, "--out", out, "--scheduler", silent_scheduler)
    assert time.monotonic() - t0 < 15
    lines = res.stderr.splitlines()
    assert res.exit_code == 1 and len(lines) == 2, res.stderr
    assert lines[0] == (f"kraken-batch: still trying to reach the Dask scheduler at "
                        f"{silent_scheduler} (for up to 2 s)")
    assert lines[1].startswith("kraken-batch: error: cannot use the Dask scheduler: no answer "
                               f"from {silent_scheduler} within 2 s")
    assert os.listdir(tmp_path) == []


def test_within_bounds_any_call():
    from kraken_solver.workers.cluster import NoAnswer, within
    news = []
    with pytest.raises(NoAnswer, match="cannot sleep: no answer within 1 s"):
        within(0.6, lambda: time.sleep(5), "sleep", still=0.2, log=news.append)
    assert news == ["still trying to sleep (for up to 1 s)"]
    assert within(5, lambda: 7, "add") == 7
    with pytest.raises(ZeroDivisionError):
        within(5, lambda: 1 / 0, "divide")


# ----------------------------------------------------------------- summarize
def _rows(deal_id, deal, rules="kraken", scores=(10, -20, 30, -40), first="N"):
    return [{"deal_id": deal_id, "deal": deal, "first": first, "trump": t, "rules": rules,
             "score": s, "made": s > 0, "pit": False, "nodes": 1, "ms": 1.0}
            for t, s in zip("SHDC", scores)]


D0 = "N:J97.AKQT8.. AKQT8.J97.. ..AKQJT98.7 ..7.AKQJT98"
D1 = "N:AK.J.987.QT QJT.AKQ.AK. 987.T98.QJ. .7.T.AKJ987"


def test_summarize_never_averages_two_multipliers():
    from kraken_solver.batch.summary import format_summary, summarize
    df = pd.DataFrame(_rows(0, D0) + _rows(1, D1, "kraken+multiplier=8",
                                           scores=(80, -160, 240, -320)))
    s = summarize(df)
    assert s.rules_names == ["kraken", "kraken+multiplier=8"]
    best = s.best.set_index("rules")
    assert best.loc["kraken", "mean"] == 30 and best.loc["kraken+multiplier=8", "mean"] == 240
    for table in (s.by_length, s.by_honours, s.by_length_honours, s.best_hist, s.rules):
        assert list(table.columns)[0] == "rules"
        assert set(table["rules"]) == set(s.rules_names)
    text = format_summary(s)
    assert "mixes rules (or multipliers): every table is per rules" in text
    # one rules: the text has no rules column, the CSV tables keep it
    single = summarize(pd.DataFrame(_rows(0, D0)))
    assert "rules" not in format_summary(single).split("== Per trump length")[1].split("\n")[1]


def test_summarize_refuses_a_deal_whose_rows_disagree():
    from kraken_solver.batch.summary import summarize
    for column, value, what in (("deal", D1, "deal"), ("first", "E", "first player"),
                                ("rules", "kraken+multiplier=2", "rules")):
        rows = _rows(0, D0)
        rows[2][column] = value
        with pytest.raises(KrakenError) as e:
            summarize(pd.DataFrame(rows))
        assert f"row 3, column '{column}': the rows of deal_id 0 disagree on the {what}" \
            in str(e.value)
        assert "(this row and row 1" in str(e.value)


def test_summarize_plots_per_rules_and_never_over_the_input(tmp_path):
    pytest.importorskip("matplotlib")
    from kraken_solver.batch.plots import plot_names, write_plots
    from kraken_solver.batch.summary import summarize, write_csv_tables
    s = summarize(pd.DataFrame(_rows(0, D0) + _rows(1, D1, "kraken+multiplier=8")))
    paths = write_plots(s, tmp_path / "png")
    assert [os.path.basename(p) for p in paths] == plot_names(s)
    assert "best_score.kraken+multiplier=8.png" in plot_names(s) and len(paths) == 6
    for p in paths:
        with open(p, "rb") as f:
            assert f.read(8) == b"\x89PNG\r\n\x1a\n"
    # a table or plot that is an input is refused before anything is written
    inp = tmp_path / "t" / "by_length.csv"
    inp.parent.mkdir()
    inp.write_text("the batch file")
    with pytest.raises(KrakenError, match="is an input of this command"):
        write_csv_tables(s, inp.parent, inputs=[str(inp)])
    assert os.listdir(inp.parent) == ["by_length.csv"] and inp.read_text() == "the batch file"


def test_summarize_cli_refuses_folders_that_are_files(whole, tmp_path):
    f = tmp_path / "file"
    f.write_text("x")
    for opt in ("--csv", "--plots"):
        res = batch("summarize", whole, opt, f)
        assert res.exit_code == 2 and "is a file" in res.output and res.stdout == ""
    assert f.read_text() == "x"


def test_a_finished_run_leaves_no_empty_work_directory(whole, tmp_path):
    """Found by the fault script: a run killed before its first chunk left an empty
    OUT.parts/, which a resume that found the output complete then kept."""
    out = tmp_path / "r.csv"
    shutil.copy(whole, out)
    shutil.copy(f"{whole}.meta.json", f"{out}.meta.json")
    os.mkdir(f"{out}.parts")
    logs = []
    res = run_batch(make_config(deals=3, seed=3, chunk_size=1), out, workers=1, resume=True,
                    log=logs.append)
    assert res.already_complete and "already complete" in logs[0]
    assert not os.path.exists(f"{out}.parts")


@linux
def test_a_ctrl_c_inside_an_llvm_callback_is_sent_again_outside_it():
    """A Ctrl-C while LLVM called back into Python (llvmlite's object-cache callback, as
    Numba loaded the kernels) was printed as 'Exception ignored on calling ctypes callback
    function ... KeyboardInterrupt' and dropped: kraken-batch ran on to exit 0.  The tools'
    handler sends such a Ctrl-C again a moment later, and raises KeyboardInterrupt anywhere
    else."""
    from kraken_solver.cli import _on_interrupt
    ns = {}
    exec(compile("import sys\ndef callback():\n    return sys._getframe()\n",
                 "/site-packages/llvmlite/binding/executionengine.py", "exec"), ns)
    inside = ns["callback"]()
    got = []
    before = signal.signal(signal.SIGINT, lambda signum, frame: got.append(signum))
    try:
        assert _on_interrupt(signal.SIGINT, inside) is None      # nothing raised there
        deadline = time.monotonic() + 5
        while not got and time.monotonic() < deadline:
            time.sleep(0.01)
        assert got == [signal.SIGINT]                             # the Ctrl-C came again
        with pytest.raises(KeyboardInterrupt):
            _on_interrupt(signal.SIGINT, sys._getframe())
    finally:
        signal.signal(signal.SIGINT, before)


@linux
@pytest.mark.parametrize("heard", [False, True])
def test_a_ctrl_c_lost_where_python_drops_exceptions_ends_the_run_as_interrupted(heard):
    """A KeyboardInterrupt raised where Python drops exceptions (a weakref callback, an
    import lock's clean-up: 'Exception ignored', or nothing at all) let the run go on to exit 0
    as if nothing had been pressed.  Unless a handler of the tool heard it, the run ends with
    the interrupted line and status 130."""
    script = textwrap.dedent(f"""
        import os, signal, sys, time
        import kraken_solver.cli as cli
        cli._interrupt_outside_llvm()
        try:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.2)
        except KeyboardInterrupt:
            pass                            # dropped, as in a hook
        if {heard}:
            cli.interrupt_heard()
        cli.report_lost_interrupt("kraken-x")
        sys.exit(0)
    """)
    p = subprocess.run([sys.executable, "-c", script], preexec_fn=ctrl_c_heard,
                       capture_output=True, text=True, timeout=60)
    if heard:
        assert p.returncode == 0 and p.stderr == "", (p.returncode, p.stderr)
    else:
        assert p.returncode == 130 and p.stderr == "\nkraken-x: interrupted\n", p.stderr


@pytest.mark.parametrize("name,args,says", [
    ("kraken-solve", ["--objective", "nope", "datasets/full_deal.txt"], "'--objective'"),
    ("kraken-solve", [], "Missing argument 'FILE...'"),
    ("kraken-batch", ["--deals", "0"], "'--deals': 0 is not in the range"),
    ("kraken-bench", ["--bogus"], "No such option '--bogus'"),
    ("kraken-arena", ["--ns", "random", "--ew", "random", "--deals", "-1"], "'--deals'"),
])
def test_a_bad_option_is_one_line(name, args, says):
    """Click's usage errors (three lines: usage, hint, error) are one line as every other bad
    input, status 2, naming the option and pointing to --help."""
    p = subprocess.run([tool(name), *args], capture_output=True, text=True, timeout=120,
                       cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    assert p.returncode == 2 and p.stdout == "", (p.returncode, p.stdout)
    assert p.stderr.startswith(f"{name}: error: ") and p.stderr.count("\n") == 1, p.stderr
    assert says in p.stderr and p.stderr.endswith(f"(see {name} --help)\n"), p.stderr


@linux
def test_ctrl_c_to_an_arena_without_out_says_nothing_was_kept():
    """Without --out, an interrupted match said 'no deal was finished' after minutes of
    play: it now says that nothing played was kept and how to keep it."""
    p = subprocess.Popen([tool("kraken-arena"), "--deals", "100000", "--ns", "heuristic",
                          "--ew", "random", "--workers", "1", "--quiet"],
                         preexec_fn=_group_ctrl_c_heard, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    try:
        time.sleep(8)               # the kernels loaded, deals being played
        assert p.poll() is None
        os.killpg(p.pid, signal.SIGINT)
        out, err = p.communicate(timeout=120)
    finally:
        if p.poll() is None:        # pragma: no cover - only if the test failed
            os.killpg(p.pid, signal.SIGKILL)
    assert p.returncode == 130 and out == "", (p.returncode, out, err)
    lines = [line for line in err.splitlines() if line.strip()]
    assert lines == ["kraken-arena: interrupted; nothing was kept: without --out the deals "
                     "played are not saved (give --out FILE to keep them and --resume to go "
                     "on after an interrupt)"], err
