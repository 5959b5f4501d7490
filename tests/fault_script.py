"""Fault script for kraken-batch and the other tools' files (issue 27): attack at random, count
what happened.  Not a test module (pytest does not collect it); run it by hand:

    python tests/fault_script.py [--seed 1] [--kills 12] [--tampers 24] [--workdir DIR]

Four kinds of attack, every run checked against an uninterrupted reference batch:

- **kill -9** at a random moment of a batch (while starting, solving, assembling), possibly
  again during the resume, then ``--resume`` until it finishes; an earlier output and its
  sidecar are in place first.  After every kill the files must be in one of three states:
  the earlier output and sidecar byte for byte as they were; the run complete (output and
  sidecar agree on the output's SHA-256); or the new output written, with its work directory
  still there for ``--resume``.  The finished file must equal the reference (timing columns
  apart) and no temporary file may remain.
- **tamper** with an interrupted run's part files and sidecar (flip a byte, cut, copy one part
  over another, rename, delete or add rows, swap names, damage or drop sidecar keys, garbage
  bytes); the resume must either refuse with one line (exit 1, no traceback, no output) or,
  for a harmless change (a part deleted: solved again), finish with the reference's values.
  It must never finish with other values.
- **full disk**: a small tmpfs (as root: ``mount -t tmpfs -o size=...``; otherwise the
  process's RLIMIT_FSIZE, "File too large") as the place of ``--out``, ``--json``, ``--csv``
  and ``--plots``: one line naming the file, exit 1, the earlier files there intact.
- **pipes and links** as inputs and outputs: a named pipe, ``<(...)``, ``/dev/stdin`` and ``-``
  as ``--input`` (refused: read once only), as kraken-solve's input (read); ``--out`` as a
  link to a file (written through), to ``/dev/null``, dangling, ``/dev/stdout``, ``-``, ``""``,
  a directory.

It prints the number of runs, of faults injected and a table of outcomes, and exits 1 if any
outcome broke a rule.
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import json
import os
import random
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PY = sys.executable
DEALS, SEED, CHUNK = 6, 9, 1
BATCH = [PY, "-m", "kraken_solver.cli.batch"]


class Tally:
    def __init__(self):
        self.runs = 0
        self.faults = 0
        self.outcomes = collections.Counter()
        self.broken = []

    def ok(self, what):
        self.outcomes[what] += 1

    def bad(self, what, detail):
        self.outcomes["BROKEN: " + what] += 1
        self.broken.append(f"{what}: {detail}")


T = Tally()


def run(args, timeout=600, **kw):
    T.runs += 1
    return subprocess.run(args, capture_output=True, text=True, timeout=timeout, **kw)


def batch_args(out, extra=()):
    return BATCH + ["--deals", str(DEALS), "--seed", str(SEED), "--chunk-size", str(CHUNK),
                    "--workers", "2", "--out", str(out), "--quiet", *extra]


def values(path):
    """The batch file's rows without the timing columns (nodes, ms), as text."""
    with open(path, encoding="utf-8") as f:
        header = f.readline().rstrip("\n").split(",")
        keep = [i for i, c in enumerate(header) if c not in ("nodes", "ms")]
        return [",".join(r.rstrip("\n").split(",")[i] for i in keep) for r in f]


def one_line_error(p):
    return p.returncode == 1 and "Traceback" not in p.stderr and \
        len(p.stderr.strip().splitlines()) == 1 and "error: " in p.stderr


def temporaries(folder):
    out = []
    for root, _, files in os.walk(folder):
        out += [os.path.join(root, f) for f in files if f.endswith(".tmp")]
    return out


