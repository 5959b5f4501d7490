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
