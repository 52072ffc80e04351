"""Concrete input tables from a Z3 model, to show the user why a candidate fails.

A counterexample has one table per input of the operator, named "input 1",
"input 2", ... in the operator's input order; each table is a list of rows
({column: value or None}). Columns the proof never read are left out: any
value shows the difference.
"""

from __future__ import annotations

import datetime as dt
import re
from fractions import Fraction
from typing import Sequence

import z3

from magicpush_lab.symbolic.table import SymbolicRow

Tables = dict[str, list[dict[str, object]]]


def tables_from_model(model: z3.ModelRef, tables: Sequence[Sequence[SymbolicRow]]) -> Tables:
    """One table per operator input, holding those of its symbolic rows that exist in the model."""
    return {f"input {i + 1}": [row_values(model, r) for r in rows if _exists(model, r)]
            for i, rows in enumerate(tables)}


def rows_from_model(model: z3.ModelRef, rows: Sequence[SymbolicRow]) -> Tables:
    """One symbolic row per operator input (the base case of joins and row-to-row operators)."""
    return tables_from_model(model, [[r] for r in rows])


def row_values(model: z3.ModelRef, row: SymbolicRow) -> dict[str, object]:
    values: dict[str, object] = {}
    for (name, _), cell in sorted(row.cells.items()):
        present = z3.is_true(model.eval(cell.notnull, model_completion=True))
        values[name] = _python(model.eval(cell.value, model_completion=True),
                               row.types.get(name, "")) if present else None
    return values


def _exists(model: z3.ModelRef, row: SymbolicRow) -> bool:
    return z3.is_true(model.eval(row.exists, model_completion=True))


def _python(v: z3.ExprRef, dtype: str) -> object:
    if z3.is_int_value(v):
        n = v.as_long()
        if dtype == "date":
            try:
                return (dt.date(1970, 1, 1) + dt.timedelta(days=n)).isoformat()
            except OverflowError:  # a model's day outside 0001-01-01..9999-12-31: said as a count
                return f"{n:+d} days from 1970-01-01"
        return n
    if z3.is_rational_value(v):
        frac = Fraction(v.numerator_as_long(), v.denominator_as_long())
        return float(frac)
    if z3.is_true(v) or z3.is_false(v):
        return z3.is_true(v)
    if z3.is_string_value(v):
        return _unescape(v.as_string())
    return str(v)


def _unescape(text: str) -> str:
    """Z3 writes a model's string with every non-ASCII character (and the backslash) as
    \\u{hex}; the counterexample must hold the characters themselves."""
    return re.sub(r"\\u\{([0-9a-fA-F]+)\}", lambda m: chr(int(m.group(1), 16)), text)
