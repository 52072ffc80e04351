"""The filter a pandas filter after `toPandas()` allows on the Spark side.

The pandas code (translate/pandas_tail.py) filters the collected frame with F after
row-by-row steps. F is walked through those steps as through an applyInPandas body
(pushdown/body_walk.py: each step proved by the ROW-TO-ROW verifier), to G over the Spark
result's columns, read as pandas reads them (NaN as missing). The pandas filter always stays,
so G only has to keep every row F would keep (a superset pushdown): the rows dropped early are
rows pandas would have dropped.

What differs between Spark and pandas decides what else G must keep (docs/semantics.md,
"pandas after toPandas()"):
- a frame's dtypes depend on its data: an integer column with a missing value becomes float64,
  a boolean one object. G keeps every row with a NULL in such a column, so each column has a
  missing value after the rewrite exactly when it had one before, and every dtype, and with
  it every value the pandas code computes, stays as it was;
- numpy integer arithmetic wraps, and float64 (an integer column with a missing value) rounds
  above 2**53: G keeps every row whose integers the code reads are beyond a size B, the
  largest for which every integer `+ - *` is proved to stay within its narrowest column (and
  within 2**53 over a long column) on the other rows (`integer_bounds`), so on them numpy,
  float64 and the exact value agree; a long is held to 2**52 at most;
- the steps must map rows one by one (no aggregate, no head).

The index of the frame is not kept: after the rewrite it numbers the rows that arrive.
"""

from __future__ import annotations

import z3

from magicpush_lab.budget import Budget
from magicpush_lab.ir import expr as X
from magicpush_lab.ir import plan as P
from magicpush_lab.ir.types import INTEGER_BITS, INTEGRAL
from magicpush_lab.pushdown.body_walk import walk_body
from magicpush_lab.symbolic.encode import Evaluator, truth
from magicpush_lab.symbolic.solver import DEFAULT_TIMEOUT_MS, prove
from magicpush_lab.symbolic.table import SymbolicRow, domain
from magicpush_lab.symbolic.values import NotModelled
from magicpush_lab.translate.pandas_tail import PandasTail
from magicpush_lab.verify import grouped_map as GM
from magicpush_lab.verify.verdict import unmodelled

# types the pandas steps may read: their pandas form is modelled value by value (long through
# float64 as below); other columns may be carried along unread
_READ_TYPES = frozenset({"byte", "short", "int", "long", "double", "string", "boolean", "date"})
# columns whose pandas dtype changes when a missing value is there
_DTYPE_BY_DATA = INTEGRAL | {"boolean"}
# a long of at most this size, and the sum or difference of two of them, is exact in float64
EXACT_LONG = 2 ** 52


def spark_predicate(tail: PandasTail, inputs: tuple[X.Col, ...], budget: Budget) -> X.Expr | str:
    """G for the DataFrame `toPandas()` collected (columns `inputs`), or why there is none."""
    op = P.GroupedMap(P.Source("collected", inputs), (), tail.below, tail.below.output)
    with_filter = P.GroupedMap(op.child, (), P.Filter(tail.below, tail.condition), tail.below.output)
    why = GM.is_row_wise(with_filter)
    if why:
        return why.replace("the body", "the pandas code").replace("of its group", "of the frame")
    node = X.first_nondeterministic(tail.condition)
    if node is not None:
        return f"{node} is nondeterministic"
    computed = GM.inlined_expressions(with_filter)
    reads = frozenset(c for e in computed for c in X.columns(e))
    odd = sorted(f"{c.name} ({c.dtype})" for c in reads if c.dtype not in _READ_TYPES)
    if odd:
        return f"the pandas code reads {', '.join(odd)}, whose pandas form is not modelled value by value"
    step_ms = budget.slice_ms(DEFAULT_TIMEOUT_MS)
    bounds = integer_bounds(computed, step_ms)
    if isinstance(bounds, str):
        return bounds
    try:
        walked = walk_body(op, tail.condition, step_ms, budget)
    except (NotModelled, z3.Z3Exception) as err:
        return unmodelled(err)
    if isinstance(walked, str):
        return walked.replace("in the body", "in the pandas code")
    g = GM.missing_doubles(walked[0])
    if g is None:
        return (f"{walked[0]} computes in doubles, where Spark makes NaN of numbers that pandas would read"
                f" as missing")
    kept = _kept_as_they_were(inputs, bounds)
    if not kept:
        return g
    g = _without_needless_coalesce(g, X.or_(*kept), step_ms)
    if not any(isinstance(n, (X.Arith, X.Neg)) and X.dtype_of(n) in INTEGRAL for n in X.walk(g)):
        return X.or_(*kept, g)
    # in a CASE: Spark evaluates g only on the other rows, on which its arithmetic was proved to
    # stay in range (verify/overflow.py reads a CASE's branches under their conditions)
    return X.Case(((X.or_(*kept), X.TRUE),), g)


