"""The AGGREGATE category for GroupBy (paper, Section 4.2.2 and Table 2).

Equivalence F(Aggr(T)) = Aggr(G(T)) is proved for every table when
  (1) each aggregate is associative and commutative (max, min, sum, count);
  (2) any two rows of a group can be replaced by one row with the same
      aggregates (count through the duplication factor);
  (3) for non-empty U, V of one group: F fails on Aggr(U+V) iff it fails on
      Aggr(U) and on Aggr(V);
  (4) if F passes Aggr(U+V) and G removes all of V, then Aggr(U+V) = Aggr(U);
and F(Aggr(T)) = Aggr(G(T)) holds on every table of at most 2 rows (the base
case). Superset replaces (3) by (3'): F fails on Aggr(U+V) and G removes V
implies F fails on Aggr(U). By the paper's small-model argument, (3), (3') and
(4) are checked with U and V single rows.

(1) is a fact about the built-in functions; for a user-defined fold
(`aggregate(collect_list(x), zero, merge)`, the paper's Figure 1(2)) it is
proved on the merge with Z3. (2) is shown by building the replacement
row (the witness) and proving with Z3 that it gives the same output row. Where
no witness is known (two aggregates reading the same column, sum next to
count, sum over integers whose sum may not fit the column, a fold over an
expression), the operator is
refused with that reason. Global aggregates (no grouping keys) are refused:
they return a row even for an empty input, which filtering the input changes.
"""

from __future__ import annotations

from typing import Sequence

import z3

from magicpush_lab.ir import expr as X
from magicpush_lab.ir import plan as P
from magicpush_lab.ir.types import FRACTIONAL
from magicpush_lab.symbolic import nan
from magicpush_lab.symbolic.aggregate_ops import (Member, aggregates, group_output, merge_step, pivot_slots,
                                                  reduce_step, rows_for_some_slot, same_group, same_output_row)
from magicpush_lab.symbolic.encode import Evaluator, compare, truth
from magicpush_lab.symbolic.table import SymbolicRow, domain
from magicpush_lab.symbolic.values import Cell, default_value, fresh_cell, sort_of
from magicpush_lab.verify import aggregate_halves
from magicpush_lab.verify.counterexample import tables_from_model
from magicpush_lab.symbolic.solver import DEFAULT_TIMEOUT_MS, prove, satisfiable
from magicpush_lab.verify.verdict import SUPERSET, Modelling, Verdict, Verdicts, nondeterministic

CATEGORY = "AGGREGATE"
BASE_CASE_ROWS = 2
T = z3.BoolVal(True)


def verify(op: P.Aggregate, f: X.Expr, g: Sequence[X.Expr | None], kind: str,
           timeout_ms: int = DEFAULT_TIMEOUT_MS) -> Verdict:
    verdicts = Verdicts(kind, CATEGORY, BASE_CASE_ROWS)
    pred = g[0] if g else None
    if pred is None:
        return verdicts.refuse("no predicate for the input")
    reason = order_dependent_fold(op, timeout_ms)
    if reason:  # refused on every route: the original's own result is then not one bag to keep
        return verdicts.refuse(reason)
    by_groups = _whole_groups(op, f, pred, kind, timeout_ms)
    if by_groups is not None and by_groups.proved:
        return by_groups
    if op.deduplicate:
        return (_deduplicate_refusal(op, f, kind) or by_groups
                or verdicts.refuse("no predicate keeps whole groups"))
    if op.pivot and X.columns(f) & set(pivot_slots(op)):
        return _pivoted_columns(op, f, pred, kind, timeout_ms)
    general = _general(op, f, pred, kind, timeout_ms)
    if not general.proved:
        # the rows G keeps and those it removes, for aggregations pre-condition (2) refuses
        halves = aggregate_halves.verify(op, f, pred, kind, timeout_ms)
        if halves is not None and halves.proved:
            return halves
    reads_aggregates = any(isinstance(n, X.Agg) for c, e in op.outputs if c in X.columns(f) for n in X.walk(e))
    # the failure that explains most: the paper's pre-conditions when F reads an aggregate
    return general if general.proved or reads_aggregates or by_groups is None else by_groups


