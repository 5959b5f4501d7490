"""Every command's output on ``datasets/``, written to a folder, to compare two builds byte for byte.

Not collected by pytest (a minute or two). Run it before and after a change that must not change
what the tools print or write, then compare the two folders::

    python tests/output_snapshot.py /tmp/before      # on the old build
    python tests/output_snapshot.py /tmp/after       # on the new build
    diff -r /tmp/before /tmp/after && echo identical

Each case is a command line run from the project root in a scratch folder of its own; the
snapshot keeps its exit status, its stdout byte for byte, its stderr and every file it wrote.
What measures the machine rather than the result is blanked first: on stderr every number
(timings, node counts, rates); in a written CSV the ``ms`` and ``nodes`` columns; in JSON the
``seconds`` and ``nodes`` values; the ``version`` and ``commit`` a sidecar records.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
D = "datasets"

#: (name, command line); "{tmp}" is the case's scratch folder
CASES = [
    ("solve-full", "kraken-solve {D}/full_deal.txt"),
    ("solve-full-json", "kraken-solve {D}/full_deal.txt --json"),
    ("solve-full-csv", "kraken-solve {D}/full_deal.txt --csv"),
    ("solve-full-ascii-points", "kraken-solve {D}/full_deal.txt --ascii --objective points"),
    ("solve-full-bestby", "kraken-solve {D}/full_deal.txt --best-by points --trump D"),
    ("solve-full-table", "kraken-solve {D}/full_deal.txt --table"),
    ("solve-full-table-json", "kraken-solve {D}/full_deal.txt --table --json"),
    ("solve-full-table-csv", "kraken-solve {D}/full_deal.txt --table --csv"),
    ("solve-many", "kraken-solve {D}/many_deals.txt"),
    ("solve-many-json", "kraken-solve {D}/many_deals.txt --json"),
    ("solve-many-csv", "kraken-solve {D}/many_deals.txt --csv --rules klaverjas-rotterdam"),
    ("solve-part", "kraken-solve {D}/part_played.txt"),
    ("solve-part-json", "kraken-solve {D}/part_played.txt --json"),
    ("solve-played", "kraken-solve {D}/played_deal.txt"),
    ("solve-club", "kraken-solve {D}/club_export.pbn"),
    ("solve-club-first", "kraken-solve {D}/club_export.pbn --first E --rules kraken-amsterdam"),
    ("solve-bad-rules", "kraken-solve {D}/full_deal.txt --rules kraken+multipler=2"),
    ("solve-missing", "kraken-solve {D}/no_such_file.txt"),
    ("solve-hidden", "kraken-solve {D}/hint_lead.txt"),
    ("analyse", "kraken-analyse {D}/played_deal.txt"),
    ("analyse-json", "kraken-analyse {D}/played_deal.txt --json"),
    ("analyse-csv", "kraken-analyse {D}/played_deal.txt --csv --ascii"),
    ("analyse-plot", "kraken-analyse {D}/played_deal.txt --plot {tmp}/play.png"),
    ("analyse-part", "kraken-analyse {D}/part_played.txt"),
    ("analyse-player", "kraken-analyse {D}/played_deal.txt --view player --samples 12 --seed 3 "
                       "--workers 1"),
    ("analyse-player-json", "kraken-analyse {D}/played_deal.txt --view player --samples 8 "
                            "--seed 1 --workers 1 --json"),
    ("hint-lead", "kraken-hint {D}/hint_lead.txt --samples 40 --seed 2 --workers 1 --quiet"),
    ("hint-lead-json", "kraken-hint {D}/hint_lead.txt --samples 30 --seed 1 --workers 1 "
                       "--json --quiet"),
    ("hint-lead-csv", "kraken-hint {D}/hint_lead.txt --samples 30 --seed 1 --workers 1 "
                      "--csv --quiet"),
    ("hint-part", "kraken-hint {D}/hint_part_played.txt --workers 1 --quiet"),
    ("hint-part-points", "kraken-hint {D}/hint_part_played.txt --workers 1 --objective points "
                         "--quiet --ascii"),
    ("hint-part-json", "kraken-hint {D}/hint_part_played.txt --workers 1 --json --quiet"),
    ("hint-full-error", "kraken-hint {D}/full_deal.txt --workers 1 --quiet"),
    ("advise", "kraken-advise 'AJ9.K7.T8.A' --seat S --samples 30 --seed 1 --workers 1 --quiet"),
    ("advise-trump", "kraken-advise 'AJ9.K7.T8.A' --seat S --trump H --samples 20 --seed 4 "
                     "--workers 1 --quiet --ascii"),
    ("advise-json", "kraken-advise 'AJ9.K7.T8.A' --samples 16 --seed 2 --workers 1 --quiet "
                    "--json --known E:HJ"),
    ("advise-bad", "kraken-advise 'AJ9.K7.T8.AX' --workers 1 --quiet"),
    ("batch-gen", "kraken-batch --deals 40 --seed 5 --workers 1 --out {tmp}/b.csv --quiet "
                  "--chunk-size 16"),
    ("batch-gen-points", "kraken-batch --deals 20 --seed 1 --workers 1 --out {tmp}/p.csv "
                         "--objective score,points --first E --rules kraken-amsterdam --quiet"),
    ("batch-input", "kraken-batch --input {D}/many_deals.txt --workers 1 --out {tmp}/m.csv "
                    "--quiet"),
    ("batch-parquet", "kraken-batch --deals 10 --seed 2 --workers 1 --out {tmp}/q.parquet "
                      "--quiet"),
    ("batch-summarize", "kraken-batch --deals 64 --seed 9 --workers 1 --out {tmp}/s.csv --quiet "
                        "&& kraken-batch summarize {tmp}/s.csv --csv {tmp}/tables"),
    ("batch-bad", "kraken-batch --deals 0 --out {tmp}/x.csv"),
    ("view-export", "kraken-view {D}/many_deals.txt --export {tmp}/page.html --quiet"),
    ("view-export-part", "kraken-view {D}/part_played.txt --export {tmp}/part.html --quiet"),
    ("view-export-random", "kraken-view --random 7 --export {tmp}/random.html --quiet"),
    ("bench-check", "kraken-bench --suite random-100-seed1 --rules kraken --objective score "
                    "--check benchmarks/expected/random-100-seed1.kraken.score.json --quiet"),
    ("bench-check-points", "kraken-bench --suite random-100-seed1 --rules klaverjas-rotterdam "
                           "--no-roem --objective points --check "
                           "benchmarks/expected/random-100-seed1.klaverjas-rotterdam-noroem"
                           ".points.json --quiet"),
    ("bench-hint", "kraken-bench --hint exact3 --suite tests/data/single_dummy_3.jsonl "
                   "--workers 1 --quiet --limit 3"),
    ("versions", "kraken-solve --version && kraken-batch --version"),
    ("help-solve", "kraken-solve --help"),
    ("help-batch", "kraken-batch --help"),
    ("help-hint", "kraken-hint --help"),
    ("help-advise", "kraken-advise --help"),
    ("help-analyse", "kraken-analyse --help"),
    ("help-view", "kraken-view --help"),
    ("help-bench", "kraken-bench --help"),
]

_NUMBER = re.compile(r"\d[\d,._]*")
_BLANK_KEYS = {"seconds", "nodes", "version", "commit", "created", "finished", "started",
               "ms", "nodes_per_s", "hostname", "python", "numba", "numpy", "machine",
               "peak_rss_mb", "load_seconds", "sha256", "output_sha256", "compile_seconds",
               "samples_per_s", "deals_per_s", "output_bytes", "peak_worker_mb", "peak_mb",
               "layouts_per_s", "wall_seconds"}


def _blank_json(value):
    if isinstance(value, dict):
        return {k: ("#" if k in _BLANK_KEYS else _blank_json(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [_blank_json(v) for v in value]
    return value


def _normalise_file(path: Path, tmp: str) -> bytes:
    data = path.read_bytes().replace(tmp.encode(), b"TMP")
    name = path.name
    if name.endswith(".csv"):
        rows = list(csv.reader(io.StringIO(data.decode("utf-8"))))
        if rows:
            drop = {i for i, h in enumerate(rows[0]) if h in ("ms", "nodes", "seconds")}
            out = io.StringIO()
            w = csv.writer(out, lineterminator="\n")
            for r in rows:
                w.writerow([c for i, c in enumerate(r) if i not in drop])
            return out.getvalue().encode()
    if name.endswith(".json"):
        try:
            return json.dumps(_blank_json(json.loads(data)), indent=1, sort_keys=True).encode()
        except ValueError:
            return data
    if name.endswith((".parquet", ".pq")):
        import pandas as pd
        df = pd.read_parquet(path).drop(columns=["ms", "nodes"], errors="ignore")
        return df.to_csv(index=False).encode()
    if name.endswith(".html"):
        return re.sub(rb"0\.\d+\.\d+(\+[\w.]+)?", b"#", data)
    return data


def _normalise_stdout(name: str, data: bytes) -> bytes:
    if name.startswith("bench") or name == "versions":
        return _NUMBER.sub("#", data.decode("utf-8", "replace")).encode()
    text = data.decode("utf-8", "replace")
    lines = []
    for line in text.splitlines(keepends=True):
        s = line.strip()
        if s.startswith("{") and s.endswith("}"):
            try:
                line = json.dumps(_blank_json(json.loads(s)), sort_keys=True) + "\n"
            except ValueError:
                pass
        lines.append(line)
    return "".join(lines).encode()


def run(out_dir: Path) -> None:
    if out_dir.exists():
        shutil.rmtree(out_dir)
    out_dir.mkdir(parents=True)
    env = dict(os.environ, COLUMNS="100", NO_COLOR="1")
    for name, command in CASES:
        with tempfile.TemporaryDirectory() as tmp:
            line = command.format(D=D, tmp=tmp)
            p = subprocess.run(line, shell=True, cwd=ROOT, capture_output=True, env=env,
                               stdin=subprocess.DEVNULL, timeout=900)
            case = out_dir / name
            case.mkdir()
            (case / "status").write_text(f"{p.returncode}\n")
            (case / "stdout").write_bytes(
                _normalise_stdout(name, p.stdout.replace(tmp.encode(), b"TMP")))
            err = p.stderr.decode("utf-8", "replace").replace(tmp, "TMP")
            (case / "stderr").write_text(_NUMBER.sub("#", err))
            for f in sorted(Path(tmp).rglob("*")):
                if f.is_file():
                    rel = f.relative_to(tmp).as_posix().replace("/", "__")
                    (case / ("file." + rel)).write_bytes(_normalise_file(f, tmp))
        print(f"{name}: exit {p.returncode}", file=sys.stderr)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python tests/output_snapshot.py OUT_DIR")
    run(Path(sys.argv[1]))
