"""Concrete input tables from a Z3 model, to show the user why a candidate fails."""

from __future__ import annotations

import datetime as dt
import re
from fractions import Fraction
from typing import Sequence

import z3

from magicpush_lab.symbolic.table import SymbolicRow


def rows_from_model(model: z3.ModelRef, rows: Sequence[SymbolicRow]) -> dict[str, list[dict[str, object]]]:
    """One table per input: its rows that exist in the model, cells NULL or a value."""
    tables: dict[str, list[dict[str, object]]] = {}
    for i, row in enumerate(rows):
        if not z3.is_true(model.eval(row.exists, model_completion=True)):
            tables[f"input {i + 1}"] = []
            continue
        values: dict[str, object] = {}
        for (name, _), cell in sorted(row.cells.items()):
            present = z3.is_true(model.eval(cell.notnull, model_completion=True))
            values[name] = _python(model.eval(cell.value, model_completion=True),
                                   row.types.get(name, "")) if present else None
        tables[f"input {i + 1}"] = [values]
    return tables


def _python(v: z3.ExprRef, dtype: str) -> object:
    if z3.is_int_value(v):
        n = v.as_long()
        if dtype == "date":
            return (dt.date(1970, 1, 1) + dt.timedelta(days=n)).isoformat()
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


def tables_from_model(model: z3.ModelRef,
                      tables: Sequence[Sequence[SymbolicRow]]) -> dict[str, list[dict[str, object]]]:
    """Like `rows_from_model`, for inputs of several rows each: the rows that exist in the model."""
    return {f"input {i + 1}": [r for row in rows for r in rows_from_model(model, [row])["input 1"]]
            for i, rows in enumerate(tables)}
