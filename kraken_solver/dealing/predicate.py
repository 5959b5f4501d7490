"""The condition language of ``kraken-deal --where``: predicates over the four hands of a deal.

A predicate is read by a LALR grammar (lark; never ``eval``) into a tree of :class:`Node`
records, checked for types (a number where a number belongs, a truth value elsewhere) and
arities, and written back canonically (``str(node)``: the form recorded in a batch's metadata
and compared on ``--resume``).  The forms::

    hearts(S) >= 4            spades(N) == 0            has(S, HJ)        has(S, HJ H9)
    has(N, HJ) or has(S, HJ)  points(S, H) >= 40        trumps(S, H)      roem(S, H) >= 20
    aces(W) >= 2              longest(S) >= 5           void(E)           shape(S, 4-2-1-1)
    shape(N, any 5xxx + any 4xxx - 4xx0)                has(NS, HJ)       not (a and b or c)
    hearts(S) + hearts(N) >= 6                          count(S, SA HA DA CA) >= 2

Seats ``N E S W`` (a team ``NS`` or ``EW`` where the function adds up a holding: ``has``,
``count``, the suit and rank counts, ``points``, ``roem``), suits ``S H D C``, cards as the
tools write them (``HJ``, ``H10``, ``♥J``).  Comparisons ``< <= == != >= >`` between whole
numbers, ``+`` and ``-`` between numbers, ``and``, ``or``, ``not``, parentheses, ``true`` and
``false``.  A shape pattern (dealer's algebra) is one or more terms joined by ``+`` (union)
and ``-`` (removal); a term is four lengths in suit order S H D C (``4-2-1-1`` or ``4211``),
``x`` for any length, ``any`` for every order of the suits; a Klaverjas suit holds 0..8 cards.
Named definitions (``long = longest(S) >= 5``, one a line, ``#`` comments) come from a file:
``--where @conditions.txt`` (:func:`parse_program`); the file's one line that is not a
definition is the condition.

Card points are RULES.md rule 3 (trump order given as the suit argument); ``roem(S, H)`` is
the hand roem that S declares with hearts trump (rules 12-16: S's melds, as rule 13 partitions
them, plus 20 for stuk), whether or not it counts for S's team (rule 15).

Every input is bounded before work is made from it: a line of at most
:data:`MAX_PREDICATE_CHARS` characters; at most :data:`MAX_DEPTH` levels of operators inside
one another (:func:`_check_depth`: ``not``, a comparison, ``and`` in ``or``, ``+``/``-`` in a
comparison each a level; a flat chain ``a and b and c`` or ``a + b - c`` is one level whatever
its length, and parentheses add no level by themselves: ``((x))`` is ``x``, ``(a and b) and c``
is ``a and b and c``); at most :data:`~kraken_solver.limits.MAX_CONDITION_CHARS` characters of
canonical text once the definitions are written out (the text recorded in a batch's sidecar
and read back, ``max_chars`` of :func:`parse_predicate`; checked as the tree is built, so that
definitions used inside one another are refused before their expansion is made).  The tree
is built without recursion; the recursive walks after it (canonical text, evaluation) are at
most :data:`MAX_DEPTH` deep.

Errors are :class:`~kraken_solver.errors.PredicateError` with the 1-based column (and line,
for a file) and what was expected.
"""

from __future__ import annotations

import difflib
import functools
import itertools
from dataclasses import dataclass

from ..errors import PredicateError
from ..limits import MAX_CONDITION_CHARS
from ..game.cards import SEATS, SUITS, ascii_lower, ascii_upper, card_str
from .predeal import card_words

#: the longest predicate text read, one line (a condition of a few lines is a few hundred
#: characters); its canonical text may be longer, up to MAX_CONDITION_CHARS
MAX_PREDICATE_CHARS = 20_000
#: the most definitions a file may make
MAX_DEFINITIONS = 200
#: the deepest a condition may nest: operators inside one another (``not not ...``, ``a or
#: (b and ...)``, ``a - (b - ...)``), each a level; a flat chain (``a and b and ...``,
#: ``a + b - ...``) is one level, parentheses by themselves none
MAX_DEPTH = 100
#: what the depth counts, as an error message says it
_DEPTH_WORDS = ("not, comparisons and operators inside one another; parentheses by "
                "themselves and flat chains like a + b + c do not count")