def order_dependent_fold(op: P.Aggregate, timeout_ms: int = DEFAULT_TIMEOUT_MS) -> str:
    """Why a user's fold of `op` gives a result that depends on an order Spark does not fix
    (pre-condition (1)), or "" when none does."""
    if not any(a.fold is not None for a in aggregates(op)):
        return ""
    with Modelling() as modelling:
        reason = _folds_ignore_row_order(op, timeout_ms)
    return modelling.reason if modelling.failed else reason


# The paper's pre-conditions for this category (module docstring), each checked by a function
# named after what it states; a refusal still names the paper's number:
#   (1)  _folds_ignore_row_order            (3)  _fails_on_union_iff_on_both
#   (2)  _two_rows_merge_into_one           (3') _still_fails_without_removed_rows
#                                           (4)  _removed_rows_change_no_kept_group


def _general(op: P.Aggregate, f: X.Expr, pred: X.Expr, kind: str, timeout_ms: int) -> Verdict:
    """The paper's route: pre-conditions (2), (3) or (3'), (4), then the 2-row base case ((1) holds:
    verify() checked it)."""
    verdicts = Verdicts(kind, CATEGORY, BASE_CASE_ROWS)
    reason = _refusal(op, f, pred)
    if reason:
        return verdicts.refuse(reason)
    with Modelling() as modelling:
        reason = _two_rows_merge_into_one(op, timeout_ms)  # (1) is checked by verify() first
        if reason:
            return verdicts.refuse(reason)
        checks = [("(4)", _removed_rows_change_no_kept_group(op, f, pred))]
        checks.insert(0, ("(3')", _still_fails_without_removed_rows(op, f, pred)) if kind == SUPERSET
                      else ("(3)", _fails_on_union_iff_on_both(op, f)))
        for name, (claim, uv) in checks:
            proof = prove(claim, timeout_ms)
            if not proof.proved:
                # U and V are one row each, of one group
                example = tables_from_model(proof.model, [uv]) if proof.model is not None else {}
                return verdicts.refuse(f"pre-condition {name} fails: {proof.reason}", example)
        claim, rows = _base_case(op, f, pred, kind)
    if modelling.failed:
        return verdicts.refuse(modelling.reason)
    proof = prove(claim, timeout_ms)
    if not proof.proved:
        example = tables_from_model(proof.model, [rows]) if proof.model is not None else {}
        return verdicts.refuse(f"base case fails: {proof.reason}", example)
    return verdicts.proved()


# ----------------------------------------------------------------------------- whole groups


