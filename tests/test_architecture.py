"""The house: sub-packages by concern, each importing only the floors below it, no circle.

ARCHITECTURE.md describes the floors; this file holds the code to them.  Imports are read
from the source (``ast``), those inside functions too (the lazy ones the command-line tools
use to start fast), so a circle or an import that runs back up fails here even when Python
would have tolerated it at run time.
"""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "kraken_solver"

#: the floors, lowest first; a module may import its own floor and the floors below it only
FLOORS = (("errors", "limits"), ("kernels",), ("game",), ("notation",), ("engine",),
          ("dealing",), ("workers",), ("playerview",), ("bots",), ("batch",), ("arena",),
          ("view",), ("bench",), ("cli",))
FLOOR_OF = {room: level for level, rooms in enumerate(FLOORS) for room in rooms}
#: modules allowed more than this many lines: the Numba search, kept whole for the compiler
MAX_LINES = 800
LONG_ALLOWED = {"kernels/search.py"}


def module_files():
    """(dotted module name, path) of every module of the package, the command-line tools
    (``cli/``, installed as ``kraken_solver.cli``) included."""
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        yield ".".join(parts[:-1] if parts[-1] == "__init__" else parts), path
    for path in sorted((ROOT / "cli").rglob("*.py")):
        parts = ["kraken_solver"] + list(path.relative_to(ROOT).with_suffix("").parts)
        yield ".".join(parts[:-1] if parts[-1] == "__init__" else parts), path


def imports_of(name: str, path: Path) -> set[str]:
    """The ``kraken_solver`` modules ``name`` imports (anywhere in the file), as dotted names;
    ``from X import y`` counts as ``X.y`` where ``X.y`` is a module, else as ``X``.  The
    package's ``__version__`` is not counted (every room may print it)."""
    is_package = path.name == "__init__.py"
    package = name.split(".") if is_package else name.split(".")[:-1]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("kraken_solver")}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            if not module.startswith("kraken_solver"):
                continue
            for alias in node.names:
                if module == "kraken_solver" and alias.name == "__version__":
                    continue
                found.add(f"{module}.{alias.name}" if f"{module}.{alias.name}" in MODULES
                          else module)
    found.discard(name)
    return found


MODULES = dict(module_files())
GRAPH = {name: imports_of(name, path) for name, path in MODULES.items()}