GRAMMAR = r"""
?start: line
?line: NAME "=" expr -> define
     | expr
?expr: and_expr (_OR and_expr)+ -> or_
     | and_expr
?and_expr: not_expr (_AND not_expr)+ -> and_
     | not_expr
?not_expr: _NOT not_expr -> not_
     | compare
?compare: sum COMP sum
     | sum
?sum: sum ADDOP atom -> arith
     | atom
?atom: INT -> number
     | TRUE -> true
     | FALSE -> false
     | NAME "(" [arg ("," arg)*] ")" -> call
     | NAME -> name
     | "(" expr ")"
arg: ARGWORD+
ARGWORD: /[^\s,()]+/
COMP: "<=" | ">=" | "==" | "!=" | "<" | ">"
ADDOP: "+" | "-"
_OR.2: /or\b/i
_AND.2: /and\b/i
_NOT.2: /not\b/i
TRUE.2: /true\b/i
FALSE.2: /false\b/i
NAME: /[A-Za-z_][A-Za-z0-9_]*/
INT: /[0-9]+/
%ignore /[ \t]+/
"""

#: how lark's terminal names read in an error message
_TERMINAL_WORDS = {
    "NAME": "a function or a name", "INT": "a number", "COMP": "a comparison (< <= == != >= >)",
    "ADDOP": "'+' or '-'", "_OR": "'or'", "_AND": "'and'", "_NOT": "'not'", "TRUE": "'true'",
    "FALSE": "'false'", "LPAR": "'('", "RPAR": "')'", "COMMA": "','", "EQUAL": "'='",
    "ARGWORD": "an argument (a seat, suit, cards or shape)", "$END": "the end",
}


# ----------------------------------------------------------------------------- the tree
@dataclass(frozen=True)
class Node:
    """One node of a parsed predicate.

    - ``kind``: ``"const"`` (``value`` an int or a bool), ``"func"`` (``name``, ``seats`` a
      tuple of seats 0..3, ``suit`` 0..3 or None, ``cards`` a 32-bit mask, ``shapes`` a
      frozenset of (S, H, D, C) lengths), ``"compare"`` (``op``, ``args`` two numbers),
      ``"arith"`` (two or more numbers ``args``, ``op`` the signs between them, one ``+`` or
      ``-`` for each after the first: ``a + b - c`` is ``op="+-"``), ``"not"``, ``"and"``,
      ``"or"`` (two or more conditions).  A flat chain is one node: an ``and`` holds no
      ``and`` it could take the arguments of, an ``arith`` no ``arith`` as its first number.
    - ``type``: ``"int"`` or ``"bool"``; ``column``: where the node starts (1-based).
    - ``text``: for a shape, the pattern as written (canonical spacing).
    """

    kind: str
    type: str
    value: object = None
    name: str = ""
    op: str = ""
    args: tuple = ()
    seats: tuple = ()
    suit: int | None = None
    cards: int = 0
    shapes: frozenset = frozenset()
    text: str = ""
    column: int = 0

    def __str__(self) -> str:
        return canonical(self)


def canonical(node: Node) -> str:
    """The canonical text of ``node``: one space around operators, parentheses where needed,
    seats, suits and cards upper case; it parses back to the same tree."""
    k = node.kind
    if k == "const":
        return ("true" if node.value else "false") if node.type == "bool" else str(node.value)
    if k == "func":
        words = ["".join(SEATS[s] for s in node.seats)]
        kinds = FUNCTIONS[node.name][0]
        if "suit" in kinds or ("suit?" in kinds and node.suit is not None):
            words.append(SUITS[node.suit])
        if "cards" in kinds:
            words.append(" ".join(card_str(c) for c in _cards(node.cards)))
        if "shape" in kinds:
            words.append(node.text)
        return f"{node.name}({', '.join(words)})"
    if k == "not":
        inner = node.args[0]
        return "not " + (f"({canonical(inner)})" if inner.kind in ("and", "or") else
                         canonical(inner))
    if k in ("and", "or"):
        parts = []
        for a in node.args:
            t = canonical(a)
            parts.append(f"({t})" if a.kind == "or" and k == "and" else t)
        return f" {k} ".join(parts)
    if k == "arith":
        parts = [canonical(node.args[0])]
        for sign, a in zip(node.op, node.args[1:]):
            t = canonical(a)
            parts.append(f"{sign} ({t})" if a.kind == "arith" else f"{sign} {t}")
        return " ".join(parts)
    left, right = node.args
    return f"{canonical(left)} {node.op} {canonical(right)}"