def _whole_groups(op: P.Aggregate, f: X.Expr, g: X.Expr, kind: str, timeout_ms: int) -> Verdict | None:
    """A G that gives every row of a group the same verdict keeps or drops whole groups, so the
    groups it keeps have the same rows and the same aggregates, whatever the aggregates are
    (pivots, avg, black boxes). Proved on two rows, with the aggregate outputs left free (any
    value, NULL included, so the proof holds for whatever the aggregates compute):
      (a) rows of one group agree on G;
      (b) on one row r: F on r's group output <=> G(r) (=> for a superset pushdown).
    None for a global aggregate.
    """
    if not op.keys:
        return None
    verdicts = Verdicts(kind, CATEGORY, BASE_CASE_ROWS)
    on_keys = {c: e for c, e in op.outputs if not any(isinstance(n, X.Agg) for n in X.walk(e))}
    if op.deduplicate:
        # a column dropDuplicates passes on as a function of its keys is, in every input row,
        # that function of the row's keys (translate/spark_plan.function_of_keys): G reading
        # the input's column reads that value
        g = X.substitute(g, {c: e for c, e in on_keys.items() if e != c})
    reason = nondeterministic(f, g, *op.keys, *on_keys.values())
    if reason:
        return verdicts.refuse(reason)
    # (a) relates two rows of a group: over the reals only where their doubles are compared, as
    # Spark groups them (every NaN in one group, -0.0 with 0.0)
    gap = nan.order_gap((g, *op.keys))
    if gap:
        return verdicts.refuse(f"{gap}: the rows of a group are related over the reals")
    with Modelling() as modelling:
        original, rewritten = Evaluator(), Evaluator()
        r1, r2 = SymbolicRow("in0"), SymbolicRow("in1")
        same = same_group(op, r1, r2, original)
        out = SymbolicRow("out")  # aggregate outputs: fresh, unconstrained cells
        for col, e in on_keys.items():
            out.cells[(col.name, col.id)] = original.eval(e, r1)
            original.eval(e, r2)  # every group's output is computed: r2's raising there raised before
        passes = _passes(f, out, original)
        g1, g2 = truth(rewritten.eval(g, r1)), truth(rewritten.eval(g, r2))
        reads = Evaluator()  # the aggregates read every row; a dropped group may have raised there
        for a in aggregates(op):
            if a.arg is not None:
                reads.eval(a.arg, r1)
    if modelling.failed:
        return None  # the paper's route may still model what this one cannot
    kept = passes == g1 if kind != SUPERSET else z3.Implies(passes, g1)
    facts = z3.And(domain([r1, r2]), z3.Not(original.error()))
    claims = [("G differs within a group", z3.Implies(same, g1 == g2)),
              ("F on the group's output and G disagree", kept)]
    for name, claim in claims:
        proof = prove(z3.Implies(facts, z3.And(z3.Not(rewritten.error()), claim)), timeout_ms)
        if not proof.proved:
            example = tables_from_model(proof.model, [[r1, r2]]) if proof.model is not None else {}
            return verdicts.refuse(f"{name}: {proof.reason}", example)
    hides = satisfiable(z3.And(domain([r1]), reads.error()), timeout_ms)
    return verdicts.proved("proved: G keeps or drops whole groups", may_hide_errors=hides is not False)


# ----------------------------------------------------------------------------- dropDuplicates, pivot


def _deduplicate_refusal(op: P.Aggregate, f: X.Expr, kind: str) -> Verdict | None:
    """dropDuplicates(subset): the other columns come from one arbitrary row of each group, so
    a filter reading them would change which row that is (only whole groups can move)."""
    others = sorted((c for c, e in op.outputs if isinstance(e, X.Agg) and c in X.columns(f)), key=str)
    if not others:
        return None
    keys = ", ".join(str(k) for k in op.keys)
    return Verdicts(kind, CATEGORY, BASE_CASE_ROWS).refuse(
        f"dropDuplicates on [{keys}] keeps one arbitrary row of each group: a filter on {others[0]}, "
        "not one of those columns, below it would change which row that is")


