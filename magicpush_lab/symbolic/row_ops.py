"""Symbolic semantics of the row-to-row operators (Filter, Project, InnerJoin) on single rows.

Each function takes symbolic input rows and returns the symbolic output row:
its cells and its exists flag. Applied to one row per input, this is the
base case of the ROW-TO-ROW category (paper, Table 2).
"""

from __future__ import annotations

import z3

from magicpush_lab.ir import expr as X
from magicpush_lab.ir import plan as P
from magicpush_lab.symbolic.encode import Evaluator, truth
from magicpush_lab.symbolic.table import SymbolicRow
from magicpush_lab.symbolic.values import Unsupported


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
            raise Unsupported("join input columns unknown")
        merged = SymbolicRow(left.tag + right.tag, exists=z3.And(left.exists, right.exists),
                             route=[(left_keys, left), (right_keys, right)])
        return apply_filter(op.condition, merged, ev)
    if isinstance(op, P.Reorder):
        return inputs[0]  # a bag does not change when its rows are reordered
    raise Unsupported(f"{P.operator_name(op)} is not a row-to-row operator")


def op_expressions(op: P.Plan) -> tuple[X.Expr, ...]:
    """The expressions an operator evaluates (its embedded UDFs, in the paper's terms)."""
    if isinstance(op, P.Filter):
        return (op.condition,)
    if isinstance(op, P.Project):
        return tuple(e for _, e in op.outputs)
    if isinstance(op, P.InnerJoin):
        return (op.condition,)
    return ()
