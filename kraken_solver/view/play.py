"""Play against the computer on the board (``/play``): the user takes one seat, bots the other
three; every bot card comes from :func:`kraken_solver.bots.bot_card`, the move of the one loop
that :func:`~kraken_solver.bots.play_deal` plays with, and every bot trump from
:func:`~kraken_solver.bots.choose_trump`.

The page keeps the game in its address (the position's words of
:mod:`kraken_solver.view.query` and ``seat``, ``bots``, ``seed``) and asks, one bot move at a
time:

- ``GET /api/play/move``: the position (trump given, not over, a bot's seat to move), ``seat``
  (the user's, N E S W), ``bots`` (the three other seats' specs: ``N=pimc:20,E=heuristic,...``)
  and ``seed`` (0 to 2**63 - 1) -> ``{"seat", "card", "bot", "label", "ms"}``;
- ``GET /api/play/trump``: the same without trump and play, the chooser (the first player,
  RULES.md rule 3) a bot -> ``{"seat", "trump", "bot", "ms"}``.

A bot sees only its seat's view (a :class:`~kraken_solver.bots.SeatView`: its hand, the cards
played, trump, first player, rules and the roem declared), never the other hands; the page's
moves are not needed to make it (the bot is a function of its seed and its view), so a game is
the deal :func:`~kraken_solver.bots.play_deal` plays with the same seed when the user plays
the cards the loop would.  Bot moves run in the request's thread, one at a time behind a lock
(a bot keeps its searchers between moves and is not thread-safe), bounded by
:data:`MAX_PLAY_LAYOUTS` layouts a move for ``pimc:N``; bad words get status 400 and one line,
a bot that fails (BotError) too.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections import OrderedDict

from ..errors import BotSpecError, KrakenError
from ..game.cards import SEATS, card_str, parse_seat
from ..limits import MAX_SEED
from .query import query_word, read_query

__all__ = ["MAX_PLAY_LAYOUTS", "PlayTable", "read_bots", "register_play"]

#: the most layouts a ``pimc:N`` bot of the board draws a move (a move of pimc:200 at the
#: first lead: about 0.6 s on one core)
MAX_PLAY_LAYOUTS = 200
#: bots kept between moves (each with its searchers)
BOTS_KEPT = 12
#: how long a move waits for the bots while another move runs, in seconds
PLAY_LOCK_WAIT_S = 120.0


def read_bots(params) -> tuple[int, dict, int]:
    """(the user's seat 0..3, {seat: bot spec} of the three other seats, seed) from the words
    ``seat``, ``bots`` and ``seed``.  Raises KrakenError located in the word: a bad seat, a
    seat given twice or missing, the user's seat among the bots, an unknown bot or one out of
    range (``pimc:N``: 1 to :data:`MAX_PLAY_LAYOUTS` here), a trump-only bot, a bad seed."""
    from ..bots import make_bot

    text = query_word(params, "seat") or "S"
    try:
        user = parse_seat(text)
    except KrakenError:
        raise KrakenError("expected your seat N, E, S or W", source="seat", token=text) \
            from None
    words = query_word(params, "bots")
    if not words:
        raise KrakenError("expected the three bots, e.g. N=pimc:20,E=pimc:20,W=pimc:20",
                          source="bots")
    bots = {}
    for item in (w.strip() for w in words.split(",")):
        seat_text, eq, spec = item.partition("=")
        try:
            seat = parse_seat(seat_text.strip())
        except KrakenError:
            seat = None
        if not eq or seat is None:
            raise KrakenError("expected SEAT=BOT items, e.g. N=pimc:20,E=heuristic,W=random",
                              source="bots", token=item)
        if seat in bots or seat == user:
            what = "given twice" if seat in bots else "is your seat"
            raise KrakenError(f"{SEATS[seat]} {what}: give a bot for each other seat once",
                              source="bots", token=item)
        spec = spec.strip()
        try:
            bot = make_bot(spec)
        except BotSpecError as e:
            raise KrakenError(e.message, source="bots", token=spec) from None
        if not hasattr(bot, "choose_card"):
            raise KrakenError("a bot at the table plays cards: random, heuristic, pimc:N or "
                              "dd", source="bots", token=spec)
        if getattr(bot, "layouts", 0) > MAX_PLAY_LAYOUTS:
            raise KrakenError(f"pimc:N on the board takes N from 1 to {MAX_PLAY_LAYOUTS}",
                              source="bots", token=spec)
        bots[seat] = bot.name
    missing = [SEATS[s] for s in range(4) if s != user and s not in bots]
    if missing:
        raise KrakenError(f"no bot for {', '.join(missing)}: give one for each seat but yours",
                          source="bots", token=words)
    seed_text = query_word(params, "seed") or "0"
    if not seed_text.isascii() or not seed_text.isdigit() or len(seed_text) > 19 or \
            int(seed_text) > MAX_SEED:
        raise KrakenError(f"expected a seed, a whole number from 0 to {MAX_SEED}",
                          source="seed", token=seed_text)
    return user, bots, int(seed_text)


class PlayTable:
    """The bots of one server process, made from their specs and seeds and kept between moves
    (:data:`BOTS_KEPT`), behind one lock."""

    def __init__(self, lock_wait: float = PLAY_LOCK_WAIT_S):
        self.lock = threading.Lock()
        self.lock_wait = lock_wait
        self.bots: OrderedDict = OrderedDict()

    def _bot(self, spec: str, seed: int):
        from ..bots import make_bot
        key = (spec, seed)
        bot = self.bots.get(key)
        if bot is None:
            bot = self.bots[key] = make_bot(spec, seed=seed)
            while len(self.bots) > BOTS_KEPT:
                self.bots.popitem(last=False)
        self.bots.move_to_end(key)
        return bot

    @contextlib.contextmanager
    def _locked(self):
        from .session import BusyError
        if not self.lock.acquire(timeout=self.lock_wait):
            raise BusyError(f"the bots are busy with another move (waited "
                            f"{self.lock_wait:.0f} s); try again")
        try:
            yield
        finally:
            self.lock.release()

    def move(self, params) -> dict:
        """The next bot card of the position in ``params`` (module docstring)."""
        from ..bots import bot_card, bot_label

        q = read_query(params, need_trump=True)
        user, bots, seed = read_bots(params)
        pos = q.position()
        if pos.over:
            raise KrakenError("the deal is over: no card left to play", source="play")
        seat = pos.to_move
        if seat == user:
            raise KrakenError(f"it is your turn ({SEATS[user]} to play): no bot moves",
                              source="play")
        with self._locked():
            bot = self._bot(bots[seat], seed)
            t0 = time.perf_counter()
            card, _ = bot_card(pos, q.deal, bot)
            ms = 1000.0 * (time.perf_counter() - t0)
        return {"seat": SEATS[seat], "card": card_str(card), "bot": bots[seat],
                "label": bot_label(bot), "ms": round(ms, 1)}

    def trump(self, params) -> dict:
        """The trump the chooser's bot names for the deal in ``params`` (module docstring)."""
        from ..bots import choose_trump

        q = read_query(params)
        user, bots, seed = read_bots(params)
        if q.trump is not None or q.played:
            raise KrakenError("trump is chosen before the first card: give no trump and no "
                              "play", source="trump")
        if q.first == user:
            raise KrakenError(f"you are the first player ({SEATS[user]}): you name trump",
                              source="first")
        with self._locked():
            bot = self._bot(bots[q.first], seed)
            t0 = time.perf_counter()
            trump = choose_trump(q.deal, q.first, q.first, bot, seed=seed, rules=q.rules)
            ms = 1000.0 * (time.perf_counter() - t0)
        return {"seat": SEATS[q.first], "trump": trump, "bot": bots[q.first],
                "ms": round(ms, 1)}




def register_play(app, fail, table: PlayTable | None = None) -> PlayTable:
    """Add ``/play`` (the page) and the endpoints of the module docstring to the Flask
    ``app``; ``fail(err)`` turns a KrakenError into the app's error response."""
    from importlib import resources

    from flask import Response, jsonify, request

    table = table or PlayTable()
    app.extensions["kraken_play"] = table

    @app.get("/play")
    def play_page():
        html = (resources.files(__package__) / "web" / "play.html").read_text("utf-8")
        return Response(html, mimetype="text/html")

    def answer(fn):
        try:
            return jsonify(fn(request.args))
        except KrakenError as e:
            return fail(e)

    @app.get("/api/play/move")
    def play_move():
        return answer(table.move)

    @app.get("/api/play/trump")
    def play_trump():
        return answer(table.trump)

    return table
