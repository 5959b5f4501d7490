"""Play against the computer on the board (``/play``): the user takes one seat, bots the other
three.  The game lives on the server; the page only ever receives what the user's seat may
know (RULES.md rules 3, 6, 12-17: its own hand, the cards played and who played them, trump,
the first player, the hand roem declared, the score sheet so far), and the whole deal only once
the last card is played.

Every bot card comes from :func:`kraken_solver.bots.bot_card`, the move of the one loop that
:func:`~kraken_solver.bots.play_deal` plays with, and every bot trump from
:func:`~kraken_solver.bots.choose_trump`; a bot sees only its seat's view (a
:class:`~kraken_solver.bots.SeatView`), never the other hands.  So a game is the deal
:func:`~kraken_solver.bots.choose_and_play` plays with the same seed when the user plays the
cards the loop would.

Endpoints (POSTs take a JSON object, ``client`` is the page's id: letters, digits, ``-`` and
``_``, at most 64; every answer of a game is its :meth:`Game.view`):

- ``POST /api/play/new`` ``{client, seat, bots, seed, first, rules, double?, deal?}``: a new
  game; ``seat`` the user's (N E S W), ``bots`` the three other seats' specs
  (``N=pimc:20,E=heuristic,W=random``), ``seed`` 0 to 2**63 - 1 (the bots' seed, and the
  deal's without ``deal``: deal 0 of ``seed`` of :mod:`kraken_solver.dealing.seeded`, so the
  same seed deals the same cards), ``deal`` PBN text (the user's own deal: the board passes
  the deal it shows);
- ``GET /api/play/state?game=ID&client=ID``: the game as the user's seat sees it;
- ``POST /api/play/trump`` ``{game, client, trump}``: the user names trump (the user is the
  first player, rule 3);
- ``POST /api/play/card`` ``{game, client, card}``: the user's card, checked legal (rules
  8-9a);
- ``POST /api/play/bot`` ``{game, client}``: the next bot action, trump or one card, one a
  request so that the page shows each card; ``move`` in the answer says what it was;
- ``GET /api/play/hint?game=ID&client=ID&job=NAME``: the user's player's-view hint, built from
  the game on the server and solved by the board's hint jobs
  (:meth:`~kraken_solver.view.session.BoardSolver.hint`: ``/api/hint/progress`` and
  ``/api/hint/cancel`` with the same ``job`` and ``client``; cancelled when the page goes).

The games are kept in memory (:data:`MAX_GAMES`, the least recently used dropped first; at most
:data:`MAX_GAMES_A_CLIENT` a page, its own oldest dropped first); a game id (``secrets``) belongs
to the client that made it.  Bad words get status 400 and one line
naming the field, another client's game 403, a game the server no longer has 404 with
``"gone": true``, a bot that fails (BotError) 400.  Bot moves run one at a time behind one lock
(a bot keeps its searchers between moves and is not thread-safe), with at most
:data:`MAX_PLAY_WAITERS` requests waiting for it or for their game (each holds a server thread):
past them 503 with ``Retry-After`` at once, and the page asks again; a move is bounded: ``pimc:N``
takes N up to :data:`MAX_PLAY_LAYOUTS` layouts (pimc:200 at the first lead: median 2.6 s, p95
4.8 s on one core of a shared machine, ``python benchmarks/bots.py --deals 10 --layouts 200``;
the later moves much less, the worlds' tables kept from move to move).
"""

from __future__ import annotations

import contextlib
import re
import secrets
import threading
import time
from collections import OrderedDict
from urllib.parse import urlencode

from ..errors import BotSpecError, KrakenError
from ..game.cards import SEATS, SUITS, card_str, parse_card, parse_seat, parse_suit
from ..limits import MAX_SEED
from .query import Query, query_params, query_word, read_query, rules_words

__all__ = ["MAX_GAMES", "MAX_GAMES_A_CLIENT", "MAX_PLAY_LAYOUTS", "GameGone", "NotYourGame",
           "PlayTable", "read_bots", "register_play"]

