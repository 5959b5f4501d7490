"""The HTTP app of ``kraken-view``: a small JSON API over the board's session, and its page.

The page (``kraken_solver/view/web/``: plain HTML, CSS and JavaScript, no build step, nothing
fetched from the network) draws the four hands, the trick on the table and the score sheet,
and asks this API for what only the solver knows.  Endpoints (GET unless said):
``/api/info`` (the deals of the file, whether the player's-view hint is available),
``/api/state`` (hands, trick, legal cards, score sheet: no search,
:mod:`kraken_solver.view.board`), ``/api/values`` (the value of every legal card, best
cards), ``/api/trumps`` (the trump table of the fresh deal), ``/api/line`` (a principal
variation from the position), ``/api/hint`` (the player's-view hint of the player to move;
the words ``samples``, ``job`` and ``client`` besides the position's),
``/api/hint/progress?job=NAME&client=ID`` (layouts solved of how many), POST
``/api/hint/cancel`` (``{"job": NAME, "client": ID}``: stop it), POST ``/api/parse``
(pasted deal-file text -> its deals), and the game against the computer: the page ``/play``,
``/api/play/state`` and ``/api/play/hint``, POST ``/api/play/new``, ``/api/play/trump``,
``/api/play/card`` and ``/api/play/bot`` (:mod:`kraken_solver.view.play`: the game lives on the
server, the page gets only what the user's seat may know).  The position's
words are :mod:`kraken_solver.view.query`'s.  Every error is ``{"error": "...", "field":
"..."}``: bad input 400, a refused caller 403 (:mod:`kraken_solver.view.guard`: checked before
every route, so a new endpoint is covered; another page's game too), no such page 404 (and a
game the server no longer has, with ``"gone": true``), too large 413, a hint that was
cancelled, replaced or abandoned 409 with ``"cancelled": true``, full hint lanes 503 with
``Retry-After`` (:mod:`kraken_solver.view.hints`), a bug 500.  Values are in
points, from the playing team's side (RULES.md §8).
"""

from __future__ import annotations

import json
from importlib import resources

from ..errors import KrakenError
from ..game.rules import PRESETS
from .board import state_of
from .guard import refusal
from .hints import RETRY_AFTER_S
from .page import MAX_DEALS, MAX_PASTE_CHARS, page_html, parse_pasted
from .play import register_play
from .query import (ENDPOINT_WORDS, Query, check_words, error_json, objective_word, query_word,
                    read_query)
from .session import (_JOB_NAME, MAX_VIEW_SAMPLES, BoardSolver, BusyError, HintCancelled,
                      hint_available)

__all__ = ["create_app"]


# ------------------------------------------------------------------------ JSON bodies
#: the most digits a whole number of a JSON body may have (a seed has at most 19)
MAX_JSON_DIGITS = 40


class _LongNumber(ValueError):
    def __init__(self, digits):
        super().__init__(digits)
        self.digits = digits


def _short_int(text: str) -> int:
    """``json.loads``'s reader of whole numbers, bounded (:data:`MAX_JSON_DIGITS`)."""
    if len(text.lstrip("-")) > MAX_JSON_DIGITS:
        raise _LongNumber(len(text.lstrip("-")))
    return int(text)


class _KeyTwice(ValueError):
    def __init__(self, key):
        super().__init__(key)
        self.key = key