def sha(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


# ----------------------------------------------------------------------------- kill -9
def kills(work, ref, rng, n):
    for i in range(n):
        d = os.path.join(work, f"kill{i}")
        os.makedirs(d)
        out = os.path.join(d, "r.csv")
        # an earlier finished output (of the same options) and its sidecar are in place
        shutil.copy(ref, out)
        shutil.copy(ref + ".meta.json", out + ".meta.json")
        before = {p: open(p, "rb").read() for p in (out, out + ".meta.json")}
        resume = False
        for attempt in range(6):
            args = batch_args(out, ["--resume"] if resume else [])
            proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                    text=True)
            T.runs += 1
            if attempt < 3 and rng.random() < 0.9:
                time.sleep(rng.uniform(0.3, 2.6))   # start-up, solving, assembling
                if proc.poll() is None:
                    os.kill(proc.pid, signal.SIGKILL)
                    T.faults += 1
            _, err = proc.communicate(timeout=600)
            time.sleep(0.6)                 # orphaned workers notice and exit
            if proc.returncode == 0:
                break
            if proc.returncode != -signal.SIGKILL:
                T.bad("kill", f"exit {proc.returncode}: {err.strip()[-300:]}")
                break
            parts = out + ".parts"
            now = {p: open(p, "rb").read() for p in before}
            if now == before:
                T.ok("killed: earlier output and sidecar byte for byte intact")
            elif os.path.isdir(parts):
                if values(out) == values(ref):
                    T.ok("killed while assembling: new output, work directory kept")
                else:
                    T.bad("kill", "output changed but not complete")
            else:
                meta = json.load(open(out + ".meta.json"))
                if meta.get("output_sha256") == sha(out):
                    T.ok("killed after finishing: output and sidecar agree")
                else:
                    T.bad("kill", "sidecar does not describe the output")
            resume = True
        else:
            T.bad("kill", "did not finish in 6 attempts")
            continue
        if values(out) != values(ref):
            T.bad("kill", f"run {i}: values differ from the reference")
        elif temporaries(d):
            T.bad("kill", f"temporaries left: {temporaries(d)}")
        elif os.path.exists(out + ".parts"):
            T.bad("kill", "work directory left after finishing")
        else:
            T.ok("resumed to the reference's values, nothing left over")


# ----------------------------------------------------------------------------- tampering
def _flip(p, rng):
    data = bytearray(open(p, "rb").read())
    i = rng.randrange(len(data))
    data[i] = (data[i] + rng.randrange(1, 255)) % 256
    open(p, "wb").write(bytes(data))


def _cut(p, rng):
    data = open(p, "rb").read()
    open(p, "wb").write(data[:rng.randrange(len(data))])


def _drop_row(p, rng):
    lines = open(p).read().split("\n")
    del lines[rng.randrange(1, len(lines) - 1)]
    open(p, "w").write("\n".join(lines))


def _dup_row(p, rng):
    lines = open(p).read().split("\n")
    lines.insert(2, lines[1])
    open(p, "w").write("\n".join(lines))


def _garbage_row(p, rng):
    lines = open(p).read().split("\n")
    lines[rng.randrange(1, len(lines) - 1)] = "".join(rng.choice("0123456789,abcTrue")
                                                      for _ in range(40))
    open(p, "w").write("\n".join(lines))


def _meta(change):
    def apply(p, rng):
        m = json.load(open(p))
        change(m, rng)
        json.dump(m, open(p, "w"))
    return apply


PART_TAMPERS = {
    "flip a byte": _flip, "cut short": _cut, "drop a row": _drop_row, "duplicate a row": _dup_row,
    "garbage row": _garbage_row,
}
META_TAMPERS = {
    "sidecar: drop 'sessions'": _meta(lambda m, r: m.pop("sessions")),
    "sidecar: config as a list": _meta(lambda m, r: m.update(config=[])),
    "sidecar: chunk_size as text": _meta(lambda m, r: m["config"].update(chunk_size="1")),
    "sidecar: another seed": _meta(lambda m, r: m["config"].update(seed=SEED + 1)),
    "sidecar: flip a byte": _flip, "sidecar: cut short": _cut,
    "sidecar: not UTF-8": lambda p, r: open(p, "ab").write(b"\xff\xfe"),
}


