"""Command-line tools of kraken-solver (installed as ``kraken_solver.cli``)."""

from __future__ import annotations

import functools
import os
import sys

import click


def symbols_ok(stream) -> bool:
    """Can ``stream`` print the suit symbols? (Else the commands fall back to S H D C.)"""
    enc = getattr(stream, "encoding", None) or "utf-8"
    try:
        "\u2660\u2665\u2666\u2663".encode(enc)
        return True
    except (UnicodeEncodeError, LookupError):
        return False


def guard_output(prog: str):
    """Decorate a command so that a closed or failing standard output (a full disk, a closed
    pipe) ends it with one line on stderr and exit status 1, never a traceback or a silent
    success."""
    def deco(f):
        @functools.wraps(f)
        def wrapper(*args, **kwargs):
            if sys.stdout is None or getattr(sys.stdout, "closed", False):
                click.echo(f"{prog}: error: standard output is closed", err=True)
                sys.exit(1)
            try:
                result = f(*args, **kwargs)
                sys.stdout.flush()
                return result
            except OSError as e:
                if not isinstance(e, BrokenPipeError):
                    click.echo(f"{prog}: error: cannot write the output: "
                               f"{e.strerror or e}", err=True)
                try:  # nothing more can reach stdout: keep the interpreter's exit quiet
                    devnull = os.open(os.devnull, os.O_WRONLY)
                    os.dup2(devnull, sys.stdout.fileno())
                except (OSError, ValueError):
                    pass
                sys.exit(1)
        return wrapper
    return deco


#: the help of every command's ``--rules`` option
RULES_HELP = ("Rules: a preset (kraken, kraken-amsterdam, klaverjas-rotterdam, "
              "klaverjas-amsterdam), optionally followed by +option=value parts, e.g. "
              "kraken+multiplier=2 or klaverjas-rotterdam+trick_roem=false (options: "
              "trump_rule, undertrump, trick_roem, hand_roem, double_spades, multiplier, "
              "pit_bonus, long_runs_100); every rules name the tools print reads back.")


def rules_option(text):
    """The Rules of a ``--rules`` option's text (a rules spec, ``kraken+multiplier=2``;
    ``None`` stays ``None``).  Raises KrakenError (a RulesError) whose message starts with
    ``--rules:`` and lists what is allowed, for the command's one-line error."""
    if text is None:
        return None
    from kraken_solver.errors import KrakenError
    from kraken_solver.rules import as_rules
    try:
        return as_rules(text)
    except KrakenError as err:
        raise err.located(source="--rules") from None


def first_run_notice(prog: str):
    """A context manager: inside it, the first time Numba starts compiling (a cache miss:
    the first run), print ``PROG: first run: compiling the search kernels, about a minute
    ...`` on stderr, once (:func:`kraken_solver.kernel_cache.compile_notice`).  A command
    wraps its whole run in it (reading the input, which may compile the legality kernels,
    loading the kernels, solving), so the notice comes once, when the first compile starts."""
    from kraken_solver.kernel_cache import FIRST_RUN_MESSAGE, compile_notice
    return compile_notice(lambda: click.echo(f"{prog}: {FIRST_RUN_MESSAGE}", err=True))

