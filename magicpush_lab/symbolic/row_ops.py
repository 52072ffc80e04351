"""Symbolic semantics of the row-to-row operators (Filter, Project, InnerJoin) on single rows,
and the two-row relations the sorting and partitioning operators are proved with.

Each operator function takes symbolic input rows and returns the symbolic output row:
its cells and its exists flag. Applied to one row per input, this is the
base case of the ROW-TO-ROW category (paper, Table 2). `same_keys` and `sorts_no_later`
say how two rows stand to each other in a partition or a sort order (TopK, windows).
"""

from __future__ import annotations

import z3

from magicpush_lab.ir import expr as X
from magicpush_lab.ir import plan as P
from magicpush_lab.symbolic.encode import Evaluator, compare, truth
from magicpush_lab.symbolic.table import SymbolicRow
from magicpush_lab.symbolic.values import NotModelled


def apply_filter(pred: X.Expr, row: SymbolicRow, ev: Evaluator) -> SymbolicRow:
    keep = truth(ev.eval_guarded(pred, row, row.exists))
    return row.derived(row.tag + "f", z3.And(row.exists, keep))


def apply_op(op: P.Plan, inputs: list[SymbolicRow], ev: Evaluator) -> SymbolicRow:
    """Output row of a row-to-row operator for one symbolic row per input."""
    if isinstance(op, P.Filter):
        return apply_filter(op.condition, inputs[0], ev)
    if isinstance(op, P.Project):
        row = inputs[0]
        out = SymbolicRow(row.tag + "p", {}, row.exists)
        for col, e in op.outputs:
            out.cells[(col.name, col.id)] = ev.eval_guarded(e, row, row.exists)
        return out
    if isinstance(op, P.InnerJoin):
        left, right = inputs
        left_keys = frozenset((c.name, c.id) for c in op.left.output)
        right_keys = frozenset((c.name, c.id) for c in op.right.output)
        if not left_keys or not right_keys:
            raise NotModelled("join input columns unknown")
        merged = SymbolicRow(left.tag + right.tag, exists=z3.And(left.exists, right.exists),
                             route=[(left_keys, left), (right_keys, right)])
        return apply_filter(op.condition, merged, ev)
    if isinstance(op, P.Reorder):
        return inputs[0]  # a bag does not change when its rows are reordered
    raise NotModelled(f"{P.operator_name(op)} is not a row-to-row operator")


def op_expressions(op: P.Plan) -> tuple[X.Expr, ...]:
    """The expressions an operator evaluates (its embedded UDFs, in the paper's terms)."""
    if isinstance(op, P.Filter):
        return (op.condition,)
    if isinstance(op, P.Project):
        return tuple(e for _, e in op.outputs)
    if isinstance(op, P.InnerJoin):
        return (op.condition,)
    return ()


def same_keys(keys: tuple[X.Expr, ...], a: SymbolicRow, b: SymbolicRow, ev: Evaluator) -> z3.BoolRef:
    """Rows `a` and `b` agree on every key null-safely (NULL keys form one partition or group, as
    in Spark, which also puts every NaN in one and -0.0 with 0.0: equal values in the model)."""
    conds = []
    for k in keys:
        x, y = ev.eval(k, a), ev.eval(k, b)
        if x.sort != y.sort:
            raise NotModelled("keys of different sorts")
        conds.append(z3.Or(z3.And(z3.Not(x.notnull), z3.Not(y.notnull)),
                           z3.And(x.notnull, y.notnull, x.value == y.value)))
    return z3.And(*conds) if conds else z3.BoolVal(True)


def sorts_no_later(order: tuple[tuple[X.Expr, bool, bool], ...], a: SymbolicRow, b: SymbolicRow,
                   ev: Evaluator) -> z3.BoolRef:
    """Row `a` comes before `b` or ties with it under the lexicographic `order` ((key, ascending,
    nulls first) each). NaN's place is the model's: a double is a real, and where the keys only
    compare doubles NaN behaves as a real above every number (symbolic/nan.order_gap)."""
    result: z3.BoolRef = z3.BoolVal(True)  # all keys equal: a tie
    for key, ascending, nulls_first in reversed(order):
        x, y = ev.eval(key, a), ev.eval(key, b)
        both = z3.And(x.notnull, y.notnull)
        less = z3.Or(z3.And(both, compare("<" if ascending else ">", x.value, y.value)),
                     z3.And(z3.Not(x.notnull), y.notnull) if nulls_first else z3.And(x.notnull, z3.Not(y.notnull)))
        equal = z3.Or(z3.And(both, x.value == y.value), z3.And(z3.Not(x.notnull), z3.Not(y.notnull)))
        result = z3.Or(less, z3.And(equal, result))
    return result
