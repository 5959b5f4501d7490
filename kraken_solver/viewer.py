"""The browser board of ``kraken-view``: a small JSON API over the solver, and its page.

The page (``kraken_solver/web/``: plain HTML, CSS and JavaScript, no build step, nothing
fetched from the network) draws the four hands, the trick on the table and the score sheet,
and asks this API for what only the solver knows.  Every request carries the whole position
in its query, the same words the page's own address carries, so a reload or a copied link
shows the same position:

- ``deal``: PBN text (``N:AT8.T.8.QJ9 ...``, 1 to 8 cards a hand);
- ``trump``: ``S H D C`` (may be left out of ``/api/state`` and ``/api/trumps``);
- ``first``: the first player ``N E S W`` (default: the seat before the PBN's colon);
- ``rules``: a rules name as :func:`~kraken_solver.rules.as_rules` reads it (default
  ``kraken``); ``double``: the multiplier 1, 2, 4 or 8 (rule 20; default 1);
- ``play``: the cards played from the first lead, in play order, separated by spaces
  (``SJ SK S8``); ``objective``: ``score`` (default) or ``points``.

Endpoints (GET unless said): ``/api/info`` (the deals of the file, whether the player's-view
hint is available), ``/api/state`` (hands, trick, legal cards, score sheet: no search),
``/api/values`` (the value of every legal card, best cards), ``/api/trumps`` (the trump
table of the fresh deal), ``/api/line`` (a principal variation from the position),
``/api/hint`` (the player's-view hint of the player to move, :meth:`BoardSolver.hint`; the
words ``samples`` (1 to :data:`MAX_VIEW_SAMPLES`), ``job`` and ``client`` besides the
position's), ``/api/hint/progress?job=NAME`` (layouts solved of how many), POST
``/api/hint/cancel`` (``{"job": NAME}``: stop it), and POST ``/api/parse`` (pasted deal-file
text -> its deals).  Bad input gets status 400 and ``{"error": "...", "field": "..."}`` with
the message the command-line tools print, and so does a query word the endpoint does not read
(:data:`ENDPOINT_WORDS`: a misspelt word is never ignored) or one given twice; a hint that
was cancelled or replaced by a later request of the same page gets 409 with ``"cancelled":
true``.

One :class:`BoardSolver` a server process owns the :class:`~kraken_solver.solver.Searcher`
(its transposition table is reused while the user explores a deal) behind a lock: a Searcher
is not thread-safe, and the server answers each request in a thread of its own.  The hints
run apart, one at a time in a thread of their own over worker processes (kept from hint to
hint; stopped at once when a hint is cancelled), so the double-dummy values and the progress
of a hint are answered while a hint runs.

Values are in points, from the playing team's side (RULES.md §8).
"""

from __future__ import annotations

import dataclasses
import json
import queue
import re
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from importlib import resources

from .cards import (RANKS, SEATS, SUITS, card_str, cards_of, parse_card, parse_seat, parse_suit,
                    sort_for_display)
from .deal import Deal, parse_pbn
from .errors import CardParseError, KrakenError, RulesError
from .formatting import count
from .roem import declared_melds
from .rules import MULTIPLIERS, PRESETS, Rules, as_rules

__all__ = ["Query", "read_query", "query_params", "state_of", "melds_of", "BoardSolver",
           "deal_entry", "parse_pasted", "create_app", "page_html", "export_page",
           "hint_available", "BusyError", "HintCancelled", "HintJob", "check_view_samples",
           "MAX_DEALS", "MAX_EXPORT_DEALS", "MAX_PASTE_CHARS", "MAX_VIEW_SAMPLES"]

#: the longest value of one query word (a PBN deal is under 80 characters, a full play 96)
MAX_PARAM_CHARS = 400
#: the most characters of pasted deal-file text ``/api/parse`` reads
MAX_PASTE_CHARS = 256 * 1024
#: the most deals a file (or a paste) may give the page's list
MAX_DEALS = 1000
#: the most deals one ``--export`` page holds (each costs a solve of every position on its line)
MAX_EXPORT_DEALS = 100
#: answers kept for undo and redo (a few hundred bytes each)
CACHE_ENTRIES = 4096
#: how long a request waits for the solver while another one uses it, in seconds
LOCK_WAIT_S = 120.0
#: the most layouts a hint of the page may ask to draw (``samples``); without ``samples`` the
#: hint's own choice: every consistent layout up to 2,000, else 200 drawn.  So one hint
#: request solves at most 2,000 layouts, or draws at most 1,000 (the first lead: 38 s for
#: the score on two shared cores, twice that for the points; 200 layouts: 5 s and 10 s)
MAX_VIEW_SAMPLES = 1000
#: the seed of the page's sampled hints (the default of ``kraken-hint``)
HINT_SEED = 0
#: hint jobs remembered for their progress (finished ones are dropped oldest first)
JOBS_KEPT = 64
#: a hint job's or a page's name: letters, digits, ``-`` and ``_``
_JOB_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")

