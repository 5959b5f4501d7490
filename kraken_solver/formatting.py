"""Text, JSON and CSV output of a deal's double-dummy analysis (used by ``kraken-solve``).

:class:`Analysis` holds what the command computed for one deal; the functions here turn it into
a hand diagram and tables (suit symbols ``♠♥♦♣``, or the letters ``S H D C`` with
``ascii=True``), a JSON-ready dict, or a CSV row.  All values are in points, from the playing
team's side (RULES.md §8): the team of the first player.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .cards import RANKS, SEATS, SUITS, SUIT_SYMBOLS, card_power, cards_of, parse_card
from .deal import Deal

__all__ = ["Analysis", "suit_text", "card_text", "hand_diagram", "format_tricks",
           "format_trump_table", "format_analysis", "analysis_dict", "CSV_FIELDS",
           "analysis_csv_row", "team_name"]

#: the columns of ``kraken-solve --csv``
CSV_FIELDS = ("deal", "trump", "first", "rules", "played", "score", "made", "points",
              "best_cards", "pv")

_RANK_ORDER_PLAIN = "AKQJT987"


@dataclass
class Analysis:
    """What ``kraken-solve`` computed for one deal (values in points, playing team's side).

    - ``spec``: the :class:`~kraken_solver.dealfile.DealSpec` read from the file.
    - ``trump``: the trump analysed (0..3); ``trump_table``: the rows of
      :func:`~kraken_solver.solver.trump_table` when the file gave no trump, else ``None``.
    - ``objective``: ``"score"`` or ``"points"``: the value behind ``card_values``,
      ``best_cards`` and ``pv``.
    - ``score`` (rule 23), ``points`` (rule 24): the values of the position after the played
      cards; ``made`` is ``score > 0``.
    - ``card_values``: card text -> value (``objective``) for each legal card of ``to_move``
      (``None`` once the deal is over); ``best_cards``: those equal to the position's value.
    - ``pv``: the principal variation, card texts to the end of the deal.
    - ``played_tricks``: the tricks completed by the played cards (TrickRecord);
      ``current_trick``/``current_leader``: the cards of the trick in progress and its leader.
    - ``pv_tricks``: the tricks that the principal variation completes (the first one holds the
      cards of the trick in progress); ``pv_score``, ``pv_points``: the deal's score and points
      at the end of the principal variation.
    - ``hand_roem``: (playing team, defenders) in points, stuk included (rules 12-17).
    - ``nodes``: search nodes for this deal; ``seconds``: wall time for this deal.
    """

    spec: object
    trump: int
    objective: str
    score: int
    points: int
    card_values: dict = field(default_factory=dict)
    best_cards: list = field(default_factory=list)
    pv: list = field(default_factory=list)
    to_move: int | None = None
    played_tricks: list = field(default_factory=list)
    current_trick: list = field(default_factory=list)
    current_leader: int = 0
    pv_tricks: list = field(default_factory=list)
    pv_score: int | None = None
    pv_points: int | None = None
    hand_roem: tuple = (0, 0)
    trump_table: list | None = None
    nodes: int = 0
    seconds: float = 0.0

    @property
    def made(self) -> bool:
        """Whether the playing team makes the deal with best play (``score > 0``, rule 25)."""
        return self.score > 0

    @property
    def value(self) -> int:
        """The position's value under ``objective``."""
        return self.score if self.objective == "score" else self.points

    @property
    def first(self) -> int:
        return self.spec.first

    @property
    def rules(self):
        return self.spec.rules

    @property
    def deal(self) -> Deal:
        return self.spec.deal


# ------------------------------------------------------------------------- small pieces
def suit_text(suit: int, ascii: bool = False) -> str:
    """Suit 0..3 -> ``"♠"`` (or ``"S"`` with ``ascii=True``)."""
    letter = SUITS[suit]
    return letter if ascii else SUIT_SYMBOLS[letter]


def card_text(card, ascii: bool = False) -> str:
    """A card (0..31 or ``"HK"``) -> ``"♥K"`` (or ``"HK"`` with ``ascii=True``)."""
    c = parse_card(card)
    return suit_text(c >> 3, ascii) + RANKS[c & 7]


def team_name(seat: int) -> str:
    """The team of a seat: ``"N-S"`` or ``"E-W"``."""
    return "N-S" if seat % 2 == 0 else "E-W"


def _signed(v: int) -> str:
    return f"{v:+d}"


def _made_word(score: int) -> str:
    return "made" if score > 0 else "nat"


def _suit_ranks(mask: int, suit: int, trump: int | None) -> str:
    cards = [c for c in cards_of(mask) if c >> 3 == suit]
    if trump is None:
        cards.sort(key=lambda c: _RANK_ORDER_PLAIN.index(RANKS[c & 7]))
    else:
        cards.sort(key=lambda c: -card_power(c, trump))
    return " ".join(RANKS[c & 7] for c in cards) if cards else "-"


def _hand_block(mask: int, label: str, trump, ascii) -> list[str]:
    return [label] + [f"{suit_text(s, ascii)} {_suit_ranks(mask, s, trump)}" for s in range(4)]


def hand_diagram(hands, *, trump: int | None = None, first: int | None = None,
                 to_move: int | None = None, ascii: bool = False) -> str:
    """The four hands as a diagram: N at the top, W left, E right, S at the bottom.

    ``hands``: a Deal or four 32-bit card masks (N E S W).  Ranks run from high to low in the
    suit's order (trump order J 9 A T K Q 8 7 for ``trump``; A K Q J T 9 8 7 without a trump);
    ``-`` marks a void.  ``first`` and ``to_move`` add a note to that seat's label."""
    masks = hands.hands if isinstance(hands, Deal) else tuple(int(h) for h in hands)

    def label(seat):
        notes = []
        if first is not None and seat == first:
            notes.append("first")
        if to_move is not None and seat == to_move:
            notes.append("to play")
        return SEATS[seat] + (f" ({', '.join(notes)})" if notes else "")

    blocks = [_hand_block(masks[s], label(s), trump, ascii) for s in range(4)]
    left = max(max(len(line) for line in blocks[3]) + 3, 22)  # W's column, then E's
    indent = " " * (left // 2 + 1)
    lines = [indent + line for line in blocks[0]]
    for w, e in zip(blocks[3], blocks[1]):
        lines.append((w.ljust(left) + e).rstrip())
    lines += [indent + line for line in blocks[2]]
    return "\n".join(line.rstrip() for line in lines)


def format_tricks(tricks, *, first: int, ascii: bool = False, start: int = 1,
                  preplayed: int = 0, totals: tuple = (0, 0)) -> str:
    """A table of completed tricks (TrickRecord): number, leader, cards in play order, winner,
    card points (the last trick's 10 included) and trick roem, with running totals (points plus
    roem) of the playing team (the team of ``first``) and the defenders.

    ``start``: number of the first trick; ``preplayed``: how many cards of the first trick were
    played before (shown in parentheses); ``totals``: the running totals before these tricks."""
    dteam = first % 2
    d_name, o_name = team_name(first), team_name(first + 1)
    head = f"  trick  lead  {'cards':<16}  won by  points  roem   {d_name}   {o_name}"
    rows = [head]
    d_tot, o_tot = totals
    for i, t in enumerate(tricks):
        shown = []
        for k, c in enumerate(t.cards):
            txt = card_text(int(c), ascii)
            shown.append(f"({txt})" if i == 0 and k < preplayed else txt)
        if t.winner % 2 == dteam:
            d_tot += t.points + t.roem
        else:
            o_tot += t.points + t.roem
        rows.append(f"  {start + i:>5}  {SEATS[t.leader]:<4}  {' '.join(shown):<16}  "
                    f"{SEATS[t.winner]:<6}  {t.points:>6}  {t.roem:>4}  {d_tot:>5} {o_tot:>5}")
    return "\n".join(rows)


def format_trump_table(table, *, first: int, objective: str = "score",
                       ascii: bool = False) -> str:
    """The trump table (TrumpChoice rows): score (made or nat) and points for each trump the
    first player can choose; ``best`` rows are marked."""
    rows = [f"Trump table for {SEATS[first]} (no trump given; best by {objective}):",
            "  trump   score        points"]
    for r in table:
        mark = "  best" if r.best else ""
        rows.append(f"  {suit_text(r.trump, ascii):<5}  {_signed(r.score):>6} "
                    f"{_made_word(r.score):<4}  {r.points:>7}{mark}")
    return "\n".join(rows)


def _remaining_hands(a: Analysis) -> list[int]:
    hands = list(a.deal.hands)
    for c in a.spec.played:
        for s in range(4):
            hands[s] &= ~(1 << c)
    return hands


def format_analysis(a: Analysis, *, ascii: bool = False) -> str:
    """The full text report of one deal: the hands, the rules, trump and first player, the
    trump table (if computed), the tricks already played, score and points, the value of every
    legal card (best ones marked) and the principal variation trick by trick."""
    spec = a.spec
    out = []
    first = spec.first
    out.append(hand_diagram(a.deal, trump=a.trump, first=first, ascii=ascii))
    out.append("")
    out.append(f"Rules: {a.rules.name}")
    out.append(f"First player: {SEATS[first]}; playing team {team_name(first)}, "
               f"defenders {team_name(first + 1)}")
    if a.trump_table is not None:
        out.append("")
        out.append(format_trump_table(a.trump_table, first=first, objective=a.objective,
                                      ascii=ascii))
        out.append("")
        out.append(f"Trump: {suit_text(a.trump, ascii)} (best of the trump table)")
    else:
        out.append(f"Trump: {suit_text(a.trump, ascii)}")
    if a.rules.hand_roem:
        out.append(f"Hand roem: {team_name(first)} {a.hand_roem[0]}, "
                   f"{team_name(first + 1)} {a.hand_roem[1]}")

    d_tot = o_tot = 0
    for t in a.played_tricks:
        if t.winner % 2 == first % 2:
            d_tot += t.points + t.roem
        else:
            o_tot += t.points + t.roem
    if spec.played:
        out.append("")
        out.append(f"Played so far ({len(spec.played)} cards):")
        if a.played_tricks:
            out.append(format_tricks(a.played_tricks, first=first, ascii=ascii))
        if a.current_trick:
            n = len(a.played_tricks) + 1
            out.append(f"  trick {n} so far: {SEATS[a.current_leader]} led "
                       + " ".join(card_text(c, ascii) for c in a.current_trick))
        out.append("")
        out.append("Hands now:")
        out.append(hand_diagram(_remaining_hands(a), trump=a.trump, to_move=a.to_move,
                                ascii=ascii))

    out.append("")
    out.append(f"Score: {_signed(a.score)} ({_made_word(a.score)})    Points: {a.points}"
               + ("    (double dummy, playing team's side)"))
    if a.to_move is None:
        out.append("The deal is over: no card left to play.")
        return "\n".join(out)

    out.append("")
    out.append(f"{SEATS[a.to_move]} to play; value of each legal card ({a.objective}), "
               "* = best:")
    for card, v in a.card_values.items():
        mark = "  *" if card in a.best_cards else ""
        extra = f" {_made_word(v)}" if a.objective == "score" else ""
        shown = _signed(v) if a.objective == "score" else str(v)
        out.append(f"  {card_text(card, ascii):<4} {shown:>6}{extra}{mark}")

    out.append("")
    out.append(f"Principal variation (best play by {a.objective}):")
    out.append(format_tricks(a.pv_tricks, first=first, ascii=ascii,
                             start=len(a.played_tricks) + 1, preplayed=len(a.current_trick),
                             totals=(d_tot, o_tot)))
    if a.pv_score is not None:
        out.append(f"  end of the line: score {_signed(a.pv_score)} ({_made_word(a.pv_score)}),"
                   f" points {a.pv_points}")
    return "\n".join(out)


# ------------------------------------------------------------------------- JSON and CSV
def _trick_dict(t, number: int, already: int) -> dict:
    return {"number": number, "leader": SEATS[t.leader],
            "cards": [card_text(int(c), True) for c in t.cards], "winner": SEATS[t.winner],
            "points": int(t.points), "roem": int(t.roem), "already_played": already}


def analysis_dict(a: Analysis) -> dict:
    """One deal's analysis as a JSON-ready dict (cards as ``"HK"`` texts, values in points).

    Keys: ``source``, ``line``, ``deal`` (PBN from N), ``trump``, ``trump_given``, ``first``,
    ``rules`` (name), ``rules_options``, ``played``, ``to_move``, ``objective``, ``score``,
    ``made``, ``points``, ``hand_roem`` ([playing team, defenders]), ``card_values``,
    ``best_cards``, ``pv``, ``tricks`` (every completed trick: the played ones, then those of
    the principal variation; ``already_played`` counts its cards played before the analysis),
    ``trump_table`` (list, or ``None`` when a trump was given), ``nodes``, ``seconds``."""
    spec = a.spec
    tricks = [_trick_dict(t, i + 1, 4) for i, t in enumerate(a.played_tricks)]
    n0 = len(tricks)
    for i, t in enumerate(a.pv_tricks):
        tricks.append(_trick_dict(t, n0 + i + 1, len(a.current_trick) if i == 0 else 0))
    table = None
    if a.trump_table is not None:
        table = [{"trump": SUITS[r.trump], "score": int(r.score), "made": bool(r.made),
                  "points": int(r.points), "best": bool(r.best)} for r in a.trump_table]
    return {
        "source": spec.source, "line": spec.line, "deal": str(spec.deal),
        "trump": SUITS[a.trump], "trump_given": a.trump_table is None,
        "first": SEATS[spec.first], "rules": a.rules.name, "rules_options": a.rules.to_dict(),
        "played": [card_text(c, True) for c in spec.played],
        "to_move": SEATS[a.to_move] if a.to_move is not None else None,
        "objective": a.objective, "score": int(a.score), "made": bool(a.made),
        "points": int(a.points), "hand_roem": [int(a.hand_roem[0]), int(a.hand_roem[1])],
        "card_values": {k: int(v) for k, v in a.card_values.items()},
        "best_cards": list(a.best_cards), "pv": list(a.pv), "tricks": tricks,
        "trump_table": table, "nodes": int(a.nodes), "seconds": round(float(a.seconds), 6),
    }


def analysis_csv_row(a: Analysis) -> list:
    """One deal's analysis as a CSV row with the columns :data:`CSV_FIELDS` (``played`` is
    the number of cards played; ``best_cards`` and ``pv`` are space-separated card texts)."""
    return [str(a.deal), SUITS[a.trump], SEATS[a.first], a.rules.name, len(a.spec.played),
            a.score, "true" if a.made else "false", a.points, " ".join(a.best_cards),
            " ".join(a.pv)]
