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
ROW-TO-ROW verifier, as the paper's Section 5.2 does: that walk is the walk's own
(pushdown/body_walk.py); this module checks the route's pre-conditions
(`row_wise_refusal`) and proves the whole-groups route.

pandas is not Spark (docs/semantics.md, "GroupedMap"); what the model cannot
follow is refused:
- a Spark NaN reaches fn as NaN, exactly like NULL does, and comes back as NULL: a
  row with NaN in a double column is, to fn, the same row with NULL there. G reads
  each double column as pandas does (`missing_doubles`: NaN read as NULL), so on such
  a row it is G on the NULL row, which the proof covers; G may not compute in doubles
  (Spark's `inf - inf` is NaN, which pandas would have made missing, and NaN sorts above
  every number in Spark), and a float (32-bit) column is refused (numpy compares it in 32
  bits);
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

from typing import Sequence

import z3

from magicpush_lab.ir import expr as X
from magicpush_lab.ir import plan as P
from magicpush_lab.ir.types import FRACTIONAL, INTEGER_BITS, INTEGRAL
from magicpush_lab.symbolic.aggregate_ops import same_group
from magicpush_lab.symbolic.encode import Evaluator, truth
from magicpush_lab.symbolic.table import SymbolicRow, domain
from magicpush_lab.symbolic.values import NotModelled
from magicpush_lab.verify.counterexample import rows_from_model
from magicpush_lab.symbolic.solver import prove
from magicpush_lab.verify.verdict import SUPERSET, Modelling, Verdict, Verdicts, nondeterministic

CATEGORY = "SUBPIPELINE"
WHOLE_GROUPS_ROWS = 2
ROW_WISE_ROWS = 1

# types a row-by-row body may receive: their pandas form does not depend on the other rows
# of the group beyond int -> float64 for a missing value, which is exact for these widths;
# float (32-bit) is left out, numpy compares it with a literal rounded to 32 bits
_ROW_WISE_TYPES = frozenset({"byte", "short", "int", "double", "string", "boolean", "date"})
# key types whose value comes back from pandas as it went in (a group's key is all missing or
# none, so an integer key never rounds); a timestamp goes through the session's local time,
# which is ambiguous in a daylight-saving change, and is left out with every other type
_ROUND_TRIP = frozenset({"byte", "short", "int", "long", "string", "boolean", "date"})
# how a refusal says F reads a column that differs between rows of a group (and so needs the row route)
NOT_CONSTANT = "which the body does not keep constant within a group"


# ----------------------------------------------------------------------------- the body's shape


def chain(body: P.Plan) -> tuple[P.Plan, ...]:
    """The body's operators from its output down to its Source (a body is a chain)."""
    out = [body]
    while out[-1].children:
        if len(out[-1].children) != 1:
            raise NotModelled("a body operator with several inputs")
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
                      if isinstance(e, X.Agg) and e.fn in ("pandas_first", "pandas_last") and e.arg in known}
            known = {c: X.substitute(e, known) for c, e in node.outputs
                     if not any(isinstance(n, X.Agg) for n in X.walk(e)) and X.columns(e) <= set(known)}
            known.update(firsts)
            continue
        return {}
    return {out: known[b] for out, b in output_map(op).items() if b in known}


def is_row_wise(op: P.GroupedMap) -> str:
    """Why the body is not a row-by-row map, or "" when it is."""
    for node in chain(op.body):
        if isinstance(node, P.Filter) and not any(isinstance(n, X.Agg) for n in X.walk(node.condition)):
            continue
        if isinstance(node, (P.Reorder, P.Source)):
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


# ----------------------------------------------------------------------------- verification


def predicate_refusal(op: P.GroupedMap, f: X.Expr, g: X.Expr) -> str:
    """Why no route can take `g` whatever the body does, or "" when one may."""
    reason = nondeterministic(f, g, *op.keys)
    if reason:
        return reason
    floats = sorted(c.name for c in X.columns(_without_missing_reads(g)) if c.dtype in FRACTIONAL)
    if floats:
        return (f"the predicate reads {', '.join(floats)} other than as pandas does: fn sees NaN as missing,"
                f" like NULL, so it must read NaN as NULL and not compute in doubles")
    return ""


def _as_missing(c: X.Col) -> X.Expr:
    return X.Case(((X.Not(X.Func("isnan", (c,), "boolean")), c),), X.Lit(None, c.dtype))


def missing_doubles(g: X.Expr) -> X.Expr | None:
    """G reading each double column as pandas does: a NaN as missing (NULL), so that on a row with
    NaN it is G on the row with NULL, which is what fn sees. None when G computes in doubles
    (arithmetic or a function of them may make a NaN of numbers, which fn would see as missing
    and Spark does not) or reads a float (32-bit) column.

    >>> amount = X.Col("amount", 1, "double")
    >>> str(missing_doubles(X.Cmp(">", amount, X.Lit(995.0, "double"))))
    'CASE WHEN NOT isnan(amount) THEN amount ELSE NULL END > 995.0'
    >>> missing_doubles(X.Cmp(">", X.Arith("*", amount, X.Lit(2.0, "double"), "double"), X.Lit(4.0, "double")))
    """
    doubles = [c for c in X.columns(g) if c.dtype in FRACTIONAL]
    if not doubles:
        return g
    if any(c.dtype != "double" for c in doubles):
        return None
    for node in X.walk(g):
        if isinstance(node, (X.Arith, X.Neg, X.Func, X.PyUdf)) and X.dtype_of(node) in FRACTIONAL:
            return None
    return X.substitute(g, {c: _as_missing(c) for c in doubles})


