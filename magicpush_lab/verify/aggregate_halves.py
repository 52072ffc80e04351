"""GroupBy's second route: each group split into the rows G keeps and the rows it removes.

The paper's route (verify/aggregate.py) needs pre-condition (2), a witness row that merges any
two rows, which it lacks for many aggregations users write: a sum beside a count of the same
column, two counts of different conditions, min and max of one column. This route needs none.
It is the simulation argument of Pusharoo ("Optimal Predicate Pushdown Synthesis", PLDI 2026)
specialised to Spark's built-in aggregates, whose partial results merge in any order: a group's
rows S split into K (G TRUE) and R (G FALSE or NULL), and Aggr(S) = Aggr(K) (+) Aggr(R), where
(+) merges two partial results (max of maxes, sum of counts...), for any number of rows and
any order Spark merges them in.

Each half is described by what any multiset of its rows can give, per aggregate:
  max x, min x:  NULL, or x of one row of that half (a witness row);
  count x:       n >= 0, n > 0 only with a witness row whose x is not NULL;
  count(*):      n >= 0, n >= 1 exactly when the half has rows;
  sum x:         NULL, or a value with a witness row whose x is not NULL;
  avg x:         NULL, or a value with such a witness row;
  max_by(x, o):  NULL with no row whose o is not NULL, else x of one row of that half with o
                 not NULL (a witness row whose o is the half's largest; min_by the smallest);
  second_max x:  the second item of the half's x sorted from the largest, equal values apart
                 (get(sort_array(collect_list(x), false), 1)): NULL, or x of a second witness
                 row, at most the first witness's x, which is the half's max (second_min alike);
and where a half has rows but an aggregate is NULL (0 for a count), every row of the half the
model names (one row per half, and each aggregate's witness row) has x NULL. Every pair of
halves a real group has is one of these, so a claim proved for all of them holds for every
group of every table: no base case is needed. The removed rows of a
sum must add nothing (x NULL or 0: proved on one row) and those of an average must all be NULL,
so that sums of doubles (NaN, rounding) and of integers (overflow, which raises) are the same
numbers before and after. The claims, F the late filter:
  superset:   F(Aggr(S)) => K has rows and Aggr(S) = Aggr(K);
              K has rows and not F(Aggr(S)) => not F(Aggr(K));
  equivalent: F(Aggr(S)) <=> K has rows, and Aggr(S) = Aggr(K) where F holds.
Merging two halves' second_max: when K's largest is at least R's, the larger of K's second and
R's largest, else the larger of K's largest and R's second.
Merging two halves' max_by takes the half whose witness has the larger o; where both tie, the
original may take either, so the claim must hold for both (a free choice). Ties inside one half
are the same choice before and after (one witness stands for it), as for TOPK and windows.
G itself must not raise on a row whose aggregate arguments do not; an argument that raises on a
row G removes makes the suggestion say it may hide an error.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import z3

from magicpush_lab.ir import expr as X
from magicpush_lab.ir import plan as P
from magicpush_lab.symbolic import nan
from magicpush_lab.symbolic.aggregate_ops import aggregates, output_row, same_group, same_output_row
from magicpush_lab.symbolic.encode import Evaluator, compare, truth
from magicpush_lab.symbolic.solver import DEFAULT_TIMEOUT_MS, prove, satisfiable
from magicpush_lab.symbolic.table import SymbolicRow, domain
from magicpush_lab.symbolic.values import Cell, default_value, fresh, sort_of
from magicpush_lab.verify.verdict import SUPERSET, Modelling, Verdict, Verdicts

CATEGORY = "AGGREGATE"
DESCRIBED = frozenset({"max", "min", "count", "sum", "avg", "max_by", "min_by", "second_max", "second_min"})
SECOND = {"second_max": "max", "second_min": "min"}
T = z3.BoolVal(True)


@dataclass
class Half:
    """The rows of a group on one side of G: whether there are any, and each aggregate's value
    over them."""

    has_rows: z3.BoolRef
    values: dict[X.Agg, Cell]
    # max_by/min_by: the ordering value of the half's witness row (NULL when no row has one)
    orders: dict[X.Agg, Cell] = field(default_factory=dict)


def applies(op: P.Aggregate) -> str:
    """Why this route cannot describe `op`'s aggregates, or "" when it can."""
    if not op.keys or op.pivot or op.deduplicate:
        return "a global aggregate, a pivot or a deduplication"
    for a in aggregates(op):
        if a.fn not in DESCRIBED or a.fold is not None:
            return f"{a}: not a built-in max, min, count, sum, avg, max_by or min_by, nor a sorted list's item"
        if a.distinct and a.fn not in ("max", "min"):
            return f"{a}: DISTINCT"
        if a.dtype.startswith("decimal") or (a.arg is not None and X.dtype_of(a.arg).startswith("decimal")):
            return f"{a}: decimals (their sums can overflow to NULL)"
    return ""


