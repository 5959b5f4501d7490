"""The browser board (``kraken-view``): the query words of its JSON API, the board's state, the
solving session (one Searcher, hints over worker processes), the page and its static export,
and the HTTP application.  The page itself is in ``web/``.
"""
