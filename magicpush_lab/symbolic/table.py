"""Symbolic rows and tables: cells created on first use, plus the row-exists flag.

Columns are created lazily, so a symbolic row has exactly the columns the
formulas mention; a column nobody reads cannot change a verdict. A row that an
operator derives from other rows (a filtered row, a joined row) routes reads of
the columns it passes through to the row they come from, so both sides of a
verification see the same symbols.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import z3

from magicpush_lab.ir.expr import Col
from magicpush_lab.ir.types import INTEGER_BITS
from magicpush_lab.symbolic.values import Cell, fresh_cell

Key = tuple[str, int]


@dataclass
class SymbolicRow:
    tag: str
    cells: dict[Key, Cell] = field(default_factory=dict)
    exists: z3.BoolRef = field(default_factory=lambda: z3.BoolVal(True))
    # (keys or None for "all other keys", row): where columns this row does not own come from
    route: list[tuple[Optional[frozenset[Key]], "SymbolicRow"]] = field(default_factory=list)
    types: dict[str, str] = field(default_factory=dict)

    def cell(self, col: Col) -> Cell:
        key = (col.name, col.id)
        if key in self.cells:
            return self.cells[key]
        for keys, parent in self.route:
            if keys is None or key in keys:
                return parent.cell(col)
        self.cells[key] = fresh_cell(f"{self.tag}_{col.name}", col.dtype)
        self.types[col.name] = col.dtype
        return self.cells[key]

    def derived(self, tag: str, exists: z3.BoolRef) -> "SymbolicRow":
        """The same row under another exists flag (what a filter outputs)."""
        return SymbolicRow(tag, exists=exists, route=[(None, self)])


def symbolic_table(tag: str, rows: int) -> list[SymbolicRow]:
    """`rows` rows, each present or not (the row-exists flag is a free symbol)."""
    return [SymbolicRow(f"{tag}{i}", exists=z3.Bool(f"exists_{tag}{i}")) for i in range(rows)]




def domain(rows: list[SymbolicRow]) -> z3.BoolRef:
    """What the column types guarantee about input cells (an int column holds 32-bit values)."""
    facts = []
    for row in rows:
        for (name, _), cell in row.cells.items():
            bits = INTEGER_BITS.get(row.types.get(name, ""))
            if bits:
                facts.append(z3.Implies(cell.notnull, z3.And(cell.value >= -(2 ** (bits - 1)),
                                                             cell.value < 2 ** (bits - 1))))
    return z3.And(*facts) if facts else z3.BoolVal(True)