def verify(op: P.Aggregate, f: X.Expr, g: X.Expr, kind: str, timeout_ms: int = DEFAULT_TIMEOUT_MS) -> Verdict | None:
    """The verdict of this route, or None where it does not apply (the caller keeps the
    paper's route's refusal then)."""
    if applies(op):
        return None
    aggs = aggregates(op)
    # doubles are reals in the model: sound where they are only compared (symbolic/nan.py). A
    # sum's or an average's argument may compute (the removed rows add nothing to it); what
    # reads the aggregates' values, and what picks the extrema, may not
    outputs = [X.transform(e, lambda n: X.Col("aggregate", -1, n.dtype) if isinstance(n, X.Agg) else None)
               for _, e in op.outputs]
    extrema = [a.arg for a in aggs if a.arg is not None and a.fn in ("max", "min", *SECOND)]
    extrema += [a.by for a in aggs if a.by is not None]
    if nan.order_gap((f, g, *op.keys, *outputs, *extrema)):
        return None
    verdicts = Verdicts(kind, CATEGORY, 1 + 4 * len(aggs))
    for a in aggs:
        reason = _removed_rows_add_nothing(a, g, timeout_ms)
        if reason:
            return verdicts.refuse(reason)
    with Modelling() as modelling:
        original = Evaluator()
        rep = SymbolicRow("rep")
        rows: list[SymbolicRow] = [rep]
        facts: list[z3.BoolRef] = []
        kept = _half(op, aggs, g, True, rep, original, rows, facts)
        removed = _half(op, aggs, g, False, rep, original, rows, facts)
        whole = _merged(aggs, kept, removed)
        # the rewrite computes the outputs, and F for a superset pushdown, on K's values: what
        # raises there raises in the rewrite only, so it is kept apart from the original's errors
        rewritten = Evaluator()
        out_all, out_kept = output_row(op, rep, whole, original), output_row(op, rep, kept.values, rewritten)
        passes_all, passes_kept = truth(original.eval(f, out_all)), truth(rewritten.eval(f, out_kept))
        same = same_output_row(op, out_all, out_kept)
        safe = _g_raises_only_with_the_arguments(aggs, g, timeout_ms)
    if modelling.failed:
        return verdicts.refuse(modelling.reason)
    if safe:
        return verdicts.refuse(safe)
    exists = z3.Or(kept.has_rows, removed.has_rows)
    if kind == SUPERSET:
        claim = z3.And(z3.Implies(passes_all, z3.And(kept.has_rows, same)),
                       z3.Implies(z3.And(kept.has_rows, z3.Not(passes_all)), z3.Not(passes_kept)))
    else:
        claim = z3.And(passes_all == kept.has_rows, z3.Implies(passes_all, same))
    claim = z3.And(claim, z3.Implies(kept.has_rows, z3.Not(rewritten.error())))
    premises = z3.And(exists, domain(rows), z3.Not(original.error()), *facts)
    proof = prove(z3.Implies(premises, claim), timeout_ms)
    if not proof.proved:
        # no counterexample table: the witness rows stand for halves of any size, not one table
        return verdicts.refuse(f"the rows G removes can change a kept group or let a dropped one pass: "
                               f"{proof.reason}")
    hides = _may_hide_errors(aggs, g, timeout_ms)
    return verdicts.proved("proved for groups of any size: the rows G keeps and those it removes, each half "
                           "described per aggregate", may_hide_errors=hides)


