"""Rule options of Kraken and the named club presets (RULES.md rules 5, 9, 9a, 9b, 10-20)."""

from __future__ import annotations

import dataclasses
import difflib
import re
from dataclasses import dataclass, fields

import numpy as np

from ..errors import RulesError, short_token
from .cards import ascii_lower, is_bool, is_int

TRUMP_RULES = ("rotterdam", "amsterdam")
UNDERTRUMP_RULES = ("forbidden", "forced")
MULTIPLIERS = (1, 2, 4, 8)

# positions in the int64 array handed to the kernels (one compiled kernel serves every variant)
R_AMSTERDAM, R_UNDERTRUMP_FORCED, R_TRICK_ROEM, R_DOUBLE_SPADES, R_PIT_BONUS = range(5)
RULES_ARRAY_LEN = 5


@dataclass(frozen=True)
class Rules:
    """The options of RULES.md; every default is the G4A app's behaviour.

    - ``trump_rule``: ``"rotterdam"`` (rule 8c always) or ``"amsterdam"`` (rule 9).
    - ``undertrump``: ``"forbidden"`` (rule 8c) or ``"forced"`` (rule 9a).
    - ``trick_roem``: roem in tricks (rules 10-11).
    - ``hand_roem``: roem declared from the hand, stuk included (rules 12-17).
    - ``double_spades``: spades as trump double card points and the last-trick 10 (rule 5).
    - ``multiplier``: 1, 2 (kraken), 4 or 8 (rule 20).
    - ``pit_bonus``: points for the playing team winning every trick (rule 18), >= 0.
    - ``long_runs_100``: a hand run of 5 or more scores 100 (rule 12).

    Raises RulesError for an unknown value.
    """

    trump_rule: str = "rotterdam"
    undertrump: str = "forbidden"
    trick_roem: bool = True
    hand_roem: bool = True
    double_spades: bool = False
    multiplier: int = 1
    pit_bonus: int = 100
    long_runs_100: bool = False

    def __post_init__(self):
        # plain str, bool and int from here on: numpy values would leak into results and
        # into to_dict(), which must be JSON
        for name in ("trump_rule", "undertrump"):
            v = getattr(self, name)
            if isinstance(v, str) and type(v) is not str:
                object.__setattr__(self, name, str(v))
        if self.trump_rule not in TRUMP_RULES:
            raise RulesError("trump_rule must be 'rotterdam' or 'amsterdam'",
                             token=str(self.trump_rule))
        if self.undertrump not in UNDERTRUMP_RULES:
            raise RulesError("undertrump must be 'forbidden' or 'forced'",
                             token=str(self.undertrump))
        for name in ("trick_roem", "hand_roem", "double_spades", "long_runs_100"):
            if not is_bool(getattr(self, name)):
                raise RulesError(f"{name} must be true or false",
                                 token=str(getattr(self, name)))
            object.__setattr__(self, name, bool(getattr(self, name)))
        if not is_int(self.multiplier) or self.multiplier not in MULTIPLIERS:
            raise RulesError("multiplier must be 1, 2, 4 or 8", token=str(self.multiplier))
        object.__setattr__(self, "multiplier", int(self.multiplier))
        if not is_int(self.pit_bonus) or not 0 <= self.pit_bonus <= 10000:
            raise RulesError("pit_bonus must be a whole number of points from 0 to 10000",
                             token=str(self.pit_bonus))
        object.__setattr__(self, "pit_bonus", int(self.pit_bonus))

    # ------------------------------------------------------------------ presets
    @classmethod
    def preset(cls, name: str, **overrides) -> "Rules":
        """A named preset of RULES.md rule 9b (``kraken``, ``kraken-amsterdam``,
        ``klaverjas-rotterdam``, ``klaverjas-amsterdam``), with optional overrides (the
        options of :class:`Rules`).  Raises RulesError for an unknown name or option or a bad
        option value."""
        key = ascii_lower(str(name).strip())
        if key not in PRESETS:
            raise RulesError("unknown rules preset; expected one of " + ", ".join(PRESETS),
                             token=str(name))
        _check_options(overrides)
        return dataclasses.replace(PRESETS[key], **overrides)

    @classmethod
    def from_dict(cls, options) -> "Rules":
        """Rules from a dict of options (as in the reference cases, or :meth:`to_dict`);
        missing keys take defaults, and ``None`` is no options (the defaults).  Raises
        RulesError for something that is not a dict, an unknown option or a bad value."""
        if options is None:
            return cls()
        if not isinstance(options, dict):
            raise RulesError("expected a dict of rules options, like {'multiplier': 2}",
                             token=repr(options))
        _check_options(options)
        return cls(**options)

    def to_dict(self) -> dict:
        """The options as a dict of plain ``str``, ``bool`` and ``int`` (JSON-ready);
        ``Rules.from_dict(r.to_dict()) == r``."""
        return dataclasses.asdict(self)

    @property
    def name(self) -> str:
        """The preset name if these rules equal a preset, else the preset nearest plus the
        options that differ, e.g. ``"kraken+multiplier=2"``: a rules spec that
        :meth:`from_name` (and :func:`as_rules`, ``--rules``, ``[Rules]``, ``rules=``) reads
        back to these rules."""
        best, best_diff = None, None
        for pname, p in PRESETS.items():
            diff = [f.name for f in fields(self) if getattr(self, f.name) != getattr(p, f.name)]
            if best_diff is None or len(diff) < len(best_diff):
                best, best_diff = pname, diff
        if not best_diff:
            return best
        return best + "".join(f"+{n}={_option_text(getattr(self, n))}" for n in best_diff)

    @classmethod
    def from_name(cls, text: str) -> "Rules":
        """Rules from a rules spec: a preset name, optionally followed by ``+option=value``
        parts, e.g. ``"kraken+multiplier=2"``,
        ``"klaverjas-rotterdam+trick_roem=false+double_spades=true"`` (every option of
        :class:`Rules`; see :data:`OPTION_VALUES` for the values each takes).  A spec that
        starts with an option (``"multiplier=2"``) starts from ``kraken``.  Names, options and
        values are case-insensitive; :attr:`name` gives a spec that reads back to equal rules.

        Raises RulesError (``token`` the offending part) for an unknown preset or option, a
        part without ``=``, an option given twice, or a value the option does not take; the
        message lists what is allowed."""
        preset, options = parse_rules_spec(text)
        return dataclasses.replace(PRESETS[preset], **options)

    def kernel_array(self) -> np.ndarray:
        """The options the search kernels need, as an int64 array of length 5."""
        a = np.zeros(RULES_ARRAY_LEN, dtype=np.int64)
        a[R_AMSTERDAM] = self.trump_rule == "amsterdam"
        a[R_UNDERTRUMP_FORCED] = self.undertrump == "forced"
        a[R_TRICK_ROEM] = bool(self.trick_roem)
        a[R_DOUBLE_SPADES] = bool(self.double_spades)
        a[R_PIT_BONUS] = int(self.pit_bonus)
        return a


