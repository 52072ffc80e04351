"""The SUBPIPELINE category for GroupedMap: `groupBy(keys).applyInPandas(fn, schema)`.

`fn`'s body is a sub-plan over one group's rows (translate/pandas_body.py). A
candidate G for the late filter F is accepted by one of two routes:

Whole groups (base case 2 rows). Some output columns are functions of the group's
keys: a key passed through, or computed from keys only (`pdf["big"] = pdf.k == 1`),
through filters, sorts, heads and pandas aggregations, which choose rows but do
not change such a column. If F reads only those columns, every output row of a
group gets the same verdict from F, namely F on the key expressions. Proved: (a)
G agrees on two rows of one group (keys compared null-safely, as Spark groups);
(b) on one row r, F over the key expressions evaluated on r passes exactly when
G(r) does (implies G(r), for a superset pushdown). Then G keeps or drops whole
groups, fn sees the same rows for every group it keeps, and F(GM(T)) = GM(G(T)).

Row by row (base case 1 row). A body made only of filters, projections and sorts
(no head, no aggregate) maps each row on its own, so GroupedMap is that body run
on the whole table. F is pushed through the body operator by operator with the
ROW-TO-ROW verifier, as the paper's Section 5.2 does.

pandas is not Spark (docs/semantics.md, "GroupedMap"); what the model cannot
follow is refused:
- a Spark NaN reaches fn as NaN, exactly like NULL does, and comes back as NULL:
  a G that reads a float or double column is refused (G would tell NaN from NULL
  where fn cannot);
- numpy integer arithmetic wraps: every integer `+ - *` and negation the proof
  relies on must be proved to stay in the range of its narrowest column;
- a long column with a missing value becomes float64 in pandas, which rounds
  above 2**53, and whether a group has a missing value depends on which rows G
  keeps: the row-by-row route refuses bodies that receive a long column (or any
  type whose conversion it does not model); the whole-groups route keeps groups
  intact, so every group converts as it did;
- an output column whose schema type differs from the body's is cast by Arrow
  and is treated as unknown, and so is a key of a type whose trip through pandas
  is not known to be exact (a timestamp goes through the session's local time).
The body can raise (a pandas aggregate over strings, a schema Arrow cannot
convert to) on a group or row the rewrite drops first, so every pushdown through
fn is flagged `may_hide_errors`.
"""

from __future__ import annotations

from typing import Iterator, Sequence

import z3

from magicpush_lab.ir import expr as X
from magicpush_lab.ir import plan as P
from magicpush_lab.ir.types import FRACTIONAL, INTEGRAL
from magicpush_lab.symbolic.aggregate_ops import same_group
from magicpush_lab.symbolic.encode import Evaluator, truth
from magicpush_lab.symbolic.table import SymbolicRow, domain
from magicpush_lab.symbolic.values import Unsupported
from magicpush_lab.verify.counterexample import rows_from_model
from magicpush_lab.verify.solver import DEFAULT_TIMEOUT_MS, prove
from magicpush_lab.verify.verdict import EQUIVALENT, SUPERSET, Verdict

CATEGORY = "SUBPIPELINE"
WHOLE_GROUPS_ROWS = 2
ROW_WISE_ROWS = 1

# types a row-by-row body may receive: their pandas form does not depend on the other rows
# of the group beyond int -> float64 for a missing value, which is exact for these widths;
# float (32-bit) is left out, numpy compares it with a literal rounded to 32 bits
_ROW_WISE_TYPES = frozenset({"byte", "short", "int", "double", "string", "boolean", "date"})
_BITS = {"byte": 8, "short": 16, "int": 32, "long": 64}
# key types whose value comes back from pandas as it went in (a group's key is all missing or
# none, so an integer key never rounds); a timestamp goes through the session's local time,
# which is ambiguous in a daylight-saving change, and is left out with every other type
_ROUND_TRIP = frozenset({"byte", "short", "int", "long", "string", "boolean", "date"})
# how a refusal says F reads a column that differs between rows of a group (and so needs the row route)
_NOT_CONSTANT = "which the body does not keep constant within a group"


# ----------------------------------------------------------------------------- the body's shape


