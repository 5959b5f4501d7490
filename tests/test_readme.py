"""The README's examples run: its Python, its sample outputs (regenerated from real runs, checked
line by line here), its deal-file examples, and its commands name real options."""

import os
import re
import shlex
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()
PROGS = ("kraken-solve", "kraken-analyse", "kraken-batch", "kraken-bench", "kraken-advise",
         "kraken-hint", "kraken-view", "kraken-deal", "kraken-arena")


def test_python_examples_run(capsys):
    blocks = re.findall(r"```python\n(.*?)```", README, re.S)
    assert blocks, "README has no Python example"
    for code in blocks:
        exec(compile(code, "README.md", "exec"), {})
    out = capsys.readouterr().out
    assert out.strip(), "the examples print their results"


def test_quick_start_commands_match_ci():
    ci = (Path(__file__).resolve().parent.parent / ".ci" / "run").read_text()
    setup = re.search(r"^python3 -m venv .*$", README, re.M).group(0)
    assert setup in ci
    assert re.search(r"^python -m pytest$", README, re.M)
    assert "python -m pytest" in ci


def _command_lines():
    """Every line inside a README code block that runs one of the project's commands."""
    inside = False
    for line in README.splitlines():
        if line.startswith("```"):
            inside = not inside
            continue
        line = line.split("  #")[0].strip().removeprefix("$ ")
        if inside and line.split(" ")[0] in PROGS:
            yield line


def test_commands_name_real_options():
    import shlex

    import click

    from kraken_solver.cli import advise, analyse, arena, batch, bench, deal, hint, solve, view
    commands = {"kraken-solve": solve.main, "kraken-analyse": analyse.main,
                "kraken-batch": batch.main, "kraken-bench": bench.main,
                "kraken-advise": advise.main, "kraken-hint": hint.main,
                "kraken-view": view.main, "kraken-deal": deal.main, "kraken-arena": arena.main}
    lines = list(_command_lines())
    assert len(lines) >= 11
    for line in lines:
        words = shlex.split(line)
        cmd = commands[words[0]]
        if isinstance(cmd, click.Group) and len(words) > 1 and words[1] in cmd.commands:
            cmd = cmd.commands[words[1]]
        known = {o for p in cmd.params
                 for o in getattr(p, "opts", []) + getattr(p, "secondary_opts", [])}
        for w in words[1:]:
            if w.startswith("--"):
                assert w.split("=")[0] in known, f"README: {line!r}: {w} is not an option"


def _samples():
    """Every README code block that starts with ``$ kraken-solve`` or ``$ kraken-analyse``: (the
    command's words, the lines shown)."""
    for block in re.findall(r"```\n(.*?)```", README, re.S):
        lines = block.rstrip("\n").split("\n")
        if lines[0].startswith(("$ kraken-solve ", "$ kraken-analyse ")):
            yield shlex.split(lines[0][2:]), lines[1:]


def test_there_are_samples():
    assert len(list(_samples())) >= 3


@pytest.mark.parametrize("words, shown", list(_samples()), ids=lambda x: " ".join(x)[:60]
                         if isinstance(x, list) and x and isinstance(x[0], str) and
                         x[0].startswith("kraken") else None)
def test_sample_output_is_what_the_command_prints(words, shown, monkeypatch):
    """The lines shown appear in the command's real output, in order; ``...`` (alone on a line,
    or indented) stands for lines left out."""
    from click.testing import CliRunner

    from kraken_solver.cli import analyse, solve
    monkeypatch.chdir(ROOT)
    cmd = {"kraken-solve": solve.main, "kraken-analyse": analyse.main}[words[0]]
    res = CliRunner().invoke(cmd, words[1:])
    assert res.exit_code == 0, res.output
    out = res.stdout.split("\n")
    at = 0
    gap = False
    for line in shown:
        if line.strip() == "...":
            gap = True
            continue
        if gap:
            while at < len(out) and out[at] != line:
                at += 1
        assert at < len(out) and out[at] == line, (
            f"README sample of {' '.join(words)}: {line!r} not where the output has "
            f"{out[at] if at < len(out) else 'nothing'!r}")
        at += 1
        gap = False


def test_deal_file_examples_parse():
    from kraken_solver.notation.dealfile import parse_deal_text
    blocks = re.findall(r"```\n(.*?)```", README, re.S)
    tagged = [b for b in blocks if b.startswith("[Deal ")]
    one_line = [b for b in blocks if re.match(r"[NESW]:\S", b)]
    assert tagged and one_line
    for b in tagged + one_line:
        for spec in parse_deal_text(b, "README.md"):
            assert all(bin(h).count("1") == spec.deal.size for h in spec.deal.hands)
    (spec,) = parse_deal_text(one_line[0], "README.md")
    assert spec.deal.size == 8                       # a full, legal deal


def test_the_documented_warning_and_rules_error_are_real():
    from click.testing import CliRunner

    from kraken_solver.cli import solve
    cwd = os.getcwd()
    try:
        os.chdir(ROOT)
        res = CliRunner().invoke(solve.main, ["datasets/club_export.pbn", "--table"])
        warning = res.stderr.splitlines()[0]
        assert f"\n{warning}\n" in README
        res = CliRunner().invoke(solve.main, ["datasets/full_deal.txt", "--rules",
                                              "kraken+multiplier=3"])
        assert res.stderr.strip() in " ".join(README.split())      # prose wraps lines
    finally:
        os.chdir(cwd)
