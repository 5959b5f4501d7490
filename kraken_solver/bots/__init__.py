"""Computer players: what one seat may see (its view, with no hidden card in it), the bots that
choose a card or a trump from that view, and the one loop that plays a deal with them.

Floor: above ``playerview/`` (the PIMC bot draws its layouts with the hint's machinery), below
``batch/`` (``kraken-batch --play``), ``arena/`` and ``view/``.
"""
