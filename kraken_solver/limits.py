"""Bounds on the numbers a user types, in one place: the library checks them where the work
is made and the command-line tools show them in their options (``cli/params.py``).  This
module imports nothing, so that a tool's options can name them before numpy or Numba load.
"""

#: the most deals one batch takes (a billion: about 150 days of one 2-core machine at 80
#: deals/s; beyond that a mistyped number would only fill the memory with the chunk list)
MAX_BATCH_DEALS = 10**9
#: the most layouts one hint solves (a bound on what a mistyped number costs: days of one
#: 2-core machine at the first lead)
MAX_HINT_SAMPLES = 10**6
#: the most samples one advice takes: their scores are kept (8 bytes a sample and trump, 320 MB
#: at this many) and ten million samples is days of one machine (about 36 a second)
MAX_ADVISE_SAMPLES = 10**7
#: SeedSequence seeds typed on the command line (kraken-batch, -advise, -hint, -analyse, -view)
MAX_SEED = 2**63 - 1
#: the most hand roem one team can declare, points (RULES.md rule 17: every meld and stuk of
#: one hand is well below it; a bound on a typed [Declared] value)
MAX_HAND_ROEM = 1000
#: the most candidate deals one block of 64 conditioned deals may test (``--max-tries``): a
#: hundred billion is days of one core at 200,000 candidates a second
MAX_DEAL_TRIES = 10**11
#: the default of ``--max-tries``: ten million candidates, under a minute of one core
DEFAULT_DEAL_TRIES = 10**7
#: the most layouts a ``pimc:N`` card-play bot solves a move (each layout keeps a search
#: table and its buffers, about 155 KB, for each deal the bot keeps: a thousand is 155 MB a
#: deal, up to ``bots.pimc.DEALS_KEPT`` deals a bot)
MAX_PIMC_LAYOUTS = 1000
#: the most layouts an ``advise:N`` trump-choice bot solves (four trumps each)
MAX_ADVISE_BOT_SAMPLES = 10000
#: the longest a ``--where`` condition's canonical text may be, characters, once the definitions
#: of a ``--where @FILE`` are written out: the text that a batch records in its sidecar and reads
#: back.  A line typed is at most 20,000 characters (``predicate.MAX_PREDICATE_CHARS``) and its
#: canonical text at most about twice that (a space each side of an operator: ``1+1`` is
#: ``1 + 1``), so only definitions used inside one another reach this; each such use doubles the
#: text, so it is refused as the condition is built, before the doubling is made.  It bounds the
#: work too: each part of a condition (a function, a number, an operator) is a character or more
#: of the text and a few NumPy operations a round of candidates.  Real conditions: a few hundred
MAX_CONDITION_CHARS = 100_000