def _half(op: P.Aggregate, aggs: Sequence[X.Agg], g: X.Expr, keeps: bool, rep: SymbolicRow, ev: Evaluator,
          rows: list[SymbolicRow], facts: list[z3.BoolRef]) -> Half:
    side = "kept" if keeps else "removed"
    has_rows = z3.Bool(f"{side}_has_rows")

    def member(tag: str) -> tuple[SymbolicRow, z3.BoolRef]:
        """A row of this half of rep's group: G TRUE on it for the kept half, else not."""
        row = SymbolicRow(tag)
        rows.append(row)
        g_true = truth(ev.eval(g, row))
        return row, z3.And(same_group(op, rep, row, ev), g_true if keeps else z3.Not(g_true))

    some, some_in = member(f"{side}_row")
    facts.append(z3.Implies(has_rows, some_in))
    values: dict[X.Agg, Cell] = {}
    half_orders: dict[X.Agg, Cell] = {}
    # (argument, when the aggregate says every row of the half has it NULL) and the half's rows
    # the model names: an aggregate NULL over the half (a count 0) means NULL on each of them
    all_null: list[tuple[X.Expr, z3.BoolRef]] = []
    named = [(some, some_in)]
    for i, a in enumerate(aggs):
        tag = f"{side}_{i}"
        if a.arg is None:  # count(*)
            n = z3.Int(f"{tag}_n")
            facts.append(z3.And(n >= 0, (n >= 1) == has_rows))
            values[a] = Cell(n, T)
            continue
        witness, witness_in = member(f"{tag}_w")
        named.append((witness, witness_in))
        x = ev.eval(a.arg, witness)
        if a.by is not None:  # max_by, min_by: the witness is a row with the half's extreme order
            order = ev.eval(a.by, witness)
            has_order = z3.Bool(f"{tag}_has_order")
            facts += [z3.Implies(has_order, z3.And(has_rows, witness_in, order.notnull)),
                      z3.Implies(z3.And(has_rows, z3.Not(has_order)), z3.Not(ev.eval(a.by, some).notnull))]
            values[a] = Cell(x.value, z3.And(has_order, x.notnull))
            half_orders[a] = Cell(order.value, has_order)
            all_null.append((a.by, z3.Not(has_order)))
            continue
        some_null = z3.Not(ev.eval(a.arg, some).notnull)
        if a.fn in SECOND:  # the witness is the half's first item; a second witness its second
            first = z3.Bool(f"{tag}_first")
            second_row, second_in = member(f"{tag}_w2")
            named.append((second_row, second_in))
            y = ev.eval(a.arg, second_row)
            has_second = z3.Bool(f"{tag}_second")
            below = compare("<=" if SECOND[a.fn] == "max" else ">=", y.value, x.value)
            facts += [z3.Implies(first, z3.And(has_rows, witness_in, x.notnull)),
                      z3.Implies(z3.And(has_rows, z3.Not(first)), some_null),
                      z3.Implies(has_second, z3.And(first, second_in, y.notnull, below))]
            all_null.append((a.arg, z3.Not(first)))
            values[a] = Cell(y.value, has_second)
            half_orders[a] = Cell(x.value, first)
            continue
        if a.fn == "count":
            n = z3.Int(f"{tag}_n")
            facts += [n >= 0, z3.Implies(n > 0, z3.And(has_rows, witness_in, x.notnull)),
                      z3.Implies(z3.And(has_rows, n == 0), some_null)]
            values[a] = Cell(n, T)
            all_null.append((a.arg, n == 0))
            continue
        notnull = z3.Bool(f"{tag}_notnull")
        facts += [z3.Implies(notnull, z3.And(has_rows, witness_in, x.notnull)),
                  z3.Implies(z3.And(has_rows, z3.Not(notnull)), some_null)]
        all_null.append((a.arg, z3.Not(notnull)))
        if a.fn in ("max", "min"):
            values[a] = Cell(x.value, notnull)
        else:  # sum, avg: a value only a witness row vouches for
            values[a] = Cell(fresh(f"{tag}_{a.fn}", sort_of(a.dtype)), notnull)
    for arg, none in all_null:
        for row, row_in in named:
            facts.append(z3.Implies(z3.And(has_rows, row_in, none), z3.Not(ev.eval(arg, row).notnull)))
    # a sorted list's first item is the half's max (min) of the same column
    for a in aggs:
        for b in aggs:
            if a.fn in SECOND and b.fn == SECOND[a.fn] and b.arg == a.arg and not b.distinct:
                top, m = half_orders[a], values[b]
                facts.append(z3.And(top.notnull == m.notnull, z3.Implies(top.notnull, top.value == m.value)))
    # the half has one extreme ordering value: the witnesses of max_by (min_by) aggregates over
    # one ordering share it (the fields of a struct's max are one row's)
    picked = [a for a in aggs if a.by is not None]
    for i, a in enumerate(picked):
        for b in picked[i + 1:]:
            if (a.fn, a.by) == (b.fn, b.by):
                oa, ob = half_orders[a], half_orders[b]
                facts.append(z3.And(oa.notnull == ob.notnull, z3.Implies(oa.notnull, oa.value == ob.value)))
    return Half(has_rows, values, half_orders)


