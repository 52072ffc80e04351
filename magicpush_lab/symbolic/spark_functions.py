"""Spark built-in functions whose value the model computes exactly, in the same Z3 terms the
Python UDF interpreter uses for the same computation.

A predicate read back from a UDF body (search/formula.py) names Spark functions for what the
body computed: `d.weekday()` is `weekday(d)`, `s[:3]` is `substring(s, 1, 3)`, `re.match(p, s)`
is `rlike(s, '^(?:...)')`. For the verifier to prove such a predicate, Spark's function must be
encoded as exactly what the body computed; these are (for the argument forms listed, in which
Spark and Python agree; other forms stay uninterpreted):

- `year`, `month`, `dayofmonth`, `weekday`, `dayofweek` of a date: the calendar fields
  (calendar.py);
- `substring(s, pos, len)` with literals `pos >= 1`, `len >= 0`; `concat` of strings;
  `replace(s, search, rep)` with a non-empty literal search; `instr(s, t)`;
- `rlike(s, pattern)` with a pattern pyregex.py writes;
- `size(split(s, pattern, -1))` with a pattern that matches one non-empty text literally:
  the count of pieces Python's `len(s.split(sep))` gives (`size_of_split`);
- `regexp_extract(s, pattern, i)` with a pattern `pyregex.extract_pattern` wrote from a Python
  pattern: the group's text where the match succeeds, the term `re.match(p, s)[i]` has;
- `regexp_extract(s, pattern, i)` of constants (an unpivot's column names, a literal): computed,
  when the text is printable ASCII and the pattern in a subset Java and Python read alike on it
  (`constant_extract`).

>>> import z3
>>> from magicpush_lab.symbolic.values import Cell
>>> s = Cell(z3.String("s"), z3.BoolVal(True))
>>> cell = encode("substring", (s, Cell(z3.IntVal(2), z3.BoolVal(True)), Cell(z3.IntVal(3), z3.BoolVal(True))),
...               ("string", "int", "int"))
>>> z3.simplify(z3.substitute(cell.value, (z3.String("s"), z3.StringVal("abcdef"))))
"bcd"
"""

from __future__ import annotations

import re

import z3

from magicpush_lab.symbolic import calendar as C
from magicpush_lab.symbolic import pyregex
from magicpush_lab.symbolic.py_library import pieces_count, replace_all
from magicpush_lab.symbolic.values import Cell

T = z3.BoolVal(True)

_DATE_FIELDS = {"year": C.year, "month": C.month, "dayofmonth": C.day, "weekday": C.weekday}


def encode(name: str, args: tuple[Cell, ...], arg_types: tuple[str, ...]) -> Cell | None:
    """The exact value of Spark's `name(args)`, or None when it is not encoded here. NULL in
    gives NULL out for every function here, as in Spark."""
    notnull = z3.And(*[a.notnull for a in args]) if args else T
    if name in _DATE_FIELDS and arg_types == ("date",):
        return Cell(_DATE_FIELDS[name](args[0].value), notnull)
    if name == "dayofweek" and arg_types == ("date",):
        return Cell((C.weekday(args[0].value) + 1) % 7 + 1, notnull)  # Sunday 1 ... Saturday 7
    if name == "substring" and len(args) == 3 and arg_types[0] == "string":
        pos, size = (_literal_int(a) for a in args[1:])
        if pos is not None and size is not None and pos >= 1 and size >= 0:
            return Cell(z3.SubString(args[0].value, pos - 1, size), notnull)
        return None
    if name == "concat" and args and all(t == "string" for t in arg_types):
        value = z3.Concat(*[a.value for a in args]) if len(args) > 1 else args[0].value
        return Cell(value, notnull)
    if name == "replace" and len(args) == 3 and all(t == "string" for t in arg_types):
        search = z3.simplify(args[1].value)
        if z3.is_string_value(search) and search.as_string() and z3.is_true(z3.simplify(args[1].notnull)):
            return Cell(replace_all(args[0].value, args[1].value, args[2].value), notnull)
        return None
    if name == "instr" and arg_types == ("string", "string"):
        return Cell(z3.IndexOf(args[0].value, args[1].value, 0) + 1, notnull)
    if name == "regexp_extract" and len(args) == 3:
        subject, pattern, index = (_constant(a) for a in args)
        if isinstance(subject, str) and isinstance(pattern, str) and isinstance(index, int):
            value = constant_extract(subject, pattern, index)
            if value is not None:
                return Cell(z3.StringVal(value), T)
        if isinstance(pattern, str) and isinstance(index, int) and arg_types[0] == "string":
            return _extracted(args[0], pattern, index)
        return None
    if name == "rlike" and arg_types == ("string", "string"):
        pattern = z3.simplify(args[1].value)
        lang = pyregex.language(pattern.as_string()) if z3.is_string_value(pattern) else None
        if lang is None:
            return None
        return Cell(z3.InRe(args[0].value, lang), notnull)
    return None