def _cards(mask: int) -> list[int]:
    return [c for c in range(32) if mask >> c & 1]


def const(value, column: int = 0) -> Node:
    return Node("const", "bool" if isinstance(value, bool) else "int", value=value,
                column=column)


# ----------------------------------------------------------------------------- functions
#: argument kinds: "seat" (one seat), "holder" (a seat or a team NS/EW), "suit", "cards",
#: "shape"; an argument kind ending in "?" may be left out
FUNCTIONS = {
    **{name: (("holder",), "int") for name in ("spades", "hearts", "diamonds", "clubs")},
    **{name: (("holder",), "int") for name in ("aces", "kings", "queens", "jacks", "tens",
                                                "nines", "eights", "sevens")},
    "length": (("holder", "suit"), "int"),
    "trumps": (("holder", "suit"), "int"),
    "has": (("holder", "cards"), "bool"),
    "count": (("holder", "cards"), "int"),
    "points": (("holder", "suit"), "int"),
    "roem": (("holder", "suit"), "int"),
    "longest": (("seat",), "int"),
    "shortest": (("seat",), "int"),
    "void": (("seat", "suit?"), "bool"),
    "shape": (("seat", "shape"), "bool"),
}
#: the suit each suit-length function counts
SUIT_FUNCTIONS = {"spades": 0, "hearts": 1, "diamonds": 2, "clubs": 3}
#: the natural rank (0..7 = 7 8 9 T J Q K A) each rank-count function counts
RANK_FUNCTIONS = {"sevens": 0, "eights": 1, "nines": 2, "tens": 3, "jacks": 4, "queens": 5,
                  "kings": 6, "aces": 7}
_ARG_WORDS = {"seat": "a seat N, E, S or W", "holder": "a seat N, E, S, W or a team NS, EW",
              "suit": "a suit S, H, D or C", "cards": "one or more cards like HJ H9",
              "shape": "a shape like 4-2-1-1 or any 5xxx + any 4xxx"}
TEAMS = {"NS": (0, 2), "SN": (0, 2), "EW": (1, 3), "WE": (1, 3)}


def _signature(name: str) -> str:
    kinds, _ = FUNCTIONS[name]
    return f"{name}({', '.join(k.rstrip('?').replace('holder', 'seat') for k in kinds)})"


def _holder(text: str, column: int, team_ok: bool) -> tuple:
    t = ascii_upper(text)
    if len(t) == 1 and t in SEATS:
        return (SEATS.index(t),)
    if team_ok and t in TEAMS:
        return TEAMS[t]
    if t in TEAMS:
        raise PredicateError("expected one seat N, E, S or W here (a team does not fit this "
                             "function)", column=column, token=text)
    raise PredicateError(f"expected {_ARG_WORDS['holder' if team_ok else 'seat']}",
                         column=column, token=text)


def _suit(text: str, column: int) -> int:
    t = ascii_upper(text)
    if len(t) == 1 and t in SUITS:
        return SUITS.index(t)
    raise PredicateError("expected a suit S, H, D or C", column=column, token=text)


def _card_list(words, column: int) -> int:
    mask = card_words(words, PredicateError)
    if not mask:
        raise PredicateError("expected one or more cards like HJ H9", column=column)
    return mask


# ----------------------------------------------------------------------------- shapes
@functools.lru_cache(maxsize=1)
def all_shapes() -> tuple:
    """Every shape an 8-card hand can have: (S, H, D, C) lengths 0..8 adding up to 8 (165)."""
    return tuple(s for s in itertools.product(range(9), repeat=4) if sum(s) == 8)