#: the most layouts a ``pimc:N`` bot of the board draws a move (a move of pimc:200 at the
#: first lead: median 2.6 s on one core of a shared machine, module docstring)
MAX_PLAY_LAYOUTS = 200
#: the bot of a seat the request names none for (``bots`` not given), as the page's form
DEFAULT_PLAY_BOT = "pimc:20"
#: bots kept between moves (each with its searchers)
BOTS_KEPT = 12
#: the most worlds the kept ``pimc:N`` bots hold a search table for, all bots together (about
#: 155 KB a world: 1,200 is about 190 MB; without it, 12 games of pimc:200 bots at three
#: seats each held 1.1 GB); beyond it the least recently used bots are dropped
MAX_KEPT_WORLDS = 1200
#: games kept by the server (each a few hundred bytes; the least recently used is dropped)
MAX_GAMES = 64
#: games kept for one page (client id): its ninth game drops its own least recently used one,
#: so that one page cannot push the other pages' games out of the store
MAX_GAMES_A_CLIENT = 8
#: how long a move waits for the bots while another move runs, in seconds
PLAY_LOCK_WAIT_S = 120.0
#: the requests that may wait at once for a game's move or the bots (each holds one of the
#: server's 16 threads while it waits); past them a request is answered 503 with
#: ``Retry-After`` at once (a flood of bot moves held every thread: /api/info took 14.5 s)
MAX_PLAY_WAITERS = 4
#: the keys of each POST's JSON body
NEW_KEYS = ("client", "seat", "bots", "seed", "first", "rules", "double", "deal")
CARD_KEYS = ("game", "client", "card")
TRUMP_KEYS = ("game", "client", "trump")
BOT_KEYS = ("game", "client")



@contextlib.contextmanager
def held(lock, wait: float, busy: str, waiters=None):
    """Hold ``lock`` for the block, waiting at most ``wait`` seconds for it; raises BusyError
    (``busy`` and the wait, "try again") when it stays taken.  ``waiters``: a
    ``threading.BoundedSemaphore`` of the requests that may wait at once (each holds one of
    the server's threads); when none is left, BusyError at once instead of waiting."""
    from .session import BusyError
    if not lock.acquire(blocking=False):
        if waiters is not None and not waiters.acquire(blocking=False):
            raise BusyError(f"{busy}, and {MAX_PLAY_WAITERS} other requests wait for it "
                            "already; try again")
        try:
            taken = lock.acquire(timeout=wait)
        finally:
            if waiters is not None:
                waiters.release()
        if not taken:
            raise BusyError(f"{busy} (waited {wait:.0f} s); try again")
    try:
        yield
    finally:
        lock.release()

class GameGone(KrakenError):
    """A game id the server does not have (never made, dropped, or the server restarted):
    status 404."""


class NotYourGame(KrakenError):
    """A game of another client (page): status 403."""


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
    if words is None:               # not given: the form's default, pimc:20 at every seat
        words = ",".join(f"{SEATS[s]}={DEFAULT_PLAY_BOT}" for s in range(4) if s != user)
    if not words.strip():
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
        layouts = re.fullmatch(r"pimc:(\d{1,12})", spec)
        if layouts and not 1 <= int(layouts.group(1)) <= MAX_PLAY_LAYOUTS:
            raise KrakenError(f"pimc:N on the board takes N from 1 to {MAX_PLAY_LAYOUTS}",
                              source="bots", token=spec)
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
    seed_text = query_word(params, "seed")
    seed_text = "0" if seed_text is None else seed_text.strip()
    if not seed_text.isascii() or not seed_text.isdigit() or len(seed_text) > 19 or \
            int(seed_text) > MAX_SEED:
        raise KrakenError(f"expected a seed, a whole number from 0 to {MAX_SEED}",
                          source="seed", token=seed_text)
    return user, bots, int(seed_text)


