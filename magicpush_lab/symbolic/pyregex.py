"""Regular expressions of a UDF body as Z3 regular languages, and as the Java pattern Spark's
`rlike` needs to test the same thing.

`re.match(p, s)`, `re.search(p, s)` and `re.fullmatch(p, s)` with a literal pattern are exact
when the pattern is in a subset whose meaning Python and Java agree on once written out: literal
characters, `.` (any character but a newline, written `[^\\n]` for Java, whose `.` also stops at
`\\r` and other line ends), character classes of literals and ranges, groups, alternation, the
repetitions `* + ? {m,n}` (greedy or lazy: only whether some match exists matters), `^` at the
start and `$` or `\\Z` at the end. Classes such as `\\d` or `\\w` (Unicode in Python, ASCII in
Java), flags, backreferences, lookaround and word boundaries are outside it: such a test is a
black box of the text.

Each test becomes "the whole string is in L" for a Z3 regular language L (search: anything, a
match, anything). `java_pattern(L)` is a Java pattern that Spark's `rlike` (which searches)
finds in a string exactly when the string is in L: `^(?:J)(?![\\s\\S])`, J written in the syntax
both engines read alike, so `language(java)` reads it back (search mode) to the same language.

>>> import z3
>>> s = z3.String("s")
>>> z3.simplify(z3.substitute(matches("match", "ab+", s), (s, z3.StringVal("abbx"))))
True
>>> java_pattern(language_for("fullmatch", "a.c"))
'^(?:a[^\\\\n]c)(?![\\\\s\\\\S])'
"""

from __future__ import annotations

from functools import lru_cache

import z3

from magicpush_lab.symbolic.values import MAX_CHAR, NotModelled, string_value

try:  # the standard library's own parser of patterns
    from re import _constants as _C
    from re import _parser as _P
except ImportError:  # Python 3.10
    import sre_constants as _C  # type: ignore[no-redef]
    import sre_parse as _P  # type: ignore[no-redef]

_RE = z3.ReSort(z3.StringSort())
_UNICODE = _C.SRE_FLAG_UNICODE
# the Java pattern of each language made here, by the language's text (see java_pattern)
_JAVA: dict[str, str] = {}


class _Outside(Exception):
    """The pattern uses something outside the modelled subset."""


def _char(code: int) -> z3.ExprRef:
    if code > MAX_CHAR:
        raise _Outside("a character beyond U+2FFFF")
    return string_value(chr(code))


def _java_char(code: int) -> str:
    ch = chr(code)
    if ch.isascii() and ch.isalnum():
        return ch
    if ch.isascii() and ch.isprintable() and ch != " ":
        return "\\" + ch  # escaped punctuation is itself in both engines
    if code < 0x100:
        return f"\\x{code:02x}"
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    return ch


def _any_but_newline() -> z3.ExprRef:
    return z3.Union(z3.Range(_char(0), _char(9)), z3.Range(_char(11), _char(MAX_CHAR)))


def _everything() -> z3.ExprRef:
    return z3.Range(_char(0), _char(MAX_CHAR))


_EVERY_CLASS = sorted(map(str, [(_C.CATEGORY, _C.CATEGORY_SPACE), (_C.CATEGORY, _C.CATEGORY_NOT_SPACE)]))


def _set(items: list) -> tuple[z3.ExprRef, str]:
    if sorted(map(str, items)) == _EVERY_CLASS:
        return _everything(), "[\\s\\S]"  # white space or not: any character, in both engines
    if [str(i) for i in items] == [str((_C.NEGATE, None)), str((_C.LITERAL, 10))]:
        return _any_but_newline(), "[^\\n]"
    negate = False
    parts, text = [], []
    for op, av in items:
        if op is _C.NEGATE:
            negate = True
        elif op is _C.LITERAL:
            parts.append(z3.Re(_char(av)))
            text.append(_java_char(av))
        elif op is _C.RANGE:
            parts.append(z3.Range(_char(av[0]), _char(av[1])))
            text.append(f"{_java_char(av[0])}-{_java_char(av[1])}")
        else:  # \d, \w, \s: Unicode classes in Python, ASCII ones in Java
            raise _Outside(f"class item {op}")
    if not parts:
        raise _Outside("an empty class")
    union = parts[0] if len(parts) == 1 else z3.Union(*parts)
    if negate:
        return z3.Intersect(_everything(), z3.Complement(union)), "[^" + "".join(text) + "]"
    return union, "[" + "".join(text) + "]"


