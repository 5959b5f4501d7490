"""What the board shows of a position without any search: hands, trick, legal cards, melds, sheet.

:func:`state_of` answers ``/api/state``: the four hands (cards in the page's order, trumps by
trump rank), the trick on the table, the cards the player to move may play (rules 8, 9, 9a),
the tricks played with their winners, the melds (roem) of each trick with why they count
(:func:`melds_of`), and the score sheet so far, in points from the playing team's side
(RULES.md §8).  The words the page prints (suit names, "the playing team") come from here, so
page and tools say the same.
"""

from __future__ import annotations

from ..game.cards import RANKS, SEATS, SUITS, card_str, cards_of, sort_for_display
from ..game.deal import Deal
from ..game.roem import declared_melds
from ..game.rules import Rules
from .query import Query, rules_words

SUIT_NAMES = ("spades", "hearts", "diamonds", "clubs")
RANK_PLURALS = {"7": "sevens", "8": "eights", "9": "nines", "T": "tens", "J": "jacks",
                "Q": "queens", "K": "kings", "A": "aces"}


# ------------------------------------------------------------------------------- state
def _cards(mask_or_list, trump) -> list[str]:
    cards = cards_of(mask_or_list) if isinstance(mask_or_list, int) else list(mask_or_list)
    return [card_str(c) for c in sort_for_display(cards, trump)]


def team_name(seat: int) -> str:
    return "N-S" if seat % 2 == 0 else "E-W"


#: how the page writes a rank (view.js's RANK_SHOWN): the ten as "10", the others as their
#: letter or digit
RANK_SHOWN = {"T": "10"}


def rank_shown(rank: str) -> str:
    """A rank as the page shows it on its cards: ``"T"`` -> ``"10"``, ``"K"`` -> ``"K"``."""
    return RANK_SHOWN.get(rank, rank)


def melds_of(deal: Deal, trump: int | None, first: int, rules: Rules) -> list[dict]:
    """The hand roem declared (RULES.md rules 12-17), meld by meld.

    One dict a meld: ``seat``, ``kind`` (``"run"``, ``"four"``, ``"stuk"``), ``cards``
    (card texts), ``text`` (``"run ♠ 8 9 10"``: the ranks as the page's cards show them,
    :func:`rank_shown`), ``value`` (points) and ``counts`` (rule 15: only the team of the
    best meld scores its melds; stuk always counts, rule 16).  The counting values add up to
    :func:`~kraken_solver.game.roem.hand_roem`.  Empty when the rules have no hand roem.  Stuk
    needs a trump (none is listed without)."""
    symbols = "\u2660\u2665\u2666\u2663"
    out = []
    for m in declared_melds(deal.hands, 0 if trump is None else trump, first, rules):
        if m.kind == "stuk" and trump is None:
            continue
        suit = m.cards[0] // 8
        if m.kind == "four":
            text = f"four {RANK_PLURALS[RANKS[m.cards[0] % 8]]}"
        elif m.kind == "stuk":
            text = f"stuk {symbols[suit]} K Q"
        else:
            text = f"{m.kind} {symbols[suit]} " + " ".join(rank_shown(RANKS[c % 8])
                                                            for c in m.cards)
        out.append({"seat": SEATS[m.seat], "kind": m.kind,
                    "cards": [card_str(c) for c in m.cards], "text": text,
                    "value": m.value, "counts": m.counts})
    return out


def _trick_json(t, number: int, first_index: int) -> dict:
    return {"number": number, "leader": SEATS[t.leader],
            "cards": [card_str(int(c)) for c in t.cards], "winner": SEATS[t.winner],
            "points": int(t.points), "roem": int(t.roem), "first_index": first_index}


def state_of(q: Query) -> dict:
    """What the page draws for a position, without a search: the hands left (card texts by
    suit, then power), the trick on the table, the legal cards of the player to move, the
    completed tricks and the running score sheet (rules 18-19), as a JSON-ready dict.  The
    sheet names its sides, as every JSON of the tools: ``sheet["playing_team"]`` and
    ``sheet["defenders"]`` each hold ``tricks``, ``card_points`` (the last trick's bonus
    apart), ``last_trick``, ``trick_roem``, ``hand_roem`` and ``total`` (the pit bonus
    included once the deal is over); then ``pit_bonus``, ``pit_possible``, ``final`` (None
    until the deal is over, then ``made``, ``pit``, ``multiplier``, ``playing_team``,
    ``defenders``, ``score``), ``total_points`` and ``last_bonus``.

    Without a trump only the hands, the seats and the melds without stuk are given (the page
    shows the trump table then).  Raises KrakenError for a position that cannot be built."""
    name, double = rules_words(q.rules)
    first = q.first
    d_team = first % 2
    base = {"deal": str(q.deal), "trump": None if q.trump is None else SUITS[q.trump],
            "first": SEATS[first], "rules": name, "double": double,
            "rules_name": q.rules.name, "rules_options": q.rules.to_dict(),
            "playing_team": team_name(first), "defenders": team_name(first + 1),
            "dealt": {SEATS[s]: _cards(q.deal.hands[s], q.trump) for s in range(4)},
            "cards_a_hand": q.deal.size,
            "played": [card_str(c) for c in q.played],
            "melds": melds_of(q.deal, q.trump, first, q.rules)}
    if q.trump is None:
        base.update(hands=base["dealt"], to_move=SEATS[first], legal=[], over=False,
                    trick={"leader": SEATS[first], "cards": []}, tricks=[], sheet=None)
        return base
    pos = q.position()
    tricks, index = [], 0
    for i, t in enumerate(pos.tricks):
        tricks.append(_trick_json(t, i + 1, index))
        index += 4
    won = [0, 0]
    points = [0, 0]
    roem = [0, 0]
    last = [0, 0]
    n_tricks = q.deal.size
    for i, t in enumerate(pos.tricks):
        side = 0 if t.winner % 2 == d_team else 1
        won[side] += 1
        p = int(t.points)
        if i == n_tricks - 1:
            p -= pos.last_bonus
            last[side] += pos.last_bonus
        points[side] += p
        roem[side] += int(t.roem)
    hand = [pos.hr_d, pos.hr_o]
    over = pos.over
    pit_possible = pos.flag_lost == 0
    totals = [points[k] + last[k] + roem[k] + hand[k] for k in range(2)]
    pit = 0
    final = None
    if over:
        if pit_possible:
            pit = q.rules.pit_bonus
        totals[0] += pit
        m = q.rules.multiplier
        made = totals[0] > totals[1]
        if made:
            scores = [m * totals[0], m * totals[1]]
        else:
            scores = [0, m * (totals[0] - pit + totals[1])]
        final = {"made": made, "pit": bool(pit_possible), "multiplier": m,
                 "playing_team": scores[0], "defenders": scores[1],
                 "score": scores[0] - scores[1]}
    base.update(
        hands={SEATS[s]: _cards(int(pos.hands[s]), q.trump) for s in range(4)},
        to_move=None if over else SEATS[pos.to_move],
        legal=[card_str(c) for c in pos.legal()], over=over,
        trick={"leader": SEATS[pos.leader], "cards": [card_str(int(c)) for c in
                                                       pos.trick[:pos.tlen]]},
        tricks=tricks,
        sheet={**{side: {"tricks": won[k], "card_points": points[k], "last_trick": last[k],
                         "trick_roem": roem[k], "hand_roem": hand[k], "total": totals[k]}
                  for k, side in enumerate(("playing_team", "defenders"))},
               "pit_bonus": pit, "pit_possible": pit_possible, "final": final,
               "total_points": pos.total_points, "last_bonus": pos.last_bonus})
    return base
