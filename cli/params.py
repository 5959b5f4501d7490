"""Click parameter types of the command-line tools: letters and digits as README lists them.

Click compares case-insensitive choices after ``str.casefold``, which turns ``'ſ'`` (long s)
into ``'s'``, and ``int()`` reads digits of every script (``'٢'`` is 2): a seat, suit or count
would be made of characters the README does not list.  These types take ASCII only.
"""

from __future__ import annotations

import click


class AsciiChoice(click.Choice):
    """A ``click.Choice`` (case-insensitive by default) that refuses non-ASCII text before
    comparing, so that no Unicode case folding can turn a character into a choice."""

    def __init__(self, choices, case_sensitive: bool = False):
        super().__init__(choices, case_sensitive=case_sensitive)

    def convert(self, value, param, ctx):
        if isinstance(value, str) and not value.isascii():
            self.fail(f"{value!r} is not one of {', '.join(map(repr, self.choices))} "
                      "(ASCII letters only)", param, ctx)
        return super().convert(value, param, ctx)


class AsciiInt(click.IntRange):
    """A ``click.IntRange`` of ASCII digits (an optional sign, then 0-9).  Without ``min``
    or ``max`` it is shown as ``INTEGER`` with no range (click would print ``[x<=None]``):
    the bound is then checked where the value is used, which says why."""

    def __init__(self, min=None, max=None, min_open=False, max_open=False, clamp=False):
        super().__init__(min, max, min_open, max_open, clamp)
        if min is None and max is None:
            self.name = "integer"

    def _describe_range(self) -> str:
        if self.min is None and self.max is None:
            return ""
        return super()._describe_range()

    def convert(self, value, param, ctx):
        if isinstance(value, str):
            text = value.strip()
            if not text.isascii() or not text.lstrip("+-").isdigit():
                self.fail(f"{value!r} is not a whole number (ASCII digits 0-9)", param, ctx)
        return super().convert(value, param, ctx)


def one_standard_input(ctx, param, value):
    """Click callback of a FILE... argument: ``value`` (a tuple of file names) when ``'-'``
    (standard input) is among them at most once, else a usage error before any work: the
    second ``'-'`` would read nothing, the first having read standard input to its end."""
    n = list(value or ()).count("-")
    if n > 1:
        times = "twice" if n == 2 else f"{n} times"
        raise click.BadParameter(
            f"standard input given {times} ('-' is FILE {_places(value)}): it is read once, "
            "to its end; give '-' once", ctx=ctx, param=param)
    return value


def _places(value) -> str:
    at = [str(i) for i, name in enumerate(value, start=1) if name == "-"]
    return ", ".join(at[:-1]) + " and " + at[-1]