def _merged(aggs: Sequence[X.Agg], k: Half, r: Half) -> dict[X.Agg, Cell]:
    """Aggr(K) (+) Aggr(R). R adds nothing to a sum or an average (checked before the claim):
    a sum is K's, or 0 where K has no value and R has zeros; an average is K's."""
    merged = {}
    for i, a in enumerate(aggs):
        x, y = k.values[a], r.values[a]
        if a.by is not None:
            ox, oy = k.orders[a], r.orders[a]
            # on a tie between the halves' witnesses the original may take either row
            tie = z3.And(ox.notnull, oy.notnull, ox.value == oy.value, z3.Bool(f"tie_takes_removed_{i}"))
            beyond = compare(">" if a.fn == "max_by" else "<", oy.value, ox.value)
            take_y = z3.And(oy.notnull, z3.Or(z3.Not(ox.notnull), beyond, tie))
            merged[a] = Cell(z3.If(take_y, y.value, x.value), z3.If(take_y, y.notnull, x.notnull))
        elif a.fn in SECOND:
            merged[a] = _merged_second(SECOND[a.fn], k.orders[a], x, r.orders[a], y)
        elif a.fn == "count":
            merged[a] = Cell(x.value + y.value, T)
        elif a.fn in ("max", "min"):
            take_y = z3.And(y.notnull, z3.Or(z3.Not(x.notnull), compare(">" if a.fn == "max" else "<", y.value,
                                                                             x.value)))
            merged[a] = Cell(z3.If(take_y, y.value, x.value), z3.Or(x.notnull, y.notnull))
        elif a.fn == "sum":
            merged[a] = Cell(z3.If(x.notnull, x.value, default_value(x.sort)), z3.Or(x.notnull, y.notnull))
        else:
            merged[a] = x
    return merged


def _merged_second(fn: str, k1: Cell, k2: Cell, r1: Cell, r2: Cell) -> Cell:
    """The second item of two halves' sorted items together (k1 >= k2 and r1 >= r2 for max):
    the larger of k2 and r1 when k1 is first, else the larger of k1 and r2."""
    def better(p: Cell, q: Cell) -> Cell:
        take_q = z3.And(q.notnull, z3.Or(z3.Not(p.notnull), compare(">" if fn == "max" else "<", q.value, p.value)))
        return Cell(z3.If(take_q, q.value, p.value), z3.Or(p.notnull, q.notnull))

    k_first = z3.And(k1.notnull, z3.Or(z3.Not(r1.notnull), compare(">=" if fn == "max" else "<=", k1.value, r1.value)))
    a, b = better(k2, r1), better(k1, r2)
    return Cell(z3.If(k_first, a.value, b.value), z3.If(k_first, a.notnull, b.notnull))


def _removed_rows_add_nothing(a: X.Agg, g: X.Expr, timeout_ms: int) -> str:
    """A row G removes adds nothing to a sum (its value NULL or 0) or an average (NULL); ""
    when proved on one row, else why not."""
    if a.fn not in ("sum", "avg") or a.arg is None:
        return ""
    with Modelling() as modelling:
        ev, row = Evaluator(), SymbolicRow("r")
        removed = z3.Not(truth(ev.eval(g, row)))
        x = ev.eval(a.arg, row)
        nothing = z3.Not(x.notnull) if a.fn == "avg" else z3.Or(z3.Not(x.notnull), x.value == default_value(x.sort))
    if modelling.failed:
        return modelling.reason
    proof = prove(z3.Implies(z3.And(domain([row]), removed, z3.Not(ev.error())), nothing), timeout_ms)
    if proof.proved:
        return ""
    what = "NULL" if a.fn == "avg" else "NULL or 0"
    return f"{a}: a row G removes may add to it (its value is not always {what}): {proof.reason}"


def _g_raises_only_with_the_arguments(aggs: Sequence[X.Agg], g: X.Expr, timeout_ms: int) -> str:
    """Why G may raise on a row the aggregates read without raising, or ""."""
    reads, filters, row = Evaluator(), Evaluator(), SymbolicRow("r")
    for a in aggs:
        for x in X.children(a):
            reads.eval(x, row)
    filters.eval(g, row)
    if not filters.errors:
        return ""
    proof = prove(z3.Implies(z3.And(domain([row]), z3.Not(reads.error())), z3.Not(filters.error())), timeout_ms)
    return "" if proof.proved else f"G can raise on a row the original reads without raising: {proof.reason}"


def _may_hide_errors(aggs: Sequence[X.Agg], g: X.Expr, timeout_ms: int) -> bool:
    """An aggregate's argument may raise on a row G removes (the original raises, the rewrite
    does not); unknown counts as yes."""
    with Modelling() as modelling:
        reads, filters, row = Evaluator(), Evaluator(), SymbolicRow("r")
        removed = z3.Not(truth(filters.eval(g, row)))
        for a in aggs:
            for x in X.children(a):
                reads.eval(x, row)
    if modelling.failed:
        return True
    if not reads.errors:
        return False
    return satisfiable(z3.And(domain([row]), removed, reads.error()), timeout_ms) is not False
