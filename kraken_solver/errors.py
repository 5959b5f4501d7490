"""Exception types of kraken-solver.

Every error raised for bad input is a subclass of :class:`KrakenError`, itself a
:class:`ValueError`.  Errors that come from a file carry its name, line, column and the
offending token, so that a command-line tool can print one precise line.
"""

from __future__ import annotations

#: the most characters of the offending text that an error message echoes back
TOKEN_ECHO = 40


def short_token(text, limit: int = TOKEN_ECHO) -> str:
    """``text`` (as ``str``) for an error message: its first ``limit`` characters and ``'…'``
    if longer (a bad word of megabytes must not make a line of megabytes)."""
    text = str(text)
    return text if len(text) <= limit else text[:limit] + "\u2026"


class KrakenError(ValueError):
    """Base class of every input error raised by kraken-solver.

    Attributes ``source`` (file name or ``None``), ``line`` and ``column`` (1-based, or
    ``None``) and ``token`` (the offending text, or ``None``; cut by :func:`short_token`) say
    where the problem is.
    """

    def __init__(self, message: str, *, source: str | None = None, line: int | None = None,
                 column: int | None = None, token: str | None = None):
        self.message = message
        self.source = source
        self.line = line
        self.column = column
        self.token = None if token is None else short_token(token)
        super().__init__(self.__str__())

    def located(self, *, source: str | None = None, line: int | None = None,
                column: int | None = None, token: str | None = None) -> "KrakenError":
        """Return a copy of this error with the location filled in where it was missing."""
        err = type(self)(self.message,
                         source=self.source if self.source is not None else source,
                         line=self.line if self.line is not None else line,
                         column=self.column if self.column is not None else column,
                         token=self.token if self.token is not None else token)
        return err

    def __str__(self) -> str:
        where = []
        if self.source is not None:
            where.append(str(self.source))
        if self.line is not None:
            where.append(f"line {self.line}")
        if self.column is not None:
            where.append(f"column {self.column}")
        prefix = ", ".join(where)
        text = self.message
        if self.token is not None:
            text = f"{text} (got {self.token!r})"
        return one_line(f"{prefix}: {text}" if prefix else text)


def one_line(text: str) -> str:
    """``text`` with every character that is not printable (a line break or tab in a file
    name, a NUL...) written as its escape (``\\n``, ``\\x00``): an error stays one line."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


class CardParseError(KrakenError):
    """A card, rank, suit or seat could not be read (e.g. ``"HX"``)."""


class DealError(KrakenError):
    """A deal is malformed: duplicate or missing cards, hands of unequal size, bad PBN."""


class IllegalCardError(KrakenError):
    """A card was played that the player does not hold or may not play (RULES.md rule 8)."""


class RulesError(KrakenError):
    """An unknown rules preset or option value."""


class DealFileError(KrakenError):
    """A deal file has a syntax error (unknown tag, bad value, missing deal)."""


class PredicateError(KrakenError):
    """A dealing condition (``--where``) cannot be read: a syntax error, an unknown function
    or name, a wrong number of arguments, a seat, suit or card typo, a number where a
    condition belongs.  ``column`` (and ``line`` in a file) says where."""


class PredealError(KrakenError):
    """A predeal (``--predeal "S:HJ H9"``) cannot be read, or asks for the impossible: a card
    in two seats, more than 8 cards in a hand."""


class ImpossibleConditionError(KrakenError):
    """No deal can meet the condition and the predeal, found before any dealing (a card in
    two seats, lengths that add up to more than 8, a comparison no hand can meet), or no
    candidate met it within the bound on the candidates tried (``--max-tries``)."""


class BotError(KrakenError):
    """A computer player failed: it raised, returned something that is not a card, or chose a
    card that is not legal (or a trump that is not a suit).  The message names the bot, the
    deal and the position (the cards played so far)."""


class BotSpecError(KrakenError):
    """A bot spec (``"pimc:20"``, ``"heuristic"``) names no bot or gives it an option out of
    range; the message lists the bots or the range."""