def _pivoted_columns(op: P.Aggregate, f: X.Expr, pred: X.Expr, kind: str, timeout_ms: int) -> Verdict:
    """A filter on pivoted columns, proved slot by slot from the GroupBy pre-conditions.

    G has the shape `K AND (NOT (p <=> v1) OR H1) AND ...`: conjuncts K on the group (proved to
    keep or drop whole groups, F => K), and for each pivot value v_i a test H_i of the rows of
    that value only; the rows of every other value stay. Let F_i be the conjuncts of F that
    read column v_i (and the keys). For a group whose rows of value v_i are S:
      (i) F_i fails when the column is NULL (no row of v_i), so a group that loses all of S
          shows no row F_i passes, and one that keeps a row F_i passes keeps S's value;
      (ii) F_i(Aggr(S)) = F_i(Aggr(H_i(S))) for every S: the GroupBy superset pushdown of H_i
          for F_i over `fn(x)` alone (pre-conditions (1), (2), (3'), (4) and the base case);
    so where F passes every F_i passes and every column keeps its value, and where F fails some
    F_i fails, before and after. The late filter stays: groups with rows of other values remain.
    G may also hold the rows that add to some pivoted column (aggregate_ops.rows_for_some_slot,
    proved by `_adds_to_no_slot_unless`): applied first, it changes no kept group's columns, so
    the rest of G is proved on the pivot as it is.
    """
    verdicts = Verdicts(kind, CATEGORY, BASE_CASE_ROWS)
    if kind != SUPERSET:
        return verdicts.refuse(
            "a pivot keeps every group that has rows of another value, its pivoted column NULL: "
            "the late filter must stay")
    slots = pivot_slots(op)
    some = rows_for_some_slot(op)
    took_some = some is not None and set(X.conjuncts(some)) <= set(X.conjuncts(pred))
    if took_some:
        reason = _adds_to_no_slot_unless(op, some, f, timeout_ms)
        if reason:
            return verdicts.refuse(reason)
        pred = X.and_(*(c for c in X.conjuncts(pred) if c not in X.conjuncts(some)))
        if pred == X.TRUE:
            return verdicts.proved("proved: the rows that add to no pivoted column go with the groups the "
                                   "late filter drops")
    by_value = {s.chosen: (c, s) for c, s in slots.items()}
    on_group, tests = [], []
    for part in X.conjuncts(pred):
        found = _slot_part(part, by_value)
        if found is None:
            on_group.append(part)
        else:
            tests.append(found)
    if not tests and not took_some:
        return verdicts.refuse("the predicate tests no pivoted value's rows")
    if on_group:
        whole = _whole_groups(op, f, X.and_(*on_group), SUPERSET, timeout_ms)
        if whole is None or not whole.proved:
            return whole or verdicts.refuse("a global pivot")
    keys = tuple((c, e) for c, e in op.outputs if c not in slots)
    for (col, slot), h in tests:
        f_i = X.and_(*(c for c in X.conjuncts(f) if col in X.columns(c) and not X.columns(c) & (set(slots) - {col})))
        if f_i == X.TRUE:
            return verdicts.refuse(
                f"the predicate tests the rows of {slot.chosen}, whose column {col} the late filter "
                "does not read alone")
        reason = _fails_on_null(op, f_i, col, timeout_ms)
        if reason:
            return verdicts.refuse(reason)
        one = P.Aggregate(op.child, op.keys, keys + ((col, slot.agg),), op.origin)
        verdict = _general(one, f_i, h, SUPERSET, timeout_ms)
        if not verdict.proved:
            return verdicts.refuse(
                f"pivoted column {col} ({slot.agg} over the rows where {slot.chosen}): {verdict.reason}",
                verdict.counterexample)
    return verdicts.proved("proved: each pivoted value's rows, as for its aggregate")


def _adds_to_no_slot_unless(op: P.Aggregate, some: X.Expr, f: X.Expr, timeout_ms: int) -> str:
    """Why dropping the rows where `some` fails may change what the late filter keeps, or "".

    (a) On such a row, every slot's argument (`CASE WHEN p <=> v THEN x END`, and a count
        slot's row count) is NULL, and every slot's aggregate skips NULLs
        (symbolic/aggregate_ops.rows_for_some_slot): a group keeping a row keeps every value.
    (b) A group left without rows is gone, where before it showed every pivoted column NULL:
        the late filter must fail on such a row, whatever its keys.
    """
    with Modelling() as modelling:
        ev, row = Evaluator(), SymbolicRow("in0")
        kept = truth(ev.eval(some, row))
        arguments = [ev.eval(n.arg, row) for _, e in op.outputs for n in X.walk(e)
                     if isinstance(n, X.Agg) and n.arg is not None]
    if modelling.failed:
        return modelling.reason
    facts = z3.And(domain([row]), z3.Not(ev.error()))
    nothing = z3.Implies(facts, z3.Implies(z3.Not(kept), z3.And(*[z3.Not(a.notnull) for a in arguments])))
    proof = prove(nothing, timeout_ms)
    if not proof.proved:
        return f"a row the predicate drops may add to a pivoted column: {proof.reason}"
    aggregated = {c for c, e in op.outputs if any(isinstance(n, X.Agg) for n in X.walk(e))}
    why = _passes_with_nulls(op, f, aggregated, timeout_ms)
    return f"the late filter can keep a group whose pivoted columns are all NULL: {why}" if why else ""


def _slot_part(part: X.Expr, by_value: dict) -> tuple | None:
    """((column, slot), H) when `part` is `NOT (p <=> v) OR H` for a pivoted value v."""
    if not isinstance(part, X.Or):
        return None
    for d in part.args:
        if isinstance(d, X.Not) and d.arg in by_value:
            rest = X.or_(*(x for x in part.args if x is not d))
            return by_value[d.arg], rest
    return None