def _check_options(options: dict) -> None:
    """Raise RulesError naming the first key of ``options`` that is not a Rules option."""
    if not isinstance(options, dict):
        raise RulesError("rules options are a dict of option -> value", token=repr(options))
    names = {f.name for f in fields(Rules)}
    for k in options:
        if not isinstance(k, str) or k not in names:
            raise RulesError("unknown rules option; expected one of " + ", ".join(sorted(names)),
                             token=str(k))


#: what each option of :class:`Rules` takes in a rules spec (``"kraken+multiplier=2"``)
OPTION_VALUES = {
    "trump_rule": "rotterdam or amsterdam",
    "undertrump": "forbidden or forced",
    "trick_roem": "true or false",
    "hand_roem": "true or false",
    "double_spades": "true or false",
    "multiplier": "1, 2, 4 or 8",
    "pit_bonus": "a whole number of points from 0 to 10000",
    "long_runs_100": "true or false",
}
_TRUE = ("true", "on", "yes", "1")
_FALSE = ("false", "off", "no", "0")


def _option_text(value) -> str:
    """An option's value as a rules spec writes it (bools as ``true``/``false``)."""
    return str(value).lower() if isinstance(value, (bool, np.bool_)) else str(value)


def _allowed() -> str:
    return ("expected " + ", ".join(PRESETS) + ", optionally with +option=value parts, e.g. "
            "kraken+multiplier=2 (options: " + ", ".join(OPTION_VALUES) + ")")