def chain(body: P.Plan) -> tuple[P.Plan, ...]:
    """The body's operators from its output down to its Source (a body is a chain)."""
    out = [body]
    while out[-1].children:
        if len(out[-1].children) != 1:
            raise Unsupported("a body operator with several inputs")
        out.append(out[-1].children[0])
    return tuple(out)


def output_map(op: P.GroupedMap) -> dict[X.Col, X.Col]:
    """GroupedMap output column -> the body column Spark reads it from (same name and type;
    a column Arrow would cast is left out)."""
    return {out: b for out, b in zip(op.output, op.body.output)
            if out.name == b.name and out.dtype == b.dtype}


def key_determined(op: P.GroupedMap) -> dict[X.Col, X.Expr]:
    """GroupedMap output column -> its value as an expression of the group's keys (over the
    GroupedMap's input columns), for the columns that are the same on every row of a group."""
    nodes = chain(op.body)[::-1]
    keys = set(op.keys)
    aliases = {e: c for c, e in op.child.outputs if isinstance(e, X.Col) and c in keys} \
        if isinstance(op.child, P.Project) else {}
    known: dict[X.Col, X.Expr] = {}
    for c in nodes[0].output:
        if c.dtype not in _ROUND_TRIP:
            continue
        if c in keys:
            known[c] = c
        elif c in aliases:
            known[c] = aliases[c]  # fn receives the column the key was named from
    for node in nodes[1:]:
        if isinstance(node, (P.Filter, P.Reorder, P.TopK)):
            continue  # these choose and order rows; a column's value on a kept row is unchanged
        if isinstance(node, (P.Project, P.Aggregate)):
            # the first row's value of a group-constant column is that value
            firsts = {c: known[e.arg] for c, e in node.outputs
                      if isinstance(e, X.Agg) and e.fn == "pandas_first" and e.arg in known}
            known = {c: X.substitute(e, known) for c, e in node.outputs
                     if not any(isinstance(n, X.Agg) for n in X.walk(e)) and X.columns(e) <= set(known)}
            known.update(firsts)
            continue
        return {}
    return {out: known[b] for out, b in output_map(op).items() if b in known}


def is_row_wise(op: P.GroupedMap) -> str:
    """Why the body is not a row-by-row map, or "" when it is."""
    for node in chain(op.body):
        if isinstance(node, (P.Filter, P.Reorder, P.Source)):
            continue
        if isinstance(node, P.Project) \
                and not any(isinstance(n, X.Agg) for _, e in node.outputs for n in X.walk(e)):
            continue
        what = "an aggregate" if isinstance(node, (P.Project, P.Aggregate)) else P.operator_name(node)
        return f"the body has {what}, so an output row depends on other rows of its group"
    return ""


def inlined_expressions(op: P.GroupedMap) -> tuple[X.Expr, ...]:
    """Every expression the body evaluates, written over the columns fn receives."""
    defs: dict[X.Col, X.Expr] = {}
    out: list[X.Expr] = []
    for node in chain(op.body)[::-1]:
        if isinstance(node, P.Filter):
            out.append(X.substitute(node.condition, defs))
        elif isinstance(node, P.Project):
            made = {c: X.substitute(e, defs) for c, e in node.outputs}
            out.extend(made.values())
            defs.update(made)
    return tuple(out)


# ----------------------------------------------------------------------------- candidates


def candidates(op: P.GroupedMap, f: X.Expr) -> Iterator[tuple[X.Expr, str]]:
    """Candidate input predicates: F on the group-constant columns read on the keys, then F
    pushed through a row-by-row body."""
    try:
        known = key_determined(op)
        row_wise = not is_row_wise(op)
    except Unsupported:
        return  # a body that is not a chain: nothing to propose
    parts = [X.substitute(c, known) for c in X.conjuncts(f) if X.columns(c) <= set(known)]
    if parts:
        whole = len(parts) == len(X.conjuncts(f))
        yield X.and_(*parts), ("the late filter on group-constant columns, read on the group keys" if whole
                               else "its conjuncts on group-constant columns")
    if row_wise:
        try:
            walked = _through_body(op, f, DEFAULT_TIMEOUT_MS)
        except (Unsupported, z3.Z3Exception):
            return
        if isinstance(walked, tuple):
            yield walked[0], "the late filter pushed through the pandas body, operator by operator"


# ----------------------------------------------------------------------------- verification