def _once_each(pairs):
    """``json.loads``'s object hook: a JSON object whose keys are all different (JSON
    parsers disagree on a key given twice: the last one, the first, or an error)."""
    out = {}
    for k, v in pairs:
        if k in out:
            raise _KeyTwice(k)
        out[k] = v
    return out


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
    from werkzeug.exceptions import HTTPException, RequestEntityTooLarge

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
    def gate():
        """The one check of every request before its route: who asks (guard.refusal), then
        on /api/ the query words the endpoint reads."""
        if port_check:
            why = refusal(request.environ)
            if why is not None:
                return jsonify(error=why, field=None), 403
        if request.path in ENDPOINT_WORDS:      # any other path is 404, whatever its query
            try:
                check_words(request.args, request.path)
            except KrakenError as e:
                return fail(e)
        return None

    def fail(err: KrakenError):
        if isinstance(err, HintCancelled):
            return jsonify(dict(error_json(err), cancelled=True)), 409
        if isinstance(err, BusyError):
            return jsonify(error_json(err)), 503, {"Retry-After": str(RETRY_AFTER_S)}
        return jsonify(error_json(err)), 400

    @app.errorhandler(HTTPException)
    def http_error(e):
        """Every refusal of Flask's own (404, 405, 413, a body that is not JSON...) in JSON."""
        if e.code == 404:
            text = f"no such page: {request.path}"
        elif e.code == 405:
            text = f"{request.method} is not accepted here"
        elif e.code == 413:
            text = (f"the request is too large: the pasted text may hold at most "
                    f"{MAX_PASTE_CHARS // 1024} KiB")
        else:
            text = f"{e.code} {e.name}".lower()
        out = jsonify(error=text, field=None)
        out.status_code = e.code or 500
        return out

    @app.errorhandler(Exception)
    def internal_error(e):
        """A bug: one line on the log and a JSON 500, never a traceback or an HTML page."""
        if isinstance(e, HTTPException):
            return http_error(e)
        if log is not None:
            log(f"internal error at {request.path}: {type(e).__name__}: {str(e)[:200]}")
        return jsonify(error=f"internal error: {type(e).__name__}", field=None), 500

    def json_body(expected: str, keys: tuple) -> dict:
        """The request's body: a JSON object whose keys are among ``keys``; raises
        KrakenError ``expected`` otherwise (not JSON, nested too deep, another key) and
        RequestEntityTooLarge (413) for a body over the limit, chunked or not."""
        if request.content_length is not None and \
                request.content_length > app.config["MAX_CONTENT_LENGTH"]:
            raise RequestEntityTooLarge()
        limit, data = app.config["MAX_CONTENT_LENGTH"], b""
        while chunk := request.stream.read(64 * 1024):     # a chunked body: 413 past the
            data += chunk                                   # limit (werkzeug's stream)
            if len(data) > limit:
                raise RequestEntityTooLarge()
        try:
            body = json.loads(data.decode("utf-8"), object_pairs_hook=_once_each,
                              parse_int=_short_int)
        except _KeyTwice as e:                  # {"client": "a", "client": "b"}
            raise KrakenError(f"{expected}; a key given twice", source="body",
                              token=e.key) from None
        except _LongNumber as e:                # Python refuses ints past 4,300 digits
            raise KrakenError(f"{expected}; a number of {e.digits:,} digits (at most "
                              f"{MAX_JSON_DIGITS})", source="body") from None
        except (ValueError, RecursionError):    # RecursionError: [[[[... 100,000 deep
            raise KrakenError(expected) from None
        if not isinstance(body, dict):
            raise KrakenError(expected)
        for k in body:
            if k not in keys:
                raise KrakenError(f"{expected}; unknown key", source="body", token=k)
        return body

    @app.get("/")
    def index():
        return Response(page_html(), mimetype="text/html")

    @app.get("/api/info")
    def info():
        from .. import __version__
        return jsonify(version=__version__, source=source, deals=entries, hint=hint_ok,
                       presets=list(PRESETS), limits={"deals": MAX_DEALS,
                                                      "paste_chars": MAX_PASTE_CHARS,
                                                      "hint_samples": MAX_VIEW_SAMPLES})

    def with_query(fn, need_trump=True):
        try:
            q = read_query(request.args, need_trump=need_trump)
            objective = objective_word(request.args.get("objective", "score"))
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
        return with_query(lambda q, o: _over_check(q) or solver.line(q, o))

    def job_word(name: str):
        value = query_word(request.args, name)
        if value is None or value == "":
            return None
        if not _JOB_NAME.fullmatch(value):
            raise KrakenError("expected a name of letters, digits, - and _ (at most 64)",
                              source=name, token=value)
        return value

    @app.get("/api/hint")
    def hint():
        gone = request.environ.get("waitress.client_disconnected")

        def run(q, o):
            _over_check(q)
            return solver.hint(q, o, samples=query_word(request.args, "samples"),
                               job=job_word("job"), client=job_word("client"), gone=gone)
        return with_query(run)

    @app.get("/api/hint/progress")
    def hint_progress():
        try:
            name = job_word("job")
            if name is None:
                raise KrakenError("no job given", source="job")
            return jsonify(solver.hint_progress(name, job_word("client")))
        except KrakenError as e:
            return fail(e)

    @app.post("/api/hint/cancel")
    def hint_cancel():
        expected = 'expected JSON {"job": "NAME", "client": "ID"} naming the hint to cancel'
        try:
            body = json_body(expected, ("job", "client"))
            name, client = body.get("job"), body.get("client")
            for word, value in (("job", name), ("client", client)):
                if not (isinstance(value, str) and _JOB_NAME.fullmatch(value)):
                    raise KrakenError(expected, source=word)
        except KrakenError as e:
            return fail(e)
        return jsonify(solver.cancel_hint(name, client))

    @app.post("/api/parse")
    def parse():
        try:
            body = json_body('expected JSON {"text": "..."} with the deal text', ("text",))
            if not isinstance(body.get("text"), str):
                raise KrakenError('expected JSON {"text": "..."} with the deal text')
            return jsonify(deals=parse_pasted(body["text"]))
        except KrakenError as e:
            return fail(e)

    # /play and /api/play/...: the game against the computer
    register_play(app, fail, json_body, solver)
    return app


def _over_check(q: Query):
    """None; raises KrakenError when the deal is over (no card left to value)."""
    if len(q.played) == 4 * q.deal.size:
        raise KrakenError("the deal is over: no card left to play", source="play")
    return None