_SEP = re.compile(r"[\s,]+")
SUIT_NAMES = ("spades", "hearts", "diamonds", "clubs")
RANK_PLURALS = {"7": "sevens", "8": "eights", "9": "nines", "T": "tens", "J": "jacks",
                "Q": "queens", "K": "kings", "A": "aces"}


class BusyError(KrakenError):
    """The solver stayed busy with other requests for :data:`LOCK_WAIT_S` seconds."""


class HintCancelled(KrakenError):
    """A player's-view hint that was given up: a later request of the same page replaced it,
    the page cancelled it, or the server stopped (status 409)."""


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
        """The :class:`~kraken_solver.solver.Position` (raises KrakenError without a trump)."""
        from .solver import Position
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
    "/api/hint/progress": ("job",),
    "/api/hint/cancel": (),
    "/api/parse": (),
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


def _word(params, name: str, default=None):
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
    text = _word(params, "deal")
    if not text:
        raise KrakenError("no deal given: expected PBN text like 'N:AKQ.J9.T8.7 ...'",
                          source="deal")
    try:
        deal, seat = parse_pbn(text)
    except KrakenError as e:
        raise _field_error(e, "deal") from None
    trump = None
    t = _word(params, "trump")
    if t:
        try:
            trump = parse_suit(t)
        except CardParseError:
            raise CardParseError("expected a trump suit S, H, D or C", source="trump",
                                 token=t) from None
    elif need_trump:
        raise CardParseError("no trump given: expected S, H, D or C", source="trump")
    f = _word(params, "first")
    first = seat
    if f:
        try:
            first = parse_seat(f)
        except CardParseError:
            raise CardParseError("expected a first player N, E, S or W", source="first",
                                 token=f) from None
    r = _word(params, "rules") or "kraken"
    try:
        rules = as_rules(r)
    except RulesError as e:
        raise RulesError(e.message, source="rules", token=e.token or r) from None
    d = _word(params, "double")
    if d:
        if not re.fullmatch(r"[0-9]{1,2}", d) or int(d) not in MULTIPLIERS:
            raise RulesError("expected a multiplier 1, 2 (kraken), 4 or 8", source="double",
                             token=d)
        if rules.multiplier != 1 and rules.multiplier != int(d):
            raise RulesError(f"double={d} but the rules say multiplier={rules.multiplier}; "
                             "give it once", source="double", token=d)
        rules = dataclasses.replace(rules, multiplier=int(d))
    p = _word(params, "play") or ""
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
             "job", "client") else None}


# ------------------------------------------------------------------------------- state
def _cards(mask_or_list, trump) -> list[str]:
    cards = cards_of(mask_or_list) if isinstance(mask_or_list, int) else list(mask_or_list)
    return [card_str(c) for c in sort_for_display(cards, trump)]


def team_name(seat: int) -> str:
    return "N-S" if seat % 2 == 0 else "E-W"


#: how the page writes a rank (view.js's RANK_SHOWN): the ten as "10", the others as their
#: letter or digit
RANK_SHOWN = {"T": "10"}


def rank_shown(rank: str) -> str:
    """A rank as the page shows it on its cards: ``"T"`` -> ``"10"``, ``"K"`` -> ``"K"``."""
    return RANK_SHOWN.get(rank, rank)


def melds_of(deal: Deal, trump: int | None, first: int, rules: Rules) -> list[dict]:
    """The hand roem declared (RULES.md rules 12-17), meld by meld.

    One dict a meld: ``seat``, ``kind`` (``"run"``, ``"four"``, ``"stuk"``), ``cards``
    (card texts), ``text`` (``"run ♠ 8 9 10"``: the ranks as the page's cards show them,
    :func:`rank_shown`), ``value`` (points) and ``counts`` (rule 15: only the team of the
    best meld scores its melds; stuk always counts, rule 16).  The counting values add up to
    :func:`~kraken_solver.solver.hand_roem`.  Empty when the rules have no hand roem.  Stuk
    needs a trump (none is listed without)."""
    symbols = "\u2660\u2665\u2666\u2663"
    out = []
    for m in declared_melds(deal.hands, 0 if trump is None else trump, first, rules):
        if m.kind == "stuk" and trump is None:
            continue
        suit = m.cards[0] // 8
        if m.kind == "four":
            text = f"four {RANK_PLURALS[RANKS[m.cards[0] % 8]]}"
        elif m.kind == "stuk":
            text = f"stuk {symbols[suit]} K Q"
        else:
            text = f"{m.kind} {symbols[suit]} " + " ".join(rank_shown(RANKS[c % 8])
                                                            for c in m.cards)
        out.append({"seat": SEATS[m.seat], "kind": m.kind,
                    "cards": [card_str(c) for c in m.cards], "text": text,
                    "value": m.value, "counts": m.counts})
    return out


def _trick_json(t, number: int, first_index: int) -> dict:
    return {"number": number, "leader": SEATS[t.leader],
            "cards": [card_str(int(c)) for c in t.cards], "winner": SEATS[t.winner],
            "points": int(t.points), "roem": int(t.roem), "first_index": first_index}