def _literal_int(c: Cell) -> int | None:
    v = _constant(c)
    return v if isinstance(v, int) else None


def _constant(c: Cell) -> str | int | None:
    """A cell's value when it is a known, non-NULL string or integer."""
    if not z3.is_true(z3.simplify(c.notnull)):
        return None
    v = z3.simplify(c.value)
    if z3.is_string_value(v):
        return v.as_string()
    return v.as_long() if z3.is_int_value(v) else None


# what a pattern may hold to be folded: escapes of classes and of punctuation, no `(?` (flags,
# lookaround, named groups: Java spells them otherwise or not at all), no `&&` or `[[` (Java's
# class intersection and nesting), braces only as `{m}` or `{m,n}` (Python reads a stray brace
# as a literal where Java fails)
_ESCAPES = set("dDwWsS.-\\()[]{}|+*?^$/")
_BRACES = re.compile(r"\{\d+(,\d+)?\}")


def constant_extract(subject: str, pattern: str, index: int) -> str | None:
    """Spark's `regexp_extract(subject, pattern, index)` (Java's `Matcher.find`, "" when nothing
    matches or the group took no part), computed with Python's `re` where the two agree: a
    printable ASCII subject (so `\\d`, `\\w`, `\\s` and `.` mean the same) and a pattern in
    the plain subset above. None otherwise, or when Spark would raise (a group the pattern lacks).

    >>> constant_extract("W41", r"(\\d+)", 1), constant_extract("m1524", r"(\\D)(\\d+)(\\d{2})", 2)
    ('41', '15')
    >>> constant_extract("mu", r"(\\D)(\\d+)(\\d{2})", 0), constant_extract("W41", r"(?=W)(\\d+)", 1)
    ('', None)
    """
    if not all(" " <= ch <= "~" for ch in subject) or not _plain(pattern):
        return None
    try:
        compiled = re.compile(pattern, re.ASCII)
    except re.error:
        return None
    if not 0 <= index <= compiled.groups:
        return None  # Spark raises: the pattern has no such group
    found = compiled.search(subject)
    return "" if found is None else found.group(index) or ""


def _plain(pattern: str) -> bool:
    if "(?" in pattern or "&&" in pattern or "[[" in pattern or not all(" " <= ch <= "~" for ch in pattern):
        return False
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            if i + 1 >= len(pattern) or pattern[i + 1] not in _ESCAPES:
                return False
            i += 2
            continue
        if ch == "{":
            brace = _BRACES.match(pattern, i)
            if brace is None:
                return False
            i = brace.end()
            continue
        if ch == "}":
            return False
        i += 1
    return True


def _extracted(text: Cell, java: str, group: int) -> Cell | None:
    """`regexp_extract(text, java, group)` for a pattern pyregex.extract_pattern wrote from a
    Python pattern: the group's text where `re.<how>` matches (the term Python's `m[group]`
    has), "" where it does not; NULL on a NULL text."""
    made = pyregex.extracted_by(java)
    if made is None:
        return None
    how, pattern = made
    matched = pyregex.matches(how, pattern, text.value)
    if matched is None or not pyregex.group_always_present(pattern, group):
        return None
    return Cell(z3.If(matched, pyregex.group_value(how, pattern, group, text.value), z3.StringVal("")), text.notnull)


# characters a Java pattern reads as themselves wherever they stand outside a class
_LITERAL_IN_PATTERN = re.compile(r"[A-Za-z0-9 ,;:_\-/#@%&=~'\"<>!`\t]+")


def reads_itself(pattern: str) -> bool:
    """Whether a Java pattern `pattern` matches exactly the text `pattern`, and nothing else.

    >>> reads_itself(" "), reads_itself(", "), reads_itself("."), reads_itself("")
    (True, True, False, False)
    """
    return bool(_LITERAL_IN_PATTERN.fullmatch(pattern))


def size_of_split(text: Cell, pattern: object, limit: object) -> Cell | None:
    """Spark's `size(split(text, pattern, limit))` for a constant pattern made of characters
    that match themselves and a limit of -1 (`F.split`'s default): the count of pieces, the
    term Python's `len(text.split(pattern))` has; None for other forms. A NULL text gives NULL
    (ANSI) or -1 (the legacy `sizeOfNull`): left unknown, so no proof depends on which.

    >>> n = size_of_split(Cell(z3.String("t"), z3.Bool("nn")), " ", -1)
    >>> z3.eq(z3.simplify(z3.substitute(n.value, (z3.Bool("nn"), T))), pieces_count(z3.String("t"), " "))
    True
    >>> size_of_split(Cell(z3.String("t"), T), ".", -1) is None
    True
    """
    if not isinstance(pattern, str) or not reads_itself(pattern) or limit != -1:
        return None
    # one unknown for every NULL text: Spark gives it the same value wherever it is computed
    return Cell(z3.If(text.notnull, pieces_count(text.value, pattern), z3.Int("spark_size_of_null")),
                z3.Or(text.notnull, z3.Bool("spark_size_of_null_notnull")))
