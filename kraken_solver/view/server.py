"""The board's HTTP server: waitress on 127.0.0.1, its limits, and a stop that answers its clients.

``kraken-view`` serves its app (:mod:`kraken_solver.view.app`) with waitress, a production WSGI
server in pure Python: one thread reads and writes every connection (``poll``), whole
requests only are handed to a fixed pool of :data:`THREADS` threads, and idle connections are
closed.  The limits, and why:

- :data:`THREADS` (16) threads run requests.  A hint's request holds its thread while the hint
  is solved (:mod:`kraken_solver.view.session` lets at most :data:`~kraken_solver.view.session.
  MAX_HINT_WAITERS` requests wait on hints), so the others are left for the cheap requests;
  the solving itself is done by the session's own thread and worker processes.
- :data:`CONNECTION_LIMIT` (1,000) connections open at once (a browser opens 6 a host; the
  rest is room for an attack of half-open connections to cost nothing but memory, with the
  page still answered).  Past it, new connections wait in the listen backlog.
- :data:`CHANNEL_TIMEOUT_S` (30 s): a connection without a request in progress and silent
  this long is closed (one that sent half a request included); the check runs every
  :data:`CLEANUP_INTERVAL_S` (the timeout / 5, at least 1 s), so an idle connection is closed
  at most ``timeout + interval`` after its last byte.
- :data:`MAX_HEADER_BYTES` (16 KiB) of request line and headers (the longest position is
  under 2 KiB of query), :data:`MAX_BODY_BYTES` (about 1 MiB: four bytes a character of the
  pasted text, 256 KiB) of body, also when it comes chunked.

What waitress refuses itself (a request line it cannot read, headers or a body too large) it
answers with a short plain-text error (``431 Request Header Fields Too Large``...), never a
traceback; everything that reaches the app is answered in JSON.  :func:`run_until_stopped`
serves until Ctrl-C or SIGTERM, then cancels the hints being solved (their clients get 409
"the server stopped"), sends what is left to send for at most :data:`STOP_DRAIN_S` and
closes every connection.
"""

from __future__ import annotations

import errno
import logging
import socket
import time

from ..errors import KrakenError
from .page import MAX_PASTE_CHARS

#: threads that run requests
THREADS = 16
#: connections open at once
CONNECTION_LIMIT = 1000
#: seconds of silence after which a connection without a request in progress is closed
CHANNEL_TIMEOUT_S = 30
#: the bytes of a request line and its headers
MAX_HEADER_BYTES = 16 * 1024
#: the bytes of a request body (the pasted text, 4 bytes a character, and its JSON)
MAX_BODY_BYTES = 4 * MAX_PASTE_CHARS + 4096
#: the longest the stop waits for answers to be sent, in seconds
STOP_DRAIN_S = 2.0


def listen_socket(port: int) -> socket.socket:
    """A socket listening on 127.0.0.1:``port`` (0: a free port).  Raises KrakenError (source
    ``--port``) when the port cannot be had."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", port))
        sock.listen(1024)
    except OSError as e:
        sock.close()
        if e.errno == errno.EADDRINUSE:
            raise KrakenError(f"port {port} is in use on 127.0.0.1: give another --port, or "
                              "leave it out for a free one", source="--port") from None
        if e.errno == errno.EACCES:
            raise KrakenError(f"port {port} may not be used by this user (ports below 1024 "
                              "need root): give another --port", source="--port") from None
        raise KrakenError(f"cannot listen on 127.0.0.1:{port}: {e.strerror or e}",
                          source="--port") from None
    return sock


def make_server(app, port: int, *, channel_timeout: int = CHANNEL_TIMEOUT_S):
    """The waitress server of ``app`` on 127.0.0.1:``port`` (0: a free one) with the limits of
    the module docstring (``channel_timeout`` in seconds, 1 to 60).  ``server.effective_port``
    is the port.  Raises KrakenError when the port cannot be had."""
    from waitress.server import create_server
    if not 1 <= channel_timeout <= 60:
        raise KrakenError("expected an idle timeout of 1 to 60 seconds",
                          source="channel_timeout", token=str(channel_timeout))
    # waitress logs a line for every queued task and for the connection limit: not ours
    logging.getLogger("waitress").setLevel(logging.ERROR)
    sock = listen_socket(port)
    return create_server(
        app, sockets=[sock], threads=THREADS, connection_limit=CONNECTION_LIMIT,
        channel_timeout=channel_timeout,
        cleanup_interval=max(1, channel_timeout // 5),
        max_request_header_size=MAX_HEADER_BYTES, max_request_body_size=MAX_BODY_BYTES,
        # the app can tell that a hint's client has gone (waitress.client_disconnected)
        channel_request_lookahead=1,
        asyncore_use_poll=True,         # select() sees no socket past the 1024th
        asyncore_loop_timeout=1, expose_tracebacks=False, ident="kraken-view")


def run_until_stopped(server, on_stop) -> None:
    """Serve until KeyboardInterrupt (the caller's Ctrl-C and SIGTERM handler raises it),
    then: accept no more connections, ``on_stop()`` (the session cancels its hints: their
    requests answer 409), send the answers of requests in progress for at most
    :data:`STOP_DRAIN_S` seconds, stop the threads and close every connection."""
    from waitress import wasyncore
    loop = server.asyncore.loop
    try:
        loop(timeout=server.adj.asyncore_loop_timeout, map=server._map, use_poll=True)
    except KeyboardInterrupt:
        pass
    server.accepting = False
    on_stop()
    deadline = time.monotonic() + STOP_DRAIN_S
    while time.monotonic() < deadline:
        busy = server.task_dispatcher.active_count or server.task_dispatcher.queue or any(
            getattr(ch, "total_outbufs_len", 0) for ch in list(server._map.values()))
        if not busy:
            break
        try:
            loop(timeout=0.05, map=server._map, use_poll=True, count=1)
        except KeyboardInterrupt:
            break
    server.task_dispatcher.shutdown(cancel_pending=True, timeout=1)
    wasyncore.close_all(server._map)
