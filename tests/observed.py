"""Slow, obviously correct references for the player's view (layouts and hints), built on the
reference rules of ``naive.py`` alone (no code of ``kraken_solver``).

- ``random_position``: a random deal played part-way by random legal cards (seeded).
- ``brute_layouts``: every way to give the unseen cards to the other three seats, each the
  number of cards it still holds, kept when the hands it implies as dealt make every played
  card legal (``naive.replay``) and declare the declared hand roem (``naive.hand_roem``).
- ``brute_hint``: for each legal card of the player to move, the sum over those layouts of
  its double-dummy value (``naive.solve``) and the number of layouts where it is > 0.
"""

from __future__ import annotations

import random
from itertools import combinations

import naive

SEATS = naive.SEATS
DECK = [s + r for s in naive.SUITS for r in naive.NATURAL_ORDER]


def random_position(rng: random.Random, *, size: int, left: int, extra: int = 0,
                    options: dict | None = None, trump: str | None = None,
                    first: str | None = None):
    """A random ``size``-card deal (cards drawn from the 32) played by random legal cards
    until each hand holds ``left`` cards, plus ``extra`` cards of the next trick.  Returns
    (PBN deal from N, trump, first, played list)."""
    cards = rng.sample(DECK, 4 * size)
    hands = {SEATS[k]: sorted(cards[k * size:(k + 1) * size]) for k in range(4)}
    trump = trump or rng.choice(naive.SUITS)
    first = first or rng.choice(SEATS)
    opts = naive.Options.from_dict(options)
    state = naive.start_state(hands, first)
    played = []
    target = 4 * (size - left) + extra
    while len(played) < target:
        card = rng.choice(state.legal(trump, opts))
        played.append(card)
        state = state.after(card, trump)
    return naive.to_pbn(hands), trump, first, played


def _who_played(hands: dict, trump: str, first: str, opts, played) -> list:
    state = naive.start_state(hands, first)
    who = []
    for card in played:
        who.append(state.to_move())
        state = state.after(card, trump)
    return who, state.to_move()


def brute_layouts(pbn: str, trump: str, first: str, options: dict | None, played,
                  declared=None) -> list:
    """Every consistent layout of the position, as a dict seat -> hand as dealt (sorted card
    lists), in no particular order.  ``declared``: (HR_D, HR_O), default the deal's own."""
    opts = naive.Options.from_dict(options)
    hands = naive.parse_pbn(pbn)
    who, seat = _who_played(hands, trump, first, opts, played)
    if opts.hand_roem and declared is None:
        declared = naive.hand_roem(hands, trump, first, opts.long_runs_100)
    by = {s: [c for c, w in zip(played, who) if w == s] for s in SEATS}
    others = [s for s in SEATS if s != seat]
    size = len(hands[seat])
    unseen = sorted(c for s in others for c in hands[s] if c not in played)
    need = {s: size - len(by[s]) for s in others}
    out = []
    a, b, c = others
    for ha in combinations(unseen, need[a]):
        rest = [x for x in unseen if x not in ha]
        for hb in combinations(rest, need[b]):
            hc = [x for x in rest if x not in hb]
            layout = {seat: sorted(hands[seat]), a: sorted(list(ha) + by[a]),
                      b: sorted(list(hb) + by[b]), c: sorted(hc + by[c])}
            try:
                naive.replay(layout, trump, first, opts, played)
            except AssertionError:
                continue
            if opts.hand_roem and naive.hand_roem(layout, trump, first,
                                                  opts.long_runs_100) != tuple(declared):
                continue
            out.append(layout)
    return out


def layout_key(layout: dict) -> tuple:
    """A layout as four frozensets of cards N, E, S, W (to compare with the project's)."""
    return tuple(frozenset(layout[s]) for s in SEATS)


def brute_hint(pbn: str, trump: str, first: str, options: dict | None, played,
               objective: str = "score", declared=None) -> tuple:
    """(layouts, {card: (sum of values, layouts with score > 0)}) by brute force: every
    consistent layout solved by ``naive.solve``."""
    opts = naive.Options.from_dict(options)
    layouts = brute_layouts(pbn, trump, first, options, played, declared)
    k = 0 if objective == "score" else 1
    out = {}
    for layout in layouts:
        res = naive.solve_many(naive.to_pbn(layout), trump, first, [opts], played)[0]
        for card, (score, points) in res["card_values"].items():
            s, m = out.get(card, (0, 0))
            out[card] = (s + (score, points)[k], m + (score > 0))
    return len(layouts), out
