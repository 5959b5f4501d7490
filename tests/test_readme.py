"""The README's Python examples run, and its commands name real options."""

import re
from pathlib import Path

README = (Path(__file__).resolve().parent.parent / "README.md").read_text()


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
        if inside and line.startswith("kraken-"):
            yield line


def test_commands_name_real_options():
    import shlex

    import click

    from kraken_solver.cli import advise, analyse, batch, bench, hint, solve, view
    commands = {"kraken-solve": solve.main, "kraken-analyse": analyse.main,
                "kraken-batch": batch.main, "kraken-bench": bench.main,
                "kraken-advise": advise.main, "kraken-hint": hint.main,
                "kraken-view": view.main}
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