def state_of(q: Query) -> dict:
    """What the page draws for a position, without a search: the hands left (card texts by
    suit, then power), the trick on the table, the legal cards of the player to move, the
    completed tricks and the running score sheet (rules 18-19), as a JSON-ready dict.  The
    sheet names its sides, as every JSON of the tools: ``sheet["playing_team"]`` and
    ``sheet["defenders"]`` each hold ``tricks``, ``card_points`` (the last trick's bonus
    apart), ``last_trick``, ``trick_roem``, ``hand_roem`` and ``total`` (the pit bonus
    included once the deal is over); then ``pit_bonus``, ``pit_possible``, ``final`` (None
    until the deal is over, then ``made``, ``pit``, ``multiplier``, ``playing_team``,
    ``defenders``, ``score``), ``total_points`` and ``last_bonus``.

    Without a trump only the hands, the seats and the melds without stuk are given (the page
    shows the trump table then).  Raises KrakenError for a position that cannot be built."""
    name, double = rules_words(q.rules)
    first = q.first
    d_team = first % 2
    base = {"deal": str(q.deal), "trump": None if q.trump is None else SUITS[q.trump],
            "first": SEATS[first], "rules": name, "double": double,
            "rules_name": q.rules.name, "rules_options": q.rules.to_dict(),
            "playing_team": team_name(first), "defenders": team_name(first + 1),
            "dealt": {SEATS[s]: _cards(q.deal.hands[s], q.trump) for s in range(4)},
            "cards_a_hand": q.deal.size,
            "played": [card_str(c) for c in q.played],
            "melds": melds_of(q.deal, q.trump, first, q.rules)}
    if q.trump is None:
        base.update(hands=base["dealt"], to_move=SEATS[first], legal=[], over=False,
                    trick={"leader": SEATS[first], "cards": []}, tricks=[], sheet=None)
        return base
    pos = q.position()
    tricks, index = [], 0
    for i, t in enumerate(pos.tricks):
        tricks.append(_trick_json(t, i + 1, index))
        index += 4
    won = [0, 0]
    points = [0, 0]
    roem = [0, 0]
    last = [0, 0]
    n_tricks = q.deal.size
    for i, t in enumerate(pos.tricks):
        side = 0 if t.winner % 2 == d_team else 1
        won[side] += 1
        p = int(t.points)
        if i == n_tricks - 1:
            p -= pos.last_bonus
            last[side] += pos.last_bonus
        points[side] += p
        roem[side] += int(t.roem)
    hand = [pos.hr_d, pos.hr_o]
    over = pos.over
    pit_possible = pos.flag_lost == 0
    totals = [points[k] + last[k] + roem[k] + hand[k] for k in range(2)]
    pit = 0
    final = None
    if over:
        if pit_possible:
            pit = q.rules.pit_bonus
        totals[0] += pit
        m = q.rules.multiplier
        made = totals[0] > totals[1]
        if made:
            scores = [m * totals[0], m * totals[1]]
        else:
            scores = [0, m * (totals[0] - pit + totals[1])]
        final = {"made": made, "pit": bool(pit_possible), "multiplier": m,
                 "playing_team": scores[0], "defenders": scores[1],
                 "score": scores[0] - scores[1]}
    base.update(
        hands={SEATS[s]: _cards(int(pos.hands[s]), q.trump) for s in range(4)},
        to_move=None if over else SEATS[pos.to_move],
        legal=[card_str(c) for c in pos.legal()], over=over,
        trick={"leader": SEATS[pos.leader], "cards": [card_str(int(c)) for c in
                                                       pos.trick[:pos.tlen]]},
        tricks=tricks,
        sheet={**{side: {"tricks": won[k], "card_points": points[k], "last_trick": last[k],
                         "trick_roem": roem[k], "hand_roem": hand[k], "total": totals[k]}
                  for k, side in enumerate(("playing_team", "defenders"))},
               "pit_bonus": pit, "pit_possible": pit_possible, "final": final,
               "total_points": pos.total_points, "last_bonus": pos.last_bonus})
    return base


# ------------------------------------------------------------------------------- solver
def hint_available() -> bool:
    """Whether the player's-view hint (``kraken_solver.hint.hint``) is installed."""
    try:
        from . import hint  # noqa: F401
    except ImportError:
        return False
    return hasattr(hint, "hint")


