"""Advice from one known hand by sampling the unseen cards (``kraken-advise``).

One player's hand is known; the other 24 cards are dealt at random to the other three seats,
sample after sample (respecting cards known to be in a seat's hand), and every sample is
solved double dummy (RULES.md §8) for the four trumps, or for one given trump.  The averages
estimate what a trump is worth with that hand: mean score (with its standard error), P(made),
mean points, P(pit) (the playing team can force every trick).  Values are in points from the
playing team's side: the team of the first player.

Sampling
    The layouts are those of :mod:`kraken_solver.playerview.layouts` (the module that owns "the
    layouts consistent with what a seat knows", also behind ``kraken-hint``), here with no card
    played: sample ``i`` is draw ``i`` of :meth:`~kraken_solver.playerview.layouts.Layouts.draws`,
    from child ``i // 64`` of ``SeedSequence(seed)`` (as the batch's deals:
    :data:`kraken_solver.dealing.seeded.GEN_BLOCK`): a uniform permutation of the cards not known,
    cut in seat order (N, E, S, W, skipping the known hand) into the cards each seat still needs.
    This is the uniform distribution over every deal consistent with what is known, and it
    does not depend on the number of workers.

Doubling (RULES.md rules 19-20)
    The multiplier m multiplies everything and does not change who makes the deal, so the
    exact score at multiplier m is m times the score at m = 1, deal by deal; the expected score
    is linear in m too.  With E the expected score for the playing team at m = 1 (the
    defenders' expected result is -E, as the score is the playing team's result minus the
    defenders'):

    - the defenders' double (m 1 -> 2) changes their expected result from -E to -2E: it pays
      exactly when E < 0 (the playing team is expected to go down);
    - the playing team's redouble in reply (m 2 -> 4) changes its expected score from 2E to 4E:
      it pays exactly when E > 0;
    - a superdouble (4 -> 8) pays the defenders exactly when E < 0.

    So on one estimate of E a double and a redouble in reply never both pay; if E < 0 a
    double pays and a redouble would cost the playing team 2|E| more.  The estimate is only as
    sure as its standard error: the advice says it is within noise when |E| < 2 standard
    errors, and that it cannot tell at all with one sample (a standard error needs two).  The
    recommended trump is compared with the next best the same way, on the difference of
    their scores sample by sample (both were solved on the same layouts).
    Double-dummy values assume everyone sees every card; real play and the information a
    double gives away are not modelled.
"""

from __future__ import annotations

import math
import re
import resource
import time
from dataclasses import asdict, dataclass, field

import numpy as np

from ..dealing.seeded import GEN_BLOCK
from ..engine.trumps import solve_trumps
from ..errors import CardParseError, DealError, KrakenError, short_token
from ..game.cards import (SEATS, SUITS, ascii_upper, card_str, cards_of, hand_text, is_int,
                          parse_card, popcount, sort_for_display)
from ..game.deal import Deal, pbn_hand_mask
from ..game.rules import Rules, as_rules
from ..limits import DEFAULT_DEAL_TRIES, MAX_ADVISE_SAMPLES
from ..notation import numbers
from ..workers.pool import check_workers, make_pool
from ..workers.task import report_progress, worker_searcher

#: the most samples one advice takes (``limits.MAX_ADVISE_SAMPLES``)
MAX_SAMPLES = MAX_ADVISE_SAMPLES


# ----------------------------------------------------------------------------- input
def parse_hand(text: str) -> int:
    """A hand ``"S.H.D.C"`` (PBN suit order, ranks ``A K Q J T 9 8 7``, ``10`` allowed, empty
    for a void) -> 32-bit card mask.  Must hold 8 cards.  Raises DealError (with ``column``,
    1-based, and ``token``)."""
    if not isinstance(text, str):
        raise DealError("expected a hand like 'AKT.J9.87.Q7'", token=repr(text))
    s = text.strip()
    mask = pbn_hand_mask(s, 1)
    if popcount(mask) != 8:
        raise DealError(f"the hand must hold 8 cards; it holds {popcount(mask)}", token=s)
    return mask


