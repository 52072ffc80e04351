"""How a cell is named to the user: by the execution count its prompt shows, as in `[3]`.

The notebook's position of a cell counts markdown cells too, which no prompt shows; it is
used only for a cell that has no count (never run, or its count cleared), as its place from
the top. The front end's copy is `cellRef` in `src/cellRefs.ts`.

>>> cell_ref(5, 3), cell_ref(3, None), cell_ref(0, None, "script")
('cell [3]', "the notebook's 4th cell", "the script's 1st cell")
>>> cells_ref([(5, 3), (7, 5)]), cells_ref([(5, 3), (1, None)])
('cells [3] and [5]', "cell [3] and the notebook's 2nd cell")
"""

from __future__ import annotations

from typing import Iterable


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th...

    >>> [ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 102)]
    ['1st', '2nd', '3rd', '4th', '11th', '12th', '13th', '21st', '102nd']
    """
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def cell_ref(position: int, execution_count: int | None, document: str = "notebook") -> str:
    """`cell [N]` for a cell whose prompt shows N, else its place from the top (position 0 is the 1st)."""
    if execution_count is not None:
        return f"cell [{execution_count}]"
    return f"the {document}'s {ordinal(position + 1)} cell"


def cells_ref(cells: Iterable[tuple[int, int | None]], document: str = "notebook") -> str:
    """Several cells, each as `cell_ref` names it, counted ones in one `cells [3], [5] and [7]`."""
    cells = list(cells)
    counted = [f"[{n}]" for _, n in cells if n is not None]
    others = [cell_ref(p, None, document) for p, n in cells if n is None]
    parts = []
    if counted:
        parts.append(("cell " if len(counted) == 1 else "cells ") + _joined(counted))
    parts += others
    return _joined(parts) if parts else "no cell"


def _joined(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
