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
    """A ``click.IntRange`` of ASCII digits (an optional sign, then 0-9)."""

    def convert(self, value, param, ctx):
        if isinstance(value, str):
            text = value.strip()
            if not text.isascii() or not text.lstrip("+-").isdigit():
                self.fail(f"{value!r} is not a whole number (ASCII digits 0-9)", param, ctx)
        return super().convert(value, param, ctx)