def _fails_on_null(op: P.Aggregate, f_i: X.Expr, col: X.Col, timeout_ms: int) -> str:
    """Why F_i may pass a group whose pivoted column `col` is NULL, or ""."""
    why = _passes_with_nulls(op, f_i, {col}, timeout_ms)
    return f"the late filter can keep a group without rows for {col} (NULL there): {why}" if why else ""


def _passes_with_nulls(op: P.Aggregate, f: X.Expr, nulls: set[X.Col], timeout_ms: int) -> str:
    """Why `f` may pass an output row of `op` whose columns `nulls` are NULL (the keys those of
    some input row, the other aggregates free), or "" when it fails on every such row."""
    with Modelling() as modelling:
        ev, row = Evaluator(), SymbolicRow("in0")
        out = SymbolicRow("out")  # other outputs free
        for c, e in op.outputs:
            if c in nulls:
                out.cells[(c.name, c.id)] = Cell(default_value(sort_of(c.dtype)), z3.BoolVal(False))
            elif not any(isinstance(n, X.Agg) for n in X.walk(e)):
                out.cells[(c.name, c.id)] = ev.eval(e, row)
        passes = _passes(f, out, ev)
    if modelling.failed:
        return modelling.reason
    proof = prove(z3.Implies(z3.And(domain([row]), z3.Not(ev.error())), z3.Not(passes)), timeout_ms)
    return "" if proof.proved else proof.reason


# ----------------------------------------------------------------------------- refusals and (1), (2)


def _refusal(op: P.Aggregate, f: X.Expr, g: X.Expr) -> str:
    if not op.keys:
        return "a global aggregate returns a row even when its input is empty"
    exprs = (*op.keys, *(e for _, e in op.outputs), f, g)
    reason = nondeterministic(*exprs)
    if reason:
        return reason
    if any(X.has_python_udf(e) for e in exprs):
        return "Python UDFs inside an aggregation are not analysed yet"
    for a in aggregates(op):
        if a.fn not in ("max", "min", "sum", "count", "fold"):
            return f"{a}: pre-condition (1) not established (only max, min, sum, count and proved folds are)"
    return ""


def _folds_ignore_row_order(op: P.Aggregate, timeout_ms: int) -> str:
    """Pre-condition (1), each aggregate associative and commutative, where it is not known
    (it is for max, min, sum and count): a user-defined fold gives the same result in any
    order of the group's rows (collect_list has none): merge(merge(acc, a), b) =
    merge(merge(acc, b), a) for every accumulator and values a, b. Swapping neighbours this
    way reaches every order, so one step is the proof; the two orders must also raise alike."""
    for a in aggregates(op):
        if a.fold is None:
            continue
        body = a.fold
        with Modelling() as modelling:
            one, two = Evaluator(), Evaluator()
            acc = fresh_cell("acc", body.acc.dtype)
            # the values folded in are never NULL (merge_step): typed as such
            x, y = (Cell(fresh_cell(n, body.elem.dtype).value, T) for n in "ab")
            xy = merge_step(body, merge_step(body, acc, x, one), y, one)
            yx = merge_step(body, merge_step(body, acc, y, two), x, two)
        if modelling.failed:
            return f"{a}: cannot model the merge: {modelling.error}"
        same = z3.And(xy.notnull == yx.notnull, z3.Implies(xy.notnull, xy.value == yx.value))
        claim = z3.And(one.error() == two.error(), z3.Implies(z3.Not(one.error()), same))
        # an integer accumulator holds what its type holds: it is a value the merge made, or the zero
        typed = _typed([(acc, body.acc.dtype), (x, body.elem.dtype), (y, body.elem.dtype)])
        proof = prove(z3.Implies(typed, claim), timeout_ms)
        if not proof.proved:
            return f"{a}: pre-condition (1) fails, the result depends on the order of the rows: {proof.reason}"
        if body.reduce is not None:
            why = _reduce_is_the_fold(body.reduce, timeout_ms)
            if why:
                return f"{a}: {why}"
    return ""