def json_type(value) -> str:
    """What a JSON value is, in JSON's words (for a message)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return f"the number {value!r}"[:40]
    return {dict: "an object", list: "a list", str: "text"}.get(type(value), "null")


def body_words(body: dict) -> dict:
    """The values of a POST's JSON object as the text words the readers take: each a string
    (``seed`` may be a whole number; ``null`` is a key not given), at most the query's bound;
    raises KrakenError naming the key otherwise."""
    out = {}
    for key, value in body.items():
        if key == "seed" and isinstance(value, int) and not isinstance(value, bool):
            value = str(value)
        if value is None:
            continue
        if key == "seed" and not isinstance(value, str):
            raise KrakenError(f"expected a seed, a whole number from 0 to {MAX_SEED} (a JSON "
                              f"number or text), got {json_type(value)}", source=key)
        if not isinstance(value, str):
            raise KrakenError(f"expected text (a JSON string), got {json_type(value)}",
                              source=key)
        out[key] = value
        query_word(out, key)            # bounded: at most MAX_PARAM_CHARS characters
    return out


def id_word(words: dict, name: str) -> str:
    """The id ``name`` (``game``, ``client``, ``job``) of ``words``: letters, digits, ``-`` and
    ``_``, 1 to 64 of them; raises KrakenError located in it."""
    from .session import _JOB_NAME
    value = query_word(words, name)
    if not value:
        raise KrakenError(f"no {name} given", source=name)
    if not _JOB_NAME.fullmatch(value):
        raise KrakenError("expected an id of letters, digits, - and _ (at most 64)",
                          source=name, token=value)
    return value


class Game:
    """One game against the computer: its ``id``, the ``client`` it belongs to, the user's
    ``seat`` (0..3), ``bots`` ({seat: spec} of the other seats), ``seed``, the ``deal``
    (:class:`~kraken_solver.game.deal.Deal`), ``first`` (0..3, the chooser, rule 3),
    ``rules``, ``dealt`` (``"seed"``: deal 0 of ``seed``; ``"given"``) and ``line``, the
    (trump or None, cards played) pair, replaced as a whole at each move."""

    def __init__(self, gid, client, seat, bots, seed, query: Query, dealt: str):
        self.id, self.client, self.seat, self.bots, self.seed = gid, client, seat, bots, seed
        self.deal, self.first, self.rules = query.deal, query.first, query.rules
        self.dealt = dealt
        from ..bots import bot_label, make_bot
        self.labels = {SEATS[s]: bot_label(make_bot(b)) for s, b in sorted(bots.items())}
        self.line: tuple = (None, ())
        self.lock = threading.Lock()

    def query(self) -> Query:
        trump, played = self.line
        return Query(self.deal, trump, self.first, self.rules, played)

    def options(self) -> dict:
        """The table's options, as ``/api/play/new`` reads them (without the deal)."""
        name, double = rules_words(self.rules)
        return {"seat": SEATS[self.seat], "seed": str(self.seed), "first": SEATS[self.first],
                "rules": name, "double": str(double),
                "bots": ",".join(f"{SEATS[s]}={b}" for s, b in sorted(self.bots.items()))}

    def view(self) -> dict:
        """What the user's seat may know (module docstring), JSON-ready.

        ``game``, ``options`` (:meth:`options`), ``seat``, ``bots`` ({seat: spec}), ``labels``
        ({seat: the name shown; ``dd`` says it cheats}), ``dealt`` (``seed`` or ``given``),
        ``trump`` (None until named), ``first``, ``chooser``, ``rules``, ``double``,
        ``rules_name``, ``playing_team``, ``defenders`` (``"N-S"``/``"E-W"``),
        ``cards_a_hand``, ``phase`` (``"trump"``, ``"play"``, ``"over"``), ``to_move`` (the
        seat to act: the chooser before trump; None at the end), ``your_turn``, ``hand`` (the
        user's cards left, by suit then power), ``your_melds`` (the user's own melds, as the
        board lists them), ``counts`` ({seat: cards left}), ``played`` ([{seat, card}] in
        play order), ``trick`` ({leader, cards: [{seat, card}]}: the trick on the table),
        ``tricks`` (the tricks done: number, leader, cards, winner, points, roem), ``legal``
        (the user's legal cards on their turn, else empty), ``sheet`` (the score sheet so far:
        :func:`~kraken_solver.view.board.state_of`'s, points, the playing team's side; hand
        roem as declared, rule 17), and once over ``deal`` (PBN), ``hands`` ({seat: the hand
        as dealt}) and ``review`` ({``board``, ``player``}: the board's addresses of the deal
        with its play, double dummy and each player's view).  Before the end no card of
        another hand is in it."""
        from .board import melds_of, state_of, team_name

        q = self.query()
        st = state_of(q)
        trump = q.trump
        over = bool(st["over"])
        phase = "trump" if trump is None else "over" if over else "play"
        to_move = SEATS[self.first] if trump is None else st["to_move"]
        who = []
        for t in st["tricks"]:
            li = SEATS.index(t["leader"])
            who.extend(SEATS[(li + i) % 4] for i in range(len(t["cards"])))
        li = SEATS.index(st["trick"]["leader"])
        who.extend(SEATS[(li + i) % 4] for i in range(len(st["trick"]["cards"])))
        played = [{"seat": s, "card": c} for s, c in zip(who, st["played"])]
        left = len(st["played"]) - len(st["trick"]["cards"])
        mine = SEATS[self.seat]
        your_turn = not over and to_move == mine
        out = {
            "game": self.id, "options": self.options(), "seat": mine,
            "bots": {SEATS[s]: b for s, b in sorted(self.bots.items())},
            "labels": dict(self.labels),
            "dealt": self.dealt, "trump": st["trump"], "first": st["first"],
            "chooser": SEATS[self.first], "rules": st["rules"], "double": st["double"],
            "rules_name": st["rules_name"], "playing_team": team_name(self.first),
            "defenders": team_name(self.first + 1), "cards_a_hand": st["cards_a_hand"],
            "phase": phase, "to_move": to_move, "your_turn": your_turn,
            "hand": st["hands"][mine],
            "your_melds": [m for m in melds_of(q.deal, trump, self.first, q.rules)
                           if m["seat"] == mine] if trump is not None else [],
            "counts": {s: len(st["hands"][s]) for s in SEATS},
            "played": played,
            "trick": {"leader": st["trick"]["leader"], "cards": played[left:]},
            "tricks": st["tricks"],
            "legal": st["legal"] if your_turn and trump is not None else [],
            "sheet": st["sheet"],
        }
        if over:
            out.update(deal=st["deal"], hands=st["dealt"], review=review_links(q))
        return out


