"""Integer arithmetic a pushed predicate brings into Spark that the original never ran there.

The model's integers do not overflow. Where a predicate is the late filter carried
down, Spark computes the same arithmetic in the original too. A predicate read back
from a Python UDF body is different: `y = x * x` runs in Python, whose integers are
unbounded, and the pushed `(a * a) > 50` runs in Spark, where an int product can leave
the int range (ANSI mode raises, legacy mode wraps). Such a predicate is pushed only
when Z3 proves each such new node stays inside its Spark type for every input value.

>>> a = X.Col("a", 1, "int")
>>> square = X.Cmp(">", X.Arith("*", a, a, "int"), X.Lit(50, "int"))
>>> new_overflow(square, known=[], timeout_ms=500).startswith("(a * a) may leave")
True
>>> new_overflow(square, known=[square], timeout_ms=500)
''
>>> new_overflow(X.Cmp(">", X.Arith("+", X.Cast(a, "long"), X.Lit(1, "long"), "long"), X.Lit(0, "long")),
...              known=[], timeout_ms=500)
''
"""

from __future__ import annotations

from typing import Iterable, Iterator

import z3

from magicpush_lab.ir import expr as X
from magicpush_lab.ir import plan as P
from magicpush_lab.symbolic.encode import Evaluator, truth
from magicpush_lab.symbolic.numeric import integer_arithmetic, stays_in_type
from magicpush_lab.symbolic.table import SymbolicRow, domain
from magicpush_lab.symbolic.solver import prove
from magicpush_lab.verify.verdict import Modelling


# operators that hand every row of their input on (copies included): arithmetic computed
# at or right after them runs on every row of the source below
_EVERY_ROW = (P.Project, P.Reorder, P.Union, P.Window, P.Expand)


def _every_source_row(plan: P.Plan) -> dict[int, bool]:
    """id(node) -> whether the node hands on every row of the sources below it: one pass,
    children before parents (a pipeline may be thousands of operators deep)."""
    out: dict[int, bool] = {}
    for node in reversed(list(P.nodes(plan))):  # pre-order reversed: every child before its parent
        out[id(node)] = isinstance(node, P.Source) or (
            isinstance(node, _EVERY_ROW) and all(out[id(c)] for c in node.children))
    return out


def pipeline_expressions(late: P.Filter) -> list[X.Expr]:
    """The Spark expressions the original pipeline evaluates on every row of its sources (a
    UDF's arguments included, its body not): those of operators with nothing but row-keeping
    operators below them. Arithmetic the original computes only after a limit, a filter or a
    join runs on fewer rows there, and may overflow on a row it never meets.

    >>> a = X.Col("a", 1, "int")
    >>> square = X.Cmp("<", X.Arith("*", a, a, "int"), X.Lit(-7, "int"))
    >>> square in pipeline_expressions(P.Filter(P.Source("t", (a,), origin=0), square))
    True
    >>> square in pipeline_expressions(P.Filter(P.TopK(P.Source("t", (a,), origin=0), ((a, True, True),), 1), square))
    False
    """
    every = _every_source_row(late)
    # a plain column computes nothing: leaving the (many) columns a projection passes on out
    # keeps this linear in the pipeline's length
    return [e for node in P.nodes(late) if all(every[id(c)] for c in node.children)
            for e in P.expressions(node) if not isinstance(e, X.Col)]


def same_source_columns(late: P.Filter) -> dict[X.Col, X.Col]:
    """One stand-in column per source column, whichever read of the source it comes from.

    Spark gives each read of a DataFrame fresh column ids, and a predicate for a source read
    by several branches is written in one read's ids: `s * 3` computed by another branch is
    the same arithmetic on the same rows.

    >>> a1, a2 = X.Col("a", 1, "int"), X.Col("a", 2, "int")
    >>> plan = P.Filter(P.Union((P.Source("t", (a1,), origin=7), P.Source("t", (a2,), origin=7)), (a1,)), X.TRUE)
    >>> m = same_source_columns(plan)
    >>> m[a1] == m[a2]
    True
    """
    out: dict[X.Col, X.Col] = {}
    for node in P.nodes(late):
        if isinstance(node, P.Source) and node.origin is not None:
            for k, c in enumerate(node.output):
                out[c] = X.Col(c.name, -(node.origin * 10_000 + k + 1), c.dtype)
    return out


def guarded(e: X.Expr, path: tuple[tuple[X.Expr, bool], ...] = ()) -> Iterator[tuple[X.Expr, tuple]]:
    """Each node of `e` with the CASE conditions under which Spark evaluates it: (condition, True)
    when the node is in that condition's THEN value, (condition, False) when a later branch or
    the ELSE is only reached with it not true. Spark evaluates a CASE's branches lazily (and the
    `CASE WHEN c THEN true ELSE g END` its optimizer turns into `c OR g` evaluates c first and g
    only where c is not true), which lets a predicate compute arithmetic only where it stays in
    range.

    >>> a = X.Col("a", 1, "int")
    >>> big = X.Cmp(">", a, X.Lit(9, "int"))
    >>> twice = X.Arith("*", a, X.Lit(2, "int"), "int")
    >>> [(str(n), [(str(c), t) for c, t in p]) for n, p in guarded(X.Case(((big, X.TRUE),), twice)) if n == twice]
    [('(a * 2)', [('a > 9', False)])]
    """
    yield e, path
    if isinstance(e, X.Case):
        before: tuple[tuple[X.Expr, bool], ...] = ()
        for cond, value in e.branches:
            yield from guarded(cond, path + before)
            yield from guarded(value, path + before + ((cond, True),))
            before += ((cond, False),)
        yield from guarded(e.default, path + before)
        return
    for kid in X.children(e):
        yield from guarded(kid, path)


def new_overflow(pred: X.Expr, known: Iterable[X.Expr], timeout_ms: int) -> str:
    """Why `pred` may raise or wrap on integer overflow where the original cannot, or "".
    Arithmetic under a CASE condition need only stay in range where the condition lets Spark
    evaluate it."""
    seen = {n for e in known for n in X.walk(e)}
    arithmetic = set(integer_arithmetic(pred))
    for node, path in guarded(pred):
        if node not in arithmetic or node in seen:
            continue  # seen: Spark computes this in the original too (the model's gap, not new here)
        with Modelling() as modelling:
            row, ev = SymbolicRow("o"), Evaluator()
            fits = stays_in_type(ev, node, row)  # first: domain() covers the cells evaluating made
            reached = [truth(ev.eval(c, row)) if holds else z3.Not(truth(ev.eval(c, row))) for c, holds in path]
            claim = z3.Implies(z3.And(domain([row]), *reached), fits)
        if modelling.failed:
            return f"cannot model {node}: {modelling.error}"
        proof = prove(claim, timeout_ms)
        if not proof.proved:
            return f"{node} may leave its integer type in Spark ({proof.reason or 'not proved'})"
    return ""