def _shape_term(word: str, any_order: bool, column: int) -> set:
    body = word.replace("-", "") if "-" in word else word
    if "-" in word and len(word.split("-")) != 4:
        raise PredicateError("a shape has four lengths, S-H-D-C, like 4-2-1-1", column=column,
                             token=word)
    body = ascii_lower(body)
    if len(body) != 4 or any(ch not in "012345678x" for ch in body):
        raise PredicateError("a shape is four lengths 0-8 or x (any), S-H-D-C: 4-2-1-1, 4211 "
                             "or 5xxx", column=column, token=word)
    fixed = [int(ch) for ch in body if ch != "x"]
    if sum(fixed) > 8 or ("x" not in body and sum(fixed) != 8):
        raise PredicateError(f"the lengths of a hand add up to 8; {word} adds up to "
                             f"{sum(fixed)}", column=column, token=word)
    patterns = set(itertools.permutations(body)) if any_order else {tuple(body)}
    return {s for s in all_shapes() for p in patterns
            if all(ch == "x" or int(ch) == n for ch, n in zip(p, s))}


def parse_shape(words, column: int) -> tuple[frozenset, str]:
    """``[(word, column), ...]`` of a shape pattern -> (the set of (S, H, D, C) lengths it
    names, its canonical text).  Raises PredicateError."""
    shapes, sign, any_order = set(), "+", False
    text, expecting_term = [], True
    for w, col in words:
        lw = ascii_lower(w)
        if expecting_term and lw == "any" and not any_order:
            any_order = True
            continue
        if expecting_term:
            term = _shape_term(w, any_order, col)
            shapes = shapes | term if sign == "+" else shapes - term
            text.append(("any " if any_order else "") + lw)
            any_order, expecting_term = False, False
            continue
        if w not in ("+", "-"):
            raise PredicateError("expected + or - between the terms of a shape", column=col,
                                 token=w)
        sign, expecting_term = w, True
        text.append(w)
    if expecting_term:
        raise PredicateError("a shape ends with a pattern like 4-2-1-1 or 5xxx",
                             column=words[-1][1] if words else column)
    return frozenset(shapes), " ".join(text)


# ----------------------------------------------------------------------------- parsing
@functools.lru_cache(maxsize=1)
def _parser():
    from lark import Lark
    return Lark(GRAMMAR, parser="lalr", propagate_positions=True, maybe_placeholders=False)


def _expected(names) -> str:
    words = sorted({_TERMINAL_WORDS.get(n, n.lower()) for n in names})
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


def _syntax_error(err, text: str, line: int | None, source) -> PredicateError:
    from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedToken
    if isinstance(err, UnexpectedEOF) or (isinstance(err, UnexpectedToken)
                                          and err.token.type == "$END"):
        exp = getattr(err, "expected", None) or getattr(err, "accepts", None) or []
        return PredicateError(f"the condition ends too soon: expected {_expected(exp)}",
                              source=source, line=line, column=len(text.rstrip()) + 1)
    if isinstance(err, UnexpectedToken):
        tok = err.token
        return PredicateError(f"expected {_expected(err.accepts or err.expected)}",
                              source=source, line=line, column=tok.column, token=str(tok))
    if isinstance(err, UnexpectedCharacters):
        ch = text[err.pos_in_stream] if err.pos_in_stream < len(text) else ""
        allowed = err.allowed or ()
        return PredicateError(f"unexpected character: expected {_expected(allowed)}",
                              source=source, line=line, column=err.column, token=ch)
    return PredicateError(f"cannot read the condition: {err}", source=source, line=line)