def _seq(items, capture: bool = False) -> tuple[z3.ExprRef, str]:
    regexes, text = [], []
    for op, av in items:
        r, t = _item(op, av, capture)
        regexes.append(r)
        text.append(t)
    if not regexes:
        return z3.Re(string_value("")), ""
    return (regexes[0] if len(regexes) == 1 else z3.Concat(*regexes)), "".join(text)


def _item(op, av, capture: bool = False) -> tuple[z3.ExprRef, str]:
    if op is _C.LITERAL:
        return z3.Re(_char(av)), _java_char(av)
    if op is _C.NOT_LITERAL:
        return z3.Intersect(_everything(), z3.Complement(z3.Re(_char(av)))), f"[^{_java_char(av)}]"
    if op is _C.ANY:
        return _any_but_newline(), "[^\\n]"
    if op is _C.IN:
        return _set(av)
    if op is _C.SUBPATTERN:
        _group, add_flags, del_flags, sub = av
        if add_flags or del_flags:
            raise _Outside("flags in a group")
        r, t = _seq(sub, capture)
        # a capturing group stays one where the groups are read (`extract_pattern`): Java numbers
        # groups by their opening parenthesis, as Python does, and every other one written is (?:
        return r, (f"({t})" if capture and _group is not None else f"(?:{t})")
    if op is _C.BRANCH:
        alts = [_seq(a, capture) for a in av[1]]
        return z3.Union(*[r for r, _ in alts]), "(?:" + "|".join(t for _, t in alts) + ")"
    if op in (_C.MAX_REPEAT, _C.MIN_REPEAT):
        lo, hi, sub = av
        r, t = _seq(sub, capture)
        if hi == _C.MAXREPEAT:
            made = z3.Star(r) if lo == 0 else z3.Concat(z3.Loop(r, lo, lo), z3.Star(r))
            return made, f"(?:{t}){{{lo},}}"
        return z3.Loop(r, lo, hi), f"(?:{t}){{{lo},{hi}}}"
    raise _Outside(f"{op}")


def _is_end_lookahead(op, av) -> bool:
    """`(?![\\s\\S])`: nothing follows, the end of the text (the form java_pattern writes)."""
    if op is not _C.ASSERT_NOT or av[0] != 1 or len(av[1]) != 1:
        return False
    sub_op, sub_av = list(av[1])[0]
    return sub_op is _C.IN and sorted(map(str, sub_av)) == _EVERY_CLASS


@lru_cache(maxsize=512)
def language_for(how: str, pattern: str) -> z3.ExprRef | None:
    """The language of the strings on which `re.<how>(pattern, s)` finds a match, or None when
    the pattern is outside the modelled subset."""
    try:
        parsed = _P.parse(pattern)
        if parsed.state.flags & ~_UNICODE:
            raise _Outside("flags")
        items = list(parsed)
        start = bool(items) and items[0] == (_C.AT, _C.AT_BEGINNING) or \
            bool(items) and items[0] == (_C.AT, _C.AT_BEGINNING_STRING)
        if start:
            items = items[1:]
        end = None
        if items and items[-1] in ((_C.AT, _C.AT_END), (_C.AT, _C.AT_END_STRING)):
            end = "line" if items[-1] == (_C.AT, _C.AT_END) else "text"
            items = items[:-1]
        elif items and _is_end_lookahead(*items[-1]):
            end, items = "text", items[:-1]
        core, text = _seq(items)
    except (_Outside, _C.error, RecursionError, OverflowError):
        return None
    anything = z3.Star(_everything())
    if end == "line" and how != "fullmatch":  # `$`: at the end, or before a final newline
        core = z3.Concat(core, z3.Option(z3.Re(string_value("\n"))))
        text = f"(?:{text})\\n?"
    elif end is None and how != "fullmatch":
        core, text = z3.Concat(core, anything), f"(?:{text})[\\s\\S]*"
    if how == "search" and not start:
        core, text = z3.Concat(anything, core), f"[\\s\\S]*(?:{text})"
    java = f"^(?:{text})(?![\\s\\S])"
    for form in (core, z3.simplify(core)):  # a formula's simplification normalises the language too
        _JAVA.setdefault(form.sexpr(), java)
    return core


# the Java patterns `extract_pattern` wrote: pattern -> (how, Python pattern)
_EXTRACT: dict[str, tuple[str, str]] = {}