def parse_known(items, seat: int, hand: int) -> list[int]:
    """``["E:HA,HK", "W:SJ"]`` -> four masks of cards known to be in each seat's hand
    (the known hand itself at ``seat``).  Cards are separated by commas or spaces; one item
    may hold several seats (``"E:HA,HK W:SJ"``), and a single string is one such item.

    Raises KrakenError (CardParseError for a bad seat or card) for an impossible constraint:
    a card of the known hand placed elsewhere, a card placed in two seats, more than 8 cards
    in one seat, or a card for the known seat that is not in its hand."""
    known = [0, 0, 0, 0]
    known[seat] = hand
    where = {}
    written = [[], [], [], []]          # each seat's items as the user wrote them
    if items is None:
        items = ()
    elif isinstance(items, str):
        items = (items,)
    try:
        items = list(items)
    except TypeError:
        raise CardParseError("known is a list of SEAT:CARDS strings, like ['E:HA,HK']",
                             token=repr(items)) from None
    # "E:HA HK W:SJ" holds two items: a new one starts at a word "SEAT:"
    items = [part for item in items
             for part in re.split(r"\s+(?=[NESWnesw]:)", str(item).strip())]
    for item in items:
        text = short_token(item)
        head, colon, rest = item.partition(":")
        seat_text = ascii_upper(head.strip())
        if not colon or len(seat_text) != 1 or seat_text not in SEATS:
            raise CardParseError("--known takes SEAT:CARDS, like E:HA,HK", token=text)
        s = SEATS.index(seat_text)
        written[s].append(item.strip())
        words = [w for w in rest.replace(",", " ").split() if w]
        if not words:
            raise CardParseError("--known names no card after the seat", token=text)
        for w in words:
            try:
                c = parse_card(w)
            except CardParseError as e:
                raise CardParseError(e.message, token=w) from None
            name = card_str(c)
            if hand >> c & 1 and s != seat:
                raise KrakenError(f"{name} is in {SEATS[seat]}'s own hand; it cannot be in "
                                  f"{SEATS[s]}'s", token=text)
            if s == seat and not hand >> c & 1:
                raise KrakenError(f"{SEATS[seat]}'s hand is given in full and {name} is not "
                                  "in it", token=text)
            if c in where and where[c] != s:
                raise KrakenError(f"{name} cannot be in both {SEATS[where[c]]}'s and "
                                  f"{SEATS[s]}'s hands", token=text)
            where[c] = s
            known[s] |= 1 << c
    for s in range(4):
        if popcount(known[s]) > 8:
            raise KrakenError(f"{SEATS[s]} cannot hold {popcount(known[s])} known cards "
                              "(a hand holds 8)", token=" ".join(written[s]))
    return known


def sample_deals(known, seed: int, start: int, stop: int) -> list[Deal]:
    """Samples ``start .. stop-1`` (see the module docstring): full deals whose seat ``s``
    holds every card of ``known[s]`` (four masks, one of them a full hand of 8: the advised
    hand), the other cards dealt uniformly at random.  The layouts are those of
    :class:`kraken_solver.playerview.layouts.Layouts` for that hand and the known cards (no card
    played), draws ``start .. stop-1`` of its stream.  Raises KrakenError for a negative seed or
    range."""
    from .layouts import Layouts
    from .observation import Observation

    if seed is None or not is_int(seed) or int(seed) < 0 or start < 0 or stop < start:
        raise KrakenError("the seed and the sample range must be >= 0",
                          token=f"{seed} {start}:{stop}")
    seat = next((s for s in range(4) if popcount(known[s]) == 8), None)
    if seat is None:
        raise KrakenError("one seat's hand must be known in full (8 cards)")
    obs = Observation(seat=seat, hand=known[seat], size=8, trump=None, first=seat,
                      rules=Rules(), known=tuple(known))
    return [Deal(hands) for hands in Layouts(obs).draws(int(seed), start, stop)]


