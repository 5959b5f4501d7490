"""The kernels' building blocks against tests/naive.py and plain Python, exhaustively where
that is cheap: trick roem on every set of four cards, bit counting on every kind of mask, the
legal cards of a follower on random tricks (both the table form and the incremental form the
search uses), and the transposition table's entries, buckets and keys."""

from __future__ import annotations

from itertools import combinations
from itertools import product as _product

import naive
import numpy as np
import pytest
from numba import njit
from numba.core.errors import TypingError

from kraken_solver.engine.solver import Searcher
from kraken_solver.game.position import Position
from kraken_solver.game.rules import as_rules
from kraken_solver.kernels import bits, bounds, endgame, moves, ordering, search, table

SUITS = "SHDC"


def card_name(c: int) -> str:
    """Kernel card index (suit * 8 + natural rank) -> the reference's two-letter card."""
    return SUITS[c >> 3] + naive.NATURAL_ORDER[c & 7]


@pytest.mark.parametrize("trump", range(4))
def test_trick_roem_of_every_four_cards(trump):
    t = SUITS[trump]
    for cards in combinations(range(32), 4):
        mask = sum(1 << c for c in cards)
        assert moves.trick_roem(mask, trump) == naive.trick_roem([card_name(c) for c in cards], t), \
            (cards, t)


def test_popcount_and_lowest_bit():
    rng = np.random.default_rng(7)
    masks = [1 << i for i in range(32)] + [(1 << 32) - 1, 0x80000001] \
        + [int(x) for x in rng.integers(1, 1 << 32, 2000)]
    for m in masks:
        assert bits.popcount32(m) == bin(m).count("1")
        assert bits.lowest_bit_index(m) == (m & -m).bit_length() - 1
    assert bits.popcount32(0) == 0


def most_trick_roem(hands, leader, trump, trump_rule):
    """The most trick roem (points, rules 10-11) any legal play of the rest can make, whoever
    wins it: every line played out with tests/naive.py's rules.  hands: seat -> card names."""
    def rest(hands, leader, trick):
        seat = naive.SEATS[(leader + len(trick)) % 4]
        if not hands[seat]:
            return 0
        best = 0
        for c in naive.legal_cards(hands[seat], trick, seat, trump, trump_rule):
            h = dict(hands)
            h[seat] = [x for x in hands[seat] if x != c]
            t = trick + [(seat, c)]
            if len(t) < 4:
                v = rest(h, leader, t)
            else:
                won = naive.SEATS.index(naive.trick_winner(t, trump))
                v = naive.trick_roem([x for _, x in t], trump) + rest(h, won, [])
            best = max(best, v)
        return best
    return rest(hands, leader, [])


@pytest.mark.parametrize("trump_rule", ["rotterdam", "amsterdam"])
def test_roem_upper_bound_is_never_below_the_most_roem_play_can_make(trump_rule):
    """``roem_upper_bound`` (runs of three at 20 and of four at 50 only where three or four
    cards in a row lie in as many hands, as many runs a suit as disjoint such windows, at most
    one run a trick; stuk; four of a kind) is at least the most trick roem of every legal play
    of two or three tricks, on hands drawn from few suits so that roem is common; and it is
    reached (above 0) on many of them, so it is not trivially high."""
    rng = np.random.default_rng(11 if trump_rule == "rotterdam" else 12)
    reached = 0
    for i in range(300):
        tricks = 2 + i % 2
        suits = rng.permutation(4)[:2 + i % 3]
        pool = [8 * int(s) + r for s in suits for r in range(8)]
        cards = [pool[j] for j in rng.permutation(len(pool))[:4 * tricks]]
        masks = [sum(1 << c for c in cards[p * tricks:(p + 1) * tricks]) for p in range(4)]
        trump = int(rng.integers(4))
        leader = int(rng.integers(4))
        bound = bounds.roem_upper_bound(*masks, tricks, trump)
        hands = {naive.SEATS[p]: [card_name(c) for c in cards[p * tricks:(p + 1) * tricks]]
                 for p in range(4)}
        most = most_trick_roem(hands, leader, SUITS[trump], trump_rule)
        assert most <= bound, (hands, SUITS[trump], leader, most, bound)
        reached += most == bound > 0
    assert reached >= 100, reached


@pytest.mark.parametrize("trump_rule,undertrump", [("rotterdam", "forbidden"),
                                                   ("rotterdam", "forced"),
                                                   ("amsterdam", "forbidden"),
                                                   ("amsterdam", "forced")])
def test_legal_cards_of_a_follower(trump_rule, undertrump):
    """moves.legal_mask (the trick as a table) against naive.legal_cards on random tricks and
    hands; both kernel forms share ``legal_mask_follow``."""
    rng = np.random.default_rng(hash((trump_rule, undertrump)) % 2**32)
    for _ in range(3000):
        cards = [int(c) for c in rng.permutation(32)[:12]]
        tlen = int(rng.integers(1, 4))
        trick, hand = cards[:tlen], cards[tlen:tlen + int(rng.integers(1, 9))]
        trump = int(rng.integers(4))
        leader = int(rng.integers(4))
        pts, pw, higher = moves.card_tables(trump, False)
        tr = np.zeros(4, dtype=np.int64)
        tr[:tlen] = trick
        got = moves.legal_mask(sum(1 << c for c in hand), tr, tlen, leader, trump,
                           trump_rule == "amsterdam", undertrump == "forced", pw, higher)
        seat = naive.SEATS[(leader + tlen) % 4]
        played = [(naive.SEATS[(leader + i) % 4], card_name(c)) for i, c in enumerate(trick)]
        want = naive.legal_cards([card_name(c) for c in hand], played, seat, SUITS[trump],
                                 trump_rule, undertrump)
        assert sorted(card_name(c) for c in range(32) if (got >> c) & 1) == sorted(want), \
            (trick, hand, SUITS[trump], leader, trump_rule, undertrump)


