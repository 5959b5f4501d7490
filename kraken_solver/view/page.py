"""The board's page: the HTML served, a deal file pasted into it, and the page exported to a file.

:func:`page_html` gives the page from ``kraken_solver/view/web/`` (its script and style
inlined).  :func:`parse_pasted` reads deal-file text pasted into the page (at most
:data:`MAX_PASTE_CHARS` characters, :data:`MAX_DEALS` deals) into the entries the page lists
(:func:`deal_entry`).  :func:`export_page` writes a page that needs no server (``kraken-view
--export``): the deals (at most :data:`MAX_EXPORT_DEALS`) with every value the page shows
solved in advance, written as the user's data (:mod:`kraken_solver.notation.outputs`).
"""

from __future__ import annotations

import dataclasses
import json
from importlib import resources

from ..errors import KrakenError
from ..game.cards import SEATS, SUITS, card_str, parse_card
from ..notation.text import count
from .board import state_of
from .query import Query, query_params, rules_words
from .session import BoardSolver

#: the most characters of pasted deal-file text ``/api/parse`` reads
MAX_PASTE_CHARS = 256 * 1024
#: the most deals a file (or a paste) may give the page's list
MAX_DEALS = 1000
#: the most deals one ``--export`` page holds (each costs a solve of every position on its line)
MAX_EXPORT_DEALS = 100


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
    :func:`~kraken_solver.notation.dealfile.parse_deal_text` reads them; a bare PBN deal is a
    one-line deal) -> :func:`deal_entry` dicts.  Errors are located in ``"the pasted text"``; at
    most
    :data:`MAX_PASTE_CHARS` characters and :data:`MAX_DEALS` deals."""
    from ..notation.dealfile import parse_deal_text
    if not isinstance(text, str):
        raise KrakenError("expected the deal as text", source="the pasted text")
    if len(text) > MAX_PASTE_CHARS:
        raise KrakenError(f"longer than {MAX_PASTE_CHARS // 1024} KiB; "
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
    (:class:`~kraken_solver.notation.dealfile.DealSpec`) and the values along a line of each: the
    cards played (``[Play]``) and then a principal variation by score to the end of the deal.
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
    from .. import __version__
    data = {"version": __version__, "source": source, "deals": deals}
    return page_html(data)
