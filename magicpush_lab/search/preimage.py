"""The inputs a one-argument Python UDF maps to the late filter's constants, computed from the
constants the UDF itself holds.

A late filter `udf(x) == "CALIFORNIA"` over a lookup `STATES[s] if s in STATES else s` asks
which inputs give "CALIFORNIA". The model can answer that for any input, but a candidate has to
name them: they are among the strings the UDF holds (its dict's keys, its lists' items, the
literals of its body) and the filter's own constants (a value passed through as it is). Each is
run through the UDF's reading (symbolic/python_udf.py) as a concrete value; those that give one
of the constants make the candidate `x IN (...)`, with `x IS NULL` when None gives one too. The
candidate is only a guess: the verifier proves that no other input gives the constants (or
refuses it), as for every candidate.

>>> from magicpush_lab.ir import expr as X
>>> s = X.Col("s", 1, "string")
>>> src = 'CODES = {"CA": "CALIFORNIA", "NY": "NEW YORK"}\\ndef full(s):\\n    return CODES[s] if s in CODES else s'
>>> call = X.PyUdf("full", (s,), "string", src)
>>> print(preimage(X.Cmp("=", call, X.Lit("CALIFORNIA", "string"))))
s IN ('CA', 'CALIFORNIA')
"""

from __future__ import annotations

import ast

import z3

from magicpush_lab.ir import expr as X
from magicpush_lab.symbolic.python_udf import interpret_call, parse_udf, udf_constants
from magicpush_lab.symbolic.values import Cell, NotModelled

#: at most this many inputs are tried (a UDF holding more strings gets no such candidate)
MAX_INPUTS = 400


def preimage(conjunct: X.Expr) -> X.Expr | None:
    """`x IN (...)` (or with `x IS NULL`) for `udf(x) = 'c'` or `udf(x) IN ('c', ...)`, where
    the UDF is a deterministic Python UDF of one string argument returning a string; None
    otherwise, or when no input tried gives a constant."""
    found = _call_and_targets(conjunct)
    if found is None:
        return None
    call, targets = found
    inputs = sorted(_strings_of(call.source) | targets)
    if len(inputs) > MAX_INPUTS:
        return None
    value, notnull = z3.String("preimage_in"), z3.Bool("preimage_in_nn")
    try:
        cell, error = interpret_call(call.source, (Cell(value, notnull),), call.dtype, ("string",), call.arrow)
    except (NotModelled, SyntaxError, z3.Z3Exception, RecursionError):
        return None
    hits = [s for s in inputs if _gives(cell, error, [(value, z3.StringVal(s)), (notnull, z3.BoolVal(True))], targets)]
    on_null = _gives(cell, error, [(notnull, z3.BoolVal(False))], targets)
    if not hits and not on_null:
        return None
    arg = call.args[0]
    values = tuple(X.Lit(s, "string") for s in hits)
    parts = [X.Cmp("=", arg, values[0]) if len(values) == 1 else X.In(arg, values)] if values else []
    if on_null:
        parts.append(X.IsNull(arg))
    return X.or_(*parts)


def _call_and_targets(e: X.Expr) -> tuple[X.PyUdf, set[str]] | None:
    if isinstance(e, X.Cmp) and e.op == "=":
        call, lit = (e.left, e.right) if isinstance(e.right, X.Lit) else (e.right, e.left)
        values: tuple = (lit,)
    elif isinstance(e, X.In):
        call, values = e.arg, e.values
    else:
        return None
    if not isinstance(call, X.PyUdf) or call.kind != "python" or not call.deterministic or call.source is None:
        return None
    if len(call.args) != 1 or X.dtype_of(call.args[0]) != "string" or call.dtype != "string":
        return None
    if not all(isinstance(v, X.Lit) and isinstance(v.value, str) for v in values):
        return None
    return call, {v.value for v in values}


def _strings_of(source: str) -> set[str]:
    """Every string the UDF holds: its recorded constants (keys, values, items) and its literals."""
    found: set[str] = set()

    def collect(v: object) -> None:
        if isinstance(v, str):
            found.add(v)
        elif isinstance(v, dict):
            for k, x in v.items():
                collect(k)
                collect(x)
        elif isinstance(v, (list, tuple, set, frozenset)):
            for x in v:
                collect(x)

    try:
        for v in udf_constants(source).values():
            collect(v)
        for node in ast.walk(parse_udf(source)):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                found.add(node.value)
    except (NotModelled, SyntaxError, ValueError):
        return set()
    return found


def _gives(cell: Cell, error: z3.BoolRef, at: list, targets: set[str]) -> bool:
    """The UDF, at the concrete input `at`, returns one of `targets` without raising."""
    raised = z3.simplify(z3.substitute(error, *at))
    out_nn = z3.simplify(z3.substitute(cell.notnull, *at))
    out = z3.simplify(z3.substitute(cell.value, *at))
    if not z3.is_false(raised) or not z3.is_true(out_nn) or not z3.is_string_value(out):
        return False
    return out.as_string() in targets
