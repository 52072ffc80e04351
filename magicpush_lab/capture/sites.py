"""Where a traced call is in the user's code: the cell execution and the call expression's span.

IPython compiles each cell under a code name of its own; a frame whose code has that name runs
the cell (or a function it defined, which keeps the defining cell's name). The innermost such
frame above a PySpark call gives the site; frames of PySpark, IPython, the standard library and
this package are looked through, any other user code (a module, `%time`) gives no site.
"""

from __future__ import annotations

import ast
import functools
import itertools
import os
import sysconfig
from dataclasses import dataclass
from typing import Any

from magicpush_lab.capture.trace import Site


@functools.lru_cache(maxsize=None)
def _library_roots() -> tuple[str, ...]:
    import IPython
    import pyspark

    modules: list[Any] = [IPython, pyspark]
    try:
        import py4j

        modules.append(py4j)
    except ImportError:  # only the Spark Connect client (pyspark-client) is installed
        pass
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # magicpush_lab/
    roots = {package} | {os.path.dirname(m.__file__ or "") for m in modules}
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        try:
            roots.add(sysconfig.get_paths()[key])
        except KeyError:
            pass
    try:
        import ipykernel

        roots.add(os.path.dirname(ipykernel.__file__))
    except ImportError:
        pass
    return tuple(sorted(r + os.sep for r in roots if r))


@functools.lru_cache(maxsize=4096)
def is_library_file(filename: str) -> bool:
    """True for code that is not the user's: PySpark, IPython, this package, the standard library.

    >>> import json
    >>> is_library_file(json.__file__), is_library_file("<frozen runpy>"), is_library_file("/tmp/ipykernel_1/2.py")
    (True, True, False)
    """
    if filename.startswith("<frozen ") or filename.startswith("<__array_function__"):
        return True
    return os.path.abspath(filename).startswith(_library_roots())


def cell_shifts(raw: str, transformed: str) -> tuple[int, int]:
    """(lines, columns) to add to positions in IPython's transformed cell to get positions in the raw cell.

    IPython drops leading blank lines and a common leading indent before compiling.

    >>> cell_shifts("\\n\\n  x = 1\\n  y = 2\\n", "x = 1\\ny = 2\\n")
    (2, 2)
    """
    def blank_lead(lines: list[str]) -> int:
        return next((i for i, line in enumerate(lines) if line.strip()), len(lines))

    r, t = raw.splitlines(), transformed.splitlines()
    rb, tb = blank_lead(r), blank_lead(t)
    lines = max(rb - tb, 0)
    cols = 0
    if rb < len(r) and tb < len(t):
        cols = max((len(r[rb]) - len(r[rb].lstrip())) - (len(t[tb]) - len(t[tb].lstrip())), 0)
    return lines, cols


@dataclass
class CellCode:
    execution_count: int
    line_shift: int
    col_shift: int
    code: str  # the source IPython compiled (positions in frames refer to it)
    _ends: dict[tuple[int, int], list[ast.expr]] | None = None

    def calls_ending_at(self, end: tuple[int, int]) -> list[ast.expr]:
        """Call and subscript nodes of the compiled code, by end position (parsed on first use)."""
        if self._ends is None:
            self._ends = {}
            try:
                tree = ast.parse(self.code)
            except SyntaxError:
                tree = None
            for node in ast.walk(tree) if tree is not None else ():
                if isinstance(node, (ast.Call, ast.Subscript)):
                    self._ends.setdefault((node.end_lineno, node.end_col_offset), []).append(node)  # type: ignore[arg-type]
        return self._ends.get(end, [])


def call_span(cell: CellCode, pos: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
    """The whole call expression for an instruction's positions (lineno, end_lineno, col, end_col).

    Python 3.11 starts the position of a method call that continues a multi-line
    chain at the method's name; the expression a site means starts at the chain's head.
    """
    lineno, end_lineno, col, end_col = pos
    best = None
    for node in cell.calls_ending_at((end_lineno, end_col)):
        start = (node.lineno, node.col_offset)
        if start == (lineno, col):
            return pos
        if start <= (lineno, col) and (best is None or start > (best.lineno, best.col_offset)):
            best = node
    if best is None:
        return pos
    return best.lineno, end_lineno, best.col_offset, end_col


class CellSites:
    """The cells run so far, by the code name IPython compiled each under, and the site of a
    call made from one of them."""

    def __init__(self) -> None:
        self._code_names: dict[str, CellCode] = {}

    def begin_cell(self, execution_count: int, raw: str, code_name: str, transformed: str | None = None) -> None:
        """Register a cell execution whose code will run from file name `code_name`."""
        lines, cols = cell_shifts(raw, transformed if transformed is not None else raw)
        self._code_names[code_name] = CellCode(execution_count, lines, cols,
                                               transformed if transformed is not None else raw)

    def is_cell_code(self, filename: str) -> bool:
        return filename in self._code_names

    def site_of(self, frame: Any) -> Site | None:
        """Site of the call being made in the innermost notebook frame at or above `frame`."""
        f = frame
        while f is not None:
            filename = f.f_code.co_filename
            cell = self._code_names.get(filename)
            if cell is not None:
                return _site_in(f, cell)
            if not is_library_file(filename):
                return None  # user code that is not a notebook cell (a module, %time...)
            f = f.f_back
        return None


def _site_in(frame: Any, cell: CellCode) -> Site | None:
    lasti = frame.f_lasti
    if lasti < 0:
        return None
    pos = next(itertools.islice(frame.f_code.co_positions(), lasti // 2, None), None)
    if pos is None or any(p is None for p in pos):
        return None
    lineno, end_lineno, col, end_col = call_span(cell, pos)
    return Site(cell.execution_count, lineno + cell.line_shift, col + cell.col_shift,
                end_lineno + cell.line_shift, end_col + cell.col_shift)
