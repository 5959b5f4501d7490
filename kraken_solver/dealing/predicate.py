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

Errors are :class:`~kraken_solver.errors.PredicateError` with the 1-based column (and line,
for a file) and what was expected.
"""

from __future__ import annotations

import difflib
import functools
import itertools
from dataclasses import dataclass

from ..errors import PredicateError
from ..game.cards import SEATS, SUITS, ascii_lower, ascii_upper, card_str
from .predeal import card_words

#: the longest predicate text read (a condition of a few lines is a few hundred characters)
MAX_PREDICATE_CHARS = 20_000
#: the most definitions a file may make
MAX_DEFINITIONS = 200
#: the deepest a condition may nest (``not not ...``, ``a + b + ...``: each a level)
MAX_DEPTH = 100

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
      ``"arith"`` (``op`` ``+``/``-``, two numbers), ``"not"``, ``"and"``, ``"or"``.
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
    left, right = node.args
    rt = canonical(right)
    if k == "arith" and right.kind == "arith":
        rt = f"({rt})"
    return f"{canonical(left)} {node.op} {rt}"


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
    """Lark tree -> checked :class:`Node` (names replaced by their definitions)."""

    def __init__(self, definitions: dict):
        self.definitions = definitions

    def build(self, tree) -> Node:
        from lark import Token
        if isinstance(tree, Token):
            raise PredicateError("unexpected word", column=tree.column, token=str(tree))
        rule = tree.data
        col = tree.meta.column if not tree.meta.empty else 0
        ch = tree.children
        if rule == "number":
            if len(ch[0]) > 6:
                raise PredicateError("numbers in a condition are at most 999999",
                                     column=ch[0].column, token=str(ch[0]))
            return const(int(ch[0]), col)
        if rule in ("true", "false"):
            return const(rule == "true", col)
        if rule == "name":
            return self._name(ch[0])
        if rule == "call":
            return self._call(ch[0], ch[1:], col)
        if rule == "not_":
            arg = self._typed(ch[0], "bool", "not")
            return Node("not", "bool", args=(arg,), column=col)
        if rule in ("and_", "or_"):
            word = rule.rstrip("_")
            args = tuple(self._typed(c, "bool", word) for c in ch)
            return Node(word, "bool", args=args, column=col)
        if rule == "compare":
            left = self._typed(ch[0], "int", str(ch[1]))
            right = self._typed(ch[2], "int", str(ch[1]))
            return Node("compare", "bool", op=str(ch[1]), args=(left, right), column=col)
        if rule == "arith":
            left = self._typed(ch[0], "int", str(ch[1]))
            right = self._typed(ch[2], "int", str(ch[1]))
            return Node("arith", "int", op=str(ch[1]), args=(left, right), column=col)
        raise PredicateError(f"cannot read this part of the condition ({rule})", column=col)

    def _typed(self, tree, want: str, where: str) -> Node:
        node = self.build(tree)
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
            return self.definitions[name]
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
                    source: str | None = None) -> Node:
    """Parse one condition ``text`` -> its checked :class:`Node` (type ``bool``).
    ``definitions``: name -> Node, from :func:`parse_program`.  Raises PredicateError (the
    column, 1-based, and what was expected)."""
    node = _parse_line(text, definitions or {}, line, source)
    if isinstance(node, tuple):
        raise PredicateError("a definition (NAME = ...) belongs in a file of definitions "
                             "(--where @FILE); write the condition itself here",
                             source=source, line=line, column=1, token=node[0])
    return node


def _parse_line(text: str, definitions: dict, line, source):
    from lark.exceptions import LarkError
    if not isinstance(text, str):
        raise PredicateError("a condition is text, like 'hearts(S) >= 4'", token=repr(text))
    if len(text) > MAX_PREDICATE_CHARS:
        raise PredicateError(f"the condition is longer than {MAX_PREDICATE_CHARS:,} "
                             "characters", source=source, line=line)
    if not text.strip():
        raise PredicateError("the condition is empty: expected a condition like "
                             "'hearts(S) >= 4'", source=source, line=line, column=1)
    bad = next((i for i, ch in enumerate(text) if ch in "\n\r\x00"), None)
    if bad is not None:
        raise PredicateError("a condition is one line (write definitions in a file: "
                             "--where @FILE)", source=source, line=line, column=bad + 1)
    try:
        tree = _parser().parse(text)
    except LarkError as err:
        raise _syntax_error(err, text, line, source) from None
    _check_depth(tree, line, source)
    builder = _Builder(definitions)
    try:
        if tree.data == "define":
            name = str(tree.children[0])
            return name, builder.build(tree.children[1])
        node = builder._typed(tree, "bool", "the condition")
    except PredicateError as err:
        raise err.located(source=source, line=line) from None
    return node


def _check_depth(tree, line, source) -> None:
    """Refuse a tree deeper than :data:`MAX_DEPTH` (walked without recursion): every step
    after the parse walks it recursively."""
    from lark import Tree
    stack = [(tree, 1)]
    while stack:
        t, depth = stack.pop()
        if depth > MAX_DEPTH:
            col = t.meta.column if not t.meta.empty else None
            raise PredicateError(f"the condition nests more than {MAX_DEPTH} deep (not, "
                                 "parentheses, + and -): write it flatter", source=source,
                                 line=line, column=col)
        stack.extend((c, depth + 1) for c in t.children if isinstance(c, Tree))


def _node_depth(node: Node) -> int:
    depth, stack = 0, [(node, 1)]
    while stack:
        n, d = stack.pop()
        depth = max(depth, d)
        stack.extend((a, d + 1) for a in n.args)
    return depth


def parse_program(text: str, source: str | None = None) -> Node:
    """A file of definitions and one condition -> the condition's :class:`Node`.

    One item a line: ``NAME = EXPR`` defines NAME (a number or a condition) for the lines
    after it; the one line that is not a definition is the condition.  ``#`` starts a comment;
    blank lines are skipped.  Raises PredicateError (``source``, line, column)."""
    definitions: dict = {}
    condition = None
    for lineno, raw in enumerate(text.splitlines(), start=1):
        body = raw.split("#", 1)[0]
        if not body.strip():
            continue
        item = _parse_line(body, definitions, lineno, source)
        if isinstance(item, tuple):
            name, node = item
            if ascii_lower(name) in FUNCTIONS or ascii_lower(name) in ("and", "or", "not"):
                raise PredicateError(f"{name} is the name of a function; choose another name",
                                     source=source, line=lineno, column=1, token=name)
            if name in definitions:
                raise PredicateError(f"{name} is defined twice", source=source, line=lineno,
                                     column=1, token=name)
            if len(definitions) >= MAX_DEFINITIONS:
                raise PredicateError(f"more than {MAX_DEFINITIONS} definitions",
                                     source=source, line=lineno)
            if _node_depth(node) > MAX_DEPTH:
                raise PredicateError(f"{name} nests more than {MAX_DEPTH} deep with the "
                                     "definitions it uses: write it flatter", source=source,
                                     line=lineno, column=1, token=name)
            definitions[name] = node
        elif _node_depth(item) > MAX_DEPTH:
            raise PredicateError(f"the condition nests more than {MAX_DEPTH} deep with the "
                                 "definitions it uses: write it flatter", source=source,
                                 line=lineno, column=1)
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
