"""Checks on what a walk pushed, made once the walk is done: what the per-operator proofs
cannot see (integer overflow the original never computes, gaps of the model around the walk's
steps, a collected list that other UDF calls read too). A push that fails one is dropped with
a refusal; the others were proved alongside it, so they stay only as superset pushdowns.
"""

from __future__ import annotations

import ast
from dataclasses import replace

from magicpush_lab.budget import Budget
from magicpush_lab.ir import expr as X
from magicpush_lab.ir import plan as P
from magicpush_lab.pushdown.records import Refusal, Step, WalkResult
from magicpush_lab.verify import model_gaps, overflow

OVERFLOW_MS = 500


def drop_new_overflow(late: P.Filter, result: WalkResult, budget: Budget) -> bool:
    """Drop each pushed predicate whose integer arithmetic may overflow in Spark where the
    original never computes it there (verify/overflow.py), or that a gap of the model
    around the walk's steps may make wrong (verify/model_gaps.py); True if any was dropped."""
    kept = []
    for p in result.pushed:
        why = why_unsafe(late, p.predicate, p.steps, budget)
        if why:
            result.refusals.append(Refusal(P.operator_name(p.source), why, str(p.predicate), event=p.source.origin))
        else:
            kept.append(p)
    dropped = len(kept) < len(result.pushed)
    result.pushed = kept
    return dropped


def why_unsafe(late: P.Filter, predicate: X.Expr, steps: tuple[Step, ...], budget: Budget) -> str | None:
    """Why `predicate`, proved through `steps` from the late filter `late`, may still change a
    result where it is placed (new integer overflow, a gap of the model), or None."""
    same = overflow.same_source_columns(late)
    known = [X.substitute(e, same) for e in overflow.pipeline_expressions(late)]
    return (overflow.new_overflow(X.substitute(predicate, same), known, budget.slice_ms(OVERFLOW_MS))
            or model_gaps.lost_double_arithmetic(late, predicate)
            or model_gaps.new_double_arithmetic(late, predicate)
            or model_gaps.double_sort_key(late, predicate, steps)
            or model_gaps.udf_on_padded_rows(late, steps)
            or model_gaps.udf_above_a_limit(late, steps))


def without_double_arithmetic(late: P.Filter) -> P.Filter | None:
    """The late filter with only its conjuncts free of double arithmetic (in them or in the
    columns they read), when it has both kinds; None otherwise."""
    parts = X.conjuncts(late.condition)
    exact = [c for c in parts if not model_gaps.double_arithmetic(replace(late, condition=c))]
    if not exact or len(exact) == len(parts):
        return None
    return replace(late, condition=X.and_(*exact))


def drop_shared_side_inputs(plan: P.Plan, result: WalkResult) -> None:
    """A predicate before a `collect()` changes the list every reader of it sees: it is kept only
    when the pipeline calls the UDF once, in the RowIterPipeline the proof was made for, and no
    other UDF of the pipeline reads a name like the list's."""
    for node in P.nodes(plan):
        if not isinstance(node, P.RowIterPipeline):
            continue
        calls = sum(1 for n in P.nodes(plan) for e in P.expressions(n) for x in X.walk(e)
                    if isinstance(x, X.PyUdf) and (x.name == node.udf.name or _reads(x, node.side_name)))
        if calls > 1 and any(p.source is node.side_input for p in result.pushed):
            result.pushed = [p for p in result.pushed if p.source is not node.side_input]
            reason = (f"{node.udf.name} is called {calls} times in the pipeline; "
                      "a filter before its collect() would change every call")
            result.refusals.append(Refusal("RowIterPipeline", reason, event=node.origin))


def _reads(udf: X.PyUdf, name: str) -> bool:
    """The UDF's source loads `name` (or cannot be read, so it might)."""
    if udf.source is None:
        return True  # no source (a black box): it might
    try:
        tree = ast.parse(udf.source.strip())
    except SyntaxError:
        return True
    return any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)
               for n in ast.walk(tree))