@contextlib.contextmanager
def _bot_failure(seat: int, bot):
    """A BotError of the bot at ``seat`` as one line that names the bot and the seat only:
    the loop's message names the whole deal and the bot's legal cards, which the user may not
    see before the end."""
    from ..bots import bot_label
    from ..errors import BotError
    try:
        yield
    except BotError:
        raise BotError(f"the bot at {SEATS[seat]} ({bot_label(bot)}) failed on this move; "
                       "start a new game", source="game") from None


def review_links(q: Query) -> dict:
    """The board's addresses of the played deal ``q``: double dummy (``board``) and each
    player's view (``player``)."""
    words = urlencode(query_params(q))
    return {"board": "/?" + words, "player": "/?" + words + "&view=player"}


class PlayTable:
    """The games of one server process (:data:`MAX_GAMES`, least recently used dropped) and
    the bots that play them, made from their specs and seeds and kept between moves
    (:data:`BOTS_KEPT`), behind one lock."""

    def __init__(self, lock_wait: float = PLAY_LOCK_WAIT_S, max_games: int = MAX_GAMES):
        self.lock = threading.Lock()            # the bots
        self.lock_wait = lock_wait
        self.waiters = threading.BoundedSemaphore(MAX_PLAY_WAITERS)
        self.bots: OrderedDict = OrderedDict()
        self.games: OrderedDict = OrderedDict()
        self.games_lock = threading.Lock()      # the store (held for a look-up only)
        self.max_games = max_games

    # ---------------------------------------------------------------- the store
    def new(self, body: dict) -> dict:
        """A new game from the JSON object of ``POST /api/play/new`` (module docstring)."""
        from ..dealing.seeded import generate_deals

        words = body_words(body)
        client = id_word(words, "client")
        user, bots, seed = read_bots(words)
        position = {k: words[k] for k in ("first", "rules", "double") if k in words}
        dealt = "given" if words.get("deal", "").strip() else "seed"
        deal = words["deal"] if dealt == "given" else str(generate_deals(seed, 0, 1)[0])
        q = read_query(dict(position, deal=deal))
        game = Game(secrets.token_urlsafe(12), client, user, bots, seed, q, dealt)
        with self.games_lock:
            own = [g for g, kept in self.games.items() if kept.client == client]
            for g in own[:max(0, len(own) - MAX_GAMES_A_CLIENT + 1)]:
                del self.games[g]
            self.games[game.id] = game
            while len(self.games) > self.max_games:
                self.games.popitem(last=False)
        return game.view()

    def game(self, words: dict) -> Game:
        """The game named by ``words["game"]`` of client ``words["client"]``; raises
        GameGone (404) or NotYourGame (403)."""
        gid = id_word(words, "game")
        client = id_word(words, "client")
        with self.games_lock:
            game = self.games.get(gid)
            if game is not None:
                self.games.move_to_end(gid)
        if game is None:
            raise GameGone("this game is not on the server any more (it was dropped, or the "
                           "server restarted): start a new game", source="game", token=gid)
        if game.client != client:
            raise NotYourGame("this game belongs to another page: start a new game",
                              source="client", token=client)
        return game

    def state(self, params) -> dict:
        """``GET /api/play/state``: the game's :meth:`Game.view`."""
        return self.game(params).view()

    def _move(self, game: Game):
        """The game's lock (one move of a game at a time)."""
        return held(game.lock, self.lock_wait, "this game is busy with another move",
                    self.waiters)

    # ----------------------------------------------------------------- the user
    def trump(self, body: dict) -> dict:
        """``POST /api/play/trump``: the user names trump (module docstring)."""
        words = body_words(body)
        game = self.game(words)
        text = query_word(words, "trump") or ""
        try:
            suit = parse_suit(text)
        except KrakenError:
            raise KrakenError("expected a trump suit S, H, D or C", source="trump",
                              token=text) from None
        with self._move(game):
            trump, _ = game.line
            if trump is not None:
                raise KrakenError(f"trump is named already ({SUITS[trump]})", source="trump")
            if game.first != game.seat:
                raise KrakenError(f"{SEATS[game.first]} is the first player and names trump, "
                                  "not you", source="trump")
            game.line = (suit, ())
        return game.view()

    def card(self, body: dict) -> dict:
        """``POST /api/play/card``: the user's card, checked legal (rules 8-9a)."""
        words = body_words(body)
        game = self.game(words)
        text = query_word(words, "card") or ""
        try:
            card = parse_card(text)
        except KrakenError as e:
            raise KrakenError(e.message, source="card", token=text) from None
        with self._move(game):
            pos = self._position(game)
            if pos.to_move != game.seat:
                raise KrakenError(f"it is not your turn: {SEATS[pos.to_move]} is to play",
                                  source="card", token=card_str(card))
            legal = pos.legal()
            if card not in legal:
                raise KrakenError(f"not a legal card now; yours: "
                                  f"{' '.join(card_str(c) for c in legal)}",
                                  source="card", token=card_str(card))
            trump, played = game.line
            game.line = (trump, played + (card,))
        return game.view()

    @staticmethod
    def _position(game: Game):
        """The game's position, trump named and not over; raises KrakenError otherwise."""
        trump, _ = game.line
        if trump is None:
            raise KrakenError("trump is not named yet", source="trump")
        pos = game.query().position()
        if pos.over:
            raise KrakenError("the deal is over: no card left to play; start a new game",
                              source="game")
        return pos

    # ----------------------------------------------------------------- the bots
    def _bot(self, spec: str, seed: int):
        from ..bots import make_bot
        key = (spec, seed)
        bot = self.bots.get(key)
        if bot is None:
            bot = self.bots[key] = make_bot(spec, seed=seed)
            while len(self.bots) > BOTS_KEPT:
                self.bots.popitem(last=False)
        self.bots.move_to_end(key)
        self._trim_bots()
        return bot

    def _trim_bots(self) -> None:
        """Drop the least recently used bots while the kept worlds of all the bots exceed
        :data:`MAX_KEPT_WORLDS`; the last one used forgets its worlds when it alone holds too
        many (its next move draws them again: the same card, more work)."""
        def kept(b):
            return getattr(b, "kept_worlds", lambda: 0)()
        while len(self.bots) > 1 and sum(kept(b) for b in self.bots.values()) > MAX_KEPT_WORLDS:
            self.bots.popitem(last=False)
        last = next(reversed(self.bots), None)
        if last is not None and kept(self.bots[last]) > MAX_KEPT_WORLDS:
            self.bots[last].forget()

    def _locked(self):
        return held(self.lock, self.lock_wait, "the bots are busy with another move",
                    self.waiters)

    def bot(self, body: dict) -> dict:
        """``POST /api/play/bot``: the next bot action, trump (the chooser a bot, through
        :func:`~kraken_solver.bots.choose_trump`) or one card (through
        :func:`~kraken_solver.bots.bot_card`, the one loop's move), bounded by
        :data:`MAX_PLAY_LAYOUTS` layouts for ``pimc:N`` (pimc:200 at the first lead: median
        2.6 s on one core of a shared machine, module docstring).  The answer is the game's
        view with ``move``: ``{"seat", "card"`` or ``"trump", "bot", "label", "ms"}``."""
        from ..bots import bot_card, bot_label, choose_trump

        words = body_words(body)
        game = self.game(words)
        with self._move(game):
            trump, played = game.line
            if trump is None:
                if game.first == game.seat:
                    raise KrakenError(f"you are the first player ({SEATS[game.seat]}): you "
                                      "name trump", source="game")
                seat = game.first
                with self._locked():
                    bot = self._bot(game.bots[seat], game.seed)
                    t0 = time.perf_counter()
                    with _bot_failure(seat, bot):
                        named = choose_trump(game.deal, seat, seat, bot, seed=game.seed,
                                             rules=game.rules)
                    ms = 1000.0 * (time.perf_counter() - t0)
                game.line = (parse_suit(named), ())
                move = {"seat": SEATS[seat], "trump": named}
            else:
                pos = self._position(game)
                seat = pos.to_move
                if seat == game.seat:
                    raise KrakenError(f"it is your turn ({SEATS[seat]} to play): no bot moves",
                                      source="game")
                with self._locked():
                    bot = self._bot(game.bots[seat], game.seed)
                    t0 = time.perf_counter()
                    with _bot_failure(seat, bot):
                        card, _ = bot_card(pos, game.deal, bot)
                    ms = 1000.0 * (time.perf_counter() - t0)
                    self._trim_bots()
                game.line = (trump, played + (card,))
                move = {"seat": SEATS[seat], "card": card_str(card)}
        move.update(bot=game.bots[seat], label=bot_label(bot), ms=round(ms, 1))
        return dict(game.view(), move=move)

    # ------------------------------------------------------------------ the hint
    def hint_query(self, params) -> Query:
        """The position of the game named in ``params`` for the user's hint; raises
        KrakenError when it is not the user's turn to play a card."""
        game = self.game(params)
        pos = self._position(game)
        if pos.to_move != game.seat:
            raise KrakenError(f"the hint is for your turn: {SEATS[pos.to_move]} is to play",
                              source="game")
        return game.query()