def _without_missing_reads(g: X.Expr) -> X.Expr:
    """G with its NaN-as-NULL reads of double columns taken out (what is left must read none)."""
    marks = {}
    for c in X.columns(g):
        if c.dtype == "double":
            marks[_as_missing(c)] = X.Lit(None, "boolean")
    if not marks or any(isinstance(n, (X.Arith, X.Neg, X.Func)) and X.dtype_of(n) in FRACTIONAL
                        and n not in marks for n in X.walk(g)):
        return g
    return _replace_nodes(g, marks)


def _replace_nodes(e: X.Expr, found: dict) -> X.Expr:
    if e in found:
        return found[e]
    kids = X.children(e)
    if not kids:
        return e
    return X.with_children(e, tuple(_replace_nodes(k, found) for k in kids))


def refused(kind: str, reason: str, rows: int = WHOLE_GROUPS_ROWS, example: dict | None = None) -> Verdict:
    """A refusal of either route (`rows`: its base case), for the walk through the body."""
    return Verdicts(kind, CATEGORY, rows).refuse(reason, example)


def row_wise_proved(kind: str) -> Verdict:
    """The verdict of a row-by-row body that the walk took `f` through, every step proved."""
    return Verdicts(kind, CATEGORY, ROW_WISE_ROWS).proved("proved through the body, operator by operator",
                                                          may_hide_errors=True)


def whole_groups(op: P.GroupedMap, f: X.Expr, g: X.Expr, kind: str, timeout_ms: int) -> Verdict:
    """The whole-groups route: G keeps or drops whole groups, and F on the group-constant
    columns read on the keys agrees with it."""
    verdicts = Verdicts(kind, CATEGORY, WHOLE_GROUPS_ROWS)
    known = key_determined(op)
    per_row = sorted(c.name for c in X.columns(f) - set(known))
    if per_row and kind != SUPERSET:
        return verdicts.refuse(f"the late filter reads {', '.join(per_row)}, {NOT_CONSTANT}")
    # the other columns are left free on the output row (any value, NULL included), so a
    # superset proof holds whatever the body computes for them
    values = {c: known[c] for c in X.columns(f) if c in known}
    reason = overflow(tuple(values.values()), timeout_ms)
    if reason:
        return verdicts.refuse(reason)
    with Modelling() as modelling:
        original, rewritten = Evaluator(), Evaluator()
        r1, r2 = SymbolicRow("in0"), SymbolicRow("in1")
        same = same_group(op, r1, r2, original)  # type: ignore[arg-type] - only .keys is read
        out = SymbolicRow("out")
        for c, e in values.items():
            out.cells[(c.name, c.id)] = original.eval(e, r1)
        passes = truth(original.eval(f, out))
        g1, g2 = truth(rewritten.eval(g, r1)), truth(rewritten.eval(g, r2))
    if modelling.failed:
        return verdicts.refuse(modelling.reason)
    kept = passes == g1 if kind != SUPERSET else z3.Implies(passes, g1)
    facts = z3.And(domain([r1, r2]), z3.Not(original.error()))
    for name, claim in (("G differs within a group", z3.Implies(same, g1 == g2)),
                        ("F on the group's key columns and G disagree", kept)):
        proof = prove(z3.Implies(facts, z3.And(z3.Not(rewritten.error()), claim)), timeout_ms)
        if not proof.proved:
            example = rows_from_model(proof.model, [r1, r2]) if proof.model is not None else {}
            rows = [r for table in example.values() for r in table]
            why = f"; the late filter reads {', '.join(per_row)}, {NOT_CONSTANT}" if per_row else ""
            return verdicts.refuse(f"{name}: {proof.reason}{why}", {"input": rows} if rows else {})
    return verdicts.proved("proved: G keeps or drops whole groups", may_hide_errors=True)


def row_wise_refusal(op: P.GroupedMap, timeout_ms: int) -> str:
    """Why the row-by-row route cannot hold for this body whatever the predicate, or "" when
    its pre-conditions hold: a row-by-row body (is_row_wise), inputs whose pandas form does not
    depend on the other rows, integer arithmetic that cannot wrap."""
    why = is_row_wise(op)
    if why:
        return why
    received = chain(op.body)[-1].output
    odd = sorted(f"{c.name} ({c.dtype})" for c in received if c.dtype not in _ROW_WISE_TYPES)
    if odd:
        return (f"fn receives {', '.join(odd)}, whose pandas form is not modelled row by row (a long"
                f" becomes float64 when its group has a missing value, a timestamp goes through local"
                f" time)")
    return overflow(inlined_expressions(op), timeout_ms)


def overflow(exprs: Sequence[X.Expr], timeout_ms: int) -> str:
    """Why some integer arithmetic in `exprs` may wrap in numpy, or "" when none can.

    numpy keeps an integer column's width (a Python int literal takes it), so each `+ - *`
    and negation must stay within the narrowest integer column it reads."""
    for e in exprs:
        for node in X.walk(e):
            if not isinstance(node, (X.Arith, X.Neg)) or X.dtype_of(node) not in INTEGRAL:
                continue
            widths = [INTEGER_BITS[c.dtype] for c in X.columns(node) if c.dtype in INTEGER_BITS]
            if not widths:
                continue
            bits = min(widths)
            with Modelling() as modelling:
                ev = Evaluator()
                row = SymbolicRow("num")
                cell = ev.eval(node, row)
            if modelling.failed:
                return f"cannot model {node}: {modelling.error}"
            fits = z3.And(cell.value >= -(2 ** (bits - 1)), cell.value < 2 ** (bits - 1))
            proof = prove(z3.Implies(z3.And(domain([row]), cell.notnull), fits), timeout_ms)
            if not proof.proved:
                return f"{node} may overflow a {bits}-bit integer, which numpy wraps ({proof.reason})"
    return ""