class BoardSolver:
    """The solver of one server process: one :class:`~kraken_solver.solver.Searcher`, its
    table reused from request to request, behind a lock (a Searcher is not thread-safe), and
    the answers already given (undo and redo cost nothing)."""

    def __init__(self, searcher=None, *, lock_wait: float = LOCK_WAIT_S,
                 hint_workers: int | None = None):
        from .solver import Searcher
        self.searcher = searcher or Searcher()
        self.lock = threading.Lock()
        self.lock_wait = lock_wait
        self.cache: OrderedDict = OrderedDict()
        # the player's-view hints: their own thread and worker processes, not the lock above
        # (a hint of seconds never holds up the double-dummy values)
        self.hint_workers = hint_workers
        self._jobs: OrderedDict = OrderedDict()
        self._jobs_lock = threading.Lock()
        self._job_count = 0
        self._hint_queue: queue.Queue = queue.Queue()
        self._hint_thread = None
        self._pool = None               # the hints' worker processes, kept from hint to hint

    def _cached(self, key, compute):
        hit = self.cache.get(key)
        if hit is not None:
            self.cache.move_to_end(key)
            return dict(hit, cached=True)
        if not self.lock.acquire(timeout=self.lock_wait):
            raise BusyError("the solver is busy with other requests; try again in a moment")
        try:
            hit = self.cache.get(key)       # another request may have computed it meanwhile
            if hit is not None:
                return dict(hit, cached=True)
            t0 = time.perf_counter()
            n0 = self.searcher.nodes
            out = compute()
            out["nodes"] = self.searcher.nodes - n0
            out["ms"] = round((time.perf_counter() - t0) * 1000, 1)
        finally:
            self.lock.release()
        self.cache[key] = out
        while len(self.cache) > CACHE_ENTRIES:
            self.cache.popitem(last=False)
        return dict(out, cached=False)

    def warm(self) -> None:
        """Load the compiled kernels (compiled on the very first run) with a tiny solve."""
        from .solver import Position, Searcher
        Searcher(tt_bits=8).value(Position("N:A... K... Q... J...", 0, 0), "score")

    def values(self, q: Query, objective: str = "score") -> dict:
        """The value of the position and of every legal card (rule 26) under ``objective``:
        ``{"objective", "value", "made", "card_values": {card: value}, "best_cards",
        "to_move", "nodes", "ms", "cached"}``."""
        from .solver import solve
        _objective(objective)

        def compute():
            r = solve(q.deal, q.trump, q.first, rules=q.rules, objective=objective,
                      played=list(q.played), all_cards=True, pv=False,
                      searcher=self.searcher)
            return {"objective": objective, "value": r.value, "made": r.made,
                    "card_values": dict(r.card_values), "best_cards": list(r.best_cards),
                    "to_move": None if r.to_move is None else SEATS[r.to_move]}
        return self._cached(("values", q.key, objective), compute)

    def trumps(self, q: Query) -> dict:
        """The trump table of the fresh deal (rule 3): one row a trump, ``trump``, ``score``,
        ``made``, ``points``, ``best`` (the highest score)."""
        from .solver import trump_table
        f = q.fresh()

        def compute():
            rows = trump_table(f.deal, f.first, rules=f.rules, searcher=self.searcher)
            return {"first": SEATS[f.first], "rows": [
                {"trump": SUITS[r.trump], "score": r.score, "made": r.made, "points": r.points,
                 "best": r.best} for r in rows]}
        return self._cached(("trumps", f.deal.hands, f.first, f.rules), compute)

    def line(self, q: Query, objective: str = "score") -> dict:
        """A principal variation from the position to the end of the deal (rule 26):
        ``{"objective", "value", "pv": [card texts]}``."""
        from .solver import solve
        _objective(objective)

        def compute():
            r = solve(q.deal, q.trump, q.first, rules=q.rules, objective=objective,
                      played=list(q.played), pv=True, searcher=self.searcher)
            return {"objective": objective, "value": r.value, "pv": list(r.pv)}
        return self._cached(("line", q.key, objective), compute)

    # -------------------------------------------------------------- the player's view
    def hint(self, q: Query, objective: str = "score", *, samples: int | None = None,
             job: str | None = None, client: str | None = None) -> dict:
        """The player's-view hint for the player to move (:mod:`kraken_solver.hint`, the same
        layouts and means as ``hint(deal, trump, first, rules=..., played=..., objective=...,
        samples=samples, exact_limit=2000 when samples is given)``).

        ``samples``: None (the hint's own choice: every consistent layout when they number at
        most ``hint.EXACT_LIMIT`` (2,000), else ``hint.DEFAULT_SAMPLES`` (200) drawn) or 1 to
        :data:`MAX_VIEW_SAMPLES` layouts drawn (every one when they number at most 2,000).
        ``job``: the request's name for :meth:`hint_progress` and :meth:`cancel_hint`;
        ``client``: the page that asks: a new request of a page cancels that page's hints
        still running (a later click supersedes an earlier one).  Hints run one at a time in
        a thread of their own, over worker processes kept from hint to hint (a cancel stops
        them at once; the next hint starts new ones); a hint of at most ``hint.SMALL_JOB``
        (24) layouts is solved in that thread, as ``hint()`` does.

        Returns ``{"objective", "seat", "side", "hand" (as dealt, PBN suits), "holding",
        "played" (cards played), "declared" ({"playing_team": HR_D, "defenders": HR_O}, or
        None without hand roem),
        "exact", "layouts" (solved), "consistent" (the count, or None when not counted),
        "consistent_estimate", "allowed_by_play", "samples", "seed", "cards": {card: {"mean",
        "se", "p_made", "min", "max", "loss", "loss_se"}}, "best", "workers", "nodes", "ms",
        "cached"}`` (points, the playing team's side; ``best`` the best for the player to
        move).  Raises HintCancelled when superseded or cancelled, KrakenError for bad
        ``samples`` or a position the hint refuses (ObservationError)."""
        _objective(objective)
        samples = check_view_samples(samples)
        key = ("hint", q.key, objective, samples)
        hit = self.cache.get(key)
        if hit is not None:
            self.cache.move_to_end(key)
            return dict(hit, cached=True)
        j = self._new_job(job, client, key)
        j.run = lambda jj: self._compute_hint(q, objective, samples, jj)
        self._start_hint_thread()
        self._hint_queue.put(j)
        j.finished.wait()
        if j.error is not None:
            raise j.error
        out = j.result
        self.cache[key] = out
        while len(self.cache) > CACHE_ENTRIES:
            self.cache.popitem(last=False)
        return dict(out, cached=False)

    def _new_job(self, job, client, key) -> "HintJob":
        with self._jobs_lock:
            self._job_count += 1
            name = job or f"hint-{self._job_count}"
            if client is not None:
                for other in self._jobs.values():
                    if other.client == client and not other.finished.is_set():
                        other.cancel("a later request of the page replaced it")
            j = HintJob(name, client, key)
            self._jobs[name] = j
            self._jobs.move_to_end(name)
            while len(self._jobs) > JOBS_KEPT:
                self._jobs.popitem(last=False)
        return j

    def _start_hint_thread(self) -> None:
        with self._jobs_lock:
            if self._hint_thread is None or not self._hint_thread.is_alive():
                self._hint_thread = threading.Thread(target=self._hint_loop, daemon=True,
                                                     name="kraken-view hints")
                self._hint_thread.start()

    def _hint_loop(self) -> None:
        """The hint thread: one job at a time, in the order asked (a job cancelled while it
        waited is not started)."""
        while True:
            j = self._hint_queue.get()
            if j is None:
                return
            try:
                if j.cancelled:
                    raise HintCancelled(f"the hint was cancelled: {j.why}")
                j.result = j.run(j)
                j.state = "done"
            except BaseException as e:      # noqa: BLE001 - handed to the request thread
                if j.cancelled or isinstance(e, HintCancelled):
                    j.state = "cancelled"
                    j.error = e if isinstance(e, HintCancelled) else HintCancelled(
                        f"the hint was cancelled: {j.why}")
                else:
                    j.state = "failed"
                    j.error = e if isinstance(e, KrakenError) else KrakenError(
                        f"the hint failed: {type(e).__name__}: {e}")
            finally:
                j.finished.set()

    def _compute_hint(self, q: Query, objective: str, samples, job: "HintJob") -> dict:
        from .batch import make_pool
        from .hint import EXACT_LIMIT, SMALL_JOB, plan_hint, solve_plan
        from .layouts import observe

        t0 = time.perf_counter()
        job.state = "choosing"
        played = [card_str(c) for c in q.played]
        obs = observe(q.deal, q.trump, q.first, rules=q.rules, played=played)
        plan = plan_hint(obs, samples=samples, seed=HINT_SEED,
                         exact_limit=None if samples is None else EXACT_LIMIT)
        job.total = len(plan.chosen)
        job.exact = plan.exact
        job.state = "solving"
        if job.cancelled:
            raise HintCancelled(f"the hint was cancelled: {job.why}")
        kw = dict(objective=objective, samples=samples, seed=HINT_SEED, progress=job, t0=t0)
        if len(plan.chosen) <= SMALL_JOB or self.hint_workers == 1:
            h = solve_plan(plan, **kw)
        else:
            if self._pool is None:      # the first hint, or the one after a cancel
                self._pool = make_pool(self.hint_workers, None).__enter__()
            pool = self._pool
            with job.lock:
                if job.cancelled:
                    raise HintCancelled(f"the hint was cancelled: {job.why}")
                job.pool = pool
            try:
                h = solve_plan(plan, pool=pool, **kw)
            except BaseException:
                # cancelled (the workers were stopped) or broken: a new pool next time
                self._pool = None
                pool.terminate()
                raise
            finally:
                with job.lock:
                    job.pool = None
        cards = {c: {"mean": e.mean, "se": e.se, "p_made": e.p_made, "min": e.min,
                     "max": e.max, "loss": e.loss, "loss_se": e.loss_se}
                 for c, e in h.cards.items()}
        return {"objective": objective, "seat": h.seat, "side": h.side, "hand": h.hand,
                "holding": h.holding, "played": list(h.played),
                "declared": None if h.declared is None else {
                    "playing_team": int(h.declared[0]), "defenders": int(h.declared[1])},
                "exact": bool(h.exact), "layouts": int(h.layouts),
                "consistent": None if h.consistent is None else int(h.consistent),
                "consistent_estimate": float(h.consistent_estimate),
                "allowed_by_play": int(h.allowed_by_play), "samples": samples,
                "seed": HINT_SEED, "cards": cards, "best": list(h.best),
                "workers": int(h.workers), "nodes": int(h.nodes),
                "ms": round((time.perf_counter() - t0) * 1000, 1)}

    def hint_progress(self, job: str) -> dict:
        """Where the hint ``job`` is: ``{"job", "state"`` (``"queued"``, ``"choosing"`` the
        layouts, ``"solving"``, ``"done"``, ``"cancelled"``, ``"failed"``), ``"done"`` and
        ``"total"`` (layouts solved and to solve; total None while choosing), ``"exact"``,
        ``"ms"`` (since it was asked for)``}``.  Raises KrakenError for an unknown job."""
        with self._jobs_lock:
            j = self._jobs.get(job)
        if j is None:
            raise KrakenError("no such hint job (finished long ago, or never asked for)",
                              source="job", token=job)
        return j.progress()

    def cancel_hint(self, job: str) -> dict:
        """Cancel the hint ``job`` (its workers are stopped at once): ``{"job", "cancelled"}``
        (False when it had finished already or is unknown)."""
        with self._jobs_lock:
            j = self._jobs.get(job)
        if j is None or j.finished.is_set():
            return {"job": job, "cancelled": False}
        j.cancel("the page cancelled it")
        return {"job": job, "cancelled": True}

    def close(self) -> None:
        """Cancel every hint still running or waiting (the server stops) and end the hint
        thread."""
        with self._jobs_lock:
            jobs = list(self._jobs.values())
        for j in jobs:
            if not j.finished.is_set():
                j.cancel("the server stopped")
        if self._hint_thread is not None:
            self._hint_queue.put(None)
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.terminate()