def test_table_entries_keep_every_bound_generation_and_depth():
    bounds = [-table.INF - 2, -table.INF - 1, -table.POS_BIG, -162, -1, 0, 1, 162,
              table.POS_BIG, table.INF + 1, table.INF + 2]
    for gen in (0, 1, 2, table.TT_GEN_LIMIT // 2, table.TT_GEN_LIMIT - 1):
        for depth in (0, 1, 7, 8):
            for lo in bounds:
                for hi in bounds:
                    word = table.tt_pack(lo, hi, gen, depth)
                    assert table.tt_bounds(word) == (lo, hi)
                    assert table.tt_generation(word) == gen
                    assert table.tt_depth(word) == depth


def test_table_buckets_find_keys_and_choose_victims():
    tt = np.zeros(2 * 16, dtype=np.int64)
    gen = 5
    bucket = table.tt_index(12345, 15)
    assert bucket % table.TT_WAYS == 0 and 0 <= bucket <= 15
    assert table.tt_find(tt, 4, 7, gen) == -1
    assert table.tt_victim(tt, 4, gen) == 8          # an empty entry: the bucket's first
    # fill bucket 4..7 with this generation's entries of 6, 2, 7 and 3 tricks left
    keys = [11, 22, 33, 44]
    depths = [6, 2, 7, 3]
    for j, key in enumerate(keys):
        tt[2 * (4 + j)] = key
        tt[2 * (4 + j) + 1] = table.tt_pack(-j, j, gen, depths[j])
    for j, key in enumerate(keys):
        e = table.tt_find(tt, 4, key, gen)
        assert e == 2 * (4 + j)
        assert table.tt_bounds(tt[e + 1]) == (-j, j)
        assert table.tt_find(tt, 4, key, gen + 1) == -1  # another generation never matches
    assert table.tt_victim(tt, 4, gen) == 2 * 5           # the fewest tricks left (2)
    tt[2 * 6 + 1] = table.tt_pack(0, 0, gen - 1, 8)
    assert table.tt_victim(tt, 4, gen) == 2 * 6           # an older generation goes first


def test_last_three_tricks_keep_their_entries_in_the_first_part_of_the_table():
    """``tt_slot``: with 12 cards or fewer left a boundary's bucket lies in the first
    DEEP_ENTRIES entries (and is ``tt_index`` there); higher up it is ``tt_index`` over the
    whole table, which spreads past that part; a table no larger than it is used whole."""
    rng = np.random.default_rng(3)
    big = (1 << 18) - 1
    keys = [int(k) for k in rng.integers(0, 1 << 53, 2000)]
    for key in keys:
        for left in (4, 8, 12):
            slot = table.tt_slot(key, left, big)
            assert slot == table.tt_index(key, table.DEEP_ENTRIES - 1) and slot % table.TT_WAYS == 0
        for left in (16, 20, 32):
            assert table.tt_slot(key, left, big) == table.tt_index(key, big)
        small = (1 << 10) - 1
        assert table.tt_slot(key, 8, small) == table.tt_slot(key, 24, small) == table.tt_index(key, small)
    assert max(table.tt_slot(k, 12, big) for k in keys) < table.DEEP_ENTRIES
    assert max(table.tt_slot(k, 16, big) for k in keys) >= table.DEEP_ENTRIES


def test_searcher_table_is_aligned_and_cleared_when_the_generation_wraps():
    searcher = Searcher(tt_bits=6)
    assert searcher.tt.ctypes.data % 64 == 0 and searcher.tt.size == 2 * 64
    deal = "N:AKQJ.T987.. .AKQJ.T987. ..AKQJ.T987 T987...AKQJ"
    searcher.value(Position(deal, 0, 0), "points")
    assert searcher.tt.any()
    searcher.gen = table.TT_GEN_LIMIT - 1
    searcher.context(Position(deal, 1, 0))               # a new trump: a new generation
    assert searcher.gen == 1 and not searcher.tt.any()


@njit(cache=True)
def _through_pointers(values, index):
    """Reads values[index] and doubles every element through a ``data_pointer``, while
    summing a local array through another one (kept alive to the end); returns (the value
    read, the local array's sum)."""
    p = bits.data_pointer(values)
    local = np.arange(values.size)
    q = bits.data_pointer(local)
    read = p[index]
    total = 0
    for i in range(values.size):
        p[i] = 2 * p[i]
        total += q[i]
    bits.keep_alive(local)
    return read, total


def test_data_pointer_reads_and_writes_the_array_and_refuses_a_strided_one():
    values = np.arange(10, 20, dtype=np.int64)
    assert _through_pointers(values, 3) == (13, sum(range(10)))
    assert values.tolist() == [2 * v for v in range(10, 20)]
    with pytest.raises(TypingError):
        _through_pointers(np.arange(20, dtype=np.int64)[::2], 0)


def test_searcher_context_is_built_once_a_deal_and_trump():
    searcher = Searcher(tt_bits=6)
    deal = "N:AKQJ.T987.. .AKQJ.T987. ..AKQJ.T987 T987...AKQJ"
    pos = Position(deal, 0, 0)
    ctx = searcher.context(pos)
    gen = searcher.gen
    pos.play(pos.legal()[0])                            # the same deal, a card later
    assert searcher.context(pos) is ctx and searcher.gen == gen
    other = searcher.context(Position(deal, 2, 0))      # another trump
    assert other is not ctx and searcher.gen == gen + 1
    assert other[search.C_TRUMP] == 2 and ctx[search.C_TRUMP] == 0 and other[search.C_GEN] == gen + 1
    rules = as_rules("kraken-amsterdam")
    third = searcher.context(Position(deal, 2, 0, rules))   # other rules
    assert third[search.C_AMSTERDAM] == 1 and other[search.C_AMSTERDAM] == 0
    # clear(): the same position again, but from a new generation (an empty table)
    gen = searcher.gen
    searcher.clear()
    fourth = searcher.context(Position(deal, 2, 0, rules))
    assert searcher.gen == gen + 1 and fourth[search.C_GEN] == gen + 1


def test_move_ordering_is_kept_from_search_to_search_of_one_deal_trump_and_mode():
    """The killers and history a Searcher keeps (``Searcher.order``): a later search of one
    deal, trump and search mode starts from what the earlier ones learnt, another mode starts
    with no killers, and another deal, trump or first player with none of either; so a solve's
    nodes never depend on what the searcher solved before for another deal (the layouts of a
    hint spread over workers)."""
    from kraken_solver.bench.suites import random_deals
    a, b = random_deals(2, 3)
    fresh = Searcher()
    fresh.value(Position(b, 1, 0), "score")
    used = Searcher()
    for trump in range(4):
        used.value(Position(a, trump, 2), "score")
    used.value(Position(b, 0, 0), "points")            # the same deal, another trump first
    n0 = used.nodes
    used.value(Position(b, 1, 0), "score")
    assert used.nodes - n0 == fresh.nodes

    pos = Position(a, 3, 1, "klaverjas-rotterdam")
    used.value(pos, "points")
    killers = used.order[:search.ORDER_KILLERS].copy()
    assert (killers >= 0).any() and used.order[search.ORDER_KILLERS:].any()
    # a search that its bounds end at once (D's points are never negative) writes nothing:
    # in the same mode the killers stay, in another they are gone, the history stays
    assert used.search(pos, table.MODE_POINTS, 0, -1000, -999) >= -999
    assert (used.order[:search.ORDER_KILLERS] == killers).all()
    assert used.search(pos, table.MODE_MARGIN, 0, -1000, -999) >= -999
    assert (used.order[:search.ORDER_KILLERS] == -1).all() and used.order[search.ORDER_KILLERS:].any()
    used.context(Position(a, 2, 1, "klaverjas-rotterdam"))     # another trump
    assert (used.order[:search.ORDER_KILLERS] == -1).all() and not used.order[search.ORDER_KILLERS:].any()


@pytest.mark.parametrize("objective", ["score", "points"])
def test_every_cards_value_is_the_same_with_the_ordering_kept_as_with_a_fresh_searcher(
        objective):
    from kraken_solver.bench.suites import random_deals
    from kraken_solver.engine.solver import card_values_of
    from kraken_solver.game.cards import card_str
    shared = Searcher()
    for i, deal in enumerate(random_deals(6, 8)):
        pos = Position(deal, i % 4, i % 3, "kraken" if i % 2 else "klaverjas-amsterdam")
        for _ in range(i):                                  # part-played from the third
            pos.play(pos.legal()[-1])
        alone = {}
        for c in pos.legal():
            child = pos.copy()
            child.play(c)
            alone[card_str(c)] = Searcher().value(child, objective)
        assert card_values_of(pos, objective, shared) == alone, (i, objective)


def suit_class(byte: int, suit: int, trump: int, owner: list, roem_on: bool) -> tuple:
    """What a suit's part of a table key must tell apart, by definition: the cards left that
    are worth points, and the 0-point cards left (7 8 9, or 7 8 of trump) either as who holds
    them low to high or, where trick roem could put one of them in a run of three left
    cards held by three players, as the cards themselves."""
    ranks = [r for r in range(8) if byte >> r & 1]
    n_zero = 2 if suit == trump else 3
    scoring = tuple(r for r in ranks if r >= n_zero)
    zero = [r for r in ranks if r < n_zero]
    run = any(all(w + i in ranks for i in range(3))
              and len({owner[8 * suit + w + i] for i in range(3)}) == 3 for w in range(n_zero))
    if roem_on and run:
        return scoring, "cards", tuple(zero)
    return scoring, "holders", tuple(owner[8 * suit + r] for r in zero)


@pytest.mark.parametrize("roem_on", [False, True])
@pytest.mark.parametrize("double_spades", [False, True])
def test_suit_codes_tell_apart_exactly_the_classes(roem_on, double_spades):
    rng = np.random.default_rng(11)
    for _ in range(3):
        cards = rng.permutation(32)
        hands = np.zeros(4, dtype=np.int64)
        owner = [0] * 32
        for i, c in enumerate(cards):
            hands[i // 8] |= 1 << int(c)
            owner[int(c)] = i // 8
        for trump in range(4):
            pts = moves.card_tables(trump, double_spades)[0]
            zero = sum(1 << c for c in range(32) if pts[c] == 0)
            codes = table.suit_code_table(hands, zero, roem_on)
            assert 0 <= codes.min() and codes.max() < 1 << 12
            for suit in range(4):
                seen = {}
                for byte in range(256):
                    cls = suit_class(byte, suit, trump, owner, roem_on)
                    code = int(codes[256 * suit + byte])
                    assert seen.setdefault(code, cls) == cls, (suit, byte)
                assert len(seen) == len({suit_class(b, suit, trump, owner, roem_on)
                                         for b in range(256)})


def test_table_probe_carries_bounds_across_the_roem_needed():
    """An entry of the same position needing less roem bounds the value from below, one
    needing more from above; other positions, modes and generations give nothing."""
    codes = np.arange(1024, dtype=np.int64)
    gen = 3

    def key(mode, need, leader=0):
        return table.boundary_key(0x0F0F0F0F, leader, 0, mode, need, 100, codes)

    k20 = key(table.MODE_ROEM, 20)
    bucket = table.tt_index(k20, 63)
    assert all(table.tt_index(key(table.MODE_ROEM, n), 63) == bucket for n in (20, 40, 50, 1000))
    assert table.tt_index(key(table.MODE_MARGIN, 0), 63) == bucket
    tt = np.zeros(2 * 64, dtype=np.int64)
    assert table.tt_probe(tt, bucket, k20, gen) == (False, -table.INF - 2, table.INF + 2)
    entries = [(key(table.MODE_MARGIN, 0), -30, 10),     # no roem needed
               (key(table.MODE_ROEM, 50), -5, 40),       # more roem needed
               (key(table.MODE_POINTS, 0), 60, 60),      # another mode
               (key(table.MODE_ROEM, 20, leader=1), 99, 99)]
    for j, (k, lo, hi) in enumerate(entries):
        tt[2 * (bucket + j)] = k
        tt[2 * (bucket + j) + 1] = table.tt_pack(lo, hi, gen, 5)
    assert table.tt_probe(tt, bucket, k20, gen) == (True, -30, 40)
    assert table.tt_probe(tt, bucket, key(table.MODE_ROEM, 50), gen) == (True, -5, 40)
    assert table.tt_probe(tt, bucket, key(table.MODE_ROEM, 60), gen) == (True, -5, table.INF + 2)
    assert table.tt_probe(tt, bucket, key(table.MODE_MARGIN, 0), gen) == (True, -30, 10)
    assert table.tt_probe(tt, bucket, k20, gen + 1) == (False, -table.INF - 2, table.INF + 2)



def part_played_positions(rules, n, deal_seed, play_seed, first, plays):
    """Deal ``i`` of ``random_deals(n, deal_seed)`` with trump ``i % 4`` and first player
    ``first(i)``, after ``plays(i)`` random legal cards (mid-trick too): yields (i, deal,
    Position)."""
    from kraken_solver.bench.suites import random_deals
    rng = np.random.default_rng(play_seed)
    for i, deal in enumerate(random_deals(n, deal_seed)):
        pos = Position(deal, i % 4, first(i), rules)
        for _ in range(plays(i)):
            pos.play(pos.legal()[int(rng.integers(len(pos.legal())))])
        yield i, deal, pos


def null_window_value(s: Searcher, pos: Position, mode: int, lo: int, hi: int) -> int:
    """The value of a search mode, ``lo < value <= hi``, by bisection with null-window
    searches only (which never scout or search again): the plain driver to check the
    principal variation search against."""
    while hi - lo > 1:
        mid = (lo + hi) // 2 + 1
        if s.search(pos, mode, 0, mid - 1, mid) >= mid:
            lo = mid - 1
        else:
            hi = mid - 1
    return hi


@pytest.mark.parametrize("preset", ["kraken", "klaverjas-rotterdam"])
def test_rest_of_deal_counts_the_cards_left_with_the_trick_on_the_table(preset):
    """``rest_of_deal``: the card points still to fall (cards in hand and on the table) add up
    with the points of the tricks taken to the deal's card points (152 with no card doubled),
    and its roem bound is ``roem_upper_bound`` on each player's cards, the table's cards
    counted with the players who played them; at every point of play, mid-trick too."""
    from kraken_solver.game.rules import Rules
    rules = Rules.preset(preset)
    for i, deal, pos in part_played_positions(rules, 8, 21, 3, lambda i: i % 4, lambda i: i):
        while True:
            points, roem = bounds.rest_of_deal(pos.hands, pos.trick, pos.tlen, pos.leader, pos.pts,
                                          pos.trump)
            taken = sum(t.points for t in pos.tricks) - (pos.last_bonus if pos.over else 0)
            assert points + taken == 152, (str(deal), pos.tricks)
            held = [int(h) for h in pos.hands]
            for j in range(pos.tlen):
                held[(pos.leader + j) % 4] |= 1 << int(pos.trick[j])
            left = held[0] | held[1] | held[2] | held[3]
            assert roem == bounds.roem_upper_bound(*held, (bin(left).count("1") + 3) // 4,
                                              pos.trump)
            if pos.over:
                break
            pos.play(pos.legal()[0])


@pytest.mark.parametrize("double_spades", [False, True])
def test_sure_trump_points_are_the_trumps_above_all_of_the_other_teams(double_spades):
    """``sure_trump_points``: the points of a team's trumps that are higher than every trump
    of the other team's (tests/naive.py's trump order and points), on every trump and every
    way of splitting a random set of trumps between the four hands; 0 for the other team."""
    rng = np.random.default_rng(5)
    for trump in range(4):
        pts, pw, _ = moves.card_tables(trump, double_spades)
        tab = bounds.trump_tables(trump, pts, pw)
        mult = 2 if double_spades and trump == 0 else 1
        for _ in range(300):
            hands = np.zeros(4, dtype=np.int64)
            for r in rng.permutation(8)[:int(rng.integers(0, 9))]:
                hands[int(rng.integers(4))] |= 1 << (8 * trump + int(r))
            for c in rng.permutation([c for c in range(32) if c >> 3 != trump])[:6]:
                hands[int(rng.integers(4))] |= 1 << int(c)
            dteam = int(rng.integers(2))

            def trumps(team):
                return [naive.NATURAL_ORDER[r] for r in range(8)
                        if (int(hands[team] | hands[team + 2]) >> (8 * trump + r)) & 1]

            def sure(mine, theirs):
                top = min((naive.TRUMP_HIGH_TO_LOW.index(t) for t in theirs), default=8)
                return mult * sum(naive.TRUMP_POINTS[t] for t in mine
                                  if naive.TRUMP_HIGH_TO_LOW.index(t) < top)
            d, o = trumps(dteam), trumps(1 - dteam)
            assert bounds.sure_trump_points(hands, dteam, trump, tab) == (sure(d, o), sure(o, d)), \
                (trump, d, o)



def most_points_forced_in_trick(hands, leader, trump, trump_rule, undertrump, double_spades):
    """The most card points the leader's side can force into the trick about to be led and
    still take it (tests/naive.py's rules; the leader and the partner choose, the opponents
    try to take the trick or hold its points down); -1 where the opponents can always take
    it.  hands: seat -> card names."""
    def play(trick):
        seat = naive.SEATS[(leader + len(trick)) % 4]
        if len(trick) == 4:
            if naive.SEATS.index(naive.trick_winner(trick, trump)) % 2 != leader % 2:
                return -1
            return sum(naive.card_points(c, trump, double_spades) for _, c in trick)
        values = [play(trick + [(seat, c)]) for c in naive.legal_cards(
            hands[seat], trick, seat, trump, trump_rule, undertrump)]
        ours = naive.SEATS.index(seat) % 2 == leader % 2
        return max(values) if ours else min(values)
    return play([])


@pytest.mark.parametrize("trump_rule,undertrump,double_spades", [
    ("rotterdam", "forbidden", False), ("rotterdam", "forced", True),
    ("amsterdam", "forbidden", True), ("amsterdam", "forced", False)])
def test_quick_trick_points_are_forced_into_the_leaders_trick(trump_rule, undertrump,
                                                              double_spades):
    """``quick_trick_points`` (a plain master of the leader or the partner that no opponent
    can ruff, with the fewest points each other holder of its suit must follow with) is never
    more than the points the leader's side can force into the trick about to be led while
    taking it, over every legal play of that trick by tests/naive.py's rules; and it is
    above 0 on many of the random positions, and equal to that most on some."""
    rng = np.random.default_rng(21)
    positive = equal = 0
    for i in range(600):
        size = 1 + i % 4
        cards = [int(c) for c in rng.permutation(32)[:4 * size]]
        masks = np.array([sum(1 << c for c in cards[p * size:(p + 1) * size])
                          for p in range(4)], dtype=np.int64)
        trump = int(rng.integers(4))
        leader = int(rng.integers(4))
        pts, _, higher = moves.card_tables(trump, double_spades)
        remaining = int(masks[0] | masks[1] | masks[2] | masks[3])
        qt = bounds.quick_trick_points(masks, leader, remaining, trump, pts, higher)
        if qt == 0:
            continue
        hands = {naive.SEATS[p]: [card_name(c) for c in cards[p * size:(p + 1) * size]]
                 for p in range(4)}
        most = most_points_forced_in_trick(hands, leader, SUITS[trump], trump_rule,
                                           undertrump, double_spades)
        assert 0 < qt <= most, (hands, SUITS[trump], leader, qt, most)
        positive += 1
        equal += qt == most
    assert positive >= 150 and equal >= 30, (positive, equal)

def test_run_in_reach_is_three_ranks_in_a_row_through_the_card():
    """``run_in_reach`` (move ordering): some three ranks in a row of the suit led, the card's
    among them, are each on the table, the card itself or in the hand of a player still to
    play to the trick (rule 10's runs), on random deals and tricks."""
    from kraken_solver.bench.suites import random_deals
    rng = np.random.default_rng(9)
    seen = {True: 0, False: 0}
    for deal in random_deals(150, 4):
        hands = np.array(deal.hands, dtype=np.int64)
        leader = int(rng.integers(4))
        tlen = 1 + int(rng.integers(2))
        led = int(rng.integers(4))
        # the cards on the table: from the first tlen players' cards of the suit led
        tmask = 0
        for j in range(tlen):
            held = int(hands[(leader + j) & 3])
            mine = [c for c in range(8 * led, 8 * led + 8) if (held >> c) & 1]
            if mine:
                tmask |= 1 << mine[int(rng.integers(len(mine)))]
        seat = (leader + tlen) & 3
        later = [(leader + j) & 3 for j in range(tlen + 1, 4)]
        for c in range(8 * led, 8 * led + 8):
            if not (int(hands[seat]) >> c) & 1:
                continue
            have = {r for r in range(8) if ((tmask | (1 << c)) >> (8 * led + r)) & 1
                    or any((int(hands[p]) >> (8 * led + r)) & 1 for p in later)}
            r = c & 7
            expected = any({s, s + 1, s + 2} <= have for s in range(max(r - 2, 0), min(r, 5) + 1))
            assert ordering.run_in_reach(c, tmask, hands, leader, tlen, led) == expected, \
                (str(deal), leader, tlen, c, tmask)
            seen[expected] += 1
    assert min(seen.values()) >= 20, seen


@pytest.mark.parametrize("preset", ["kraken", "klaverjas-rotterdam"])
def test_principal_variation_search_is_fail_soft_on_any_window(preset):
    """The kernel with a window wider than null (a principal variation search: null-window
    scouts after the first card, searched again when they land inside): exact inside the
    window, a bound on the right side of it outside, on full deals and part-played positions,
    points and margin, against bisection with null windows only; table on and off, pruning of
    near-equivalent cards on and off."""
    from kraken_solver.game.rules import Rules
    rules = Rules.preset(preset)
    for i, deal, pos in part_played_positions(rules, 6, 13, 5, lambda i: (i // 4) % 4,
                                              lambda i: 5 * i):
        for mode in (table.MODE_POINTS, table.MODE_MARGIN):
            s = Searcher()
            ub = s.margin_upper_bound(pos)
            lo = -1 if mode == table.MODE_POINTS else -ub - 1
            v = null_window_value(s, pos, mode, lo, ub)
            windows = [(lo, ub + 1), (v - 1, v + 1), (v, v + 30), (v - 30, v), (v + 2, v + 9),
                       (v - 9, v - 2), (v - 40, v + 17)]
            for use_tt, near_cards in ((True, True), (False, True), (True, False)):
                for a, b in windows:
                    r = Searcher(use_tt=use_tt, near_cards=near_cards).search(pos, mode, 0, a, b)
                    if a < v < b:
                        assert r == v, (deal, i, mode, a, b, r, v)
                    elif v <= a:
                        assert v <= r <= a, (deal, i, mode, a, b, r, v)
                    else:
                        assert b <= r <= v, (deal, i, mode, a, b, r, v)


@pytest.mark.parametrize("preset", ["kraken", "klaverjas-rotterdam"])
def test_a_guess_only_steers_the_search(preset):
    """``Searcher.value`` with a guess (an aspiration window about it, or a made test first
    for a guess of nat) gives the value without one, for guesses near and far on both sides,
    with one searcher (and its table) across all of them."""
    from kraken_solver.game.rules import Rules
    rules = Rules.preset(preset)
    s = Searcher()
    for i, deal, pos in part_played_positions(rules, 12, 19, 17, lambda i: (i + 1) % 4,
                                              lambda i: 5 * i % 32):
        for objective in ("score", "points"):
            v = Searcher().value(pos, objective)
            for g in (v, v - 1, v + 1, v - 15, v + 17, v - 40, v + 60, -v, 0, 1, -300, 300):
                assert s.value(pos, objective, guess=g) == v, (deal, i, objective, g)


@pytest.mark.parametrize("preset", ["kraken", "klaverjas-rotterdam", "kraken-amsterdam"])
def test_at_least_is_the_value_compared(preset):
    """``Searcher.at_least`` (one null-window search, a roem test for nat targets) says
    ``value >= target`` for targets about the value and across nat and made values, on full
    deals and part-played ones (doubled scores too)."""
    from kraken_solver.game.rules import Rules
    rules = Rules.preset(preset, multiplier=2) if preset == "kraken-amsterdam" \
        else Rules.preset(preset)
    s = Searcher()
    for i, deal, pos in part_played_positions(rules, 8, 29, 23, lambda i: (i + 2) % 4,
                                              lambda i: 7 * i % 32):
        for objective in ("score", "points"):
            v = Searcher().value(pos, objective)
            for t in sorted({v - 21, v - 20, v - 2, v - 1, v, v + 1, v + 2, v + 19, v + 20, -v,
                             0, 1, -1}):
                assert s.at_least(pos, objective, t) == (v >= t), (deal, i, objective, t, v)


@pytest.mark.parametrize("preset", ["kraken", "klaverjas-amsterdam"])
def test_two_tricks_value_is_fail_soft(preset):
    """With two tricks left: with the full window the exact value (tests/naive.py's brute
    force), and with a window a bound on the right side of it, exact inside."""
    from kraken_solver.bench.suites import random_deals
    from kraken_solver.game.cards import card_str
    from kraken_solver.game.rules import Rules
    rules = Rules.preset(preset)
    opts = naive.Options(trump_rule=rules.trump_rule, undertrump=rules.undertrump,
                         trick_roem=bool(rules.trick_roem), hand_roem=False,
                         pit_bonus=rules.pit_bonus)
    rng = np.random.default_rng(5)
    for i, deal in enumerate(random_deals(12, 21)):
        pos = Position(deal, i % 4, (i + 1) % 4, rules)
        while len(pos.played) < 24:
            legal = pos.legal()
            pos.play(legal[int(rng.integers(len(legal)))])
        ref = naive.solve(deal.pbn(), SUITS[pos.trump], naive.SEATS[pos.first], opts,
                          [card_str(c) for c in pos.played])
        exact = ref["points"] - pos.past_dpoints
        args = (pos.hands, pos.leader, pos.trump, pos.pw, pos.pts, pos.higher,
                rules.trump_rule == "amsterdam", rules.undertrump == "forced", table.MODE_POINTS,
                pos.flag_lost, 0, pos.dteam, rules.pit_bonus, pos.last_bonus,
                bool(rules.trick_roem))
        assert endgame.two_tricks_value(*args, -table.INF, table.INF) == exact
        for alpha in range(-1, exact + 30, 7):
            v = endgame.two_tricks_value(*args, alpha, alpha + 1)
            assert (v <= alpha and exact <= v) or (v > alpha and exact >= v), (alpha, v, exact)


def two_tricks_reference(hands, leader, trump, mode, lost, need, dteam, pit, double_spades,
                         trump_rule, undertrump, roem_on):
    """The value in ``mode`` (the _kernels docstring) of two tricks left, by plain minimax over
    tests/naive.py's rules: ``hands`` four lists of two card texts, seats 0..3 = N E S W."""
    bonus = naive.last_trick_bonus(SUITS[trump], double_spades)

    def trick_value(trick, last):
        cards = [c for _, c in trick]
        pts = sum(naive.card_points(c, SUITS[trump], double_spades) for c in cards)
        roem = naive.trick_roem(cards, SUITS[trump]) if roem_on else 0
        return pts + (bonus if last else 0), roem

    def play(hands, leader, trick, tricks):
        if len(trick) == 4:
            winner = naive.SEATS.index(naive.trick_winner(trick, SUITS[trump]))
            tricks = tricks + [(winner, *trick_value(trick, len(tricks) == 1))]
            if len(tricks) == 2:
                won = [(w & 1) == dteam for w, _, _ in tricks]
                if mode == table.MODE_POINTS:
                    return sum(p + r for (w, p, r), d in zip(tricks, won) if d)
                value = sum((p + r) * (1 if d else -1) for (w, p, r), d in zip(tricks, won))
                if all(won) and lost == 0:
                    value += pit
                if mode == table.MODE_ROEM and sum(r for _, _, r in tricks) < need:
                    return table.POS_BIG
                return value
            return play(hands, winner, [], tricks)
        seat = (leader + len(trick)) & 3
        legal = naive.legal_cards(hands[seat], trick, naive.SEATS[seat], SUITS[trump],
                                  trump_rule, undertrump)
        values = []
        for c in legal:
            rest = [h if i != seat else [x for x in h if x != c] for i, h in enumerate(hands)]
            values.append(play(rest, leader, trick + [(naive.SEATS[seat], c)], tricks))
        return max(values) if (seat & 1) == dteam else min(values)

    return play(hands, leader, [], [])


def test_two_tricks_value_in_every_mode():
    """``two_tricks_value`` against a plain minimax over tests/naive.py's rules with two
    tricks left, in every search mode (points, margin with the pit, roem needed), both trump
    rules, undertrumping either way, trick roem on and off, double spades: with the full
    window the exact value, with other windows a bound on the right side of it, exact
    inside."""
    from kraken_solver.game.cards import card_str
    rng = np.random.default_rng(11)
    for i in range(300):
        cards = [int(c) for c in rng.permutation(32)[:8]]
        masks = np.array([(1 << cards[2 * s]) | (1 << cards[2 * s + 1]) for s in range(4)],
                         dtype=np.int64)
        hands = [[card_str(cards[2 * s]), card_str(cards[2 * s + 1])] for s in range(4)]
        trump, leader, dteam = int(rng.integers(4)), int(rng.integers(4)), int(rng.integers(2))
        mode = (table.MODE_POINTS, table.MODE_MARGIN, table.MODE_ROEM)[i % 3]
        lost, pit = int(rng.integers(2)), (0, 100)[int(rng.integers(2))]
        need = int(rng.integers(1, 60)) if mode == table.MODE_ROEM else 0
        double_spades = bool(rng.integers(2))
        trump_rule = ("rotterdam", "amsterdam")[int(rng.integers(2))]
        undertrump = ("forbidden", "forced")[int(rng.integers(2))]
        roem_on = mode == table.MODE_ROEM or bool(rng.integers(2))
        exact = two_tricks_reference(hands, leader, trump, mode, lost, need, dteam, pit,
                                     double_spades, trump_rule, undertrump, roem_on)
        pts, pw, higher = moves.card_tables(trump, double_spades)
        args = (masks, leader, trump, pw, pts, higher, trump_rule == "amsterdam",
                undertrump == "forced", mode, lost, need, dteam, pit,
                20 if (double_spades and trump == 0) else 10, roem_on)
        case = (hands, trump, leader, dteam, mode, lost, need, pit, double_spades, trump_rule,
                undertrump, roem_on)
        assert endgame.two_tricks_value(*args, -table.INF, table.INF) == exact, case
        for alpha in range(-300, 300, 13):
            for width in (1, 25):
                v = endgame.two_tricks_value(*args, alpha, alpha + width)
                assert (v <= alpha and exact <= v) or (v >= alpha + width and exact >= v) \
                    or (alpha < v < alpha + width and v == exact), (case, alpha, width, v, exact)


def test_table_store_merges_fail_soft_results():
    """``tt_store``: below the window an upper bound, above it a lower bound, inside exact;
    bounds of one key and generation narrow each other."""
    tt = np.zeros(2 * 64, dtype=np.int64)
    key, gen = 12345, 7
    bucket = table.tt_index(key, 63)
    table.tt_store(tt, bucket, key, gen, 40, 50, 51, 3)        # value <= 40
    assert table.tt_probe(tt, bucket, key, gen) == (True, -table.INF - 2, 40)
    table.tt_store(tt, bucket, key, gen, 20, 19, 20, 3)        # value >= 20
    assert table.tt_probe(tt, bucket, key, gen) == (True, 20, 40)
    table.tt_store(tt, bucket, key, gen, 33, 10, 60, 3)        # value == 33
    assert table.tt_probe(tt, bucket, key, gen) == (True, 33, 33)
    assert sum(int(tt[2 * (bucket + j)]) == key for j in range(table.TT_WAYS)) == 1
    assert table.tt_depth(tt[table.tt_find(tt, bucket, key, gen) + 1]) == 3


def test_roem_potential_mask_is_every_card_that_can_change_a_tricks_roem():
    """``play_roem_potential_mask`` flags a card of the mover exactly when it can change the
    trick roem (rules 10-11) of some trick: with the cards on the table and one card of each
    player still to play (the trick in progress), or with one card of each other hand (a later
    trick); ``roem_potential_mask`` flags at least those, exactly those when no card is on the
    table; brute force over every such trick, with naive.trick_roem, on random hands."""
    rng = np.random.default_rng(12)
    seen = {True: 0, False: 0}
    for _ in range(400):
        order = rng.permutation(32)
        k = int(rng.integers(2, 7))
        hands = np.array([sum(1 << int(c) for c in order[p * k:(p + 1) * k]) for p in range(4)],
                         dtype=np.int64)
        trump = int(rng.integers(4))
        seat = int(rng.integers(4))
        tlen = int(rng.integers(3))        # cards on the table, played by the seats before
        table = [int(c) for c in order[4 * k:4 * k + tlen]]
        tmask = sum(1 << c for c in table)
        later = [(seat + j) & 3 for j in range(1, 4 - tlen)]
        others = [(seat + j) & 3 for j in range(1, 4)]

        def cards(p):
            return [c for c in range(32) if (int(hands[p]) >> c) & 1]

        def changes(c, fixed, seats):
            for combo in _product(*(cards(p) for p in seats)):
                rest = [card_name(x) for x in fixed + list(combo)]
                t = SUITS[trump]
                if naive.trick_roem(rest + [card_name(c)], t) != naive.trick_roem(rest, t):
                    return True
            return False

        pot = int(ordering.roem_potential_mask(*(hands[(seat + j) & 3] for j in range(4)), tmask,
                                        trump))
        exact = int(ordering.play_roem_potential_mask(hands, seat, tmask, tlen, trump))
        assert pot & ~int(hands[seat]) == 0 and exact & ~pot == 0
        for c in cards(seat):
            expected = changes(c, table, later) or changes(c, [], others)
            assert bool((exact >> c) & 1) == expected, \
                (hands.tolist(), seat, table, trump, card_name(c))
            # roem_potential_mask: exact without a table; with one, a table card may be paired
            # with a card of the player who played it (a pair that never meets): flagged,
            # never missed
            flagged = bool((pot >> c) & 1)
            assert flagged == expected or (flagged and tlen > 0), \
                (hands.tolist(), seat, table, trump, card_name(c))
            seen[expected] += 1
    assert min(seen.values()) >= 200, seen


@pytest.mark.parametrize("preset", ["kraken", "klaverjas-rotterdam"])
def test_the_fourth_hands_dropped_cards_are_dominated(preset):
    """``prune_dominated_last`` at the fourth hand of random part-played deals: every card it
    drops has a kept card of the same suit worth at least as much to the mover, score and
    points, by searches that prune no near-equivalent card; and it drops some."""
    from kraken_solver.game.rules import Rules
    rules = Rules.preset(preset)
    plain = Searcher(near_cards=False)
    dropped = 0
    for i, deal, pos in part_played_positions(rules, 120, 21, 8, lambda i: i % 4,
                                              lambda i: 4 * (i % 6) + 3):
        seat = pos.to_move
        legal = pos.legal_mask()
        tmask = sum(1 << int(c) for c in pos.trick[:3])
        widx = moves.trick_winner_index(pos.trick, 3, pos.trump, pos.pw)
        others = (int(pos.hands[0] | pos.hands[1] | pos.hands[2] | pos.hands[3])
                  & ~int(pos.hands[seat])) | tmask
        kept = ordering.prune_dominated_last(legal, pos.hands, seat, tmask, others, pos.pts, pos.pw,
                                      pos.higher, int(pos.trick[widx]), (pos.leader + widx) & 3,
                                      int(pos.trick[0]) >> 3, pos.trump, rules.trick_roem)
        assert kept & ~legal == 0 and kept
        if kept == legal:
            continue
        mover_is_d = (seat & 1) == pos.dteam
        for objective in ("score", "points"):
            vals = {c: plain.value(_after(pos, c), objective) for c in pos.legal()}
            for c in vals:
                if (kept >> c) & 1:
                    continue
                twins = [e for e in vals if (kept >> e) & 1 and e >> 3 == c >> 3]
                better = [e for e in twins
                          if (vals[e] >= vals[c] if mover_is_d else vals[e] <= vals[c])]
                assert better, (str(deal), i, objective, card_name(c), vals)
        dropped += bin(legal & ~kept).count("1")
    assert dropped >= 10, dropped


def _after(pos, card):
    child = pos.copy()
    child.play(card)
    return child


@pytest.mark.parametrize("preset", ["kraken", "klaverjas-rotterdam"])
def test_near_equivalent_pruning_changes_no_value_and_saves_nodes(preset):
    """Full deals, all four trumps, both objectives: the same values with and without the
    pruning of near-equivalent cards, with fewer nodes searched with it."""
    from kraken_solver.bench.suites import random_deals
    from kraken_solver.game.rules import Rules
    rules = Rules.preset(preset)
    on, off = Searcher(), Searcher(near_cards=False)
    for deal in random_deals(6, 5):
        for trump in range(4):
            for objective in ("score", "points"):
                pos = Position(deal, trump, 0, rules)
                assert on.value(pos, objective) == off.value(pos, objective), \
                    (str(deal), trump, objective)
    assert on.nodes < off.nodes * 0.9, (on.nodes, off.nodes)