def room_of(module: str) -> str | None:
    """The sub-package (or ground module) a dotted name belongs to; None for the top package."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else None


def test_every_module_lives_in_a_room_with_a_floor():
    rooms = {room_of(m) for m in MODULES} - {None}
    assert rooms <= set(FLOOR_OF), rooms - set(FLOOR_OF)
    top = [p.name for p in PACKAGE.glob("*.py") if p.stem not in ("__init__", "errors", "limits")]
    assert top == [], f"modules loose at the top of the package: {top}"


def test_imports_run_only_downward():
    """No module imports a floor above its own.  The top package is the front door (its lazy
    public names may come from any room), so no room imports it, except for ``__version__``
    (which :func:`imports_of` leaves out)."""
    upward = [f"{name} -> {dep}" for name, deps in GRAPH.items() if room_of(name) is not None
              for dep in deps
              if room_of(dep) is None or FLOOR_OF[room_of(dep)] > FLOOR_OF[room_of(name)]]
    assert upward == []


def test_no_import_circle():
    """Depth-first search over the module graph: a back edge is a circle."""
    state, circles = {}, []

    def visit(node, stack):
        state[node] = "open"
        stack.append(node)
        for dep in sorted(GRAPH.get(node, ())):
            if dep not in GRAPH:
                continue
            if state.get(dep) == "open":
                circles.append(stack[stack.index(dep):] + [dep])
            elif dep not in state:
                visit(dep, stack)
        stack.pop()
        state[node] = "done"

    for node in sorted(GRAPH):
        if node not in state:
            visit(node, [])
    assert circles == []


def test_no_module_does_five_jobs():
    long = {str(p.relative_to(PACKAGE)): n for p in PACKAGE.rglob("*.py")
            if (n := len(p.read_text().splitlines())) > MAX_LINES}
    assert set(long) <= LONG_ALLOWED, long


def test_every_package_is_installed():
    """pyproject's package list names every folder of the package (a folder left out would
    be missing from a normal, non-editable install)."""
    conf = tomllib.loads((ROOT / "pyproject.toml").read_text())
    listed = set(conf["tool"]["setuptools"]["packages"])
    found = {".".join(p.parent.relative_to(ROOT).parts) for p in PACKAGE.rglob("__init__.py")}
    assert found | {"kraken_solver.cli"} == listed


def test_the_public_names_resolve():
    """Every name of ``kraken_solver.__all__`` imports from the room the front door says."""
    import kraken_solver
    for name in kraken_solver.__all__:
        assert getattr(kraken_solver, name) is not None, name
    with pytest.raises(AttributeError, match="no attribute 'nonsense'"):
        kraken_solver.nonsense  # noqa: B018


def test_the_layer_test_sees_a_circle_and_an_upward_import(tmp_path):
    """The checks above are not vacuous: on a two-module package that imports both ways, the
    graph has the circle and the upward edge."""
    pkg = tmp_path / "kraken_solver"
    (pkg / "game").mkdir(parents=True)
    (pkg / "engine").mkdir()
    (pkg / "game" / "a.py").write_text("def f():\n    from ..engine import b\n")
    (pkg / "engine" / "b.py").write_text("from ..game import a\n")
    for d in ("", "game", "engine"):
        (pkg / d / "__init__.py").write_text("")
    a = imports_of("kraken_solver.game.a", pkg / "game" / "a.py")
    b = imports_of("kraken_solver.engine.b", pkg / "engine" / "b.py")
    assert a == {"kraken_solver.engine"} and b == {"kraken_solver.game"}
    assert FLOOR_OF[room_of("kraken_solver.engine")] > FLOOR_OF[room_of("kraken_solver.game.a")]


def test_stale_kernel_caches_are_dropped_when_any_kernel_source_changes(tmp_path):
    """Numba checks only a cached function's own file, so the kernels package records a digest
    of all its sources and drops every cached kernel of the folder when one file changes."""
    from kraken_solver.kernels import STAMP_NAME, drop_stale_caches, sources_digest
    src, cache = tmp_path / "kernels", tmp_path / "cache"
    src.mkdir()
    cache.mkdir()
    (src / "moves.py").write_text("def legal(): pass\n")
    (src / "search.py").write_text("def search(): pass\n")
    cached = ["moves.legal-1.py311.nbi", "moves.legal-1.py311.1.nbc", "search.search-1.py311.nbi"]
    others = ["other.f-1.py311.nbi", "moves.notes.txt"]
    for name in cached + others:
        (cache / name).write_text("x")
    assert drop_stale_caches(str(src), str(cache)) == 3          # no stamp yet: all dropped
    assert sorted(p.name for p in cache.iterdir()) == sorted(others + [STAMP_NAME])
    assert (cache / STAMP_NAME).read_text().strip() == sources_digest(str(src))
    for name in cached:
        (cache / name).write_text("x")
    assert drop_stale_caches(str(src), str(cache)) == 0          # same sources: kept
    assert all((cache / name).exists() for name in cached)
    (src / "moves.py").write_text("def legal(): return 1\n")   # a callee changed
    assert drop_stale_caches(str(src), str(cache)) == 3
    assert not any((cache / name).exists() for name in cached)
    assert drop_stale_caches(str(src), str(tmp_path / "missing" / "x")) == 0   # no crash


def test_the_installed_kernels_record_their_digest():
    """Importing the kernels wrote the digest of today's sources beside Numba's cache."""
    import os

    from kraken_solver import kernels
    folder = os.path.dirname(os.path.abspath(kernels.__file__))
    stamp = os.path.join(kernels._cache_probe.stats.cache_path, kernels.STAMP_NAME)
    with open(stamp) as f:
        assert f.read().strip() == kernels.sources_digest(folder)