def _typed(cells: list[tuple[Cell, str]]) -> z3.BoolRef:
    """What the types guarantee of cells made outside a row (table.domain's facts)."""
    row = SymbolicRow("typed")
    for i, (cell, dtype) in enumerate(cells):
        row.cells[(f"c{i}", -i - 1)] = cell
        row.types[f"c{i}"] = dtype
    return domain([row])


def _reduce_is_the_fold(f: X.PyUdf, timeout_ms: int) -> str:
    """`rdd.reduceByKey(f)` is the fold of verify's reading (translate/rdd.py: no start value, None
    values skipped) when f gives its other argument back for None, or raises, as Python calls it
    with every value; and Spark's partial results, merged with f in any grouping and order, give
    the fold's result: f commutative and associative, NULL standing for "no value yet". Each
    claim holds where the calls compared do not raise, and they raise alike."""

    def called(left: Cell, right: Cell, ev: Evaluator) -> Cell:  # f itself, on any two values
        row = SymbolicRow("reduce")
        row.cells[(f.args[0].name, f.args[0].id)], row.cells[(f.args[1].name, f.args[1].id)] = left, right
        return ev.eval(f, row)

    none = Cell(default_value(sort_of(f.dtype)), z3.BoolVal(False))
    a, b, c = (fresh_cell(n, f.dtype) for n in "abc")
    # (what is claimed, the two sides, each evaluated on its own Evaluator, whether they must raise alike)
    claims = [
        ("f(a, None) is a", lambda ev: called(a, none, ev), lambda ev: a, False),
        ("f(None, b) is b", lambda ev: called(none, b, ev), lambda ev: b, False),
        # reduce_step: two partial results, either none yet
        ("f commutes", lambda ev: reduce_step(f, a, b, ev), lambda ev: reduce_step(f, b, a, ev), True),
        ("f is associative", lambda ev: reduce_step(f, reduce_step(f, a, b, ev), c, ev),
         lambda ev: reduce_step(f, a, reduce_step(f, b, c, ev), ev), True),
    ]
    typed = _typed([(a, f.dtype), (b, f.dtype), (c, f.dtype)])
    for name, left, right, alike in claims:
        with Modelling() as modelling:
            one, two = Evaluator(), Evaluator()
            x, y = left(one), right(two)
        if modelling.failed:
            return f"cannot model reduceByKey's function: {modelling.error}"
        same = z3.And(x.notnull == y.notnull, z3.Implies(x.notnull, x.value == y.value))
        raises = z3.Or(one.error(), two.error())
        claim = z3.And(one.error() == two.error() if alike else T, z3.Implies(z3.Not(raises), same))
        proof = prove(z3.Implies(typed, claim), timeout_ms)
        if not proof.proved:
            return (f"pre-condition (1) fails for reduceByKey's function ({name} is not proved: Spark's result "
                    f"depends on how it groups the values, or on the None values it is given): {proof.reason}")
    return ""