class _Builder:
    """Lark tree -> checked :class:`Node` (names replaced by their definitions), built without
    recursion, bottom up.  A flat chain is made one node (``and`` in ``and``, ``or`` in ``or``,
    an ``arith`` as the first number of an ``arith``: the tree that its canonical text parses
    to).  ``measures``: ``id(node) -> (node, length, depth)`` of the nodes made so far (kept
    from line to line of a file: a definition is measured once, however often it is used);
    a node whose canonical text is longer than :data:`MAX_CONDITION_CHARS` is refused before
    it is made (its length worked out from its parts'), and so before any larger one."""

    def __init__(self, definitions: dict, measures: dict | None = None):
        self.definitions = definitions
        self.measures = {} if measures is None else measures
        self.expanded = False          # a definition was written out in this line

    def build(self, tree) -> Node:
        from lark import Tree
        made: dict = {}
        stack = [(tree, False)]
        while stack:
            t, ready = stack.pop()
            if not isinstance(t, Tree):
                raise PredicateError("unexpected word", column=t.column, token=str(t))
            subs = _subtrees(t)
            if not ready:
                stack.append((t, True))
                stack.extend((c, False) for c in reversed(subs))
                continue
            made[id(t)] = self._make(t, [made.pop(id(c)) for c in subs])
        return made[id(tree)]

    def _make(self, tree, kids: list) -> Node:
        rule = tree.data
        col = tree.meta.column if not tree.meta.empty else 0
        ch = tree.children
        if rule == "number":
            if len(ch[0]) > 6:
                raise PredicateError("numbers in a condition are at most 999999",
                                     column=ch[0].column, token=str(ch[0]))
            return self._measured(const(int(ch[0]), col))
        if rule in ("true", "false"):
            return self._measured(const(rule == "true", col))
        if rule == "name":
            return self._name(ch[0])
        if rule == "call":
            return self._measured(self._call(ch[0], ch[1:], col))
        if rule == "not_":
            arg = self._typed(kids[0], "bool", "not")
            return self._node("not", "", [arg], col,
                              lambda: Node("not", "bool", args=(arg,), column=col))
        if rule in ("and_", "or_"):
            word = rule.rstrip("_")
            args = [self._typed(k, "bool", word) for k in kids]
            flat = [a.kind == word for a in args]
            return self._node(word, "", args, col, lambda: Node(
                word, "bool", args=tuple(x for a, f in zip(args, flat)
                                         for x in (a.args if f else (a,))), column=col),
                flat=flat)
        if rule == "compare":
            op = str(ch[1])
            left, right = (self._typed(k, "int", op) for k in kids)
            return self._node("compare", op, [left, right], col, lambda: Node(
                "compare", "bool", op=op, args=(left, right), column=col))
        if rule == "arith":
            signs = _arith_chain(tree)[1]
            parts = [self._typed(k, "int", sign) for k, sign in zip(kids, signs[:1] + signs)]
            first = parts[0]
            if first.kind == "arith":       # a definition that is a chain: one chain
                return self._node("arith", signs, parts, col, lambda: Node(
                    "arith", "int", op=first.op + signs, args=first.args + tuple(parts[1:]),
                    column=col), flat=[True] + [False] * (len(parts) - 1))
            return self._node("arith", signs, parts, col, lambda: Node(
                "arith", "int", op=signs, args=tuple(parts), column=col))
        raise PredicateError(f"cannot read this part of the condition ({rule})", column=col)

    def _measured(self, node: Node) -> Node:
        """A leaf (a constant or a function): its text is its own, a bounded part of a line."""
        self.measures[id(node)] = (node, len(canonical(node)), 1)
        return node

    def _node(self, kind: str, op: str, parts: list, col: int, make, flat=None) -> Node:
        """``make()``, a node of ``kind`` over ``parts`` (``flat``: which of them it takes the
        arguments of), once its text is known to be within the bound."""
        flat = flat or [False] * len(parts)
        length = _text_length(kind, op, parts, flat, self.measures)
        if length > MAX_CONDITION_CHARS:
            how = (" once its definitions are written out (definitions used inside one "
                   "another multiply)" if self.expanded else " written out")
            raise PredicateError(f"the condition is longer than {MAX_CONDITION_CHARS:,} "
                                 f"characters{how}", column=col or None)
        depth = 1 + max(measure(p, self.measures)[1] - f for p, f in zip(parts, flat))
        node = make()
        self.measures[id(node)] = (node, length, depth)
        return node

    def _typed(self, node: Node, want: str, where: str) -> Node:
        if node.type != want:
            what = "a number" if want == "int" else "a condition (true or false)"
            got = "a number" if node.type == "int" else "a condition"
            hint = " (compare it: hearts(S) >= 4)" if want == "bool" else ""
            raise PredicateError(f"{where} takes {what}; this is {got}{hint}",
                                 column=node.column or None, token=canonical(node))
        return node

    def _name(self, tok) -> Node:
        name = str(tok)
        if name in self.definitions:
            self.expanded = True
            node = self.definitions[name]
            measure(node, self.measures)
            return node
        if ascii_lower(name) in FUNCTIONS:
            raise PredicateError(f"{ascii_lower(name)} is a function: write "
                                 f"{_signature(ascii_lower(name))}", column=tok.column,
                                 token=name)
        known = list(self.definitions)
        close = difflib.get_close_matches(name, known + list(FUNCTIONS), n=1)
        hint = f"; did you mean {close[0]}?" if close else ""
        defined = f" (defined: {', '.join(known)})" if known else ""
        raise PredicateError(f"unknown name {name!r}{hint}{defined}", column=tok.column,
                             token=name)

    def _call(self, tok, arg_trees, col) -> Node:
        name = ascii_lower(str(tok))
        if name not in FUNCTIONS:
            close = difflib.get_close_matches(name, list(FUNCTIONS), n=1)
            hint = f"did you mean {close[0]}? " if close else ""
            raise PredicateError(f"unknown function {str(tok)!r}: {hint}(functions: "
                                 f"{', '.join(sorted(FUNCTIONS))})", column=tok.column,
                                 token=str(tok))
        kinds, rtype = FUNCTIONS[name]
        args = [[(str(w), w.column) for w in t.children] for t in arg_trees]
        need = sum(1 for k in kinds if not k.endswith("?"))
        if not need <= len(args) <= len(kinds):
            n = f"{need}" if need == len(kinds) else f"{need} or {len(kinds)}"
            raise PredicateError(f"{name} takes {n} argument{'s' if len(kinds) > 1 else ''}: "
                                 f"{_signature(name)}; {len(args)} given (a comma "
                                 "separates them)", column=tok.column, token=str(tok))
        fields = {"seats": (), "suit": None, "cards": 0, "shapes": frozenset(), "text": ""}
        for kind, words in zip(kinds, args):
            kind = kind.rstrip("?")
            wcol = words[0][1]
            if kind in ("seat", "holder", "suit") and len(words) != 1:
                raise PredicateError(f"expected {_ARG_WORDS[kind]} (one word)",
                                     column=words[1][1], token=words[1][0])
            if kind in ("seat", "holder"):
                fields["seats"] = _holder(words[0][0], wcol, kind == "holder")
            elif kind == "suit":
                fields["suit"] = _suit(words[0][0], wcol)
            elif kind == "cards":
                fields["cards"] = _card_list(words, wcol)
            else:
                fields["shapes"], fields["text"] = parse_shape(words, wcol)
        if name in SUIT_FUNCTIONS:
            fields["suit"] = SUIT_FUNCTIONS[name]
        return Node("func", rtype, name=name, column=col, **fields)


