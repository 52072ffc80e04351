"""Two rewrites of one cell, merged when they change different lines of it.

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
"""

from __future__ import annotations

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
    """`base` with the changes of both `ours` and `theirs`, or None when they overlap."""
    if ours == theirs or theirs == base:
        return ours
    if ours == base:
        return theirs
    lines = base.splitlines(keepends=True)
    mine = _hunks(lines, ours.splitlines(keepends=True))
    other = [h for h in _hunks(lines, theirs.splitlines(keepends=True)) if h not in mine]
    if not all(_apart(a, b) for a in mine for b in other):
        return None
    out = list(lines)
    for hunk in sorted(mine + other, key=lambda h: (h.start, h.end), reverse=True):
        out[hunk.start:hunk.end] = hunk.lines
    return "".join(out)
