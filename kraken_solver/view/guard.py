"""Who may drive the board's API: this machine's loopback name, and the page of this server only.

A page of another site, open in the user's own browser, can send requests to
``http://127.0.0.1:PORT/`` (a form, an image, ``fetch`` in ``no-cors`` mode) or reach it through
a DNS name that points here (DNS rebinding).  So every request is refused (403) unless its
``Host`` names this machine's loopback address (``127.0.0.1``, ``localhost``, ``::1``), and so is
the authority of a request line in absolute form (``GET http://HOST/path``, which a client may
send with another ``Host`` header).  On every ``/api/`` request a browser's own word on where
the request comes from is checked too: an ``Origin`` other than this server's (``null``
included) and a ``Sec-Fetch-Site`` other than ``same-origin`` or ``none`` (``cross-site``,
``same-site``: another port of this machine is another site's page) are refused.  A browser
sends ``Origin`` with every cross-origin request and ``Sec-Fetch-Site`` with every request; a
client that is not a browser (curl, the tests) sends neither and is served.

:func:`refusal` is the one check the app makes before any route (:mod:`kraken_solver.view.app`);
new endpoints under ``/api/`` are covered by it without a line of their own.
"""

from __future__ import annotations

from urllib.parse import urlsplit

#: the names of this machine's loopback address that the server answers to
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1")
#: the values of ``Sec-Fetch-Site`` served: the page itself, or the user typing the address
FETCH_SITES_SERVED = ("same-origin", "none")


def host_name(authority: str) -> str:
    """The host of ``host[:port]`` (``[::1]:8000`` -> ``::1``), lower case."""
    authority = authority.strip().lower()
    if authority.startswith("["):
        return authority[1:].split("]", 1)[0]
    return authority.rsplit(":", 1)[0] if authority.count(":") == 1 else authority


def refusal(environ: dict) -> str | None:
    """None when the request of WSGI ``environ`` may be served, else the reason it is refused
    (one line, for a 403): a foreign ``Host``, a foreign authority in the request line, or on
    ``/api/`` a foreign ``Origin`` or a cross-site ``Sec-Fetch-Site`` (module docstring)."""
    host = environ.get("HTTP_HOST") or environ.get("SERVER_NAME") or ""
    if host_name(host) not in LOOPBACK_NAMES:
        return "kraken-view answers on this machine's loopback address only"
    raw = environ.get("REQUEST_URI") or environ.get("RAW_URI") or ""
    if raw and not raw.startswith("/") and raw != "*":
        authority = urlsplit(raw).netloc
        if host_name(authority.rsplit("@", 1)[-1]) not in LOOPBACK_NAMES:
            return "kraken-view answers on this machine's loopback address only"
    if not (environ.get("PATH_INFO") or "").startswith("/api/"):
        return None
    origin = environ.get("HTTP_ORIGIN")
    if origin is not None:
        parts = urlsplit(origin.strip().lower())
        if parts.scheme != "http" or parts.netloc != host.strip().lower() or parts.path:
            return (f"the API answers this server's own page only, not a page of "
                    f"{origin.strip()[:80]!r}")
    site = environ.get("HTTP_SEC_FETCH_SITE")
    if site is not None and site.strip().lower() not in FETCH_SITES_SERVED:
        return (f"the API answers this server's own page only (Sec-Fetch-Site: "
                f"{site.strip()[:40]})")
    return None