class HintJob:
    """One player's-view hint as it runs (:meth:`BoardSolver.hint`): ``name``, ``client``,
    ``state``, ``done`` and ``total`` layouts.  ``update(n)`` is the hint's progress callback
    (``n`` more layouts solved); it raises HintCancelled once the job is cancelled, and
    :meth:`cancel` also stops the pool's workers at once."""

    def __init__(self, name: str, client: str | None, key):
        self.name, self.client, self.key = name, client, key
        self.state = "queued"
        self.done = 0
        self.total = None
        self.exact = None
        self.why = ""
        self.t0 = time.perf_counter()
        self.pool = None
        self.lock = threading.Lock()
        self.finished = threading.Event()
        self._cancelled = threading.Event()
        self.result = None
        self.error = None
        self.run = None

    @property
    def cancelled(self) -> bool:
        return self._cancelled.is_set()

    def update(self, n: int) -> None:
        self.done += int(n)
        if self.cancelled:
            raise HintCancelled(f"the hint was cancelled: {self.why}")

    def cancel(self, why: str) -> None:
        with self.lock:
            if not self.cancelled:
                self.why = why
            self._cancelled.set()
            if self.pool is not None:
                self.pool.terminate()

    def progress(self) -> dict:
        return {"job": self.name, "state": self.state, "done": self.done, "total": self.total,
                "exact": self.exact, "ms": round((time.perf_counter() - self.t0) * 1000)}