def parse_predicate(text: str, *, definitions: dict | None = None, line: int | None = None,
                    source: str | None = None, max_chars: int = MAX_PREDICATE_CHARS) -> Node:
    """Parse one condition ``text`` -> its checked :class:`Node` (type ``bool``).
    ``definitions``: name -> Node, from :func:`parse_program`; ``max_chars``: the longest
    text read (a canonical text recorded by a batch may be up to :data:`MAX_CONDITION_CHARS`).
    Raises PredicateError (the column, 1-based, and what was expected)."""
    node = _parse_line(text, definitions or {}, line, source, max_chars=max_chars)
    if isinstance(node, tuple):
        raise PredicateError("a definition (NAME = ...) belongs in a file of definitions "
                             "(--where @FILE); write the condition itself here",
                             source=source, line=line, column=1, token=node[0])
    return node


def _parse_line(text: str, definitions: dict, line, source, measures: dict | None = None,
                max_chars: int = MAX_PREDICATE_CHARS):
    from lark.exceptions import LarkError
    if not isinstance(text, str):
        raise PredicateError("a condition is text, like 'hearts(S) >= 4'", token=repr(text))
    if len(text) > max_chars:
        raise PredicateError(f"the condition is longer than {max_chars:,} characters",
                             source=source, line=line, column=max_chars + 1)
    if not text.strip():
        raise PredicateError("the condition is empty: expected a condition like "
                             "'hearts(S) >= 4'", source=source, line=line, column=1)
    bad = next((i for i, ch in enumerate(text) if ch in "\n\r\x00"), None)
    if bad is not None and text[bad] == "\x00":
        raise PredicateError("unexpected character: a NUL byte (the condition is text)",
                             source=source, line=line, column=bad + 1)
    if bad is not None:
        where = ("unexpected character: a carriage return alone (lines end with \\n or "
                 "\\r\\n)" if line is not None else
                 "a condition is one line (write definitions in a file: --where @FILE)")
        raise PredicateError(where, source=source, line=line, column=bad + 1)
    try:
        tree = _parser().parse(text)
    except LarkError as err:
        raise _syntax_error(err, text, line, source) from None
    measures = {} if measures is None else measures
    try:
        _check_depth(tree, definitions, measures, line, source)
        builder = _Builder(definitions, measures)
        if tree.data == "define":
            name = str(tree.children[0])
            return name, builder.build(tree.children[1])
        node = builder._typed(builder.build(tree), "bool", "the condition")
    except PredicateError as err:
        raise err.located(source=source, line=line) from None
    return node


