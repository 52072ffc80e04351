"""Shrink a failing fuzz case, and print it as a regression case ready to paste.

Greedy: try each smaller candidate (fewer rows, simpler cell values, a predicate
subtree replaced by one of its children, a pipeline operator dropped) and keep it
when it still fails, until nothing smaller fails. The engine runs again on every
candidate plan, so the shrunk case fails for the engine's own proposal on it.
"""

from __future__ import annotations

import dataclasses
from typing import Callable, Iterator

from magicpush_lab.ir import expr as X
from magicpush_lab.ir import plan as P

from .generate import Case

Fails = Callable[[Case], bool]


def shrink(case: Case, fails: Fails, max_tries: int = 2000) -> Case:
    """The smallest case reached from `case` by steps that keep `fails` true."""
    tries = 0
    progress = True
    while progress and tries < max_tries:
        progress = False
        for smaller in candidates(case):
            tries += 1
            if fails(smaller):
                case, progress = smaller, True
                break
            if tries >= max_tries:
                break
    return case


def candidates(case: Case) -> Iterator[Case]:
    yield from _fewer_rows(case)
    for plan in _smaller_plans(case.late.child):
        yield Case(P.Filter(plan, case.late.condition), case.tables)
    for cond in _smaller_exprs(case.late.condition):
        yield Case(P.Filter(case.late.child, cond), case.tables)
    yield from _simpler_values(case)


def _fewer_rows(case: Case) -> Iterator[Case]:
    for origin, rows in case.tables.items():
        for i in range(len(rows)):
            yield Case(case.late, {**case.tables, origin: rows[:i] + rows[i + 1:]})


def _simpler_values(case: Case) -> Iterator[Case]:
    for origin, rows in case.tables.items():
        for i, row in enumerate(rows):
            for key, value in row.items():
                for simple in _simpler(value):
                    new_rows = rows[:i] + [{**row, key: simple}] + rows[i + 1:]
                    yield Case(case.late, {**case.tables, origin: new_rows})


def _simpler(value) -> list:
    if value is None:
        return []
    zero = {str: "", float: 0.0, int: 0, bool: False}.get(type(value))
    out = [None]
    if zero is not None and value != zero:
        out.append(zero)
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value == value and abs(value) > 1:
        out.append(type(value)(1))
    return out


def _smaller_exprs(e: X.Expr) -> Iterator[X.Expr]:
    """`e` with one subtree replaced by one of its children of the same type."""
    kind = X.dtype_of(e)
    for kid in X.children(e):
        if X.dtype_of(kid) == kind or (kind == "boolean" and _is_boolean(kid)):
            yield kid
    kids = X.children(e)
    for i, kid in enumerate(kids):
        for small in _smaller_exprs(kid):
            yield X.with_children(e, kids[:i] + (small,) + kids[i + 1:])


def _is_boolean(e: X.Expr) -> bool:
    return X.dtype_of(e) == "boolean"


def _smaller_plans(plan: P.Plan) -> Iterator[P.Plan]:
    """`plan` with one operator dropped (where the columns above stay available) or one of
    its expressions simplified."""
    for kid in plan.children:
        if set(plan.output) <= set(kid.output) and not isinstance(plan, P.Source):
            yield kid
    if isinstance(plan, P.Project):
        for i, (c, e) in enumerate(plan.outputs):
            for small in _smaller_exprs(e):
                if X.columns(small) <= set(plan.child.output):
                    yield dataclasses.replace(plan, outputs=plan.outputs[:i] + ((c, small),) + plan.outputs[i + 1:])
    if isinstance(plan, P.Filter):
        for small in _smaller_exprs(plan.condition):
            yield dataclasses.replace(plan, condition=small)
    for name in ("child", "left", "right"):
        if hasattr(plan, name) and not isinstance(plan, P.Source):
            for small in _smaller_plans(getattr(plan, name)):
                if set(getattr(plan, name).output) <= set(small.output) or isinstance(plan, P.Union):
                    yield dataclasses.replace(plan, **{name: small})


# ----------------------------------------------------------------------------- printing


def literal(value, indent: int = 0) -> str:
    """Python source that builds `value` (IR nodes as X.* and P.* calls, fields at their
    default left out).

    >>> literal(X.Cmp(">", X.Col("a", 1, "int"), X.Lit(3, "int")))
    "X.Cmp(op='>', left=X.Col(name='a', id=1, dtype='int'), right=X.Lit(value=3, dtype='int'))"
    """
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        module = "X" if type(value).__module__ == X.__name__ else "P"
        parts = []
        for f in dataclasses.fields(value):
            v = getattr(value, f.name)
            if f.default is not dataclasses.MISSING and v == f.default and f.name != "dtype":
                continue
            parts.append(f"{f.name}={literal(v, indent)}")
        return f"{module}.{type(value).__name__}({', '.join(parts)})"
    if isinstance(value, tuple):
        inner = ", ".join(literal(v, indent) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if isinstance(value, list):
        return "[" + ", ".join(literal(v, indent) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{literal(k)}: {literal(v)}" for k, v in value.items()) + "}"
    if isinstance(value, float) and value != value:
        return "NAN"
    if isinstance(value, float) and value in (float("inf"), float("-inf")):
        return "INF" if value > 0 else "-INF"
    return repr(value)


def regression_case(name: str, case: Case) -> str:
    """The case as an entry of tests/fuzz/test_regressions.py's CASES."""
    return (f"    Regression(\n        {name!r},\n        late={literal(case.late)},\n"
            f"        tables={literal(case.tables)},\n    ),")
