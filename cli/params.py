"""Click parameter types of the command-line tools: letters and digits as README lists them.

Click compares case-insensitive choices after ``str.casefold``, which turns ``'ſ'`` (long s)
into ``'s'``, and ``int()`` reads digits of every script (``'٢'`` is 2): a seat, suit or count
would be made of characters the README does not list.  These types take ASCII only.
"""

from __future__ import annotations

import click

# the bounds of typed numbers, shown in --help and checked before any work: the library's
# own (``kraken_solver.limits``, which imports nothing)

#: digits past which a typed whole number is refused as too large without being converted
#: (Python refuses to convert more than 4,300 and would call it "not a valid integer")
MAX_DIGITS = 30


class AsciiChoice(click.Choice):
    """A ``click.Choice`` (case-insensitive by default) that refuses non-ASCII text before
    comparing, so that no Unicode case folding can turn a character into a choice.  The
    choices are shown as written (``[S|H|D|C]``, as README writes them; Click's own
    case-insensitive Choice shows them folded, ``[s|h|d|c]``): the ASCII comparison is made
    here and the choice handed on as written."""

    def __init__(self, choices, case_sensitive: bool = False):
        super().__init__(choices, case_sensitive=True)
        self.ignore_case = not case_sensitive

    def convert(self, value, param, ctx):
        if isinstance(value, str) and not value.isascii():
            self.fail(f"{value!r} is not one of {', '.join(map(repr, self.choices))} "
                      "(ASCII letters only)", param, ctx)
        if isinstance(value, str) and self.ignore_case:
            for choice in self.choices:
                if choice.lower() == value.lower():
                    value = choice
                    break
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
            digits = text.lstrip("+-")
            if not text.isascii() or not digits.isdigit():
                shown = value if len(value) <= 40 else value[:20] + "..."
                self.fail(f"{shown!r} is not a whole number (ASCII digits 0-9)", param, ctx)
            if len(digits) > MAX_DIGITS:
                significant = digits.lstrip("0") or "0"
                if len(significant) > MAX_DIGITS:
                    # refused unconverted: Python converts at most 4,300 digits, and the
                    # message would echo every one of them
                    bound = self._describe_range()
                    self.fail(f"{text[:12]}... ({len(digits):,} digits) is too large"
                              + (f": expected {bound}" if bound else ""), param, ctx)
                value = text[:len(text) - len(digits)] + significant   # leading zeros off
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


# ----------------------------------------------------------------------------- conditions
#: the help of the shared condition options (kraken-deal, kraken-batch, kraken-advise, ...)
WHERE_HELP = ("Deal only deals that meet this condition, e.g. 'hearts(S) >= 4 and has(S, HJ)'; "
              "@FILE reads definitions (NAME = ...) and the condition from a file.  README "
              "'Dealing with conditions' lists the forms.")
PREDEAL_HELP = ("Cards placed before dealing: SEAT:CARDS (S:HJ H9 HA) or a whole hand "
                "(S:AJ9.K7.T8.A); repeatable, or several seats in one (S:HJ N:SA).")


def condition_file(where) -> list:
    """The file of ``--where @FILE`` as a list (empty for a condition given inline): an
    input of the command, which no output may overwrite."""
    if where and where.strip().startswith("@") and where.strip()[1:]:
        return [where.strip()[1:]]
    return []


def condition_options(f):
    """The shared ``--where EXPR``, ``--predeal SEAT:CARDS`` (repeatable) and ``--max-tries``
    options of the tools that deal (:func:`make_condition` reads them)."""
    from kraken_solver.limits import DEFAULT_DEAL_TRIES, MAX_DEAL_TRIES
    f = click.option("--max-tries", type=AsciiInt(1, MAX_DEAL_TRIES), default=DEFAULT_DEAL_TRIES,
                     show_default=True,
                     help="The most candidate deals one block of 64 deals may test before "
                          "giving up (the line says the acceptance rate found).")(f)
    f = click.option("--predeal", multiple=True, metavar="SEAT:CARDS", help=PREDEAL_HELP)(f)
    f = click.option("--where", default=None, metavar="EXPR|@FILE", help=WHERE_HELP)(f)
    return f


def make_condition(ctx, prog: str, where, predeal, *, long_runs_100: bool = False,
                   first_block=None):
    """The :class:`~kraken_solver.dealing.generator.Condition` of ``--where`` and
    ``--predeal``, or None when neither is given.  ``first_block``: (seed, deals, max_tries)
    to deal the first block now, so that a condition too rare for ``--max-tries`` stops
    before any work.  Bad or impossible input: one line ``PROG: error: --where, column C:
    ...`` on stderr and exit status 2, before any work."""
    if where is None and not predeal:
        return None
    from kraken_solver.dealing.generator import DEALS_PER_BLOCK, Condition
    from kraken_solver.errors import KrakenError, PredealError
    try:
        cond = Condition(where, list(predeal) or None, long_runs_100=long_runs_100)
        if first_block is not None:
            seed, deals, max_tries = first_block
            cond.hands(seed, 0, min(deals, DEALS_PER_BLOCK), max_tries=max_tries)
        return cond
    except KrakenError as err:
        if err.source is None:
            err = err.located(source="--predeal" if isinstance(err, PredealError) else
                              "--where" if err.column is not None else None)
        click.echo(f"{prog}: error: {err}", err=True)
        ctx.exit(2)