# ----------------------------------------------------------------------------- results
@dataclass
class TrumpAdvice:
    """One trump's estimate over the samples: ``mean_score`` and its standard error
    ``se_score``, ``p_made``, ``mean_points`` (and ``se_points``), ``p_pit`` (points, the
    playing team's side; probabilities 0..1).  A standard error is None with one sample."""
    trump: str
    samples: int
    mean_score: float
    se_score: float | None
    p_made: float
    mean_points: float
    se_points: float | None
    p_pit: float
    best: bool = False


@dataclass
class DoublingAdvice:
    """Whether doubling pays in expectation (module docstring): ``expected_score`` E and its
    standard error at multiplier 1 (playing team's side); ``by_multiplier``: m -> expected
    score m·E for the playing team; ``double_pays`` (for the defenders, E < 0),
    ``redouble_pays`` (for the playing team in reply, E > 0), ``superdouble_pays`` (E < 0);
    ``certain``: |E| >= 2 standard errors (False with one sample: ``se`` is None then);
    ``side``: the advised player's side (``"playing team"`` or ``"defenders"``)."""
    expected_score: float
    se: float | None
    by_multiplier: dict
    double_pays: bool
    redouble_pays: bool
    superdouble_pays: bool
    certain: bool
    side: str


@dataclass
class Advice:
    """What :func:`advise` found.  ``rows``: one :class:`TrumpAdvice` per trump solved;
    ``recommended``: the trump with the highest mean score (ties: higher P(made), then
    S H D C); ``runner_up``, ``margin`` and ``margin_se``: the next best trump, by how much
    the recommended one beats it in mean score and the standard error of that difference
    (paired, sample by sample; None with one sample or one trump); ``clear``: the margin is at
    least 2 standard errors (None when it cannot be told); ``doubling``: with a given trump
    only.  ``side``: the advised seat's side (the first player's team is the playing team).
    ``scores``: array [samples, trumps] of the exact scores (points)."""
    hand: str
    seat: str
    first: str
    trump: str | None
    rules: Rules
    samples: int
    seed: int
    known: dict
    rows: list
    recommended: str
    doubling: DoublingAdvice | None
    seconds: float
    nodes: int
    workers: int
    peak_worker_mb: float
    scores: np.ndarray = field(repr=False, default=None)
    runner_up: str | None = None
    margin: float | None = None
    margin_se: float | None = None
    clear: bool | None = None
    side: str = "playing team"
    #: the condition the layouts meet (``--where``, canonical), None for every layout
    where: str | None = None

    def to_dict(self) -> dict:
        """JSON-ready dict (no per-sample arrays; numbers in the tools' style,
        :mod:`kraken_solver.notation.numbers`)."""
        def trump_row(r):
            d = asdict(r)
            for k in ("mean_score", "se_score", "mean_points", "se_points"):
                d[k] = numbers.points(d[k])
            for k in ("p_made", "p_pit"):
                d[k] = numbers.share(d[k])
            return d
        doubling = None
        if self.doubling is not None:
            mean = numbers.points(self.doubling.expected_score)
            # the multiples of the mean given, so that they add up as read
            doubling = {**asdict(self.doubling), "expected_score": mean,
                        "se": numbers.points(self.doubling.se),
                        "by_multiplier": {str(m): numbers.points(m * mean)
                                          for m in self.doubling.by_multiplier}}
        return {
            "hand": self.hand, "seat": self.seat, "first": self.first, "trump": self.trump,
            "rules": self.rules.name, "rules_options": self.rules.to_dict(),
            "samples": self.samples, "seed": self.seed, "known": self.known,
            "where": self.where, "side": self.side,
            "trumps": [trump_row(r) for r in self.rows], "recommended": self.recommended,
            "runner_up": self.runner_up, "margin": numbers.points(self.margin),
            "margin_se": numbers.points(self.margin_se), "clear": self.clear,
            "doubling": doubling,
            "seconds": numbers.seconds(self.seconds), "nodes": self.nodes,
            "workers": self.workers,
            "samples_per_s": numbers.rate(self.samples / self.seconds) if self.seconds else None,
        }