def check_view_samples(samples) -> int | None:
    """``samples`` of a hint the page asks for: None, or a whole number from 1 to
    :data:`MAX_VIEW_SAMPLES` (text is read as a number); raises KrakenError (``source``
    ``samples``) otherwise."""
    if samples is None or samples == "":
        return None
    if isinstance(samples, str):
        if not re.fullmatch(r"[0-9]{1,7}", samples.strip()):
            raise KrakenError(f"expected a number of layouts from 1 to {MAX_VIEW_SAMPLES:,}",
                              source="samples", token=samples)
        samples = int(samples)
    if isinstance(samples, bool) or not isinstance(samples, int) or \
            not 1 <= samples <= MAX_VIEW_SAMPLES:
        raise KrakenError(f"expected a number of layouts from 1 to {MAX_VIEW_SAMPLES:,} (the "
                          "page's bound on a hint's work)", source="samples",
                          token=str(samples))
    return samples


def _objective(objective: str) -> str:
    if objective not in ("score", "points"):
        raise KrakenError("expected score or points", source="objective", token=objective)
    return objective


# -------------------------------------------------------------------------- deal lists
def deal_entry(spec, index: int) -> dict:
    """One deal of a file for the page's list: its query words, where it came from and a
    short description (``"1 · line 5 · ♥ · first S · 10 cards played"``)."""
    q = Query(spec.deal, spec.trump, spec.first, spec.rules, tuple(spec.played))
    words = query_params(q)
    parts = [str(index + 1)]
    if spec.line is not None:
        parts.append(f"line {spec.line}")
    parts.append("\u2660\u2665\u2666\u2663"[spec.trump] if spec.trump is not None
                 else "no trump")
    parts.append(f"first {SEATS[spec.first]}")
    name, double = rules_words(spec.rules)
    if name != "kraken":
        parts.append(name)
    if double != 1:
        parts.append(f"\u00d7{double}")
    if spec.played:
        parts.append(f"{count(len(spec.played), 'card')} played")
    return {"index": index, "where": spec.where, "label": " \u00b7 ".join(parts),
            "params": words}


