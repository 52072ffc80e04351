"""applyInPandas: the late filter walked through the pandas body (paper, Section 5.2).

`groupBy(keys).applyInPandas(fn, schema)` is proved by one of two routes (verify/grouped_map.py).
The whole-groups route is a proof of its own. The row-by-row route is a walk: a body made of
filters, projections and sorts maps each row on its own, so F is pushed through its operators
one by one, each step proved by the ROW-TO-ROW verifier, equivalence first; the predicate that
reaches fn's input is the candidate, and its kind is the weakest step's. A double column is
read there as pandas reads it, NaN as missing (grouped_map.missing_doubles).
"""

from __future__ import annotations

from typing import Iterator, Sequence

import z3

from magicpush_lab.budget import Budget
from magicpush_lab.ir import expr as X
from magicpush_lab.ir import plan as P
from magicpush_lab.search.candidate import Candidate
from magicpush_lab.search.candidates import through_row_to_row
from magicpush_lab.symbolic.solver import DEFAULT_TIMEOUT_MS
from magicpush_lab.symbolic.values import NotModelled
from magicpush_lab.verify import grouped_map as GM
from magicpush_lab.verify import row_to_row
from magicpush_lab.verify.verdict import EQUIVALENT, SUPERSET, Verdict, unmodelled


def candidates(op: P.GroupedMap, f: X.Expr, budget: Budget) -> Iterator[Candidate]:
    """F on the group-constant columns read on the keys, then F pushed through a row-by-row body."""
    try:
        known = GM.key_determined(op)
        row_wise = not GM.is_row_wise(op)
    except NotModelled:
        return  # a body that is not a chain: nothing to propose
    parts = [X.substitute(c, known) for c in X.conjuncts(f) if X.columns(c) <= set(known)]
    if parts:
        whole = len(parts) == len(X.conjuncts(f))
        yield Candidate((X.and_(*parts),), "the late filter on group-constant columns, read on the group keys"
                        if whole else "its conjuncts on group-constant columns")
    if row_wise:
        try:
            walked = walk_body(op, f, budget.slice_ms(DEFAULT_TIMEOUT_MS), budget)
        except (NotModelled, z3.Z3Exception):
            return
        if isinstance(walked, tuple):
            how = "the late filter pushed through the pandas body, operator by operator"
            # NaN is missing to pandas: the predicate reads it as NULL (verify/grouped_map.py)
            read = GM.missing_doubles(walked[0])
            yield Candidate((read if read is not None else walked[0],), how)


def verify(op: P.GroupedMap, f: X.Expr, g: Sequence[X.Expr | None], kind: str,
           timeout_ms: int = DEFAULT_TIMEOUT_MS) -> Verdict:
    """The SUBPIPELINE verdict on candidate `g`: whole groups, else row by row through the body."""
    pred = g[0] if len(g) == 1 else None
    if pred is None:
        return GM.refused(kind, "no predicate for the input")
    why = GM.predicate_refusal(op, f, pred)
    if why:
        return GM.refused(kind, why)
    try:
        whole = GM.whole_groups(op, f, pred, kind, timeout_ms)
        if whole.proved:
            return whole
        row_reason = GM.is_row_wise(op)
        if row_reason:
            if GM.NOT_CONSTANT not in whole.reason:
                return whole
            return GM.refused(kind, f"{whole.reason}; {row_reason}")
        row = _row_wise(op, f, pred, kind, timeout_ms)
    except NotModelled as err:
        return GM.refused(kind, unmodelled(err))
    # a refusal of the row route says more only when F reads a column that varies within a group
    return row if row.proved or GM.NOT_CONSTANT in whole.reason else whole


def _row_wise(op: P.GroupedMap, f: X.Expr, g: X.Expr, kind: str, timeout_ms: int) -> Verdict:
    why = GM.row_wise_refusal(op, timeout_ms)
    if why:
        return GM.refused(kind, why, GM.ROW_WISE_ROWS)
    walked = walk_body(op, f, timeout_ms)
    if isinstance(walked, str):
        return GM.refused(kind, walked, GM.ROW_WISE_ROWS)
    found, found_kind = walked
    found = GM.missing_doubles(found) or found
    if found != g:
        why = f"pushing through the body gives {found}, not this candidate"
        return GM.refused(kind, why, GM.ROW_WISE_ROWS)
    if kind == EQUIVALENT and found_kind != EQUIVALENT:
        return GM.refused(kind, "the body only allows a superset pushdown", GM.ROW_WISE_ROWS)
    return GM.row_wise_proved(kind)


def walk_body(op: P.GroupedMap, f: X.Expr, step_ms: int,
              budget: Budget | None = None) -> tuple[X.Expr, str] | str:
    """F pushed through the body's operators, each step proved by the ROW-TO-ROW verifier
    (equivalence first, then superset) within `step_ms`: the predicate on fn's input and the
    chain's kind, or why a step failed. Candidates for each step draw on `budget` (a fresh one
    of the step's limit when the walk runs inside a verification)."""
    budget = budget if budget is not None else Budget(step_ms / 1000)
    names = GM.output_map(op)
    missing = sorted(c.name for c in X.columns(f) - set(names))
    if missing:
        return f"the late filter reads {', '.join(missing)}, which Spark casts from the body's type"
    pred, kind = X.substitute(f, dict(names)), EQUIVALENT
    for node in GM.chain(op.body)[:-1]:
        step = None
        for wanted in (EQUIVALENT, SUPERSET):
            for cand in through_row_to_row(node, pred, budget):
                gi = cand.predicates[0] if len(cand.predicates) == 1 else None
                if gi is None or gi == X.TRUE:
                    continue
                if row_to_row.verify(node, pred, (gi,), wanted, step_ms).proved:
                    step = (gi, wanted)
                    break
            if step is not None:
                break
        if step is None:
            return f"{P.operator_name(node)} in the body: no candidate could be proved"
        pred = step[0]
        kind = EQUIVALENT if kind == EQUIVALENT and step[1] == EQUIVALENT else SUPERSET
    return pred, kind


def why_not(op: P.GroupedMap, f: X.Expr, budget: Budget, timeout_ms: int = 500) -> str:
    """Why nothing could be pushed through `op`, for the walk's refusal: the body's analysis
    says which part stopped the filter."""
    try:
        found = next(candidates(op, f, budget), None)
        if found is not None:
            verdict = verify(op, f, found.predicates, SUPERSET, budget.slice_ms(timeout_ms))
            return "no candidate could be proved" if verdict.proved else f"{found.predicates[0]}: {verdict.reason}"
        reasons = []
        per_row = sorted(c.name for c in X.columns(f) - set(GM.key_determined(op)))
        if per_row:
            reasons.append(f"the late filter reads {', '.join(per_row)}, {GM.NOT_CONSTANT}")
        row_reason = GM.is_row_wise(op)
        walked = row_reason or walk_body(op, f, budget.slice_ms(timeout_ms), budget)
        if isinstance(walked, str):
            reasons.append(walked)
        return "; ".join(reasons) or "no candidate could be proved"
    except NotModelled as err:
        return unmodelled(err)