def _option_value(key: str, text: str):
    """The value of option ``key`` from its spec text.  Raises RulesError."""
    v = ascii_lower(text.strip())
    kind = type(getattr(Rules(), key))
    if kind is bool:
        if v in _TRUE:
            return True
        if v in _FALSE:
            return False
    elif kind is int:
        # leading zeros are not digits too many (0010000 is 10000, as a typed option reads it)
        m = re.fullmatch(r"0*([0-9]{1,6})", v)
        if m:
            value = int(m.group(1))
            if key != "multiplier" or value in MULTIPLIERS:
                if key != "pit_bonus" or value <= 10000:
                    return value
    elif v in {"trump_rule": TRUMP_RULES, "undertrump": UNDERTRUMP_RULES}[key]:
        return v
    raise RulesError(f"{key} takes {OPTION_VALUES[key]}", token=f"{key}={text}")


def parse_rules_spec(text) -> tuple[str, dict]:
    """A rules spec ``PRESET+option=value+...`` -> (preset name, {option: value}) with only
    the options the spec gives (see :meth:`Rules.from_name`).  Raises RulesError."""
    if not isinstance(text, str):
        raise RulesError("a rules spec is text like kraken+multiplier=2", token=repr(text))
    if not text.isascii():
        # case folding must not invent a name: the Kelvin sign lowers to 'k'
        raise RulesError("a rules spec is written in ASCII letters, digits and + = - _",
                         token=text)
    parts = [p.strip() for p in text.split("+")]
    if parts and "=" in parts[0]:
        parts.insert(0, "kraken")
    preset = ascii_lower(parts[0])
    if preset not in PRESETS:
        raise RulesError("unknown rules preset; " + _allowed(), token=parts[0] or text)
    options: dict = {}
    for i, part in enumerate(parts[1:], start=1):
        key, eq, value = part.partition("=")
        key = ascii_lower(key.strip())
        if eq and key and not value.strip() and i + 1 < len(parts):
            # 'pit_bonus=+5' splits at its '+': name what was typed, not 'pit_bonus='
            after = short_token(parts[i + 1], 12)
            typed = short_token(f"{part}+{parts[i + 1]}", 24)
            example = (f"{key}={after}" if after.isdigit()
                       else f"{key}={_option_text(getattr(Rules(), key))}")
            raise RulesError(f"{short_token(key, 24)} has no value: '+' separates the options "
                             f"of a spec, so '{typed}' is read as '{short_token(part, 24)}' and "
                             f"'{after}'; write the value without a sign, e.g. {example}",
                             token=text)
        if not eq or not key:
            raise RulesError("a rules option is written option=value; " + _allowed(),
                             token=part or text)
        if key not in OPTION_VALUES:
            near = difflib.get_close_matches(key, list(OPTION_VALUES), n=1, cutoff=0.75)
            if near:
                raise RulesError(f"unknown rules option; did you mean {near[0]}? (it takes "
                                 f"{OPTION_VALUES[near[0]]})", token=key)
            raise RulesError("unknown rules option; expected one of "
                             + "; ".join(f"{k} ({v})" for k, v in OPTION_VALUES.items()),
                             token=key)
        if key in options:
            raise RulesError(f"{key} is given twice", token=part)
        options[key] = _option_value(key, value)
    return preset, options


PRESETS = {
    "kraken": Rules(),
    "kraken-amsterdam": Rules(trump_rule="amsterdam"),
    "klaverjas-rotterdam": Rules(trump_rule="rotterdam", undertrump="forced", trick_roem=True,
                                 hand_roem=False),
    "klaverjas-amsterdam": Rules(trump_rule="amsterdam", trick_roem=True, hand_roem=False),
}


def as_rules(rules) -> Rules:
    """Accept a Rules, a rules spec (a preset name, optionally with ``+option=value`` parts:
    ``"kraken+multiplier=2"``, see :meth:`Rules.from_name`) or a dict of options; ``None``
    is the default rules (``kraken``).  Raises RulesError."""
    if rules is None:
        return Rules()
    if isinstance(rules, Rules):
        return rules
    if isinstance(rules, str):
        return Rules.from_name(rules)
    if isinstance(rules, dict):
        return Rules.from_dict(rules)
    raise RulesError("expected Rules, a rules spec such as 'kraken+multiplier=2' or a dict "
                     "of options", token=repr(rules))