def _advise_chunk(task):
    """Worker: solve the samples ``start .. stop-1``; return arrays [n, trumps]."""
    start, stop, seed, known, first, rules, trumps, where, max_tries = task
    searcher = worker_searcher()
    t0 = time.perf_counter()
    n0 = searcher.nodes
    if where:
        from ..dealing.generator import condition_for
        from ..dealing.predeal import predeal_text
        deals = condition_for(where, predeal_text(known)).deals(seed, start, stop,
                                                                 max_tries=max_tries)
    else:
        deals = sample_deals(known, seed, start, stop)
    n, t = len(deals), len(trumps)
    score = np.zeros((n, t), dtype=np.int64)
    points = np.zeros((n, t), dtype=np.int64)
    pit = np.zeros((n, t), dtype=bool)
    for i, d in enumerate(deals):
        for j, r in enumerate(solve_trumps(searcher, d, first, rules, trumps=trumps,
                                           points=True, pit=True)):
            score[i, j], points[i, j], pit[i, j] = r.score, r.points, r.pit
        report_progress(i + 1)
    return {"start": start, "score": score, "points": points, "pit": pit,
            "nodes": searcher.nodes - n0, "seconds": time.perf_counter() - t0,
            "maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0}


def _se(x: np.ndarray) -> float | None:
    """The standard error of the mean of ``x``; None for fewer than 2 values (it cannot be
    estimated from one)."""
    return float(x.std(ddof=1) / math.sqrt(len(x))) if len(x) > 1 else None


def doubling_advice(scores: np.ndarray, multiplier: int, side: str) -> DoublingAdvice:
    """The doubling advice from exact per-sample ``scores`` solved at ``multiplier``."""
    per_one = scores / float(multiplier)
    e = float(per_one.mean())
    se = _se(per_one)
    return DoublingAdvice(expected_score=e, se=se,
                          by_multiplier={m: m * e for m in (1, 2, 4, 8)},
                          double_pays=e < 0, redouble_pays=e > 0, superdouble_pays=e < 0,
                          certain=se is not None and abs(e) >= 2 * se and e != 0, side=side)


def advise(hand, *, seat="N", first=None, trump=None, samples: int = 1000, seed: int = 0,
           rules=None, known=(), workers: int | None = None, scheduler: str | None = None,
           progress=None, log=None, where=None, predeal=None,
           max_tries: int = DEFAULT_DEAL_TRIES) -> Advice:
    """Estimate the value of each trump (or of ``trump``) for a known hand by sampling.

    ``hand``: ``"S.H.D.C"`` text or a mask (8 cards) of ``seat``; ``first``: the first player
    (default: ``seat``, with or without ``trump``: the advice is then the playing team's; give
    the seat that chose trump to advise a defender); ``samples``: deals to draw; ``seed``:
    SeedSequence
    seed; ``rules``: Rules/preset; ``known``: ``"E:HA,HK"`` strings (or one such string;
    see :func:`parse_known`); ``workers``: processes
    (default one per core), or ``scheduler``: a Dask cluster (``"local:N"`` or
    ``"tcp://HOST:PORT"``, as ``kraken-batch --scheduler``); ``progress``: a tqdm-like
    object with ``update(n)`` (moved by each solved sample), or None; ``log``: a function
    taking one line of news (a scheduler still being tried); ``where``: a condition on the
    deal (``"has(N, HA)"``, :mod:`kraken_solver.dealing.predicate`): the layouts sampled are
    those that meet it, uniformly (:mod:`kraken_solver.dealing.generator`, sample ``i`` from
    the seed and ``i`` only), ``max_tries`` the bound on one block's candidates; ``predeal``:
    more known cards, ``"E:HA HK"`` or a whole hand (as ``known``).

    Returns :class:`Advice` (values in points, the playing team's side).  Raises DealError for
    a bad hand, CardParseError/KrakenError for bad or impossible ``known`` constraints and a
    bad seat or trump, KrakenError unless ``samples`` and ``workers`` are ints >= 1 and
    ``seed`` an int >= 0."""
    from ..game.cards import as_seat, as_suit

    seat_i = as_seat(seat)
    mask = hand if isinstance(hand, int) else parse_hand(hand)
    if popcount(mask) != 8:
        raise DealError("the hand must hold 8 cards", token=hand_text(mask))
    trump_i = as_suit(trump) if trump is not None else None
    # one default whether or not the trump is given: the hand's own seat leads and chose
    # trump (the output says whose side the advice is for)
    first_i = seat_i if first is None else as_seat(first)
    rules_r = as_rules(rules)
    if not is_int(samples) or not 1 <= samples <= MAX_SAMPLES:
        raise KrakenError(f"the number of samples must be a whole number from 1 to "
                          f"{MAX_SAMPLES:,}", token=repr(samples))
    if not is_int(seed) or seed < 0:
        raise KrakenError("the seed must be a whole number >= 0", token=repr(seed))
    check_workers(workers)
    samples, seed = int(samples), int(seed)
    known_masks = _with_predeal(parse_known(known, seat_i, mask), predeal, seat_i)
    trumps = (trump_i,) if trump_i is not None else (0, 1, 2, 3)
    where_text = None
    if where is not None:
        from ..dealing.generator import check_max_tries, condition_for, read_where
        from ..dealing.predeal import predeal_text
        node = read_where(where)
        where_text = str(node) if node is not None else None
        max_tries = check_max_tries(max_tries)
        if where_text:
            # refused now when impossible with the hand; the first block tells a rare one
            condition_for(where_text, predeal_text(known_masks)).hands(
                seed, 0, min(samples, GEN_BLOCK), max_tries=max_tries)

    pool = make_pool(workers, scheduler, log=log)
    t0 = time.perf_counter()
    results = []
    nodes = 0
    peak = 0.0
    done = 0

    def tick(partial):
        if progress is not None and done + partial > progress.n:
            progress.update(done + partial - progress.n)

    with pool:
        # the samples do not depend on the chunks (sample i comes from the seed and i)
        chunk = max(1, min(GEN_BLOCK, -(-samples // (4 * max(1, pool.workers)))))
        tasks = ((a, min(samples, a + chunk), seed, tuple(known_masks), first_i, rules_r,
                  trumps, where_text, max_tries) for a in range(0, samples, chunk))
        for res in pool.run(_advise_chunk, tasks,
                            on_tick=tick if progress is not None else None):
            results.append(res)
            nodes += res["nodes"]
            peak = max(peak, res["maxrss_mb"])
            done += len(res["score"])
            tick(0)
    seconds = time.perf_counter() - t0
    results.sort(key=lambda r: r["start"])
    score = np.concatenate([r["score"] for r in results])
    points = np.concatenate([r["points"] for r in results])
    pit = np.concatenate([r["pit"] for r in results])

    rows = []
    for j, t in enumerate(trumps):
        s = score[:, j]
        rows.append(TrumpAdvice(
            trump=SUITS[t], samples=samples, mean_score=float(s.mean()), se_score=_se(s),
            p_made=float((s > 0).mean()), mean_points=float(points[:, j].mean()),
            se_points=_se(points[:, j]), p_pit=float(pit[:, j].mean())))
    order = sorted(range(len(rows)), key=lambda j: (rows[j].mean_score, rows[j].p_made,
                                                    -SUITS.index(rows[j].trump)), reverse=True)
    best = rows[order[0]]
    top = best.mean_score
    for r in rows:
        r.best = r.mean_score == top
    runner_up = margin = margin_se = clear = None
    if len(rows) > 1:
        second = rows[order[1]]
        diff = (score[:, order[0]] - score[:, order[1]]).astype(np.float64)
        runner_up, margin, margin_se = second.trump, float(diff.mean()), _se(diff)
        if margin_se is not None:
            clear = bool(margin > 0 and margin >= 2 * margin_se)
    side = "playing team" if (seat_i & 1) == (first_i & 1) else "defenders"
    doubling = None
    if trump_i is not None:
        doubling = doubling_advice(score[:, 0], rules_r.multiplier, side)
    known_out = {SEATS[s]: [card_str(c) for c in sort_for_display(cards_of(known_masks[s]))]
                 for s in range(4) if s != seat_i and known_masks[s]}
    return Advice(hand=hand_text(mask), seat=SEATS[seat_i], first=SEATS[first_i],
                  trump=SUITS[trump_i] if trump_i is not None else None, rules=rules_r,
                  samples=samples, seed=seed, known=known_out, rows=rows,
                  recommended=best.trump, doubling=doubling, seconds=seconds, nodes=nodes,
                  workers=pool.workers, peak_worker_mb=peak, scores=score,
                  runner_up=runner_up, margin=margin, margin_se=margin_se, clear=clear,
                  side=side, where=where_text)


def _with_predeal(known: list, predeal, seat: int) -> list:
    """The known cards with those of ``predeal`` (:func:`~kraken_solver.dealing.predeal.
    parse_predeal`) added.  Raises PredealError for a card in two seats or a hand over full."""
    if not predeal:
        return known
    from ..dealing.predeal import check_predeal, parse_predeal
    from ..errors import PredealError
    extra = parse_predeal(predeal)
    if extra[seat] & ~known[seat]:
        raise PredealError(f"{SEATS[seat]}'s hand is given in full and "
                           f"{card_str(cards_of(extra[seat] & ~known[seat])[0])} is not in it")
    for s, cards in enumerate(extra):
        if s != seat and cards & known[seat]:
            c = card_str(cards_of(cards & known[seat])[0])
            raise PredealError(f"{c} is in {SEATS[seat]}'s own hand; it cannot be in "
                               f"{SEATS[s]}'s", token=c)
    try:
        return list(check_predeal(tuple(k | e for k, e in zip(known, extra))))
    except PredealError as err:
        raise PredealError(f"with the known cards: {err.message}", token=err.token) from None


def _pm(se: float | None, width: int) -> str:
    """``+- SE`` for the text tables, or a gap as wide when there is no standard error."""
    return f"+- {se:{width}.1f}" if se is not None else "+- " + "n/a".rjust(width)


def format_advice(a: Advice, *, ascii: bool = False) -> str:
    """The advice as text: whose side it is for, a table per trump, and the recommendation
    or the doubling advice, with how sure it is (within noise, or too few samples to tell)."""
    from ..game.cards import SUIT_SYMBOLS
    from ..notation.text import hand_line

    def sym(s):
        return s if ascii else SUIT_SYMBOLS[s]

    team = "N-S" if SEATS.index(a.first) % 2 == 0 else "E-W"
    lines = [f"Hand of {a.seat}: {hand_line(parse_hand(a.hand), ascii=ascii)}",
        f"First player {a.first} (playing team {team}); rules {a.rules.name}; "
        f"{a.samples} sample{'s' if a.samples != 1 else ''}, seed {a.seed}"]
    if a.where:
        lines.append(f"Layouts: only those where {a.where}")
    if a.side == "playing team":
        whose = (f"Advice for {a.seat}, on the playing team ({team}"
                 + (f": {a.seat} is the first player and chooses trump)" if a.seat == a.first
                    else f": {a.first} is the first player)"))
    else:
        whose = (f"Advice for {a.seat}, a defender ({a.first} is the first player; the "
                 f"playing team is {team})")
    lines.append(whose)
    if a.known:
        lines.append("Known: " + "; ".join(f"{s}: {' '.join(c)}" for s, c in a.known.items()))
    lines.append("Values: double dummy, points, the playing team's side; +- = standard error")
    if a.samples < 2:
        lines.append("One sample: too few to estimate a standard error or to tell the trumps "
                     "apart; give --samples 2 or more (hundreds for firm advice)")
    lines.append("")
    lines.append("  trump   mean score      P(made)   mean points    P(pit)")
    for r in a.rows:
        mark = ("" if not r.best or a.trump is not None else
                "  best" if a.side == "playing team" else f"  {a.first}'s best")
        lines.append(f"  {sym(r.trump)}      {r.mean_score:+8.1f} {_pm(r.se_score, 5)}   "
                     f"{r.p_made:6.3f}   {r.mean_points:7.1f} {_pm(r.se_points, 4)}   "
                     f"{r.p_pit:6.3f}{mark}")
    lines.append("")
    if a.doubling is None:
        if a.side == "playing team":
            line = f"Recommended trump: {sym(a.recommended)} (highest mean score)"
        else:
            # a defender does not choose: the advice is what the first player will likely
            # choose, and which trump would suit the defenders
            worst = min(a.rows, key=lambda r: r.mean_score)
            lines.append(f"{a.seat} does not choose trump; the best for {a.seat}'s team would "
                         f"be {sym(worst.trump)} (the lowest mean score for {team})")
            line = (f"{a.first}'s best trump, as far as {a.seat}'s hand tells: "
                    f"{sym(a.recommended)} (highest mean score for {team})")
        if a.runner_up is not None:
            if a.clear is None:
                line += (f"; too few samples to tell it from {sym(a.runner_up)} (a standard "
                         "error needs at least 2)")
            elif not a.clear:
                line += (f"; within noise of {sym(a.runner_up)}: {a.margin:+.1f} "
                         f"+- {a.margin_se:.1f} a deal, less than 2 standard errors (more "
                         "samples would tell them apart)")
            else:
                line += (f"; {a.margin:+.1f} +- {a.margin_se:.1f} a deal better than "
                         f"{sym(a.runner_up)}")
        lines.append(line)
        return "\n".join(lines)
    d = a.doubling
    you = f"you ({a.seat}) are on the defenders' side" if d.side == "defenders" \
        else f"you ({a.seat}) are on the playing team"
    if d.se is None:
        est = f"{d.expected_score:+.1f} (one sample, no standard error)"
    else:
        est = f"{d.expected_score:+.1f} +- {d.se:.1f}"

    def verdict(pays: bool) -> str:
        if d.se is None:
            return ("cannot tell from one sample (a standard error needs at least 2; this "
                    f"sample alone says it {'pays' if pays else 'does not pay'})")
        word = "pays" if pays else "does not pay"
        return word if d.certain else f"{word}, within noise (less than 2 standard errors " \
                                      "from 0: more samples would tell)"
    # the multiples shown are of the mean shown (one decimal), so that they add up as read
    at = {m: m * round(d.expected_score, 1) for m in (1, 2, 4, 8)}
    lines.append(f"Doubling ({you}); the playing team's expected score is m x {est} at "
                 "multiplier m:")
    lines.append(f"  defenders double (x2): {verdict(d.double_pays)}; the defenders' "
                 f"expected result goes from {-at[1]:+.1f} to {-at[2]:+.1f}")
    lines.append(f"  playing team redoubles in reply (x4): {verdict(d.redouble_pays)}; its "
                 f"expected score goes from {at[2]:+.1f} to {at[4]:+.1f}")
    lines.append(f"  defenders superdouble (x8): {verdict(d.superdouble_pays)}; theirs goes "
                 f"from {-at[4]:+.1f} to {-at[8]:+.1f}")
    return "\n".join(lines)