def register_play(app, fail, json_body, solver, table: PlayTable | None = None) -> PlayTable:
    """Add ``/play`` (the page) and the endpoints of the module docstring to the Flask
    ``app``; ``fail(err)`` turns a KrakenError into the app's error response, ``json_body(
    expected, keys)`` reads a POST's JSON object, ``solver`` is the board's
    :class:`~kraken_solver.view.session.BoardSolver` (the hint)."""
    from importlib import resources

    from flask import Response, jsonify, request

    from .query import error_json

    table = table or PlayTable()
    app.extensions["kraken_play"] = table

    @app.get("/play")
    def play_page():
        html = (resources.files(__package__) / "web" / "play.html").read_text("utf-8")
        return Response(html, mimetype="text/html")

    def answer(fn, keys=None, expected=""):
        try:
            if keys is None:
                return jsonify(fn(request.args))
            return jsonify(fn(json_body(expected, keys)))
        except GameGone as e:
            return jsonify(dict(error_json(e), gone=True)), 404
        except NotYourGame as e:
            return jsonify(error_json(e)), 403
        except KrakenError as e:
            return fail(e)

    @app.post("/api/play/new")
    def play_new():
        return answer(table.new, NEW_KEYS, 'expected JSON {"client": ID, "seat": "S", '
                      '"bots": "N=..,E=..,W=..", "seed": N, "first", "rules", "deal"?}')

    @app.get("/api/play/state")
    def play_state():
        return answer(table.state)

    @app.post("/api/play/trump")
    def play_trump():
        return answer(table.trump, TRUMP_KEYS,
                      'expected JSON {"game": ID, "client": ID, "trump": "S"}')

    @app.post("/api/play/card")
    def play_card():
        return answer(table.card, CARD_KEYS,
                      'expected JSON {"game": ID, "client": ID, "card": "HK"}')

    @app.post("/api/play/bot")
    def play_bot():
        return answer(table.bot, BOT_KEYS, 'expected JSON {"game": ID, "client": ID}')

    @app.get("/api/play/hint")
    def play_hint():
        gone = request.environ.get("waitress.client_disconnected")

        def run(params):
            q = table.hint_query(params)
            job = id_word(params, "job") if query_word(params, "job") else None
            return solver.hint(q, "score", job=job, client=id_word(params, "client"),
                               gone=gone)
        return answer(run)

    return table
