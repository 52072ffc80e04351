"""Checks on what a walk pushed, made once the walk is done: what the per-operator proofs
cannot see (integer overflow the original never computes, gaps of the model around the walk's
steps, a collected list that other UDF calls read too). A push that fails one is dropped with
a refusal; the others were proved alongside it, so they stay only as superset pushdowns. The
same checks are recorded for each DataFrame a push passed on its way (its waypoints), where
its filter may go instead of at the source.
"""

from __future__ import annotations

import ast
from dataclasses import replace

from magicpush_lab.budget import Budget
from magicpush_lab.ir import expr as X
from magicpush_lab.ir import plan as P
from magicpush_lab.pushdown.records import Pushed, Refusal, Step, WalkResult, Waypoint
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


def why_unsafe(late: P.Filter, predicate: X.Expr, steps: tuple[Step, ...], budget: Budget) -> str:
    """Why `predicate`, proved through `steps` from the late filter `late`, may still change a
    result where it is placed (new integer overflow, a gap of the model), or ""."""
    return _unsafe_predicate(late, predicate, budget) or _unsafe_steps(late, predicate, steps)


def _unsafe_predicate(late: P.Filter, predicate: X.Expr, budget: Budget) -> str:
    """The part of why_unsafe that reads the predicate alone (the same wherever it is placed)."""
    same = overflow.same_source_columns(late)
    known = [X.substitute(e, same) for e in overflow.pipeline_expressions(late)]
    return (overflow.new_overflow(X.substitute(predicate, same), known, budget.slice_ms(OVERFLOW_MS))
            or model_gaps.lost_double_arithmetic(late, predicate)
            or model_gaps.new_double_arithmetic(late, predicate))


def _unsafe_steps(late: P.Filter, predicate: X.Expr, steps: tuple[Step, ...]) -> str:
    """The part of why_unsafe that reads the steps the predicate was proved through."""
    return (model_gaps.double_sort_key(late, predicate, steps)
            or model_gaps.udf_on_padded_rows(late, steps)
            or model_gaps.udf_above_a_limit(late, steps))


def with_checked_waypoints(pushed: list[Pushed], budget: Budget) -> list[Pushed]:
    """`pushed` with each waypoint's `unsafe` filled in: why_unsafe of the waypoint's predicate
    and steps from the push's late filter. A push whose source cannot take its filter goes on
    the way (rewrite/placement.py), which reads this instead of proving anything itself.
    The predicate's part is computed once per predicate: the waypoints of one walk mostly
    carry the same one.

    >>> a = X.Col("a", 1, "int")
    >>> s = P.Source("t", (a,), 0)
    >>> late = P.Filter(P.Project(s, ((a, a),), 1), X.Cmp(">", a, X.Lit(3, "int")))
    >>> square = X.Cmp(">", X.Arith("*", a, a, "int"), X.Lit(50, "int"))
    >>> ways = (Waypoint(1, 2, 0, late.condition, (), "equivalent"),
    ...         Waypoint(1, 2, 0, square, (), "superset"))
    >>> one = Pushed(s, late.condition, (), "equivalent", late, 1, 0, waypoints=ways)
    >>> [w.unsafe.partition(" in Spark")[0] for w in with_checked_waypoints([one], Budget())[0].waypoints]
    ['', '(a * a) may leave its integer type']
    """
    # keyed by the late filter's identity: hashing a whole pipeline's plan for each waypoint
    # would cost more than the check
    by_predicate: dict[tuple[int, X.Expr], str] = {}

    def unsafe(late: P.Filter, w: Waypoint) -> str:
        key = (id(late), w.predicate)
        if key not in by_predicate:
            by_predicate[key] = _unsafe_predicate(late, w.predicate, budget)
        return by_predicate[key] or _unsafe_steps(late, w.predicate, w.steps)

    return [replace(p, waypoints=tuple(replace(w, unsafe=unsafe(p.late_filter, w)) for w in p.waypoints))
            if p.waypoints else p for p in pushed]


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
            reason = (f"{node.udf.shown_name} is called {calls} times in the pipeline; "
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