def _subtrees(tree) -> list:
    """The parts of a lark tree that are built into nodes of their own."""
    rule = tree.data
    if rule in ("not_", "and_", "or_"):
        return list(tree.children)
    if rule == "compare":
        return [tree.children[0], tree.children[2]]
    if rule == "arith":
        return _arith_chain(tree)[0]
    return []


def _arith_chain(tree) -> tuple[list, str]:
    """A chain ``a + b - c`` (lark: ``arith(arith(a, +, b), -, c)``) -> ``([a, b, c], "+-")``,
    without recursion."""
    rights, signs = [], []
    while tree.data == "arith":
        rights.append(tree.children[2])
        signs.append(str(tree.children[1]))
        tree = tree.children[0]
    return [tree] + rights[::-1], "".join(reversed(signs))


def _text_length(kind: str, op: str, parts: list, flat: list, measures: dict) -> int:
    """The length of :func:`canonical` of a ``kind`` node over ``parts`` (``flat``: the parts
    whose arguments it takes), from the lengths of the parts (:func:`measure`), without
    writing it."""
    lengths = [measure(p, measures)[0] for p in parts]
    if kind == "not":
        return 4 + lengths[0] + (2 if parts[0].kind in ("and", "or") else 0)
    if kind in ("and", "or"):
        sep = len(f" {kind} ")
        return sum(n + (2 if p.kind == "or" and kind == "and" and not f else 0)
                   for p, n, f in zip(parts, lengths, flat)) + sep * (len(parts) - 1)
    if kind == "compare":
        return lengths[0] + len(op) + 2 + lengths[1]
    return lengths[0] + sum(3 + n + (2 if p.kind == "arith" else 0)
                            for p, n in zip(parts[1:], lengths[1:]))


def measure(node: Node, measures: dict | None = None) -> tuple[int, int]:
    """``(length, depth)`` of ``node``: the length of its canonical text (:func:`canonical`,
    definitions written out) and its levels.  Worked out once per node object, without
    recursion and without writing the text, however often the node is used (a definition used
    twice is one object: linear time in the objects, not in the text written out).
    ``measures``: ``id(node) -> (node, length, depth)``, read and filled."""
    measures = {} if measures is None else measures
    stack = [(node, False)]
    while stack:
        n, ready = stack.pop()
        if id(n) in measures:
            continue
        if not n.args:
            measures[id(n)] = (n, len(canonical(n)), 1)
            continue
        if not ready:
            stack.append((n, True))
            stack.extend((a, False) for a in n.args if id(a) not in measures)
            continue
        parts = list(n.args)
        measures[id(n)] = (n, _text_length(n.kind, n.op, parts, [False] * len(parts),
                                           measures),
                           1 + max(measures[id(a)][2] for a in parts))
    return measures[id(node)][1:]


def _merges(parent, index: int, kind: str) -> bool:
    """Whether a part of kind ``kind`` (a lark rule or a node kind) at ``index`` of lark tree
    ``parent`` is taken into it as one flat chain (no level of its own)."""
    rule = parent.data
    if rule in ("and_", "or_"):
        return kind.rstrip("_") == rule.rstrip("_")
    return rule == "arith" and index == 0 and kind == "arith"