def tampers(work, ref, rng, n):
    kinds = list(PART_TAMPERS) + ["copy a part over another", "rename a part to another chunk",
                                  "swap two parts' names", "delete a part",
                                  "part of another run"] + list(META_TAMPERS)
    for i in range(n):
        kind = kinds[i % len(kinds)] if i < len(kinds) else rng.choice(kinds)
        d = os.path.join(work, f"tamper{i}")
        os.makedirs(d)
        out = os.path.join(d, "r.csv")
        proc = subprocess.Popen(batch_args(out), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        T.runs += 1
        parts_dir = out + ".parts"
        deadline = time.time() + 300
        while time.time() < deadline:
            done = [f for f in (os.listdir(parts_dir) if os.path.isdir(parts_dir) else [])
                    if f.startswith("chunk-")]
            if len(done) >= 3 or proc.poll() is not None:
                break
            time.sleep(0.02)
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        time.sleep(0.6)
        parts = sorted(f for f in os.listdir(parts_dir) if f.startswith("chunk-"))
        if len(parts) < 2:
            T.ok("tamper: run finished too soon to tamper (skipped)")
            continue
        a, b = (os.path.join(parts_dir, p) for p in rng.sample(parts, 2))
        T.faults += 1
        harmless = False
        if kind in PART_TAMPERS:
            PART_TAMPERS[kind](a, rng)
        elif kind in META_TAMPERS:
            META_TAMPERS[kind](os.path.join(parts_dir, "run.meta.json"), rng)
        elif kind == "copy a part over another":
            shutil.copy(a, b)
        elif kind == "rename a part to another chunk":
            k = int(os.path.basename(b)[6:13])
            os.remove(b)
            os.rename(a, os.path.join(parts_dir, f"chunk-{k:07d}" + os.path.basename(a)[13:]))
        elif kind == "swap two parts' names":
            tmp = a + ".x"
            os.rename(a, tmp)
            os.rename(b, a)
            os.rename(tmp, b)
        elif kind == "delete a part":
            os.remove(a)
            harmless = True                 # that chunk is simply solved again
        elif kind == "part of another run":
            other = os.path.join(d, "other.csv")
            run(BATCH + ["--deals", str(DEALS), "--seed", str(SEED + 1), "--chunk-size",
                         str(CHUNK), "--workers", "1", "--out", other, "--quiet"])
            # the other run's values written as this chunk's part (right name, right checksum)
            k = int(os.path.basename(a)[6:13])
            rows = [r for r in open(other).read().split("\n")[1:] if r and
                    r.split(",")[0] == str(k)]
            text = open(other).read().split("\n")[0] + "\n" + "".join(r + "\n" for r in rows)
            data = text.encode()
            os.remove(a)
            open(os.path.join(parts_dir, f"chunk-{k:07d}-"
                              f"{hashlib.sha256(data).hexdigest()[:16]}.csv"), "wb").write(data)
        p = run(batch_args(out, ["--resume"]))
        if p.returncode == 0:
            if values(out) == values(ref):
                T.ok("tamper: harmless, resumed to the reference's values" if harmless else
                     "tamper: resumed to the reference's values")
            else:
                T.bad("tamper " + kind, "exit 0 with other values")
        elif one_line_error(p) and not os.path.exists(out):
            T.ok("tamper: refused in one line, nothing assembled")
            if "part file" in p.stderr and "--resume" not in p.stderr:
                T.bad("tamper " + kind, "a part refused without saying how to redo it")
        else:
            T.bad("tamper " + kind, f"exit {p.returncode}: {p.stderr.strip()[-300:]}")


# ----------------------------------------------------------------------------- full disk
def full_disk(work, ref, rng):
    mnt = os.path.join(work, "small")
    os.makedirs(mnt)
    how = None
    if os.geteuid() == 0 and shutil.which("mount"):
        m = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=48k", "tmpfs", mnt],
                           capture_output=True, text=True)
        if m.returncode == 0:
            how = "tmpfs of 48 KiB"
    limit = None
    if how is None:
        how = "RLIMIT_FSIZE of 48 KiB (no tmpfs could be mounted)"
        limit = 48 * 1024

    def limited():
        if limit:
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    print(f"full disk: {how}")
    try:
        earlier = os.path.join(mnt, "big.csv")
        # an earlier output (and a report) already there, then the disk filled up to the brim
        shutil.copy(ref, earlier)
        shutil.copy(ref + ".meta.json", earlier + ".meta.json")
        open(os.path.join(mnt, "report.json"), "w").write('{"old": 1}\n')
        keep = {p: open(p, "rb").read() for p in (earlier, earlier + ".meta.json",
                                                   os.path.join(mnt, "report.json"))}
        if limit is None:                   # fill it up to the last few KiB
            st = os.statvfs(mnt)
            with open(os.path.join(mnt, "filler"), "wb") as f:
                f.write(b"x" * max(0, st.f_bavail * st.f_frsize - 6 * 1024))
        cases = [
            ("batch --out", BATCH + ["--deals", "40", "--seed", "1", "--workers", "2",
                                     "--out", earlier, "--quiet"]),
            ("bench --json", [PY, "-m", "kraken_solver.cli.bench", "--suite", "random-300-seed1",
                              "--objective", "points", "--json",
                              os.path.join(mnt, "report.json")]),
            ("summarize --csv", BATCH + ["summarize", ref, "--csv", os.path.join(mnt, "t")]),
            ("summarize --plots", BATCH + ["summarize", ref, "--plots", os.path.join(mnt, "p")]),
        ]
        if limit is not None:
            for i, (name, args) in enumerate(cases):
                if name == "batch --out":
                    cases[i] = (name, args[:-2] + [os.path.join(mnt, "new.csv"), "--quiet"])
        for name, args in cases:
            T.faults += 1
            T.runs += 1
            p = subprocess.run(args, capture_output=True, text=True, timeout=900,
                               preexec_fn=limited)
            named = re.search(r"error: (\S+): .*(No space left on device|File too large)",
                              p.stderr)
            if one_line_error(p) and named:
                T.ok("full disk: one line naming the file, exit 1")
            elif p.returncode == 0:
                T.ok("full disk: it fitted (no fault)")
            else:
                T.bad("full disk " + name, f"exit {p.returncode}: {p.stderr.strip()[-300:]}")
            if {q: open(q, "rb").read() for q in keep} != keep:
                T.bad("full disk " + name, "an earlier file changed")
            else:
                T.ok("full disk: the earlier files there intact")
            leftovers = temporaries(mnt)
            if leftovers:
                T.bad("full disk " + name, f"temporaries left: {leftovers}")
    finally:
        if limit is None:
            subprocess.run(["umount", mnt], capture_output=True)