def _two_rows_merge_into_one(op: P.Aggregate, timeout_ms: int) -> str:
    """Pre-condition (2): two rows of a group can be replaced by one row with the same
    aggregates (count through the duplication factor): build that row and prove it."""
    aggs = aggregates(op)
    counts = any(a.fn == "count" for a in aggs)
    key_cols = frozenset(c for k in op.keys for c in X.columns(k))
    seen: dict[X.Col, X.Agg] = {}
    for a in aggs:
        if a.fn == "count" and a.arg is not None:
            return f"{a}: pre-condition (2) not established for count of a column"
        if a.fold is not None:
            if not isinstance(a.arg, X.Col) or a.fold.elem.dtype != a.fold.acc.dtype:
                return f"{a}: pre-condition (2) not established (a fold over an expression or into another type)"
            if counts:
                return f"{a} next to count: pre-condition (2) not established"
        if a.fn == "sum":
            if not isinstance(a.arg, X.Col) or a.arg.dtype not in FRACTIONAL:
                return f"{a}: pre-condition (2) not established (sum over an integer or an expression)"
            if counts:
                return f"{a} next to count: pre-condition (2) not established"
        for c in X.columns(a.arg) - key_cols if a.arg is not None else ():
            if c in seen and seen[c] != a:
                return f"{seen[c]} and {a} read the same column: pre-condition (2) not established"
            seen[c] = a

    ev = Evaluator()
    r1, r2 = SymbolicRow("w1"), SymbolicRow("w2")
    d1, d2 = z3.Int("dup_w1"), z3.Int("dup_w2")
    both = group_output(op, [Member(r1, T, d1), Member(r2, T, d2)], ev)
    # the witness takes each aggregate's columns from the row that decides it
    w = SymbolicRow("w", route=[(None, r1)])
    for a in aggs:
        if a.arg is None:
            continue
        c1, c2 = ev.eval(a.arg, r1), ev.eval(a.arg, r2)
        if a.fn in ("max", "min"):
            op_ = ">=" if a.fn == "max" else "<="
            from_r1 = z3.And(c1.notnull, z3.Or(z3.Not(c2.notnull), compare(op_, c1.value, c2.value)))
            for col in X.columns(a.arg) - key_cols:
                x1, x2 = r1.cell(col), r2.cell(col)
                w.cells[(col.name, col.id)] = Cell(z3.If(from_r1, x1.value, x2.value),
                                                   z3.If(from_r1, x1.notnull, x2.notnull))
        elif a.fold is not None:
            # one row holding merge(x1, x2): folding it in is folding in x1 then x2 when the
            # merge is associative, which the proof below checks
            merged = merge_step(a.fold, Cell(c1.value, T), c2, ev)
            both_there = z3.And(c1.notnull, c2.notnull)
            w.cells[(a.arg.name, a.arg.id)] = Cell(
                z3.If(both_there, merged.value, z3.If(c1.notnull, c1.value, c2.value)),
                z3.If(both_there, merged.notnull, z3.Or(c1.notnull, c2.notnull)))
        else:  # sum over a column
            x1, x2 = c1, c2
            value = z3.If(z3.And(x1.notnull, x2.notnull), x1.value + x2.value,
                          z3.If(x1.notnull, x1.value, x2.value))
            w.cells[(a.arg.name, a.arg.id)] = Cell(value, z3.Or(x1.notnull, x2.notnull))
    dw = d1 + d2 if counts else z3.IntVal(1)
    one = group_output(op, [Member(w, T, dw)], ev)
    dups = z3.And(d1 >= 1, d2 >= 1) if counts else z3.And(d1 == 1, d2 == 1)
    facts = z3.And(domain([r1, r2]), same_group(op, r1, r2, ev), dups, z3.Not(ev.error()))
    proof = prove(z3.Implies(facts, z3.And(domain([w]), same_output_row(op, both, one))), timeout_ms)
    return "" if proof.proved else f"pre-condition (2) not established: {proof.reason}"


# ----------------------------------------------------------------------------- (3), (3'), (4)


def _uv(op: P.Aggregate, ev: Evaluator):
    u, v = SymbolicRow("u"), SymbolicRow("v")
    counts = any(a.fn == "count" for a in aggregates(op))
    du, dv = (z3.Int("dup_u"), z3.Int("dup_v")) if counts else (z3.IntVal(1), z3.IntVal(1))
    out_uv = group_output(op, [Member(u, T, du), Member(v, T, dv)], ev)
    out_u = group_output(op, [Member(u, T, du)], ev)
    out_v = group_output(op, [Member(v, T, dv)], ev)
    facts = z3.And(same_group(op, u, v, ev), du >= 1, dv >= 1)
    return u, v, out_uv, out_u, out_v, facts


def _passes(f: X.Expr, row: SymbolicRow, ev: Evaluator) -> z3.BoolRef:
    return truth(ev.eval(f, row))


def _fails_on_union_iff_on_both(op: P.Aggregate, f: X.Expr) -> tuple[z3.BoolRef, list[SymbolicRow]]:
    """Pre-condition (3): F fails on the group of U and V exactly when it fails on U's group
    and on V's, with U and V single rows of one group (the claim, and [U, V])."""
    ev = Evaluator()
    u, v, uv, ou, ov, facts = _uv(op, ev)
    fails = z3.Not(_passes(f, uv, ev)) == z3.And(z3.Not(_passes(f, ou, ev)), z3.Not(_passes(f, ov, ev)))
    return z3.Implies(z3.And(facts, domain([u, v]), z3.Not(ev.error())), fails), [u, v]


