"""Two rewrites of one cell, merged when they change different lines of it (or, each one
contiguous change, different parts of one line).

Each suggestion rewrites the cells it needs from the notebook as it is. When two suggestions
rewrite the same cell (filters for two sources read in one cell, say), both can be applied if
they change different lines: each proof holds for every input table, so a filter placed by one
suggestion is just another input for the other. Lines both change, or an insertion where the
other changes lines, is a conflict: the later suggestion is then left for the user to apply.

>>> base = "a = read('x')\\nb = read('y')\\nc = a.join(b)\\n"
>>> one = "a = read('x').filter(p)\\nb = read('y')\\nc = a.join(b)\\n"
>>> two = "a = read('x')\\nb = read('y').filter(q)\\nc = a.join(b)\\n"
>>> print(merged(base, one, two), end="")
a = read('x').filter(p)
b = read('y').filter(q)
c = a.join(b)
>>> merged(base, one, "a = read('x').filter(q)\\nb = read('y')\\nc = a.join(b)\\n") is None
True
>>> print(merged("t = a.union(b)\\n", "t = a.filter(p).union(b)\\n", "t = a.union(b.filter(q))\\n"), end="")
t = a.filter(p).union(b.filter(q))
"""

from __future__ import annotations

import ast
import difflib
from typing import NamedTuple


class _Hunk(NamedTuple):
    start: int  # lines start:end of the original are replaced by `lines`
    end: int
    lines: tuple[str, ...]


def _hunks(base: list[str], changed: list[str]) -> list[_Hunk]:
    matcher = difflib.SequenceMatcher(None, base, changed, autojunk=False)
    return [_Hunk(i1, i2, tuple(changed[j1:j2])) for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal"]


def _apart(a: _Hunk, b: _Hunk) -> bool:
    """The hunks touch no common line, and neither inserts at the other's edge (order unknown)."""
    first, second = (a, b) if (a.start, a.end) <= (b.start, b.end) else (b, a)
    if first.end < second.start:
        return True
    return first.end == second.start and first.start < first.end and second.start < second.end


def merged(base: str, ours: str, theirs: str) -> str | None:
    """`base` with the changes of both `ours` and `theirs`, or None when they overlap. Lines
    first; two changes inside one line (filters on both reads of `a.union(b)`) are merged by
    character when at least one character between them is unchanged and the result parses."""
    if ours == theirs or theirs == base:
        return ours
    if ours == base:
        return theirs
    by_line = _merged(base.splitlines(keepends=True), ours.splitlines(keepends=True),
                      theirs.splitlines(keepends=True), _apart)
    if by_line is not None:
        return by_line
    chars = list(base)
    if len(_hunks(chars, list(ours))) != 1 or len(_hunks(chars, list(theirs))) != 1:
        return None  # by character, only one contiguous change on each side
    by_char = _merged(chars, list(ours), list(theirs), _strictly_apart)
    return by_char if by_char is not None and _parses(by_char) else None


def _merged(base: list[str], ours: list[str], theirs: list[str], apart) -> str | None:
    mine = _hunks(base, ours)
    other = [h for h in _hunks(base, theirs) if h not in mine]
    if not all(apart(a, b) for a in mine for b in other):
        return None
    out = list(base)
    for hunk in sorted(mine + other, key=lambda h: (h.start, h.end), reverse=True):
        out[hunk.start:hunk.end] = hunk.lines
    return "".join(out)


def _strictly_apart(a: _Hunk, b: _Hunk) -> bool:
    first, second = (a, b) if (a.start, a.end) <= (b.start, b.end) else (b, a)
    return first.end < second.start


def _parses(source: str) -> bool:
    """The merged cell is still Python (IPython's magics aside, which a filter never touches)."""
    lines = [line if not line.lstrip().startswith(("%", "!")) else "" for line in source.splitlines()]
    try:
        ast.parse("\n".join(lines))
    except SyntaxError:
        return False
    return True
