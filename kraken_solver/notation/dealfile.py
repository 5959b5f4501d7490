"""Deal files: PBN-style tag pairs and one-line deals, read into :class:`DealSpec` records.

A deal file holds one deal after another, in either of two forms (they may be mixed):

Tag pairs, one tag a line; a ``[Deal]`` tag starts the next deal and the tags after it, up to
the next deal, belong to it::

    % a comment: from '%' or ';' to the end of the line; blank lines are ignored
    [Deal "N:AT8.T.8.QJ9 9.A.AQJ7.K7 QJ7.J987..8 K.KQ.KT9.AT"]
    [Trump "H"]             % S, H, D or C; without it the first player's trump table is shown
    [First "N"]             % the first player (leads trick 1); default: the seat before the ':'
    [Rules "kraken"]        % a preset, optionally +option=value parts: kraken+pit_bonus=50
    [Double "2"]            % the multiplier 1, 2, 4 or 8 (rule 20)
    [Declared "20 20"]      % the hand roem declared (rule 17): playing team, defenders
    [Play "N"]              % the cards played so far, in play order, from the first lead
    SA S9 SQ SK
    HT HA

The [Play] cards are in play order (not PBN's seat order), any number a line (one trick a line
reads best); the play may stop inside a trick, and ``*`` (PBN's end of play) is ignored.

For ``kraken-hint`` (``hidden=True``) a hand may be written ``-`` (hidden, as in PBN):
``[Deal "N:AJ9.K7.T8.A - - -"]``; the deal is then a
:class:`~kraken_solver.notation.partial.PartialDeal` and its played cards are checked by the hint
(which knows what the hidden hands may hold), not here.  ``[Declared]`` gives the hand roem
declared before play, in points, the playing team's first.

Files written by other programs carry more of PBN's tags; they load.  A value ``?`` (PBN's
"unknown") or an empty value is as if the tag were missing (``[Trump "?"]``: no trump given).
``[Dealer "N"]`` makes the seat left of the dealer (the next clockwise, rule 3) the first
player unless ``[First]`` says otherwise.  PBN's informational tags (:data:`KEPT_TAGS`:
``Event``, ``Site``, ``Date``, ``Board``, ``Annotator``, the players' names, ...) are kept in
``DealSpec.tags`` (a value ``#`` repeats the previous deal's, as PBN's export format writes it).
As in PBN, a game's tags may come before its ``[Deal]``: after an empty line, tags other than
ours belong to the next deal.  Bridge's tags that mean nothing in Kraken (:data:`BRIDGE_TAGS`:
``Vulnerable``, ``Declarer``, ``Contract``, ``Result``, ``Auction``, ...) and unknown tags are
skipped, with the lines of their sections (an auction, a table); :func:`skipped_tags_warning`
gives one warning a file for them.  A tag within a letter or two of one of :data:`TAGS`
(``[Trumps]``) is taken for a typo and refused.  PBN's comments in braces ``{...}``, which may
span lines, are skipped too.

One-line deals: the PBN deal text, then ``key=value`` words (``trump``, ``first``, ``rules``,
``double``), e.g. ``N:AT8.T.8.QJ9 9.A.AQJ7.K7 QJ7.J987..8 K.KQ.KT9.AT trump=H first=N``.

Cards are a suit letter then a rank (``HK``; ``H10`` is read as ``HT``); the suit symbols
``♠♥♦♣`` may stand for the letters.  Everything is checked while reading: every error is a
:class:`~kraken_solver.errors.KrakenError` whose ``source``, ``line``, ``column`` and ``token``
say where, and the played cards are replayed through :class:`~kraken_solver.game.position.Position`,
so a card the player does not hold, a revoke under the rules, or a card after the last trick is
reported at the card's own line and column.  A file is UTF-8 text of at most 64 MiB
(:data:`~kraken_solver.notation.reader.MAX_FILE_BYTES`) with lines of at most 65,536 characters
(:data:`MAX_LINE_CHARS`); errors echo at most 40 characters of the offending text.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field

from ..errors import (CardParseError, DealError, DealFileError, IllegalCardError, KrakenError,
                      RulesError)
from ..game.cards import SEATS, SUITS, SYMBOL_SUITS, ascii_lower, parse_rank, parse_seat, parse_suit
from ..game.deal import Deal, parse_pbn
from ..game.rules import MULTIPLIERS, PRESETS, Rules, as_rules, parse_rules_spec
from ..limits import MAX_HAND_ROEM

__all__ = ["DealSpec", "parse_deal_text", "parse_card_at", "TAGS", "LINE_KEYS", "KEPT_TAGS",
           "BRIDGE_TAGS", "skipped_tags_warning", "warn_skipped_tags", "SkippedTags",
           "UNKNOWN_VALUES"]

#: the tags a deal file may use, in their usual order
TAGS = ("Deal", "Trump", "First", "Rules", "Double", "Declared", "Play")
#: the keys of the one-line form
LINE_KEYS = ("trump", "first", "rules", "double", "declared")
#: PBN's informational tags: kept in ``DealSpec.tags`` (Dealer also sets the first player)
KEPT_TAGS = ("Event", "Site", "Date", "Board", "West", "North", "East", "South", "Dealer",
             "Annotator", "AnnotatorNA", "Round", "Room", "Table", "Section", "Stage",
             "Competition", "Description", "EventDate", "EventSponsor", "Generator",
             "Application", "DealId", "Time", "UTCDate", "UTCTime", "WestNA", "NorthNA",
             "EastNA", "SouthNA", "HomeTeam", "VisitTeam", "Mode")
#: bridge's tags with no meaning in Kraken: skipped (with a warning when they hold a value)
BRIDGE_TAGS = ("Vulnerable", "Declarer", "Contract", "Result", "Scoring", "Auction", "Score",
               "ScoreIMP", "ScoreMP", "ScorePercentage", "ScoreRubber", "ScoreRubberHistory",
               "BidSystemEW", "BidSystemNS", "FrenchMP", "Termination", "TimeCall",
               "TimeCard", "TimeControl", "Hidden")
#: tag values that mean "unknown" (PBN's ``?``; an empty value)
UNKNOWN_VALUES = ("?", "")

_KEPT = frozenset(KEPT_TAGS)
_BRIDGE = frozenset(BRIDGE_TAGS)
_CANON = {t.lower(): t for t in TAGS + KEPT_TAGS + BRIDGE_TAGS}
_TAG_RE = re.compile(r'\[\s*([A-Za-z]+)\s*"([^"]*)"\s*\]')
_ONE_LINE_RE = re.compile(r"[NESWnesw]:")
_PLAY_END = "*"  # PBN's end-of-play marker; accepted and ignored
#: the longest line read, in characters (a deal or a trick takes under 100)
MAX_LINE_CHARS = 64 * 1024


@dataclass
class DealSpec:
    """One deal read from a deal file, checked and ready to solve.

    - ``deal``: the four hands as dealt (:class:`~kraken_solver.game.deal.Deal`).
    - ``trump``: suit 0..3 (S H D C), or ``None`` when the file gives none (the command then
      shows the first player's trump table).
    - ``first``: the first player 0..3 (N E S W): leads trick 1; their team is the playing team.
    - ``rules``: the :class:`~kraken_solver.game.rules.Rules` (preset plus ``[Double]`` multiplier).
    - ``played``: the cards played so far (ints 0..31) in play order, from the first lead; it
      may end inside a trick.
    - ``played_at``: for every played card its ``(line, column)`` in the file (1-based).
    - ``source``: the file name (or ``None``); ``line``: the line of the deal's ``[Deal]`` tag
      or one-line deal.
    - ``first_given``: whether ``first`` came from a tag, key or override rather than the
      seat named in the deal text (or the seat left of ``[Dealer]``).
    - ``deal_text``: the deal as the file writes it (the ``[Deal]`` value or the one-line
      deal's PBN), for messages in the user's own words; ``played_text``: each played card
      as written (``H10``, ``hk``).
    - ``declared``: the ``[Declared]`` hand roem (playing team, defenders; points; a one-line
      deal's ``declared=20,0``), or None; ``declared_at``: its (line, column, text).  With
      every hand given and a trump, it is checked against the hands' own (rules 12-17).
      With ``hidden=True`` ``deal`` may be a :class:`~kraken_solver.notation.partial.PartialDeal`.
    - ``tags``: PBN's informational tags of the deal (name -> value, in file order; see
      :data:`KEPT_TAGS`), e.g. ``{"Event": "Club night", "Board": "3"}``.
    - ``skipped``: the tags skipped, as ``(name, line, why)``; ``why`` is ``"bridge"``
      (:data:`BRIDGE_TAGS`) or ``"unknown"``.
    """

    deal: Deal
    trump: int | None
    first: int
    rules: Rules
    played: list = field(default_factory=list)
    played_at: list = field(default_factory=list)
    source: str | None = None
    line: int | None = None
    first_given: bool = False
    declared: tuple | None = None
    tags: dict = field(default_factory=dict)
    skipped: list = field(default_factory=list)
    deal_text: str | None = None
    played_text: list = field(default_factory=list)
    declared_at: tuple | None = None

    @property
    def where(self) -> str:
        """``"deals.txt, line 3"``: where the record starts, for messages and headers."""
        parts = []
        if self.source is not None:
            parts.append(str(self.source))
        if self.line is not None:
            parts.append(f"line {self.line}")
        return ", ".join(parts)


# ------------------------------------------------------------------------- helpers
def _err(cls, message, source, line, column, token=None):
    return cls(message, source=source, line=line, column=column, token=token)


def _relocate(err: KrakenError, source, line, col0) -> KrakenError:
    """An error whose column is relative to a text that starts at column ``col0`` of ``line``
    -> the same error type located in the file."""
    col = col0 + err.column - 1 if err.column is not None else col0
    return type(err)(err.message, source=source if err.source is None else err.source,
                     line=line if err.line is None else err.line, column=col, token=err.token)


def _words(text: str):
    """Whitespace-separated words of ``text`` with their 0-based offsets."""
    return [(m.start(), m.group()) for m in re.finditer(r"\S+", text)]


def _strip_comment(line: str, in_brace: bool = False) -> tuple[str, bool, int | None]:
    """``line`` without its comments: from a ``%`` or ``;`` outside double quotes to the end
    of the line, and PBN's ``{...}`` comments (which may span lines; ``in_brace``: the line
    starts inside one).  Returns (the text, whether the line ends inside a brace comment,
    the 1-based column of the ``{`` still open at its end when this line opened it, else
    None); a brace comment becomes spaces, so the columns of the rest stay right."""
    if not in_brace and "%" not in line and ";" not in line and "{" not in line:
        return line, False, None
    out = []
    quoted = False
    opened = None
    for ch in line:
        if in_brace:
            if ch == "}":
                in_brace = False
                opened = None
            out.append(" ")
        elif ch == '"':
            quoted = not quoted
            out.append(ch)
        elif quoted:
            out.append(ch)
        elif ch in "%;":
            break
        elif ch == "{":
            in_brace = True
            opened = len(out) + 1
            out.append(" ")
        else:
            out.append(ch)
    return "".join(out), in_brace, opened


def _normalise_suit(text: str) -> str:
    return SYMBOL_SUITS.get(text, text)


def parse_card_at(text: str, *, source=None, line=None, column=None) -> int:
    """Read one card (``"HK"``, ``"H10"``, ``"♥K"``) found at ``column`` of ``line``.

    Returns the card index 0..31.  Raises CardParseError located at the bad suit or rank
    character (``column`` is the 1-based column of the card's first character)."""
    col = column if column is not None else 1
    if len(text) < 2:
        raise _err(CardParseError, "expected a card: suit letter (S H D C) then rank "
                   "(A K Q J T 9 8 7), like HK", source, line, col, text)
    try:
        suit = parse_suit(_normalise_suit(text[0]))
    except CardParseError as e:
        raise _err(CardParseError, e.message, source, line, col, text[0]) from None
    try:
        rank = parse_rank(text[1:])
    except CardParseError as e:
        raise _err(CardParseError, e.message, source, line, col + 1, text[1:]) from None
    return suit * 8 + rank


def _parse_trump(value, source, line, col) -> int:
    v = _normalise_suit(value.strip())
    try:
        return parse_suit(v)
    except CardParseError:
        raise _err(CardParseError, "expected a trump suit S, H, D or C", source, line, col,
                   value) from None


def _parse_seat(value, what, source, line, col) -> int:
    try:
        return parse_seat(value)
    except CardParseError:
        raise _err(CardParseError, f"expected {what} N, E, S or W", source, line, col,
                   value) from None


def _parse_rules(value, source, line, col) -> tuple[Rules, dict]:
    """A rules spec (``kraken``, ``kraken+multiplier=2``) -> (Rules, the options it gives)."""
    try:
        preset, options = parse_rules_spec(value)
    except RulesError as e:
        token = e.token or value
        at = ascii_lower(value).find(ascii_lower(token)) if token else -1
        raise _err(RulesError, e.message, source, line, col + max(at, 0), token) from None
    return dataclasses.replace(PRESETS[preset], **options), options


def _set_option(rec, key, value, source, line, col) -> None:
    """Set ``rec``'s trump, first, rules or double (``key``) from a [Tag] or a key= word."""
    if key == "trump":
        rec.trump = _parse_trump(value, source, line, col)
    elif key == "first":
        rec.first = _parse_seat(value, "a first player", source, line, col)
    elif key == "rules":
        rec.rules, rec.rules_options = _parse_rules(value, source, line, col)
        rec.rules_at = (line, col, value)
    elif key == "declared":
        rec.declared = _parse_declared(value.replace(",", " "), source, line, col)
        rec.declared_at = (line, col, value)
    else:
        rec.double = _parse_double(value, source, line, col)
        rec.double_at = (line, col, value)


def _parse_double(value, source, line, col) -> int:
    v = value.strip()
    # ASCII digits only: str.isdigit() also takes '²' (which int() refuses) and '٢' (read as 2)
    if re.fullmatch(r"[0-9]{1,2}", v) and int(v) in MULTIPLIERS:
        return int(v)
    raise _err(RulesError, "expected a multiplier 1, 2 (kraken), 4 or 8", source, line, col,
               value)


# ------------------------------------------------------------------------- records
class _Record:
    """A deal being read: its values and where each came from."""

    def __init__(self, source, line, hidden=False):
        self.source = source
        self.line = line
        self.hidden = hidden             # hands written '-' are allowed
        self.declared = None
        self.declared_at = None      # (line, column, text) of the declared hand roem
        self.deal = None
        self.deal_text = None        # the deal as written
        self.deal_seat = None
        self.trump = None
        self.first = None
        self.rules = None
        self.double = None
        self.double_at = None        # (line, column, text) of the [Double] value
        self.rules_options = {}      # the options the [Rules] spec gives explicitly
        self.rules_at = None         # (line, column, text) of the [Rules] value
        self.play_seat = None        # (seat, line, tag column, value column, value text)
        self.played = []             # (card, line, col, text)
        self.seen = {}               # tag name -> line
        self.one_line = False
        self.dealer = None           # the seat of a [Dealer] tag
        self.tags = {}               # PBN's informational tags, name -> value
        self.skipped = []            # (tag name, line, why) of the tags skipped

    def finish(self, trump=None, first=None, rules=None) -> DealSpec:
        """Apply the overrides, check the [Play] seat and replay the played cards."""
        src = self.source
        # an error the overrides caused says so (the file alone may be fine)
        given = [f"{name}={value}" for name, value in
                 (("trump", None if trump is None else SUITS[trump]),
                  ("first", None if first is None else SEATS[first]),
                  ("rules", None if rules is None else rules.name)) if value is not None]
        note = f" (under the override {', '.join(given)})" if given else ""
        if trump is not None:
            self.trump = trump
        first_given = self.first is not None or first is not None
        if first is not None:
            self.first = first
        if self.first is None and self.dealer is not None:
            self.first = (self.dealer + 1) % 4      # left of the dealer (rule 3)
        if self.first is None:
            self.first = self.deal_seat
        base = rules if rules is not None else (self.rules or Rules())
        if (self.double is not None
                and self.rules_options.get("multiplier", self.double) != self.double):
            dline, dcol, dtext = self.double_at
            raise _err(RulesError, f"the multiplier is {self.double} here but the deal's rules "
                       f"say multiplier={self.rules_options['multiplier']}; give it once",
                       src, dline, dcol, dtext)
        # the deal's own multiplier (its doubling, rule 20: [Double] or its rules spec's) stays
        # under a --rules override; an override that names another one is refused
        own = self.double if self.double is not None else self.rules_options.get("multiplier")
        if own is not None:
            if rules is not None and rules.multiplier not in (1, own):
                mline, mcol, mtext = (self.double_at if self.double is not None
                                      else self.rules_at)
                raise _err(RulesError, f"the deal's multiplier is {own} here but the rules "
                           f"given for every deal ({rules.name}) say multiplier="
                           f"{rules.multiplier}; give it once", src, mline, mcol, mtext)
            base = dataclasses.replace(base, multiplier=own)
        if self.play_seat is not None:
            seat, pline, tcol, pcol, ptext = self.play_seat
            if seat is not None and seat != self.first:
                raise _err(DealFileError, f"[Play] must name the first player, "
                           f"{SEATS[self.first]}, who leads the first trick{note}", src, pline,
                           pcol, ptext)
            if self.played and self.trump is None:
                raise _err(DealFileError, "a [Play] section needs a trump: add a [Trump] tag "
                           "(or give --trump)", src, pline, tcol, "[Play]")
        if (self.declared is not None and self.trump is not None
                and isinstance(self.deal, Deal)):
            self._check_declared(base, note)
        played, played_at = [], []
        if self.played and not isinstance(self.deal, Deal):
            # hidden hands: the hint checks the play against what they may hold
            played = [card for card, _, _, _ in self.played]
            played_at = [(cline, ccol) for _, cline, ccol, _ in self.played]
        elif self.played:
            from ..game.position import Position  # the kernels load on first use only
            pos = Position(self.deal, self.trump, self.first, base)
            for card, cline, ccol, ctext in self.played:
                try:
                    pos.play(card)
                except IllegalCardError as e:
                    raise _err(IllegalCardError, e.message + note, src, cline, ccol,
                               ctext) from None
                played.append(card)
                played_at.append((cline, ccol))
        return DealSpec(deal=self.deal, trump=self.trump, first=self.first, rules=base,
                        played=played, played_at=played_at, source=src, line=self.line,
                        first_given=first_given, declared=self.declared, tags=dict(self.tags),
                        skipped=list(self.skipped), deal_text=self.deal_text,
                        played_text=[ctext for _, _, _, ctext in self.played][:len(played)],
                        declared_at=self.declared_at)

    def _check_declared(self, rules, note: str) -> None:
        """The declared hand roem must be the one the four hands given declare (rules 12-17;
        0 0 when the rules have no hand roem)."""
        from ..game.roem import hand_roem_masks
        own = hand_roem_masks(self.deal.hands, self.trump, self.first, rules)
        if tuple(own) != tuple(self.declared):
            line, col, text = self.declared_at
            why = ("" if rules.hand_roem else
                   f": the rules ({rules.name}) have no hand roem")
            raise _err(DealFileError, f"the declared hand roem {self.declared[0]} "
                       f"{self.declared[1]} is not what the hands declare ({own[0]} {own[1]}, "
                       f"playing team first){why}{note}", self.source, line, col, text)


def _as_override_rules(rules) -> Rules | None:
    return None if rules is None else as_rules(rules)


def parse_deal_text(text: str, source: str | None = None, *, trump=None, first=None,
                    rules=None, hidden: bool = False) -> list[DealSpec]:
    """Read the deals of a deal file's text (format: see the module docstring).

    ``source`` names the file in error messages.  The overrides replace what the file says for
    every deal: ``trump`` (``"H"`` or 0..3), ``first`` (``"N"`` or 0..3), ``rules`` (a preset
    name, Rules or dict of options; a deal's ``[Double]``/``double=`` still sets the
    multiplier).  Played cards
    are checked under the values in force after the overrides.  ``hidden``: hands written
    ``-`` are allowed (``kraken-hint``; see the module docstring).

    Returns the deals in file order.  Raises DealFileError (syntax, unknown tag, no deal, a
    line longer than :data:`MAX_LINE_CHARS` characters),
    DealError (a malformed deal), CardParseError (a bad card, suit or seat), RulesError (an
    unknown preset or multiplier) or IllegalCardError (a card that may not be played), each
    with ``source``, ``line``, ``column`` and ``token`` set.
    """
    if text.startswith("\ufeff"):
        text = text[1:]
    # lines end at \n, \r\n or \r only (str.splitlines would also break at form feeds,
    # U+2028 and the like, and misnumber the lines)
    lines = enumerate(re.split(r"\r\n|\r|\n", text), start=1)
    return list(parse_lines(lines, source, trump=trump, first=first, rules=rules,
                             hidden=hidden))


def parse_lines(lines, source, *, trump=None, first=None, rules=None, hidden=False):
    """The deals of ``lines`` ((line number, text) pairs), one at a time: the parser of
    :func:`parse_deal_text`, for a text or a stream.  A deal is yielded when the line that
    starts the next one (or the end) is read."""
    from ..game.cards import as_seat, as_suit
    o_trump = as_suit(trump) if trump is not None else None
    o_first = as_seat(first) if first is not None else None
    o_rules = _as_override_rules(rules)

    count = 0
    rec: _Record | None = None
    in_play = False
    in_skipped = False          # inside the section of a skipped tag (an auction, a table)
    in_brace = False            # inside a {...} comment
    brace_at = None             # (line, column) of the '{' of the comment still open
    previous_tags: dict = {}    # the last deal's kept tags, for PBN's "#"
    pending: list = []          # tags waiting for their game's [Deal]: (name, value, line,
    #                             tag column, value column)
    blank_after_deal = False    # an empty line since the open deal's [Deal] (PBN: game over)

    def finished(rec):
        nonlocal count, previous_tags
        count += 1
        spec = rec.finish(o_trump, o_first, o_rules)
        previous_tags = {**previous_tags, **spec.tags}
        return spec

    for lineno, raw in lines:
        if len(raw) > MAX_LINE_CHARS:
            raise line_too_long(raw, source, lineno)
        raw_line, was_brace = raw, in_brace
        raw, in_brace, opened = _strip_comment(raw, in_brace)
        if opened is not None:
            brace_at = (lineno, opened)
        stripped = raw.strip()
        if not stripped:
            if not raw_line.strip() and not was_brace:
                blank_after_deal = rec is not None      # PBN: an empty line ends a game
            continue
        indent = len(raw) - len(raw.lstrip())
        col0 = indent + 1                      # column of the first non-blank character
        if stripped.startswith("["):
            in_play = in_skipped = False
            name, value, vcol = _read_tag(raw, stripped, indent, source, lineno)
            if name == "Deal" and value.strip() in UNKNOWN_VALUES:
                raise _err(DealError, "the deal is unknown ('?'): kraken-solver needs all four "
                           'hands, like [Deal "N:AKQ.J9.T8.7 ..."]', source, lineno, vcol,
                           value)
            if name == "Deal":
                if rec is not None:
                    yield finished(rec)
                rec = _Record(source, lineno, hidden)
                _set_deal(rec, value, source, lineno, vcol)
                rec.seen["Deal"] = lineno
                blank_after_deal = False
                for tag in pending:          # the game's tags written before its [Deal]
                    _apply_tag(rec, *tag, previous_tags)
                pending.clear()
                continue
            # a PBN game's tags may come before its [Deal] (after an empty line, or before
            # any deal): they wait for it
            if rec is None or pending or (blank_after_deal and name not in TAGS):
                if name == "Play":
                    raise _err(DealFileError, '[Play] before the deal\'s [Deal "N:..."] tag; '
                               "the played cards follow the deal", source, lineno, col0,
                               "[Play]")
                pending.append((name, value, lineno, col0, vcol))
                in_skipped = name not in TAGS and name not in _KEPT
                continue
            in_skipped = _apply_tag(rec, name, value, lineno, col0, vcol, previous_tags)
            in_play = name == "Play"
            continue
        if _ONE_LINE_RE.match(stripped):
            if rec is not None:
                yield finished(rec)
            in_play = in_skipped = False
            rec = _Record(source, lineno, hidden)
            rec.one_line = True
            _read_one_line(rec, raw, indent, stripped, source, lineno)
            spec = finished(rec)
            rec = None
            yield spec
            continue
        if in_skipped:
            continue             # the section of a skipped tag (an auction, a table)
        if in_play:
            for off, word in _words(raw):
                if word == _PLAY_END:
                    continue
                card = parse_card_at(word, source=source, line=lineno, column=off + 1)
                rec.played.append((card, lineno, off + 1, word))
            continue
        word = _words(raw)[0][1]
        if rec is not None and not rec.one_line and _looks_like_card(word):
            raise _err(DealFileError, "a card outside a [Play] section; played cards go on "
                       'the lines right after the deal\'s [Play "'
                       f'{SEATS[rec.first if rec.first is not None else rec.deal_seat]}"] tag',
                       source, lineno, col0, word)
        raise _err(DealFileError, 'expected a tag like [Deal "N:..."], a one-line deal like '
                   "'N:AKQ.J9.T8.7 ... trump=H' or a comment (% or ;)", source, lineno, col0,
                   word)
    if in_brace:
        # everything after the '{' was read as a comment: the deals there would be lost
        raise _err(DealFileError, "this { comment is never closed: everything after it was "
                   "read as a comment; close it with }", source, brace_at[0], brace_at[1],
                   "{")
    if rec is not None:
        yield finished(rec)
    ours = [t for t in pending if t[0] in TAGS]
    if ours:
        name, _, lineno, col0, _ = ours[0]
        why = (f"[{name}] before any [Deal] tag; a deal starts with its "
               '[Deal "N:..."] tag') if not count else (
               f"[{name}] with no [Deal] after it; a one-line deal takes trump=, first=, "
               'rules=, double= and declared= words, a tagged deal starts with [Deal "N:..."]')
        raise _err(DealFileError, why, source, lineno, col0, f"[{name}]")
    if not count:
        raise DealFileError("no deal in this file; expected a [Deal \"N:...\"] tag or a "
                            "one-line deal like 'N:AKQ.J9.T8.7 ... trump=H'", source=source)


def _apply_tag(rec: _Record, name, value, lineno, col0, vcol, previous_tags) -> bool:
    """Set what tag ``name`` says on ``rec`` (the deal it belongs to); return whether the
    lines after it are a skipped tag's section (an auction, a table)."""
    source = rec.source
    if name in TAGS or name == "Dealer":
        if name in rec.seen:
            raise _err(DealFileError, f"duplicate [{name}] tag for the deal of line "
                       f"{rec.line} (first at line {rec.seen[name]})", source, lineno,
                       col0, f"[{name}]")
        rec.seen[name] = lineno
    unknown = value.strip() in UNKNOWN_VALUES
    if name in ("Trump", "First", "Rules", "Double"):
        if not unknown:
            _set_option(rec, ascii_lower(name), value, source, lineno, vcol)
    elif name == "Declared":
        if not unknown:
            _set_option(rec, "declared", value, source, lineno, vcol)
    elif name == "Play":
        # [Play "?"]: who leads is not written; the first player does
        seat = None if unknown else _parse_seat(value, "the seat that leads the play,",
                                                source, lineno, vcol)
        rec.play_seat = (seat, lineno, col0, vcol, value)
    elif name in _KEPT:
        if value.strip() == "#" and name in previous_tags:
            value = previous_tags[name]       # PBN's export format: as the previous game
        if not unknown:
            if name == "Dealer":
                rec.dealer = _parse_seat(value, "a dealer", source, lineno, vcol)
            rec.tags.setdefault(name, value)
    else:
        why = "bridge" if name in _BRIDGE else "unknown"
        if not unknown or why == "unknown":
            rec.skipped.append((name, lineno, why))
        return True
    return False


def skipped_tags_warning(specs) -> list[str]:
    """One warning line per file for the tags its deals skipped (``DealSpec.skipped``), e.g.
    ``deals.pbn: skipped tags that kraken-solver does not use: bridge's [Vulnerable] (12
    deals, first at line 9); unknown [Scorer] (line 3)``.  Empty when nothing was skipped."""
    by_source: dict = {}
    for spec in specs:
        for name, line, why in spec.skipped:
            entry = by_source.setdefault(spec.source, {}).setdefault((why, name), [0, line])
            entry[0] += 1
    out = []
    for source, tags in by_source.items():
        parts = []
        for kind, label in (("bridge", "bridge's"), ("unknown", "unknown")):
            named = [f"[{name}] ({f'{n} deals, first at line {line}' if n > 1 else f'line {line}'})"
                     for (why, name), (n, line) in tags.items() if why == kind]
            if named:
                parts.append(f"{label} " + ", ".join(named))
        where = f"{source}: " if source is not None else ""
        out.append(f"{where}skipped tags that kraken-solver does not use: " + "; ".join(parts))
    return out


def warn_skipped_tags(specs, echo) -> None:
    """Call ``echo(line)`` with each line of :func:`skipped_tags_warning`."""
    for line in skipped_tags_warning(specs):
        echo(line)


class SkippedTags:
    """The skipped tags of deals read as streams, for one warning a file: ``add`` each
    DealSpec (a :class:`DealReader`'s ``check`` sees the deals of its look-ahead, then every
    deal again; each counts once), ``report(echo)`` to say what was added since the last
    report (normally once, after the look-ahead; again at the end only for tags first seen
    beyond it)."""

    def __init__(self):
        self._seen = set()          # (source, deal line)
        self._specs = []
        self._told = set()          # (source, tag name)

    def add(self, spec) -> None:
        key = (spec.source, spec.line)
        if spec.skipped and key not in self._seen:
            self._seen.add(key)
            self._specs.append(spec)

    def report(self, echo) -> None:
        new = [dataclasses.replace(s, skipped=[t for t in s.skipped
                                               if (s.source, t[0]) not in self._told])
               for s in self._specs]
        for spec in new:
            self._told.update((spec.source, t[0]) for t in spec.skipped)
        warn_skipped_tags(new, echo)


def line_too_long(raw: str, source, lineno) -> DealFileError:
    return _err(DealFileError, f"the line is longer than {MAX_LINE_CHARS:,} characters; "
                "a deal file's lines are short (a deal, a tag or a trick)", source,
                lineno, MAX_LINE_CHARS + 1, raw[MAX_LINE_CHARS:MAX_LINE_CHARS + 100])


def _looks_like_card(word: str) -> bool:
    try:
        parse_card_at(word)
        return True
    except CardParseError:
        return False


def _read_tag(raw, stripped, indent, source, lineno):
    """``[Name "value"]`` -> (name, value, 1-based column of the value's first character)."""
    m = _TAG_RE.fullmatch(stripped)
    col0 = indent + 1
    if m is None:
        whole = re.match(r'\[\s*[A-Za-z]+\s+"[^"]*"\s*\]', stripped)
        if whole is not None:
            tail = stripped[whole.end():]
            extra = len(tail) - len(tail.lstrip())
            raise _err(DealFileError, "unexpected text after the tag; put it on a line of its "
                       "own", source, lineno, col0 + whole.end() + extra, tail.strip())
        # the tag name: what follows '[' up to a space, quote or ']'
        at = re.match(r"\[\s*", stripped).end()
        name = re.match(r'[^\s"\]]*', stripped[at:]).group()
        if not name:
            raise _err(DealFileError, "expected a tag name after '[': ASCII letters, like Deal "
                       'or Trump; a tag is [Name "value"]', source, lineno, col0 + at,
                       stripped[at:at + 1] or stripped)
        if not re.fullmatch(r"[A-Za-z]+", name):
            raise _err(DealFileError, "a tag name is ASCII letters only, like Deal or Trump; "
                       'expected [Name "value"]', source, lineno, col0 + at, name)
        if not stripped.endswith("]"):
            raise _err(DealFileError, "a tag ends with ']'; expected [Name \"value\"]", source,
                       lineno, col0 + len(stripped), stripped[-10:])
        head = re.match(r"\[\s*[A-Za-z]*\s*", stripped)
        rest = stripped[head.end():]
        if stripped.count('"') != 2 or not rest.startswith('"'):
            raise _err(DealFileError, 'a tag value is in double quotes; expected [Name "value"]',
                       source, lineno, col0 + head.end(), rest)
        raise _err(DealFileError, 'expected a tag [Name "value"]', source, lineno, col0,
                   stripped)
    name = m.group(1)
    canon = _CANON.get(ascii_lower(name))
    if canon is None:
        import difflib
        near = difflib.get_close_matches(ascii_lower(name), [t.lower() for t in TAGS], n=1,
                                         cutoff=0.8)
        if near:
            raise _err(DealFileError, f"unknown tag; did you mean [{_CANON[near[0]]}]? "
                       "(kraken-solver reads " + ", ".join(TAGS) + ")", source, lineno,
                       col0 + m.start(1), name)
        canon = name        # unknown: skipped (with its section) and named in a warning
    return canon, m.group(2), col0 + m.start(2)


def _set_deal(rec: _Record, value: str, source, lineno, vcol):
    rec.deal_text = value.strip()
    try:
        if rec.hidden:
            from .partial import parse_partial_pbn
            rec.deal, rec.deal_seat = parse_partial_pbn(value)
        else:
            for m in re.finditer(r"\S+", value):
                if m.group() == "-" or m.group().endswith(":-"):
                    raise _err(DealFileError, "a hidden hand '-' is read by kraken-hint only; "
                               "this command needs all four hands", source, lineno,
                               vcol + m.end() - 1, "-")
            rec.deal, rec.deal_seat = parse_pbn(value)
    except DealFileError:
        raise
    except KrakenError as e:
        raise _relocate(e, source, lineno, vcol) from None


def _parse_declared(value, source, line, col) -> tuple[int, int]:
    """``"20 0"``: the hand roem declared (rule 17), playing team then defenders, points."""
    words = value.split()
    if len(words) == 2 and all(re.fullmatch(r"[0-9]{1,4}", w) for w in words):
        a, b = int(words[0]), int(words[1])
        if a % 10 == 0 and b % 10 == 0 and a <= MAX_HAND_ROEM and b <= MAX_HAND_ROEM:
            return a, b
    raise _err(DealFileError, "expected the declared hand roem as two numbers of points, "
               "the playing team's then the defenders', multiples of 10 from 0 to "
               f'{MAX_HAND_ROEM}, like "20 0" (declared=20,0 in a one-line deal)',
               source, line, col, value)


def _read_one_line(rec: _Record, raw, indent, stripped, source, lineno):
    words = _words(raw)
    k = 0
    while k < len(words) and "=" not in words[k][1]:
        k += 1
    k = max(k, 1)
    deal_start = words[0][0]
    deal_end = words[k - 1][0] + len(words[k - 1][1])
    _set_deal(rec, raw[deal_start:deal_end], source, lineno, deal_start + 1)
    seen = {}
    for off, word in words[k:]:
        col = off + 1
        key, eq, value = word.partition("=")
        if not eq:
            raise _err(DealFileError, "expected key=value after the deal (keys: "
                       + ", ".join(LINE_KEYS) + ")", source, lineno, col, word)
        lkey = ascii_lower(key)
        if lkey not in LINE_KEYS:
            raise _err(DealFileError, "unknown key; expected one of " + ", ".join(LINE_KEYS),
                       source, lineno, col, key)
        if lkey in seen:
            raise _err(DealFileError, f"duplicate key {lkey}= (first at column {seen[lkey]})",
                       source, lineno, col, word)
        seen[lkey] = col
        vcol = col + len(key) + 1
        if not value:
            raise _err(DealFileError, f"missing value after {key}=", source, lineno, vcol, word)
        if value != "?":                 # "?": unknown, as if the key were missing
            _set_option(rec, lkey, value, source, lineno, vcol)