def parse_pasted(text: str) -> list[dict]:
    """The deals of pasted deal-file text (PBN tags or one-line deals, as
    :func:`~kraken_solver.dealfile.parse_deal_text` reads them; a bare PBN deal is a one-line
    deal) -> :func:`deal_entry` dicts.  Errors are located in ``"the pasted text"``; at most
    :data:`MAX_PASTE_CHARS` characters and :data:`MAX_DEALS` deals."""
    from .dealfile import parse_deal_text
    if not isinstance(text, str):
        raise KrakenError("expected the deal as text", source="the pasted text")
    if len(text) > MAX_PASTE_CHARS:
        raise KrakenError(f"the pasted text is longer than {MAX_PASTE_CHARS // 1024} KiB; "
                          "give a file that long to kraken-view on the command line",
                          source="the pasted text")
    specs = parse_deal_text(text, "the pasted text")
    if len(specs) > MAX_DEALS:
        raise KrakenError(f"{len(specs)} deals: the page lists at most {MAX_DEALS}",
                          source="the pasted text")
    return [deal_entry(s, i) for i, s in enumerate(specs)]


# ---------------------------------------------------------------------------- the page
def _web(name: str) -> str:
    return (resources.files(__package__) / "web" / name).read_text(encoding="utf-8")


def page_html(export: dict | None = None) -> str:
    """The page: ``index.html`` as the server sends it (CSS and JS from ``/static/``), or with
    ``export`` (the data of :func:`export_page`) one self-contained page: the CSS, the JS and
    the data inlined, nothing fetched."""
    html = _web("index.html")
    if export is None:
        return html
    css = _web("view.css")
    js = _web("view.js")
    data = json.dumps(export, ensure_ascii=False, separators=(",", ":"))
    # inside <script>, "</" could end the element and "<!--" open a comment
    data = data.replace("</", "<\\/").replace("<!--", "<\\!--")
    js = js.replace("</script", "<\\/script")
    html = html.replace('<link rel="stylesheet" href="/static/view.css">',
                        "<style>\n" + css + "\n</style>")
    html = html.replace('<script src="/static/view.js"></script>',
                        "<script>window.KRAKEN_EXPORT = " + data + ";</script>\n<script>\n"
                        + js + "\n</script>")
    return html


def export_page(specs, solver: BoardSolver, *, source: str | None = None,
                progress=None) -> str:
    """One self-contained page (no server, no network) with the deals of ``specs``
    (:class:`~kraken_solver.dealfile.DealSpec`) and the values along a line of each: the cards
    played (``[Play]``) and then a principal variation by score to the end of the deal.
    Without a trump the best one of the trump table is played.  Each position on the line
    carries its state (:func:`state_of`) and the score and points of every legal card.
    ``progress(done, total)`` is called after every position.  Raises KrakenError for more
    than :data:`MAX_EXPORT_DEALS` deals."""
    specs = list(specs)
    if len(specs) > MAX_EXPORT_DEALS:
        raise KrakenError(f"{len(specs)} deals: an exported page holds at most "
                          f"{MAX_EXPORT_DEALS} (split the file)", source=source)
    deals = []
    total = sum(4 * s.deal.size + 1 for s in specs)     # positions on the lines
    done = 0
    for i, spec in enumerate(specs):
        q = Query(spec.deal, spec.trump, spec.first, spec.rules, tuple(spec.played))
        table = solver.trumps(q)
        trump = spec.trump
        if trump is None:
            best = max(table["rows"], key=lambda r: (r["score"], r["points"]))
            trump = SUITS.index(best["trump"])
        q = dataclasses.replace(q, trump=trump)
        pv = solver.line(q, "score")["pv"]
        line = [card_str(c) for c in q.played] + list(pv)
        states, values = [], {"score": [], "points": []}
        for k in range(len(line) + 1):
            qk = dataclasses.replace(q, played=tuple(parse_card(c) for c in line[:k]))
            states.append(state_of(qk))
            for objective in ("score", "points"):
                if k == len(line):
                    values[objective].append(None)
                    continue
                v = solver.values(qk, objective)
                values[objective].append({key: v[key] for key in
                                          ("objective", "value", "made", "card_values",
                                           "best_cards", "to_move")})
            done += 1
            if progress is not None:
                progress(done, total)
        entry = deal_entry(spec, i)
        entry["params"] = query_params(q)
        deals.append({"entry": entry, "trump_given": spec.trump is not None,
                      "line": line, "played_given": len(spec.played), "trumps": table["rows"],
                      "states": states, "values": values})
    from . import __version__
    data = {"version": __version__, "source": source, "deals": deals}
    return page_html(data)


