"""Where a call sits among the notebook's conditional code (paper, Section 5.1, Figure 7(4)).

The trace sees only the path a run took: the branch of an `if`, the `case` of a `match`, the
iterations a loop made. A filter put on a DataFrame defined outside such a block, for a
pipeline read inside it, would also reach the path that was not taken, whose predicate is
unknown (TRUE). The block path of a call is the chain of conditional blocks around it,
outermost first; a filter is placed only where every later step of the pipeline runs
whenever the filter does.

>>> src = "df = spark.range(9)\\nif flag:\\n    a = df.filter(x)\\nelse:\\n    a = df\\n"
>>> tree = parse_cell(src)
>>> block_path(tree, 1, 1, 5), block_path(tree, 1, 3, 8)
((), ((1, 2, 0, 'body'),))
"""

from __future__ import annotations

import ast
import functools
from typing import Iterable

from magicpush_lab.capture.trace import Site
from magicpush_lab.rewrite.cellparse import parse_cell

BlockPath = tuple[tuple[int, int, int, str], ...]


def _parts(node: ast.AST) -> list[tuple[str, list[ast.AST]]]:
    """The conditionally run parts of a compound node: (label, nodes of that part)."""
    if isinstance(node, ast.If):
        return [("body", node.body), ("orelse", node.orelse)]
    if isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
        # a loop body runs any number of times, its iterations on different values
        return [("loop", node.body), ("orelse", node.orelse)]
    if isinstance(node, (ast.Try, getattr(ast, "TryStar", ast.Try))):
        return ([("try", node.body)] + [(f"except {i}", h.body) for i, h in enumerate(node.handlers)]
                + [("orelse", node.orelse), ("finally", node.finalbody)])
    if isinstance(node, ast.Match):
        return [(f"case {i}", c.body) for i, c in enumerate(node.cases)]
    if isinstance(node, ast.IfExp):
        return [("body", [node.body]), ("orelse", [node.orelse])]
    if isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
        return [("loop", [node])]
    return []


def _inside(node: ast.AST, line: int, col: int) -> bool:
    start = (getattr(node, "lineno", 0), getattr(node, "col_offset", 0))
    end = (getattr(node, "end_lineno", 0), getattr(node, "end_col_offset", 0))
    return start <= (line, col) < end or start == (line, col)


def block_path(tree: ast.Module, execution_count: int, line: int, col: int) -> BlockPath:
    """The conditional blocks around the position (line, col) of a cell, outermost first."""
    path: list[tuple[int, int, int, str]] = []
    node: ast.AST = tree
    while True:
        inner = next((c for c in ast.iter_child_nodes(node) if _inside(c, line, col)), None)
        if inner is None:
            return tuple(path)
        for label, part in _parts(inner):
            if any(_inside(n, line, col) for n in part):
                path.append((execution_count, inner.lineno, inner.col_offset, label))  # type: ignore[attr-defined]
                break
        node = inner


@functools.lru_cache(maxsize=256)
def parsed_cell(source: str) -> ast.Module | None:
    """A cell's tree, parsed once for all the sites in it (read, never changed, here)."""
    return parse_cell(source)


def site_path(cells: dict[int, str], site: Site | None) -> BlockPath | None:
    """The block path of a call site, None when its cell is unknown or not Python."""
    if site is None or site.execution_count not in cells:
        return None
    tree = parsed_cell(cells[site.execution_count])
    if tree is None:
        return None
    return block_path(tree, site.execution_count, site.lineno, site.col_offset)


def runs_after(placed: BlockPath | None, later: Iterable[BlockPath | None]) -> bool:
    """Every later step runs whenever the placed filter does: each is in the filter's block or
    an enclosing one (its path a prefix of the filter's).

    >>> b = ((1, 2, 0, "body"),)
    >>> runs_after(b, [(), b]), runs_after((), [b]), runs_after(b, [((1, 2, 0, "orelse"),)])
    (True, False, False)
    """
    if placed is None:
        return False
    for p in later:
        if p is None or placed[: len(p)] != p:
            return False
    return True


def untraced_reads(cells: dict[int, str], name: str, traced: Iterable[Site]) -> list[int]:
    """Executions reading `name` inside a conditional block at a place no traced call covers:
    code of a branch the run did not take, which would see a filter put on `name`."""
    covered = [s for s in traced if s is not None]
    found = []
    for count, source in cells.items():
        tree = parse_cell(source)
        if tree is None:
            found.append(count)
            continue
        for n in ast.walk(tree):
            if not (isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)):
                continue
            if not block_path(tree, count, n.lineno, n.col_offset):
                continue
            if not any(s.execution_count == count and (s.lineno, s.col_offset) <= (n.lineno, n.col_offset)
                       and (n.end_lineno, n.end_col_offset) <= (s.end_lineno, s.end_col_offset) for s in covered):
                found.append(count)
                break
    return found