def verify(op: P.GroupedMap, f: X.Expr, g: Sequence[X.Expr | None], kind: str,
           timeout_ms: int = DEFAULT_TIMEOUT_MS) -> Verdict:
    def refuse(reason: str, rows: int = WHOLE_GROUPS_ROWS) -> Verdict:
        return Verdict(False, kind, CATEGORY, rows, reason)

    pred = g[0] if len(g) == 1 else None
    if pred is None:
        return refuse("no predicate for the input")
    node = X.first_nondeterministic(f, pred, *op.keys)
    if node is not None:
        return refuse(f"{node} is nondeterministic")
    floats = sorted(c.name for c in X.columns(pred) if c.dtype in FRACTIONAL)
    if floats:
        return refuse(f"the predicate reads {', '.join(floats)}: fn sees NaN as missing, like NULL, so a"
                      f" predicate on a float column cannot stand for what fn does")
    try:
        whole = _whole_groups(op, f, pred, kind, timeout_ms)
        if whole.proved:
            return whole
        row_reason = is_row_wise(op)
        if row_reason:
            return whole if _NOT_CONSTANT not in whole.reason else refuse(f"{whole.reason}; {row_reason}")
        row = _row_wise(op, f, pred, kind, timeout_ms)
    except Unsupported as err:
        return refuse(f"cannot model: {err}")
    return row if row.proved or _NOT_CONSTANT in whole.reason else whole


def _whole_groups(op: P.GroupedMap, f: X.Expr, g: X.Expr, kind: str, timeout_ms: int) -> Verdict:
    def refuse(reason: str, example: dict | None = None) -> Verdict:
        return Verdict(False, kind, CATEGORY, WHOLE_GROUPS_ROWS, reason, example or {})

    known = key_determined(op)
    per_row = sorted(c.name for c in X.columns(f) - set(known))
    if per_row and kind != SUPERSET:
        return refuse(f"the late filter reads {', '.join(per_row)}, {_NOT_CONSTANT}")
    # the other columns are left free on the output row (any value, NULL included), so a
    # superset proof holds whatever the body computes for them
    values = {c: known[c] for c in X.columns(f) if c in known}
    reason = overflow(tuple(values.values()), timeout_ms)
    if reason:
        return refuse(reason)
    try:
        original, rewritten = Evaluator(), Evaluator()
        r1, r2 = SymbolicRow("in0"), SymbolicRow("in1")
        same = same_group(op, r1, r2, original)  # type: ignore[arg-type] - only .keys is read
        out = SymbolicRow("out")
        for c, e in values.items():
            out.cells[(c.name, c.id)] = original.eval(e, r1)
        passes = truth(original.eval(f, out))
        g1, g2 = truth(rewritten.eval(g, r1)), truth(rewritten.eval(g, r2))
    except (Unsupported, z3.Z3Exception) as err:
        return refuse(f"cannot model: {err}")
    kept = passes == g1 if kind != SUPERSET else z3.Implies(passes, g1)
    facts = z3.And(domain([r1, r2]), z3.Not(original.error()))
    for name, claim in (("G differs within a group", z3.Implies(same, g1 == g2)),
                        ("F on the group's key columns and G disagree", kept)):
        proof = prove(z3.Implies(facts, z3.And(z3.Not(rewritten.error()), claim)), timeout_ms)
        if not proof.proved:
            example = rows_from_model(proof.model, [r1, r2]) if proof.model is not None else {}
            rows = [r for table in example.values() for r in table]
            why = f"; the late filter reads {', '.join(per_row)}, {_NOT_CONSTANT}" if per_row else ""
            return refuse(f"{name}: {proof.reason}{why}", {"input": rows} if rows else {})
    return Verdict(True, kind, CATEGORY, WHOLE_GROUPS_ROWS, "proved: G keeps or drops whole groups", {}, True)