def _still_fails_without_removed_rows(op: P.Aggregate, f: X.Expr,
                                      g: X.Expr) -> tuple[z3.BoolRef, list[SymbolicRow]]:
    """Pre-condition (3'), a superset pushdown's (3): where F fails on the group of U and V and
    G removes V, F fails on U's group too."""
    ev = Evaluator()
    u, v, uv, ou, _, facts = _uv(op, ev)
    premise = z3.And(z3.Not(_passes(f, uv, ev)), z3.Not(truth(ev.eval(g, v))))
    return z3.Implies(z3.And(facts, domain([u, v]), z3.Not(ev.error())),
                      z3.Implies(premise, z3.Not(_passes(f, ou, ev)))), [u, v]


def _removed_rows_change_no_kept_group(op: P.Aggregate, f: X.Expr,
                                       g: X.Expr) -> tuple[z3.BoolRef, list[SymbolicRow]]:
    """Pre-condition (4): where F keeps the group of U and V and G removes V, U alone gives
    the same output row."""
    ev = Evaluator()
    u, v, uv, ou, _, facts = _uv(op, ev)
    premise = z3.And(_passes(f, uv, ev), z3.Not(truth(ev.eval(g, v))))
    return z3.Implies(z3.And(facts, domain([u, v]), z3.Not(ev.error())),
                      z3.Implies(premise, same_output_row(op, uv, ou))), [u, v]


# ----------------------------------------------------------------------------- base case


def _slots(op: P.Aggregate, rows: list[SymbolicRow], present: list[z3.BoolRef], dups: list[z3.ArithRef],
           ev: Evaluator) -> list[tuple[z3.BoolRef, SymbolicRow]]:
    """Output rows of GroupBy on two optional rows: one group if they share keys, else two."""
    r1, r2 = rows
    e1, e2 = present
    same = z3.And(e1, e2, same_group(op, r1, r2, ev))
    a = group_output(op, [Member(r1, T, dups[0]), Member(r2, same, dups[1])], ev)
    b = group_output(op, [Member(r2, T, dups[1])], ev)
    return [(e1, a), (z3.And(e2, z3.Not(same)), b)]


def _base_case(op: P.Aggregate, f: X.Expr, g: X.Expr, kind: str) -> tuple[z3.BoolRef, list[SymbolicRow]]:
    rows = [SymbolicRow("in0"), SymbolicRow("in1")]
    present = [z3.Bool("exists_in0"), z3.Bool("exists_in1")]
    counts = any(a.fn == "count" for a in aggregates(op))
    dups = [z3.Int("dup_in0"), z3.Int("dup_in1")] if counts else [z3.IntVal(1), z3.IntVal(1)]
    original = Evaluator()
    lhs = [(z3.And(ex, _passes(f, out, original)), out) for ex, out in _slots(op, rows, present, dups, original)]
    rewritten = Evaluator()
    kept = [z3.And(ex, truth(rewritten.eval_guarded(g, r, ex))) for ex, r in zip(present, rows)]
    rhs = _slots(op, rows, kept, dups, rewritten)
    if kind == SUPERSET:
        rhs = [(z3.And(ex, _passes(f, out, rewritten)), out) for ex, out in rhs]
    facts = z3.And(domain(rows), *(d >= 1 for d in dups), z3.Not(original.error()))
    for r, ex in zip(rows, present):
        r.exists = ex
    claim = z3.Implies(facts, z3.And(z3.Not(rewritten.error()), _bags_equal(op, lhs, rhs)))
    return claim, rows


def _bags_equal(op: P.Aggregate, a: list, b: list) -> z3.BoolRef:
    def same(x, y) -> z3.BoolRef:
        (ex, rx), (ey, ry) = x, y
        return z3.Or(z3.And(z3.Not(ex), z3.Not(ey)), z3.And(ex, ey, same_output_row(op, rx, ry)))

    return z3.Or(z3.And(same(a[0], b[0]), same(a[1], b[1])), z3.And(same(a[0], b[1]), same(a[1], b[0])))