def _check_depth(tree, definitions: dict, measures: dict, line, source) -> None:
    """Refuse a condition deeper than :data:`MAX_DEPTH` levels once its definitions are
    written out (walked top down without recursion, before any node is made: the column is
    the first part past the bound).  A level is a ``not``, a comparison, an operator chain
    inside another operator; a flat chain (the one node :class:`_Builder` makes of it) and
    parentheses by themselves add none."""
    from lark import Tree
    if tree.data == "define":
        tree = tree.children[1]
    stack = [(tree, 1)]
    while stack:
        t, depth = stack.pop()
        if not isinstance(t, Tree):
            continue
        col = t.meta.column if not t.meta.empty else None
        if depth > MAX_DEPTH:
            raise PredicateError(f"the condition nests more than {MAX_DEPTH} deep "
                                 f"({_DEPTH_WORDS}): write it flatter", source=source,
                                 line=line, column=col)
        for i, c in enumerate(_subtrees(t)):
            if not isinstance(c, Tree):
                continue
            if c.data == "name" and str(c.children[0]) in definitions:
                name = str(c.children[0])
                d = definitions[name]
                merged = _merges(t, i, d.kind)
                deepest = depth + (0 if merged else 1) + measure(d, measures)[1] - 1
                if deepest > MAX_DEPTH:
                    raise PredicateError(
                        f"the condition nests more than {MAX_DEPTH} deep with the "
                        f"definitions it uses ({name} is {measure(d, measures)[1]} deep; "
                        f"{_DEPTH_WORDS}): write it flatter", source=source, line=line,
                        column=c.children[0].column, token=name)
                continue
            stack.append((c, depth if _merges(t, i, c.data) else depth + 1))
    if tree.data == "name" and str(tree.children[0]) in definitions:
        name = str(tree.children[0])
        if measure(definitions[name], measures)[1] > MAX_DEPTH:
            raise PredicateError(f"{name} nests more than {MAX_DEPTH} deep "
                                 f"({_DEPTH_WORDS}): write it flatter", source=source,
                                 line=line, column=tree.children[0].column, token=name)


def parse_program(text: str, source: str | None = None) -> Node:
    """A file of definitions and one condition -> the condition's :class:`Node`.

    One item a line: ``NAME = EXPR`` defines NAME (a number or a condition) for the lines
    after it; the one line that is not a definition is the condition.  ``#`` starts a comment;
    blank lines are skipped.  Raises PredicateError (``source``, line, column)."""
    definitions: dict = {}
    measures: dict = {}                # each node measured once, however often it is used
    condition = None
    # lines end at \n (or \r\n) only: str.splitlines also breaks at form feeds, \x1c-\x1e,
    # NEL and U+2028, which shifted every position after them; here they are characters
    # that the line's parse refuses
    lines = text.replace("\r\n", "\n").split("\n")
    for lineno, raw in enumerate(lines, start=1):
        body = raw.split("#", 1)[0]
        if not body.strip():
            continue
        item = _parse_line(body, definitions, lineno, source, measures)
        if isinstance(item, tuple):
            name, node = item
            if ascii_lower(name) in ("and", "or", "not", "true", "false"):
                raise PredicateError(f"{name} is a word of the language; choose another name",
                                     source=source, line=lineno, column=1, token=name)
            if ascii_lower(name) in FUNCTIONS:
                raise PredicateError(f"{name} is the name of a function; choose another name",
                                     source=source, line=lineno, column=1, token=name)
            if name in definitions:
                raise PredicateError(f"{name} is defined twice", source=source, line=lineno,
                                     column=1, token=name)
            if len(definitions) >= MAX_DEFINITIONS:
                raise PredicateError(f"more than {MAX_DEFINITIONS} definitions",
                                     source=source, line=lineno)
            definitions[name] = node
        elif condition is not None:
            raise PredicateError("a second condition: the file holds definitions (NAME = ...) "
                                 f"and one condition (the first is on line {condition[1]})",
                                 source=source, line=lineno, column=1)
        else:
            condition = (item, lineno)
    if condition is None:
        if not definitions:
            raise PredicateError("the file holds no condition", source=source)
        raise PredicateError("the file holds definitions but no condition: add a line "
                             f"naming what to deal, like '{next(iter(definitions))}'",
                             source=source)
    return condition[0]


def walk(node: Node):
    """``node`` and every node under it, parents first."""
    yield node
    for a in node.args:
        yield from walk(a)
