"""The words of a ``kraken-view`` request: one position, read and checked as the tools read it.

Every request carries the whole position in its query, the same words the page's own address
carries, so a reload or a copied link shows the same position:

- ``deal``: PBN text (``N:AT8.T.8.QJ9 ...``, 1 to 8 cards a hand);
- ``trump``: ``S H D C`` (may be left out of ``/api/state`` and ``/api/trumps``);
- ``first``: the first player ``N E S W`` (default: the seat before the PBN's colon);
- ``rules``: a rules name as :func:`~kraken_solver.game.rules.as_rules` reads it (default
  ``kraken``); ``double``: the multiplier 1, 2, 4 or 8 (rule 20; default 1);
- ``play``: the cards played from the first lead, in play order, separated by spaces
  (``SJ SK S8``); ``objective``: ``score`` (default) or ``points``.

:func:`read_query` turns them into a :class:`Query` (each word at most :data:`MAX_PARAM_CHARS`
characters).  A word the endpoint does not read (:data:`ENDPOINT_WORDS`: a misspelt word is
never ignored) or one given twice is refused (:func:`check_words`); every refusal is a
:class:`~kraken_solver.errors.KrakenError` that :func:`error_json` turns into
``{"error": "...", "field": "..."}`` with the message the command-line tools print.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

from ..errors import CardParseError, KrakenError, RulesError
from ..game.cards import SEATS, SUITS, card_str, parse_card, parse_seat, parse_suit
from ..game.deal import Deal, parse_pbn
from ..game.rules import MULTIPLIERS, Rules, as_rules
from ..notation.text import count

#: the longest value of one query word (a PBN deal is under 80 characters, a full play 96)
MAX_PARAM_CHARS = 400

_SEP = re.compile(r"[\s,]+")


# ------------------------------------------------------------------------------ queries
@dataclass(frozen=True)
class Query:
    """One position as the page asks for it: ``deal``, ``trump`` (0..3 or None), ``first``
    (0..3), ``rules`` (multiplier included) and ``played`` (card indices in play order)."""
    deal: Deal
    trump: int | None
    first: int
    rules: Rules
    played: tuple = ()

    @property
    def key(self) -> tuple:
        return (self.deal.hands, self.trump, self.first, self.rules, self.played)

    def position(self):
        """The :class:`~kraken_solver.game.position.Position` (raises KrakenError without a
        trump)."""
        from ..game.position import Position
        if self.trump is None:
            raise CardParseError("this needs a trump: S, H, D or C", token="trump")
        return Position(self.deal, self.trump, self.first, self.rules, list(self.played))

    def fresh(self) -> "Query":
        """The same deal, first player and rules with no card played."""
        return dataclasses.replace(self, played=())


def rules_words(rules: Rules) -> tuple[str, int]:
    """``(rules name without the multiplier, multiplier)``: the page's ``rules=`` and
    ``double=`` words, which :func:`read_query` reads back to the same Rules."""
    return dataclasses.replace(rules, multiplier=1).name, rules.multiplier


def query_params(q: Query) -> dict:
    """The query words of ``q`` (the inverse of :func:`read_query`)."""
    name, double = rules_words(q.rules)
    out = {"deal": str(q.deal), "first": SEATS[q.first], "rules": name}
    if q.trump is not None:
        out["trump"] = SUITS[q.trump]
    if double != 1:
        out["double"] = str(double)
    if q.played:
        out["play"] = " ".join(card_str(c) for c in q.played)
    return out


#: the query words of a position (:func:`read_query`)
POSITION_WORDS = ("deal", "trump", "first", "rules", "double", "play")
#: the words each endpoint reads; any other word is refused (400), so that a misspelt one
#: (``played=`` for ``play=``) is never silently ignored
ENDPOINT_WORDS = {
    "/api/info": (),
    "/api/state": POSITION_WORDS + ("objective",),
    "/api/values": POSITION_WORDS + ("objective",),
    "/api/trumps": POSITION_WORDS + ("objective",),
    "/api/line": POSITION_WORDS + ("objective",),
    "/api/hint": POSITION_WORDS + ("objective", "samples", "job", "client"),
    "/api/hint/progress": ("job", "client"),
    "/api/hint/cancel": (),
    "/api/parse": (),
    # the game against the computer (kraken_solver.view.play)
    "/api/play/move": POSITION_WORDS + ("seat", "bots", "seed"),
    "/api/play/trump": POSITION_WORDS + ("seat", "bots", "seed"),
}


def check_words(params, path: str) -> None:
    """Raises KrakenError naming the first query word of ``params`` that endpoint ``path``
    does not read (:data:`ENDPOINT_WORDS`), and listing those it reads: ``query: unknown word;
    /api/values reads deal, trump, ... (got 'played')``; or, located in the word, one given
    more than once (``params`` a MultiDict): ``trump: given 2 times; give each query word
    once (got 'trump=H&trump=S')``, where one of the values would have been read unseen."""
    allowed = ENDPOINT_WORDS[path]
    for name in params:
        if name not in allowed:
            reads = f"reads {', '.join(allowed)}" if allowed else "reads no query word"
            raise KrakenError(f"unknown word; {path} {reads}", source="query", token=name)
        values = params.getlist(name) if hasattr(params, "getlist") else [params[name]]
        if len(values) > 1:
            raise KrakenError(f"given {len(values)} times; give each query word once",
                              source=name, token="&".join(f"{name}={v}" for v in values))


def _field_error(err: KrakenError, name: str) -> KrakenError:
    """``err`` located in the query word ``name`` (its column counts in that word)."""
    return type(err)(err.message, source=name, column=err.column, token=err.token)


def query_word(params, name: str, default=None):
    value = params.get(name, default)
    if value is None:
        return None
    value = str(value)
    if len(value) > MAX_PARAM_CHARS:
        raise KrakenError(f"at most {MAX_PARAM_CHARS} characters", source=name,
                          token=value)
    return value.strip()


def read_query(params, *, need_trump: bool = False) -> Query:
    """Read a position from query words (a mapping of str -> str; module docstring).

    Raises KrakenError subclasses whose ``source`` names the word, e.g. ``deal, column 12:
    expected a rank A, K, Q, J, T (or 10), 9, 8 or 7 (got 'X')``; a played card's position in
    ``play`` is its ``column`` (1 for the first card)."""
    text = query_word(params, "deal")
    if not text:
        raise KrakenError("no deal given: expected PBN text like 'N:AKQ.J9.T8.7 ...'",
                          source="deal")
    try:
        deal, seat = parse_pbn(text)
    except KrakenError as e:
        raise _field_error(e, "deal") from None
    trump = None
    t = query_word(params, "trump")
    if t:
        try:
            trump = parse_suit(t)
        except CardParseError:
            raise CardParseError("expected a trump suit S, H, D or C", source="trump",
                                 token=t) from None
    elif need_trump:
        raise CardParseError("no trump given: expected S, H, D or C", source="trump")
    f = query_word(params, "first")
    first = seat
    if f:
        try:
            first = parse_seat(f)
        except CardParseError:
            raise CardParseError("expected a first player N, E, S or W", source="first",
                                 token=f) from None
    r = query_word(params, "rules") or "kraken"
    try:
        rules = as_rules(r)
    except RulesError as e:
        raise RulesError(e.message, source="rules", token=e.token or r) from None
    d = query_word(params, "double")
    if d:
        if not re.fullmatch(r"[0-9]{1,2}", d) or int(d) not in MULTIPLIERS:
            raise RulesError("expected a multiplier 1, 2 (kraken), 4 or 8", source="double",
                             token=d)
        if rules.multiplier != 1 and rules.multiplier != int(d):
            raise RulesError(f"double={d} but the rules say multiplier={rules.multiplier}; "
                             "give it once", source="double", token=d)
        rules = dataclasses.replace(rules, multiplier=int(d))
    p = query_word(params, "play") or ""
    words = [w for w in _SEP.split(p) if w]
    if len(words) > 32:
        raise KrakenError("at most 32 cards are played in a deal", source="play",
                          token=count(len(words), "card"))
    played = []
    for i, w in enumerate(words):
        try:
            played.append(parse_card(w))
        except CardParseError as e:
            raise CardParseError(e.message, source="play", column=i + 1, token=w) from None
    q = Query(deal, trump, first, rules, tuple(played))
    if played:
        if trump is None:
            raise CardParseError("cards are played, so a trump is needed: S, H, D or C",
                                 source="trump")
        try:
            q.position()
        except KrakenError as e:
            raise type(e)(e.message, source="play", column=e.column, token=e.token) from None
    return q


def error_json(err: KrakenError) -> dict:
    """``{"error": message, "field": word or None}`` for an error of :func:`read_query` or
    of the solver; a played card's ``column`` is named as the card's number in ``play``."""
    text = str(err)
    if err.source == "play" and err.column is not None:
        rest = err.message + (f" (got {err.token!r})" if err.token is not None else "")
        text = f"play, card {err.column}: {rest}"
    return {"error": text, "field": err.source if err.source in
            ("deal", "trump", "first", "rules", "double", "play", "objective", "samples",
             "job", "client", "seat", "bots", "seed") else None}


def objective_word(objective: str) -> str:
    if objective not in ("score", "points"):
        raise KrakenError("expected score or points", source="objective", token=objective)
    return objective
