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
