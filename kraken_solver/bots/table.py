"""The one loop that plays a deal with bots: :func:`play_deal` (trump given) and
:func:`choose_and_play` (the chooser's bot names trump first).

Every bot is driven the same way, whoever calls (the arena, the board, batch): at each turn
the seat to move gets its :class:`~kraken_solver.bots.view.SeatView` (a
:class:`~kraken_solver.bots.view.CheatView` only for a bot with ``sees_all``), its card is
checked (a card the seat holds and may play, RULES.md rules 8-9a) and played.  A bot that
raises, returns something that is not a card, or an illegal card stops the deal with
:class:`~kraken_solver.errors.BotError` naming the bot, the seat, the deal and the position.
The result is scored by the score sheet (:func:`~kraken_solver.game.sheet.score_sheet`,
RULES.md §6).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from ..errors import BotError, BotSpecError, KrakenError
from ..game.cards import SEATS, SUITS, as_seat, card_str, parse_card
from ..game.deal import Deal, as_deal
from ..game.rules import Rules
from .registry import bot_label, bot_name, make_bot
from .view import cheat_view, trump_view, view_of_position

__all__ = ["TEAMS", "PlayedDeal", "bot_card", "choose_and_play", "play_deal", "seat_bots"]

#: the two teams as the bots mapping and the scores name them
TEAMS = ("NS", "EW")
_KEYS = {"NS": (0, 2), "N-S": (0, 2), "EW": (1, 3), "E-W": (1, 3),
         "N": (0,), "E": (1,), "S": (2,), "W": (3,)}


@dataclass
class PlayedDeal:
    """A deal played by bots.

    - ``deal`` (:class:`Deal`), ``trump`` (``"S"``..), ``first`` and ``chooser`` (``"N"``..),
      ``rules``, ``declared`` ((HR_D, HR_O) points, or None without hand roem).
    - ``play``: the 32 cards (4 x cards a hand) in play order, as ``"HK"`` texts.
    - ``sheet``: the :class:`~kraken_solver.game.sheet.ScoreSheet` of the play.
    - ``score``: each team's final score (points, the sheet's ``final``): ``{"NS": .., "EW":
      ..}``; ``points``: each team's card points, last trick and trick roem.
    - ``made``, ``pit`` (the playing team's), ``result`` (``"made"``, ``"nat"``, ``"pit"``);
      ``value``: the playing team's final score minus the defenders' (rule 23).
    - ``bots``: seat -> bot name (its spec); ``labels``: seat -> the name shown (``dd`` says
      it cheats); ``trump_bot``: the chooser's trump bot name (None when trump was given).
    - ``seconds``: each card's decision time (s), in play order.
    """

    deal: Deal
    trump: str
    first: str
    chooser: str
    rules: Rules
    declared: tuple | None
    play: list
    sheet: object
    score: dict
    points: dict
    made: bool
    pit: bool
    bots: dict
    labels: dict
    trump_bot: str | None = None
    seconds: list = field(default_factory=list)

    @property
    def result(self) -> str:
        return self.sheet.result

    @property
    def value(self) -> int:
        return self.sheet.score

    def to_dict(self) -> dict:
        """JSON-ready: the deal in PBN, the play space-separated, the scores and the bots."""
        return {"deal": str(self.deal), "trump": self.trump, "first": self.first,
                "chooser": self.chooser, "rules": self.rules.name,
                "declared": None if self.declared is None else list(self.declared),
                "play": " ".join(self.play), "score": dict(self.score),
                "points": dict(self.points), "made": self.made, "pit": self.pit,
                "result": self.result, "value": self.value, "bots": dict(self.bots),
                "trump_bot": self.trump_bot}


def seat_bots(bots, seed: int = 0) -> list:
    """The bot of each seat N, E, S, W from ``bots``: a mapping of ``"NS"``/``"EW"`` (or
    ``"N-S"``, ``"E-W"``) and single seats ``"N"`` .. ``"W"`` (a seat overrides its team) to a
    bot spec or object; a spec makes one bot a seat (:func:`make_bot` with ``seed``).
    Raises BotSpecError for a key that is no team or seat, a seat left without a bot, or a
    bad spec."""
    if not hasattr(bots, "items"):
        raise BotSpecError("bots is a mapping such as {'NS': 'pimc:20', 'EW': 'heuristic'}",
                           token=repr(bots))
    out = [None] * 4
    for single in (False, True):
        for key, spec in bots.items():
            k = key.strip().upper() if isinstance(key, str) else key
            if k not in _KEYS:
                raise BotSpecError("a bot is given for a team NS or EW or a seat N, E, S, W",
                                   token=repr(key))
            if (len(_KEYS[k]) == 1) == single:
                for seat in _KEYS[k]:
                    out[seat] = make_bot(spec, seed=seed)
    missing = [SEATS[s] for s in range(4) if out[s] is None]
    if missing:
        raise BotSpecError("no bot for " + ", ".join(missing) + ": give NS and EW (or every "
                           "seat)", token=repr(dict(bots)))
    return out


def _where(deal: Deal, trump: int, first: int, played: list) -> str:
    return (f"deal {deal}, trump {SUITS[trump]}, first {SEATS[first]}, after "
            f"{len(played)} card{'s' if len(played) != 1 else ''}"
            + (f" ({' '.join(card_str(c) for c in played)})" if played else ""))


def _failed(bot, seat: int, where: str, why: str) -> BotError:
    return BotError(f"bot {bot_label(bot)} at {SEATS[seat]} {why} ({where})")


def play_deal(deal, trump, first, bots, *, seed: int = 0, rules=None, declared=None,
              chooser=None, trump_bot: str | None = None) -> PlayedDeal:
    """Play ``deal`` to the end with ``bots`` (see :func:`seat_bots`) and score it.

    ``deal``: Deal or PBN text; ``trump``, ``first``, ``rules``: as
    :func:`~kraken_solver.engine.solver.solve`; ``seed``: the seed of the bots made from specs;
    ``declared``: (HR_D, HR_O), the hand roem declared (None: what the hands declare);
    ``chooser``: who named trump (default the first player); ``trump_bot``: its name, for the
    record.  Returns a :class:`PlayedDeal`.  Raises the errors of
    :class:`~kraken_solver.game.position.Position` for a bad deal, BotSpecError for bad bots,
    and BotError when a bot fails (module docstring)."""
    from ..game.position import Position
    from ..game.sheet import sheet_of_position

    d = as_deal(deal)
    pos = Position(d, trump, first, rules)
    seats = seat_bots(bots, seed)
    chooser_i = pos.first if chooser is None else as_seat(chooser)
    declared = view_of_position(pos, declared, chooser_i).declared
    seconds = []
    while not pos.over:
        card, secs = bot_card(pos, d, seats[pos.to_move], declared=declared, chooser=chooser_i)
        seconds.append(secs)
        pos.play(card)
    sheet = sheet_of_position(pos)
    by_team = {sheet.playing.team.replace("-", ""): sheet.playing,
               sheet.defenders.team.replace("-", ""): sheet.defenders}
    return PlayedDeal(
        deal=d, trump=SUITS[pos.trump], first=SEATS[pos.first], chooser=SEATS[chooser_i],
        rules=pos.rules, declared=declared, play=[card_str(c) for c in pos.played],
        sheet=sheet, score={t: by_team[t].final for t in TEAMS},
        points={t: by_team[t].card_points + by_team[t].last_trick + by_team[t].trick_roem
                for t in TEAMS},
        made=sheet.made, pit=sheet.pit, bots={SEATS[s]: bot_name(b) for s, b in enumerate(seats)},
        labels={SEATS[s]: bot_label(b) for s, b in enumerate(seats)}, trump_bot=trump_bot,
        seconds=seconds)


def bot_card(pos, deal: Deal, bot, *, declared=None, chooser=None) -> tuple[int, float]:
    """One move of the loop: the card (0..31) ``bot`` plays for the seat to move of ``pos``
    (a :class:`~kraken_solver.game.position.Position` of ``deal``, not over), from that
    seat's view (a CheatView only for a bot with ``sees_all``), checked legal, and its
    decision time (s).  :func:`play_deal` plays every card through it; the board's game
    against the computer asks it for one bot move at a time.  ``declared``, ``chooser``: as
    :func:`play_deal`.  Raises BotError when the bot fails (module docstring)."""
    chooser_i = pos.first if chooser is None else as_seat(chooser)
    view = view_of_position(pos, declared, chooser_i)
    seat = view.seat
    arg = cheat_view(view, deal) if getattr(bot, "sees_all", False) else view
    where = _where(deal, pos.trump, pos.first, pos.played)
    if not hasattr(bot, "choose_card"):
        raise _failed(bot, seat, where, "plays no card (a trump-choice bot)")
    t0 = time.perf_counter()
    try:
        answer = bot.choose_card(arg)
    except Exception as e:          # any failure of the bot's own code is the bot's
        raise _failed(bot, seat, where, f"raised {type(e).__name__}: {e}") from e
    seconds = time.perf_counter() - t0
    try:
        card = parse_card(answer)
    except KrakenError:
        raise _failed(bot, seat, where, f"returned {answer!r}, which is not a card") \
            from None
    if card not in view.legal:
        legal = " ".join(view.legal_cards())
        raise _failed(bot, seat, where, f"chose {card_str(card)}, which is not legal "
                      f"(legal: {legal})")
    return card, seconds


def choose_trump(deal, chooser, first, bot, *, seed: int = 0, rules=None) -> str:
    """The trump (``"S"``..) that ``bot`` (a spec or object with ``choose_trump``) names for
    ``chooser``'s hand of ``deal``, ``first`` leading.  Raises BotError when the bot has no
    trump choice, raises, or names something that is not a suit."""
    from ..game.cards import as_suit

    d = as_deal(deal)
    bot = make_bot(bot, seed=seed)
    view = trump_view(d, chooser, first, rules)
    where = f"deal {d}, choosing trump, first {SEATS[view.first]}"
    if not hasattr(bot, "choose_trump"):
        raise _failed(bot, view.seat, where, "chooses no trump (a card-play bot only)")
    arg = cheat_view(view, d) if getattr(bot, "sees_all", False) else view
    try:
        answer = bot.choose_trump(arg)
    except Exception as e:
        raise _failed(bot, view.seat, where, f"raised {type(e).__name__}: {e}") from e
    try:
        return SUITS[as_suit(answer)]
    except KrakenError:
        raise _failed(bot, view.seat, where, f"named {answer!r}, which is not a suit "
                      "S, H, D or C") from None


def choose_and_play(deal, first, bots, *, trump_bots=None, seed: int = 0, rules=None,
                    chooser=None) -> PlayedDeal:
    """Trump named by the chooser's bot, then the deal played (:func:`play_deal`).

    ``chooser``: who names trump (default ``first``, RULES.md rule 3); ``trump_bots``: a
    mapping as ``bots`` (teams or seats to specs or objects) of the trump-choice bots (None:
    the card-play bots choose).  Raises as :func:`play_deal` and :func:`choose_trump`."""
    first_i = as_seat(first)
    chooser_i = first_i if chooser is None else as_seat(chooser)
    table = seat_bots(trump_bots if trump_bots is not None else bots, seed)
    bot = table[chooser_i]
    trump = choose_trump(deal, chooser_i, first_i, bot, seed=seed, rules=rules)
    return play_deal(deal, trump, first_i, bots, seed=seed, rules=rules, chooser=chooser_i,
                     trump_bot=bot_name(bot))