def _row_wise(op: P.GroupedMap, f: X.Expr, g: X.Expr, kind: str, timeout_ms: int) -> Verdict:
    def refuse(reason: str) -> Verdict:
        return Verdict(False, kind, CATEGORY, ROW_WISE_ROWS, reason)

    received = chain(op.body)[-1].output
    odd = sorted(f"{c.name} ({c.dtype})" for c in received if c.dtype not in _ROW_WISE_TYPES)
    if odd:
        return refuse(f"fn receives {', '.join(odd)}, whose pandas form is not modelled row by row (a long"
                      f" becomes float64 when its group has a missing value, a timestamp goes through local"
                      f" time)")
    reason = overflow(inlined_expressions(op), timeout_ms)
    if reason:
        return refuse(reason)
    walked = _through_body(op, f, timeout_ms)
    if isinstance(walked, str):
        return refuse(walked)
    found, found_kind = walked
    if found != g:
        return refuse(f"pushing through the body gives {found}, not this candidate")
    if kind == EQUIVALENT and found_kind != EQUIVALENT:
        return refuse("the body only allows a superset pushdown")
    return Verdict(True, kind, CATEGORY, ROW_WISE_ROWS, "proved through the body, operator by operator", {},
                   True)


def _through_body(op: P.GroupedMap, f: X.Expr, timeout_ms: int) -> tuple[X.Expr, str] | str:
    """F pushed through the body's operators, each step proved by the ROW-TO-ROW verifier
    (equivalence first, then superset); the predicate on fn's input and the chain's kind,
    or why a step failed."""
    from magicpush_lab.search.candidates import candidates as step_candidates
    from magicpush_lab.verify import row_to_row

    names = output_map(op)
    missing = sorted(c.name for c in X.columns(f) - set(names))
    if missing:
        return f"the late filter reads {', '.join(missing)}, which Spark casts from the body's type"
    pred, kind = X.substitute(f, dict(names)), EQUIVALENT
    for node in chain(op.body)[:-1]:
        step = None
        for wanted in (EQUIVALENT, SUPERSET):
            for cand in step_candidates(node, pred):
                gi = cand.predicates[0] if len(cand.predicates) == 1 else None
                if gi is None or gi == X.TRUE:
                    continue
                if row_to_row.verify(node, pred, (gi,), wanted, timeout_ms).proved:
                    step = (gi, wanted)
                    break
            if step is not None:
                break
        if step is None:
            return f"{P.operator_name(node)} in the body: no candidate could be proved"
        pred = step[0]
        kind = EQUIVALENT if kind == EQUIVALENT and step[1] == EQUIVALENT else SUPERSET
    return pred, kind


def overflow(exprs: Sequence[X.Expr], timeout_ms: int) -> str:
    """Why some integer arithmetic in `exprs` may wrap in numpy, or "" when none can.

    numpy keeps an integer column's width (a Python int literal takes it), so each `+ - *`
    and negation must stay within the narrowest integer column it reads."""
    for e in exprs:
        for node in X.walk(e):
            if not isinstance(node, (X.Arith, X.Neg)) or X.dtype_of(node) not in INTEGRAL:
                continue
            widths = [_BITS[c.dtype] for c in X.columns(node) if c.dtype in _BITS]
            if not widths:
                continue
            bits = min(widths)
            try:
                ev = Evaluator()
                row = SymbolicRow("num")
                cell = ev.eval(node, row)
            except (Unsupported, z3.Z3Exception) as err:
                return f"cannot model {node}: {err}"
            fits = z3.And(cell.value >= -(2 ** (bits - 1)), cell.value < 2 ** (bits - 1))
            proof = prove(z3.Implies(z3.And(domain([row]), cell.notnull), fits), timeout_ms)
            if not proof.proved:
                return f"{node} may overflow a {bits}-bit integer, which numpy wraps ({proof.reason})"
    return ""


def why_not(op: P.GroupedMap, f: X.Expr, timeout_ms: int = 500) -> str:
    """Why nothing could be pushed through `op`, for the walk's refusal."""
    try:
        found = next(candidates(op, f), None)
        if found is not None:
            verdict = verify(op, f, (found[0],), SUPERSET, timeout_ms)
            return f"{found[0]}: {verdict.reason}" if not verdict.proved else "no candidate could be proved"
        reasons = []
        per_row = sorted(c.name for c in X.columns(f) - set(key_determined(op)))
        if per_row:
            reasons.append(f"the late filter reads {', '.join(per_row)}, {_NOT_CONSTANT}")
        row_reason = is_row_wise(op)
        walked = row_reason or _through_body(op, f, timeout_ms)
        if isinstance(walked, str):
            reasons.append(walked)
        return "; ".join(reasons) or "no candidate could be proved"
    except Unsupported as err:
        return f"cannot model: {err}"
