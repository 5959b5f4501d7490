"""Dealing cards: seeded random deals in ``SeedSequence`` blocks, so that deal ``i`` depends on
the seed and ``i`` only (never on workers, chunks or resuming).
"""