# ----------------------------------------------------------------------------- the app
def create_app(entries=(), *, source: str | None = None, solver: BoardSolver | None = None,
               port_check: bool = True, log=None):
    """The Flask application of ``kraken-view``: the page, its static files and the JSON API
    of the module docstring.  ``entries``: :func:`deal_entry` dicts of the deals to list;
    ``source``: the file they came from.  Requests whose ``Host`` is not this machine's
    loopback name are refused (``port_check``; a page of another site cannot reach the
    solver through a DNS name that points here).  ``log(line)``, if given, is called with one
    line for every search the API runs (what, where in the deal, ms and nodes)."""
    from flask import Flask, Response, jsonify, request

    app = Flask(__name__, static_folder=str(resources.files(__package__) / "web"),
                static_url_path="/static")
    app.config["MAX_CONTENT_LENGTH"] = 4 * MAX_PASTE_CHARS + 4096
    app.json.ensure_ascii = False
    app.json.sort_keys = False
    solver = solver or BoardSolver()
    app.extensions["kraken_solver"] = solver
    entries = list(entries)
    hint_ok = hint_available()

    @app.before_request
    def local_only():
        if not port_check:
            return None
        host = (request.host or "").rsplit(":", 1)[0].strip("[]").lower()
        if host not in ("127.0.0.1", "localhost", "::1"):
            return jsonify(error="kraken-view answers on this machine's loopback address "
                                 "only", field=None), 403
        return None

    def fail(err: KrakenError):
        if isinstance(err, HintCancelled):
            return jsonify(dict(error_json(err), cancelled=True)), 409
        status = 503 if isinstance(err, BusyError) else 400
        return jsonify(error_json(err)), status

    @app.errorhandler(404)
    def not_found(_e):
        return jsonify(error=f"no such page: {request.path}", field=None), 404

    @app.errorhandler(405)
    def bad_method(_e):
        return jsonify(error=f"{request.method} is not accepted here", field=None), 405

    @app.errorhandler(413)
    def too_large(_e):
        return jsonify(error=f"the request is too large: the pasted text may hold at most "
                             f"{MAX_PASTE_CHARS // 1024} KiB", field=None), 413

    @app.get("/")
    def index():
        return Response(page_html(), mimetype="text/html")

    @app.before_request
    def known_words():
        if request.path in ENDPOINT_WORDS:      # any other path is 404, whatever its query
            try:
                check_words(request.args, request.path)
            except KrakenError as e:
                return fail(e)
        return None

    @app.get("/api/info")
    def info():
        from . import __version__
        return jsonify(version=__version__, source=source, deals=entries, hint=hint_ok,
                       presets=list(PRESETS), limits={"deals": MAX_DEALS,
                                                      "paste_chars": MAX_PASTE_CHARS,
                                                      "hint_samples": MAX_VIEW_SAMPLES})

    def with_query(fn, need_trump=True):
        try:
            q = read_query(request.args, need_trump=need_trump)
            objective = _objective(request.args.get("objective", "score"))
            out = fn(q, objective)
            if log is not None and "ms" in out and not out.get("cached"):
                n = len(q.played)
                log(f"{request.path.rsplit('/', 1)[-1]} ({objective}, {n} card"
                    f"{'' if n == 1 else 's'} played): {out['ms']:.0f} ms, "
                    f"{out['nodes']:,} nodes")
            return jsonify(out)
        except KrakenError as e:
            return fail(e)

    @app.get("/api/state")
    def state():
        return with_query(lambda q, o: state_of(q), need_trump=False)

    @app.get("/api/values")
    def values():
        return with_query(lambda q, o: _over_check(q) or solver.values(q, o))

    @app.get("/api/trumps")
    def trumps():
        return with_query(lambda q, o: solver.trumps(q), need_trump=False)

    @app.get("/api/line")
    def line():
        return with_query(lambda q, o: solver.line(q, o))

    def job_word(name: str):
        value = _word(request.args, name)
        if value is None or value == "":
            return None
        if not _JOB_NAME.fullmatch(value):
            raise KrakenError("expected a name of letters, digits, - and _ (at most 64)",
                              source=name, token=value)
        return value

    @app.get("/api/hint")
    def hint():
        def run(q, o):
            _over_check(q)
            return solver.hint(q, o, samples=_word(request.args, "samples"),
                               job=job_word("job"), client=job_word("client"))
        return with_query(run)

    @app.get("/api/hint/progress")
    def hint_progress():
        try:
            name = job_word("job")
            if name is None:
                raise KrakenError("no job given", source="job")
            return jsonify(solver.hint_progress(name))
        except KrakenError as e:
            return fail(e)

    @app.post("/api/hint/cancel")
    def hint_cancel():
        body = request.get_json(silent=True)
        name = body.get("job") if isinstance(body, dict) else None
        if not isinstance(name, str) or not _JOB_NAME.fullmatch(name):
            return jsonify(error='expected JSON {"job": "NAME"} naming the hint to cancel',
                           field="job"), 400
        return jsonify(solver.cancel_hint(name))

    @app.post("/api/parse")
    def parse():
        body = request.get_json(silent=True)
        if not isinstance(body, dict) or not isinstance(body.get("text"), str):
            return jsonify(error='expected JSON {"text": "..."} with the deal text',
                           field=None), 400
        try:
            return jsonify(deals=parse_pasted(body["text"]))
        except KrakenError as e:
            return fail(e)

    return app


def _over_check(q: Query):
    """None; raises KrakenError when the deal is over (no card left to value)."""
    if len(q.played) == 4 * q.deal.size:
        raise KrakenError("the deal is over: no card left to play", source="play")
    return None