def _without_needless_coalesce(g: X.Expr, kept: X.Expr, timeout_ms: int) -> X.Expr:
    """g with each `coalesce(e, false)` (pandas' "a comparison with a missing value is False")
    written as `e` where e cannot be NULL on a row `kept` does not keep: easier to read, and the
    same rows.

    >>> q = X.Col("q", 1, "int")
    >>> str(_without_needless_coalesce(X.Coalesce((X.Cmp(">", q, X.Lit(4, "int")), X.FALSE)), X.IsNull(q), 2000))
    'q > 4'
    """
    def simpler(node: X.Expr) -> X.Expr | None:
        if not (isinstance(node, X.Coalesce) and len(node.args) == 2 and node.args[1] == X.FALSE):
            return None
        try:
            ev = Evaluator()
            row = SymbolicRow("c")
            others = z3.And(domain([row]), z3.Not(truth(ev.eval(kept, row))))
            claim = z3.Implies(others, ev.eval(node.args[0], row).notnull)
            return node.args[0] if prove(claim, timeout_ms).proved else None
        except (NotModelled, z3.Z3Exception):
            return None

    return X.transform(g, simpler)


def _kept_as_they_were(inputs: tuple[X.Col, ...], bounds: dict[X.Col, int]) -> list[X.Expr]:
    """The rows G keeps whatever F says, for pandas to decide: a NULL where pandas' dtype
    depends on one, an integer the code reads beyond the size its arithmetic was proved for."""
    keep: list[X.Expr] = [X.IsNull(c) for c in inputs if c.dtype in _DTYPE_BY_DATA]
    for c, b in sorted(bounds.items(), key=lambda cb: (cb[0].name, cb[0].id)):
        keep.append(X.or_(X.Cmp("<", c, X.Lit(-b, c.dtype)), X.Cmp(">", c, X.Lit(b, c.dtype))))
    return keep


# the sizes tried for the integers the pandas code reads, largest first (a power of two each)
_SIZES = (62, 52, 40, 31, 24, 20, 16, 12, 8, 4)


def integer_bounds(exprs: tuple[X.Expr, ...], timeout_ms: int) -> dict[X.Col, int] | str:
    """The largest size B (of _SIZES, at most 2**52 for a long) such that, on every row whose
    integer columns read by `exprs` are within B, each integer `+ - *` and negation stays within
    its narrowest column (numpy wraps) and, over a long column, within 2**53 (float64 holds it
    exactly when the column has a missing value): column -> B, or why none can be proved. Rows
    beyond B are kept for pandas to decide.

    >>> k = X.Col("k", 1, "int")
    >>> integer_bounds((X.Arith("+", X.Arith("*", k, X.Lit(2, "int"), "int"), X.Lit(1, "int"), "int"),), 2000)
    {Col(name='k', id=1, dtype='int'): 16777216}
    """
    nodes = [n for e in exprs for n in X.walk(e)
             if isinstance(n, (X.Arith, X.Neg)) and X.dtype_of(n) in INTEGRAL]
    # a column only passed on is not read: its values reach the frame as they are
    reads = {c for e in exprs if not isinstance(e, X.Col) for c in X.columns(e) if c.dtype in INTEGRAL}
    longs = {c for c in reads if c.dtype == "long"}
    if not nodes:
        return {c: EXACT_LONG for c in longs}
    why = ""
    for exponent in _SIZES:
        bounds = {c: min(2 ** exponent, EXACT_LONG if c.dtype == "long" else 2 ** (INTEGER_BITS[c.dtype] - 1) - 1)
                  for c in reads}
        why = _all_fit(nodes, bounds, timeout_ms)
        if not why:
            return bounds
    return why


def _all_fit(nodes: list[X.Expr], bounds: dict[X.Col, int], timeout_ms: int) -> str:
    for node in nodes:
        cols = [c for c in X.columns(node) if c.dtype in INTEGER_BITS]
        if not cols:
            continue
        bits = min(INTEGER_BITS[c.dtype] for c in cols)
        top = 2 ** 53 if any(c.dtype == "long" for c in cols) else 2 ** (bits - 1)
        try:
            ev = Evaluator()
            row = SymbolicRow("num")
            cell = ev.eval(node, row)
            within = []
            for c in cols:
                v = ev.eval(c, row)
                within.append(z3.Or(z3.Not(v.notnull), z3.And(v.value >= -bounds[c], v.value <= bounds[c])))
        except (NotModelled, z3.Z3Exception) as err:
            return f"cannot model {node}: {err}"
        fits = z3.And(cell.value >= -top, cell.value < top)
        proof = prove(z3.Implies(z3.And(domain([row]), cell.notnull, *within), fits), timeout_ms)
        if not proof.proved:
            return (f"{node} may overflow (numpy wraps a {bits}-bit integer; float64, which pandas uses for"
                    f" a column with a missing value, rounds above 2**53) whatever size its columns are"
                    f" held to ({proof.reason})")
    return ""