@lru_cache(maxsize=512)
def extract_pattern(how: str, pattern: str, group: int) -> str | None:
    """The pattern for Spark's `regexp_extract(s, java, group)` that gives what
    `re.<how>(pattern, s)[group]` gives where the match succeeds (and "" where it fails, where
    Python has no match), or None: for `match` and `search` in the modelled subset, without `$`
    (Java's stops before any line end, Python's before a newline), and a group that takes part
    in every match, outside any repetition or alternation (so the engines, both trying the
    alternatives in order and the repetitions greedy or lazy as written, capture the same text).

    >>> extract_pattern("match", "([^,]+),.*", 1)
    '^(?:((?:[^\\\\,]){1,})\\\\,(?:[^\\\\n]){0,})'
    >>> extract_pattern("match", "(a|b)+", 1), extract_pattern("match", "(a)?b", 1), extract_pattern("match", "a$", 0)
    (None, None, None)
    """
    if how not in ("match", "search") or language_for(how, pattern) is None:
        return None
    try:
        parsed = _P.parse(pattern)
        if group < 0 or group > parsed.state.groups - 1 or not _always_takes_part(list(parsed), group):
            return None
        items = list(parsed)
        start = bool(items) and items[0] in ((_C.AT, _C.AT_BEGINNING), (_C.AT, _C.AT_BEGINNING_STRING))
        if start:
            items = items[1:]
        if any(op is _C.AT for op, _ in items):
            return None
        _, text = _seq(items, capture=True)
    except (_Outside, _C.error, RecursionError, OverflowError):
        return None
    java = f"^(?:{text})" if how == "match" or start else f"(?:{text})"
    _EXTRACT.setdefault(java, (how if not start else "match", pattern))
    return java


def _always_takes_part(items, group: int) -> bool:
    """Group `group` (0, the whole match, always does) is reached outside every repetition and
    alternation of `items`."""
    if group == 0:
        return True
    for op, av in items:
        if op is _C.SUBPATTERN:
            if av[0] == group or _always_takes_part(list(av[3]), group):
                return True
    return False


def group_always_present(pattern: str, group: int) -> bool:
    """Whether every match of `pattern` has group `group` (a group of the pattern, reached outside
    every repetition and alternation): then `m[group]` is a text, never None or an IndexError."""
    try:
        parsed = _P.parse(pattern)
    except (_C.error, RecursionError, OverflowError):
        return False
    return 0 <= group < parsed.state.groups and _always_takes_part(list(parsed), group)


def extracted_by(java: str) -> tuple[str, str] | None:
    """(how, Python pattern) of a pattern `extract_pattern` wrote, else None."""
    return _EXTRACT.get(java)


def group_value(how: str, pattern: str, group: int, s: z3.ExprRef) -> z3.SeqRef:
    """The text group `group` of `re.<how>(pattern, s)` captures: an uninterpreted function of
    the text, named by the call, the pattern and the group, which Python's `m[group]` /
    `m.group(group)` and Spark's `regexp_extract` with `extract_pattern`'s pattern share."""
    return z3.Function(f"py_re_group_{how}_{literal_name(pattern)}_{group}", z3.StringSort(), z3.StringSort())(s)


def literal_name(text: str) -> str:
    """A Z3 function name part for a literal (its characters kept apart by their code points).

    >>> literal_name("a,"), literal_name("")
    ('97_44', 'empty')
    """
    return "_".join(str(ord(ch)) for ch in text) or "empty"


def matches(how: str, pattern: str, s: z3.ExprRef) -> z3.BoolRef | None:
    """Whether `re.<how>(pattern, s)` finds a match, exactly; None outside the subset."""
    lang = language_for(how, pattern)
    return z3.InRe(s, lang) if lang is not None else None


def java_pattern(lang: z3.ExprRef) -> str:
    """The `rlike` pattern of a language made by `language_for`."""
    found = _JAVA.get(lang.sexpr()) or _JAVA.get(z3.simplify(lang).sexpr())
    if found is None:
        raise NotModelled("a regular language this module did not make")
    return found


def language(java: str) -> z3.ExprRef | None:
    """The language of strings in which Spark's `rlike` finds `java`, when `java` is a pattern
    `java_pattern` writes (both engines read it alike); None otherwise."""
    if not (java.startswith("^(?:") and java.endswith(")(?![\\s\\S])")):
        return None
    return language_for("search", java)


def literal_text(pattern: str) -> str | None:
    """The text a pattern of literal characters only matches (for `re.sub` as a replace)."""
    try:
        parsed = _P.parse(pattern)
    except _C.error:
        return None
    items = list(parsed)
    if parsed.state.flags & ~_UNICODE or not items or any(op is not _C.LITERAL for op, _ in items):
        return None
    return "".join(chr(av) for _, av in items)
