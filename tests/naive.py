"""A slow, plain reference implementation of Kraken, written from RULES.md alone.

It shares no code with ``kraken_solver``: cards are two-letter strings (``"HK"``: suit
letter, then rank), hands are lists of such strings, and every rule is spelled out as
directly as RULES.md states it.  Speed does not matter here; being obviously right does.

What is here:
- ``parse_pbn``: PBN deal text -> the four hands.
- ``legal_cards``: rules 8, 9 and 9a.
- ``trick_winner``: rule 7.
- ``card_points``: rules 3-5.
- ``trick_roem``: rules 10-11.
- ``player_melds`` / ``hand_roem``: rules 12-17.
- ``final_result``: rules 18-21 for a finished deal.
- ``solve``: a brute-force minimax over every line of play to the end of the deal (§8),
  scoring each finished line with ``final_result``.  No transposition table, no pruning.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

SEATS = "NESW"                     # clockwise (rule 2)
SUITS = "SHDC"
NATURAL_ORDER = "789TJQKA"         # low to high: the order of runs (rule 10)

# Rule 3 table, written out.
TRUMP_HIGH_TO_LOW = "J9ATKQ87"
PLAIN_HIGH_TO_LOW = "ATKQJ987"
TRUMP_POINTS = {"J": 20, "9": 14, "A": 11, "T": 10, "K": 4, "Q": 3, "8": 0, "7": 0}
PLAIN_POINTS = {"A": 11, "T": 10, "K": 4, "Q": 3, "J": 2, "9": 0, "8": 0, "7": 0}

# Rule 10: four cards of one rank.
FOUR_OF_A_KIND = {"J": 200, "A": 100, "K": 100, "Q": 100, "T": 100, "9": 0, "8": 0, "7": 0}


def suit(card: str) -> str:
    return card[0]


def rank(card: str) -> str:
    return card[1]


def next_seat(seat: str, steps: int = 1) -> str:
    return SEATS[(SEATS.index(seat) + steps) % 4]


def partner(seat: str) -> str:
    return next_seat(seat, 2)


def team(seat: str) -> str:
    """'NS' or 'EW' (rule 2)."""
    return "NS" if seat in "NS" else "EW"


# ----------------------------------------------------------------------------- options
@dataclass(frozen=True)
class Options:
    """The options of RULES.md with their defaults (the G4A app)."""
    trump_rule: str = "rotterdam"
    undertrump: str = "forbidden"
    trick_roem: bool = True
    hand_roem: bool = True
    double_spades: bool = False
    multiplier: int = 1
    pit_bonus: int = 100
    long_runs_100: bool = False

    @classmethod
    def from_dict(cls, d: dict | None) -> "Options":
        return cls(**(d or {}))


# ----------------------------------------------------------------------------- PBN
def parse_pbn(text: str) -> dict:
    """``"N:S.H.D.C S.H.D.C S.H.D.C S.H.D.C"`` -> {seat: [cards]}.

    The hands are listed clockwise from the seat before the colon; each hand lists its
    spades, hearts, diamonds and clubs separated by dots."""
    first_seat, body = text.strip().split(":")
    words = body.split()
    assert len(words) == 4, text
    hands = {}
    for i, word in enumerate(words):
        seat = next_seat(first_seat, i)
        suit_parts = word.split(".")
        assert len(suit_parts) == 4, word
        cards = []
        for s, ranks in zip(SUITS, suit_parts):
            ranks = ranks.replace("10", "T")
            for r in ranks:
                assert r in NATURAL_ORDER, (r, text)
                cards.append(s + r)
        hands[seat] = cards
    all_cards = [c for h in hands.values() for c in h]
    assert len(set(all_cards)) == len(all_cards), "a card is dealt twice"
    assert len({len(h) for h in hands.values()}) == 1, "hands of unequal size"
    return hands


def to_pbn(hands: dict, start: str = "N") -> str:
    """The inverse of ``parse_pbn`` (ranks written A K Q J T 9 8 7)."""
    words = []
    for i in range(4):
        hand = hands[next_seat(start, i)]
        parts = []
        for s in SUITS:
            parts.append("".join(r for r in "AKQJT987" if s + r in hand))
        words.append(".".join(parts))
    return start + ":" + " ".join(words)


# ----------------------------------------------------------------------------- rule 2-5
def beats(a: str, b: str, trump: str) -> bool:
    """True if card ``a`` ranks above card ``b`` of the SAME suit (rule 3 orders)."""
    assert suit(a) == suit(b)
    order = TRUMP_HIGH_TO_LOW if suit(a) == trump else PLAIN_HIGH_TO_LOW
    return order.index(rank(a)) < order.index(rank(b))


def highest(cards: list, trump: str) -> str:
    """The highest of cards of one suit."""
    best = cards[0]
    for c in cards[1:]:
        if beats(c, best, trump):
            best = c
    return best


def card_points(card: str, trump: str, double_spades: bool = False) -> int:
    """Rules 3 and 5."""
    p = TRUMP_POINTS[rank(card)] if suit(card) == trump else PLAIN_POINTS[rank(card)]
    if double_spades and trump == "S":
        p *= 2
    return p


def last_trick_bonus(trump: str, double_spades: bool = False) -> int:
    """Rules 4 and 5."""
    return 20 if (double_spades and trump == "S") else 10


# ----------------------------------------------------------------------------- rule 7
def trick_winner(trick: list, trump: str) -> str:
    """The seat winning ``trick``, a list of (seat, card) in play order (rule 7).
    Works for an unfinished trick too (the card winning so far)."""
    trumps = [c for _, c in trick if suit(c) == trump]
    if trumps:
        win_card = highest(trumps, trump)
    else:
        led = suit(trick[0][1])
        win_card = highest([c for _, c in trick if suit(c) == led], trump)
    for seat, c in trick:
        if c == win_card:
            return seat
    raise AssertionError("unreachable")


# ----------------------------------------------------------------------------- rules 8-9a
def legal_cards(hand: list, trick: list, seat: str, trump: str,
                trump_rule: str = "rotterdam", undertrump: str = "forbidden") -> list:
    """The cards of ``hand`` that ``seat`` may play to ``trick`` (list of (seat, card))."""
    if not trick:
        return sorted(hand)                                   # rule 6: any card may be led
    led = suit(trick[0][1])
    my_led = [c for c in hand if suit(c) == led]
    my_trumps = [c for c in hand if suit(c) == trump]
    trumps_in_trick = [c for _, c in trick if suit(c) == trump]
    h = highest(trumps_in_trick, trump) if trumps_in_trick else None

    if my_led:
        if led != trump:
            return sorted(my_led)                             # rule 8a
        higher = [c for c in my_trumps if beats(c, h, trump)]
        return sorted(higher) if higher else sorted(my_trumps)   # rule 8b

    # void in the suit led
    if not my_trumps:
        return sorted(hand)                                   # 8c: a hand without trumps
    lower = [c for c in my_trumps if h is not None and beats(h, c, trump)]
    if (trump_rule == "amsterdam" and led != trump
            and trick_winner(trick, trump) == partner(seat)):
        # rule 9: anything but a trump lower than h, unless the hand is only such trumps
        allowed = [c for c in hand if c not in lower]
        return sorted(allowed) if allowed else sorted(hand)
    if h is None:
        return sorted(my_trumps)                              # 8c: you must trump
    higher = [c for c in my_trumps if beats(c, h, trump)]
    if higher:
        return sorted(higher)                                 # 8c: overtrump
    if undertrump == "forced":
        return sorted(my_trumps)                              # rule 9a forced
    others = [c for c in hand if suit(c) != trump]
    return sorted(others) if others else sorted(my_trumps)    # 8c: no undertrumping


# ----------------------------------------------------------------------------- rule 10
def longest_run(ranks: list) -> int:
    """Length of the longest stretch of consecutive ranks in natural order."""
    idx = sorted(NATURAL_ORDER.index(r) for r in ranks)
    best = 0
    length = 0
    prev = None
    for i in idx:
        length = length + 1 if prev is not None and i == prev + 1 else 1
        best = max(best, length)
        prev = i
    return best


def trick_roem(cards: list, trump: str) -> int:
    """Roem of the four cards of a complete trick (rules 10-11)."""
    total = 0
    for s in SUITS:
        n = longest_run([rank(c) for c in cards if suit(c) == s])
        if n >= 4:
            total += 50
        elif n == 3:
            total += 20
    if trump + "K" in cards and trump + "Q" in cards:
        total += 20                                           # stuk
    ranks = [rank(c) for c in cards]
    if len(cards) == 4 and len(set(ranks)) == 1:
        total += FOUR_OF_A_KIND[ranks[0]]
    return total


# ----------------------------------------------------------------------------- rules 12-17
SUIT_TIEBREAK = {"S": 4, "H": 3, "D": 2, "C": 1}   # rule 14: S > H > D > C


@dataclass(frozen=True)
class Meld:
    kind: str          # "run" or "four"
    value: int
    top: str           # top card's rank (natural order)
    suit: str          # the run's suit; "" for a four of a kind

    def strength(self) -> tuple:
        """Sort key of rule 14: value, then top card, then a four of a kind above a run, then
        the suit S > H > D > C."""
        if self.kind == "four":
            return (self.value, NATURAL_ORDER.index(self.top), 1, 0)
        return (self.value, NATURAL_ORDER.index(self.top), 0, SUIT_TIEBREAK[self.suit])


def run_value(length: int, long_runs_100: bool) -> int:
    """Rule 12."""
    if length < 3:
        return 0
    if length == 3:
        return 20
    if length >= 5 and long_runs_100:
        return 100
    return 50


def runs_in(cards: list, long_runs_100: bool) -> list:
    """Every maximal stretch of 3 or more cards of one suit in natural order, as a Meld."""
    melds = []
    for s in SUITS:
        stretch = []
        for r in NATURAL_ORDER + "-":                  # "-" closes the last stretch
            if s + r in cards:
                stretch.append(r)
            else:
                if len(stretch) >= 3:
                    melds.append(Meld("run", run_value(len(stretch), long_runs_100),
                                      stretch[-1], s))
                stretch = []
    return melds


def player_melds(hand: list, long_runs_100: bool = False) -> list:
    """The melds one player declares (rules 12-13; stuk is not a meld here).

    Each four of a kind is either declared (its cards then serve in no run) or not; of all
    these choices the one with the highest total is declared, ties going to the better best
    meld (rule 14)."""
    fours = [r for r in NATURAL_ORDER if all(s + r in hand for s in SUITS)]
    best_key, best_melds = None, []
    for k in range(len(fours) + 1):
        for declared in combinations(fours, k):
            used = [s + r for r in declared for s in SUITS]
            rest = [c for c in hand if c not in used]
            melds = [Meld("four", FOUR_OF_A_KIND[r], r, "") for r in declared]
            melds += runs_in(rest, long_runs_100)
            total = sum(m.value for m in melds)
            best_single = max((m.strength() for m in melds), default=(-1,))
            key = (total, best_single)
            if best_key is None or key > best_key:
                best_key, best_melds = key, melds
    return best_melds


def hand_roem(hands: dict, trump: str, first: str, long_runs_100: bool = False) -> tuple:
    """(HR_D, HR_O): hand roem of the playing team and the defenders (rules 12-17)."""
    score = {"NS": 0, "EW": 0}
    melds = {seat: player_melds(hands[seat], long_runs_100) for seat in SEATS}
    best_seat, best_strength = None, None
    for seat in SEATS:
        for m in melds[seat]:
            if best_strength is None or m.strength() > best_strength:
                best_seat, best_strength = seat, m.strength()
    if best_seat is not None:                                  # rule 15
        winners = team(best_seat)
        score[winners] = sum(m.value for seat in SEATS if team(seat) == winners
                             for m in melds[seat])
    for seat in SEATS:                                         # rule 16: stuk
        if trump + "K" in hands[seat] and trump + "Q" in hands[seat]:
            score[team(seat)] += 20
    d = team(first)
    o = "EW" if d == "NS" else "NS"
    return score[d], score[o]


# ----------------------------------------------------------------------------- rules 18-21
def final_result(tricks: list, trump: str, first: str, opts: Options,
                 hr_d: int, hr_o: int) -> dict:
    """Score a finished deal.  ``tricks``: list of complete tricks, each a list of four
    (seat, card) in play order.  Returns a dict with the components and
    ``score`` (D's final score minus O's, rule 19 and §8) and ``points`` (Dc + Dr)."""
    d_team = team(first)
    dc = oc = dr = orr = 0
    d_tricks = 0
    for i, trick in enumerate(tricks):
        cards = [c for _, c in trick]
        pts = sum(card_points(c, trump, opts.double_spades) for c in cards)
        if i == len(tricks) - 1:
            pts += last_trick_bonus(trump, opts.double_spades)
        roem = trick_roem(cards, trump) if opts.trick_roem else 0
        if team(trick_winner(trick, trump)) == d_team:
            dc += pts
            dr += roem
            d_tricks += 1
        else:
            oc += pts
            orr += roem
    if not opts.hand_roem:
        hr_d = hr_o = 0
    pit = opts.pit_bonus if d_tricks == len(tricks) else 0
    m = opts.multiplier
    made = dc + dr + hr_d + pit > oc + orr + hr_o
    if made:
        d_score = m * (dc + dr + hr_d + pit)
        o_score = m * (oc + orr + hr_o)
    else:
        d_score = 0
        o_score = m * (dc + oc + dr + orr + hr_d + hr_o)
    return {"Dc": dc, "Oc": oc, "Dr": dr, "Or": orr, "pit": pit, "made": made,
            "score": d_score - o_score, "points": dc + dr}


# ----------------------------------------------------------------------------- play
@dataclass
class State:
    """A position: the cards still held, the tricks completed and the trick in progress."""
    hands: dict            # seat -> list of cards still held
    tricks: list           # completed tricks: lists of (seat, card)
    current: list          # the trick in progress: (seat, card)
    leader: str            # who leads (or led) the trick in progress

    def to_move(self) -> str:
        return next_seat(self.leader, len(self.current))

    def over(self) -> bool:
        return not self.current and all(not h for h in self.hands.values())

    def legal(self, trump: str, opts: Options) -> list:
        seat = self.to_move()
        return legal_cards(self.hands[seat], self.current, seat, trump,
                           opts.trump_rule, opts.undertrump)

    def after(self, card: str, trump: str) -> "State":
        """The position after the player to move plays ``card`` (a new State)."""
        seat = self.to_move()
        hands = dict(self.hands)
        hands[seat] = [c for c in hands[seat] if c != card]
        current = self.current + [(seat, card)]
        if len(current) == 4:
            return State(hands, self.tricks + [current], [], trick_winner(current, trump))
        return State(hands, self.tricks, current, self.leader)


def start_state(hands: dict, first: str) -> State:
    return State({s: sorted(hands[s]) for s in SEATS}, [], [], first)


def replay(hands: dict, trump: str, first: str, opts: Options, played) -> State:
    """Play ``played`` from the first lead, checking that every card is legal."""
    state = start_state(hands, first)
    for card in played:
        assert card in state.legal(trump, opts), f"{card} is not legal here"
        state = state.after(card, trump)
    return state


def count_lines(state: State, trump: str, opts: Options) -> int:
    """Number of distinct legal ways to play from ``state`` to the end of the deal."""
    if state.over():
        return 1
    return sum(count_lines(state.after(c, trump), trump, opts) for c in state.legal(trump, opts))


OBJECTIVES = ("score", "points")


def minimax(state: State, trump: str, first: str, variants: list, hr: list) -> list:
    """Minimax values of ``state`` for several scoring variants at once.

    ``variants``: Options that all share ``trump_rule`` and ``undertrump`` (so the tree of legal
    play is the same), ``hr``: their (HR_D, HR_O).  Returns one [score, points] pair per variant.
    For each variant and objective on its own this is plain minimax: the playing team D
    maximises, the defenders minimise, and a finished deal is worth ``final_result``."""
    if state.over():
        out = []
        for opts, (hr_d, hr_o) in zip(variants, hr):
            res = final_result(state.tricks, trump, first, opts, hr_d, hr_o)
            out.append([res["score"], res["points"]])
        return out
    children = [minimax(state.after(c, trump), trump, first, variants, hr)
                for c in state.legal(trump, variants[0])]
    pick = max if team(state.to_move()) == team(first) else min
    return [[pick(ch[v][k] for ch in children) for k in range(2)] for v in range(len(variants))]


def solve_many(deal_pbn: str, trump: str, first: str, variants: list, played=()) -> list:
    """For each Options in ``variants`` (same trump_rule and undertrump): a dict with the
    ``score`` and ``points`` of the position after ``played`` and, for the player to move,
    ``card_values`` (card -> [score, points]) and ``legal`` (the legal cards)."""
    hands = parse_pbn(deal_pbn)
    assert len({(o.trump_rule, o.undertrump) for o in variants}) == 1
    hr = [hand_roem(hands, trump, first, o.long_runs_100) if o.hand_roem else (0, 0)
          for o in variants]
    state = replay(hands, trump, first, variants[0], played)
    if state.over():
        vals = minimax(state, trump, first, variants, hr)
        return [{"score": v[0], "points": v[1], "card_values": {}, "legal": []} for v in vals]
    legal = state.legal(trump, variants[0])
    per_card = {c: minimax(state.after(c, trump), trump, first, variants, hr) for c in legal}
    pick = max if team(state.to_move()) == team(first) else min
    out = []
    for v in range(len(variants)):
        out.append({
            "score": pick(per_card[c][v][0] for c in legal),
            "points": pick(per_card[c][v][1] for c in legal),
            "card_values": {c: per_card[c][v] for c in legal},
            "legal": legal,
        })
    return out


def solve(deal_pbn: str, trump: str, first: str, options: dict | Options | None = None,
          played=()) -> dict:
    """The position's ``score`` and ``points`` (RULES.md §8) by brute force, plus
    ``card_values`` (card -> [score, points]) for the player to move."""
    opts = options if isinstance(options, Options) else Options.from_dict(options)
    return solve_many(deal_pbn, trump, first, [opts], played)[0]