# ----------------------------------------------------------------------------- pipes, links
def pipes_and_links(work, ref):
    d = os.path.join(work, "links")
    os.makedirs(d)
    deals = os.path.join(d, "deals.txt")
    with open(ref) as f:
        next(f)
        texts = sorted({r.split(",")[1] for r in f})
    open(deals, "w").write("".join(t + "\n" for t in texts[:2]))
    fifo = os.path.join(d, "fifo")
    os.mkfifo(fifo)

    def expect(name, p, ok):
        T.faults += 1
        if ok(p):
            T.ok(f"pipes/links: {name}")
        else:
            T.bad("pipes/links " + name, f"exit {p.returncode}: {p.stderr.strip()[-300:]}")

    refused = one_line_error
    out = os.path.join(d, "o.csv")
    # inputs that can be read once only: refused by the batch, read by kraken-solve
    expect("batch --input FIFO refused", run(BATCH + ["--input", fifo, "--out", out]),
           lambda p: refused(p) and "regular file" in p.stderr)
    expect("batch --input <(...) refused",
           run(f"{' '.join(BATCH)} --input <(cat '{deals}') --out '{out}'", shell=True,
               executable="/bin/bash"), lambda p: refused(p) and "regular file" in p.stderr)
    expect("batch --input /dev/stdin from a pipe refused",
           run(f"cat '{deals}' | {' '.join(BATCH)} --input /dev/stdin --out '{out}'",
               shell=True), lambda p: refused(p) and "regular file" in p.stderr)
    # /dev/stdin redirected from a regular file is that file (read again, hash checked)
    expect("batch --input /dev/stdin from a file accepted",
           run(BATCH + ["--input", "/dev/stdin", "--out", out, "--quiet"], stdin=open(deals)),
           lambda p: p.returncode == 0 and len(values(out)) == 8)
    expect("batch --input - refused", run(BATCH + ["--input", "-", "--out", out]),
           lambda p: refused(p))
    writer = subprocess.Popen(f"cat '{deals}' > '{fifo}'", shell=True)
    expect("solve reads a FIFO",
           run([PY, "-m", "kraken_solver.cli.solve", fifo, "--json"]),
           lambda p: p.returncode == 0 and p.stdout.count("\n") == 2)
    writer.wait()
    expect("solve reads <(...)",
           run(f"{PY} -m kraken_solver.cli.solve <(cat '{deals}') --json", shell=True,
               executable="/bin/bash"),
           lambda p: p.returncode == 0 and p.stdout.count("\n") == 2)
    # outputs
    real = os.path.join(d, "real.csv")
    link = os.path.join(d, "link.csv")
    os.symlink(real, link)
    one = BATCH + ["--deals", "1", "--seed", "1", "--workers", "1", "--quiet", "--out"]
    expect("--out a link: written through",
           run(one + [link]), lambda p: p.returncode == 0 and os.path.islink(link)
           and os.path.isfile(real) and os.path.exists(real + ".meta.json"))
    os.symlink(os.devnull, os.path.join(d, "null.csv"))
    for name, target in (("--out a link to /dev/null", os.path.join(d, "null.csv")),
                         ("--out /dev/stdout", "/dev/stdout"), ("--out -", "-"),
                         ("--out ''", ""), ("--out a directory", d),
                         ("--out the input", deals)):
        t0 = time.time()
        # a one-line error (exit 1), or Click's usage error (exit 2) for a directory
        expect(name + " refused before work",
               run(BATCH + ["--input", deals, "--out", target, "--quiet"]),
               lambda p: (refused(p) or (p.returncode == 2 and "Traceback" not in p.stderr))
               and time.time() - t0 < 20)
    dangling = os.path.join(d, "dangling.csv")
    os.symlink(os.path.join(d, "made-by-link.csv"), dangling)
    expect("--out a dangling link: its target made",
           run(one + [dangling]), lambda p: p.returncode == 0 and
           os.path.isfile(os.path.join(d, "made-by-link.csv")) and os.path.islink(dangling))
    plot_in = os.path.join(d, "x.png")
    shutil.copy(os.path.join(HERE, "..", "datasets", "played_deal.txt"), plot_in)
    before = open(plot_in, "rb").read()
    expect("analyse --plot x.png x.png refused",
           run([PY, "-m", "kraken_solver.cli.analyse", plot_in, "--plot", plot_in]),
           lambda p: refused(p) and open(plot_in, "rb").read() == before)
    expect("bench --suite h.txt --json h.txt refused",
           run([PY, "-m", "kraken_solver.cli.bench", "--suite", deals, "--json", deals]),
           lambda p: refused(p) and "input" in p.stderr)
    if os.geteuid() == 0:
        st = os.lstat("/dev/stdout")
        if (os.lstat("/dev/stdout").st_ino, os.path.islink("/dev/stdout")) != \
                (st.st_ino, True):
            T.bad("pipes/links", "/dev/stdout changed")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--kills", type=int, default=12)
    ap.add_argument("--tampers", type=int, default=24)
    ap.add_argument("--workdir", default=None)
    args = ap.parse_args(argv)
    rng = random.Random(args.seed)
    work = args.workdir or tempfile.mkdtemp(prefix="kraken-faults-")
    os.makedirs(work, exist_ok=True)
    t0 = time.time()
    ref = os.path.join(work, "ref.csv")
    p = run(batch_args(ref))
    if p.returncode != 0:
        print(p.stderr)
        return 1
    for name, step in (("kill -9", lambda: kills(work, ref, rng, args.kills)),
                       ("tamper", lambda: tampers(work, ref, rng, args.tampers)),
                       ("full disk", lambda: full_disk(work, ref, rng)),
                       ("pipes and links", lambda: pipes_and_links(work, ref))):
        t = time.time()
        step()
        print(f"{name}: done in {time.time() - t:.0f} s", flush=True)
    print(f"\n{T.runs} runs, {T.faults} faults injected, {time.time() - t0:.0f} s "
          f"(work in {work})")
    for what, n in sorted(T.outcomes.items()):
        print(f"  {n:4d}  {what}")
    for b in T.broken:
        print("BROKEN:", b)
    return 1 if T.broken else 0


if __name__ == "__main__":
    sys.exit(main())
