"""Symbolic semantics of GroupBy (the paper's GroupBy operator, category AGGREGATE).

Rows carry a duplication factor (paper, Section 6): a symbolic row stands for
`dup >= 1` equal rows, so that count(*) over a smaller table can equal count(*)
over a larger one, as pre-condition (2) needs. Aggregates skip NULLs as Spark's
do; max/min/sum of only NULLs is NULL, count is never NULL.

`group_output(op, members, ev)` is the output row of one group; `members` are
(row, is-member) pairs, all in the same group.
"""

from __future__ import annotations

from dataclasses import dataclass

import z3

from magicpush_lab.ir import expr as X
from magicpush_lab.ir import plan as P
from magicpush_lab.symbolic.encode import Evaluator, compare
from magicpush_lab.symbolic.table import SymbolicRow
from magicpush_lab.symbolic.values import Cell, NotModelled, default_value, sort_of

SUPPORTED = frozenset({"max", "min", "sum", "count", "avg", "fold"})


@dataclass
class Member:
    row: SymbolicRow
    present: z3.BoolRef  # the row belongs to the group
    dup: z3.ArithRef  # how many equal rows it stands for


def aggregates(op: P.Aggregate) -> tuple[X.Agg, ...]:
    """The distinct aggregate calls of the operator's outputs."""
    found: list[X.Agg] = []
    for _, e in op.outputs:
        for node in X.walk(e):
            if isinstance(node, X.Agg) and node not in found:
                found.append(node)
    return tuple(found)


def same_group(op: P.Aggregate, a: SymbolicRow, b: SymbolicRow, ev: Evaluator) -> z3.BoolRef:
    """Grouping compares keys null-safely: NULL keys form a group of their own."""
    conds = []
    for k in op.keys:
        x, y = ev.eval(k, a), ev.eval(k, b)
        if x.sort != y.sort:
            raise NotModelled("group keys of different sorts")
        conds.append(z3.Or(z3.And(z3.Not(x.notnull), z3.Not(y.notnull)),
                           z3.And(x.notnull, y.notnull, x.value == y.value)))
    return z3.And(*conds) if conds else z3.BoolVal(True)


def group_output(op: P.Aggregate, members: list[Member], ev: Evaluator) -> SymbolicRow:
    """The output row of a group whose first member is its representative (keys come from it)."""
    rep = members[0].row
    return output_row(op, rep, {agg: _aggregate(agg, members, ev) for agg in aggregates(op)}, ev)


def output_row(op: P.Aggregate, rep: SymbolicRow, values: dict[X.Agg, Cell], ev: Evaluator) -> SymbolicRow:
    """The output row of the group of `rep` whose aggregates have `values`."""
    out = SymbolicRow(rep.tag + "g")
    for col, e in op.outputs:
        out.cells[(col.name, col.id)] = _output_cell(e, rep, values, ev)
    return out


def fold(body: X.FoldBody, values: list[tuple[z3.BoolRef, Cell]], ev: Evaluator) -> Cell:
    """`zero`, then `merge` with each value that is present (collect_list drops NULLs), then
    `finish`; in the members' order, which pre-condition (1) proves does not matter."""
    acc = ev.eval(body.zero, SymbolicRow("zero"))
    for present, value in values:
        step = merge_step(body, acc, value, ev)
        acc = Cell(z3.If(present, step.value, acc.value), z3.If(present, step.notnull, acc.notnull))
    row = SymbolicRow("finish")
    row.cells[(body.result.name, body.result.id)] = acc
    return ev.eval(body.finish, row)


def merge_step(body: X.FoldBody, acc: Cell, value: Cell, ev: Evaluator) -> Cell:
    row = SymbolicRow("merge")
    row.cells[(body.acc.name, body.acc.id)] = acc
    row.cells[(body.elem.name, body.elem.id)] = Cell(value.value, z3.BoolVal(True))  # never NULL
    if body.reduce is not None:
        return reduce_step(body.reduce, acc, row.cells[(body.elem.name, body.elem.id)], ev)
    return ev.eval(body.merge, row)


def reduce_step(f: X.PyUdf, acc: Cell, value: Cell, ev: Evaluator) -> Cell:
    """`rdd.reduceByKey(f)`'s merge of a partial result and a value, either of which may be
    none yet (NULL): the other one, else f of both, whose errors count only where f is called
    (the merge's CASE would count them on every row)."""
    row = SymbolicRow("reduce")
    row.cells[(f.args[0].name, f.args[0].id)], row.cells[(f.args[1].name, f.args[1].id)] = acc, value
    called = ev.eval_guarded(f, row, z3.And(acc.notnull, value.notnull))
    return Cell(z3.If(z3.Not(acc.notnull), value.value, z3.If(z3.Not(value.notnull), acc.value, called.value)),
                z3.If(z3.Not(acc.notnull), value.notnull, z3.If(z3.Not(value.notnull), acc.notnull, called.notnull)))


def same_output_row(op: P.Aggregate, a: SymbolicRow, b: SymbolicRow) -> z3.BoolRef:
    """Two output rows of `op` agree on every column, NULLs included."""
    eqs = []
    for col in op.output:
        x, y = a.cell(col), b.cell(col)
        eqs.append(z3.And(x.notnull == y.notnull, z3.Implies(x.notnull, x.value == y.value)))
    return z3.And(*eqs)


def _output_cell(e: X.Expr, rep: SymbolicRow, values: dict[X.Agg, Cell], ev: Evaluator) -> Cell:
    # aggregate calls become placeholder columns bound to their group values;
    # everything else in the output expression is evaluated on the representative
    holders: dict[X.Agg, X.Col] = {a: X.Col(f"__agg{i}", -1000 - i, a.dtype) for i, a in enumerate(values)}
    replaced = X.transform(e, lambda n: holders.get(n) if isinstance(n, X.Agg) else None)
    row = SymbolicRow(rep.tag + "o", route=[(None, rep)])
    for agg, holder in holders.items():
        row.cells[(holder.name, holder.id)] = values[agg]
    return ev.eval(replaced, row)


def _aggregate(agg: X.Agg, members: list[Member], ev: Evaluator) -> Cell:
    if agg.fn not in SUPPORTED:
        raise NotModelled(f"aggregate {agg.fn}")
    if agg.distinct and agg.fn not in ("max", "min"):
        raise NotModelled(f"{agg.fn}(DISTINCT ...)")
    if agg.arg is None:  # count(*)
        return Cell(z3.Sum(*[z3.If(m.present, m.dup, 0) for m in members]), z3.BoolVal(True))
    cells = [ev.eval_guarded(agg.arg, m.row, m.present) for m in members]
    live = [z3.And(m.present, c.notnull) for m, c in zip(members, cells)]
    any_value = z3.Or(*live)
    if agg.fn == "count":
        return Cell(z3.Sum(*[z3.If(l, m.dup, 0) for l, m in zip(live, members)]), z3.BoolVal(True))
    if agg.fold is not None:
        # each member is folded in once: duplication factors only exist next to count(*),
        # which the AGGREGATE check refuses beside a fold (pre-condition (2))
        return fold(agg.fold, [(l, c) for l, c in zip(live, cells)], ev)
    sort = cells[0].sort
    if agg.fn in ("max", "min"):
        op = ">" if agg.fn == "max" else "<"
        best, best_live = cells[0].value, live[0]
        for c, l in zip(cells[1:], live[1:]):
            take = z3.And(l, z3.Or(z3.Not(best_live), compare(op, c.value, best)))
            best, best_live = z3.If(take, c.value, best), z3.Or(best_live, l)
        return Cell(best, any_value)
    if sort not in (z3.IntSort(), z3.RealSort()):
        raise NotModelled(f"{agg.fn} over {sort}")
    total = z3.Sum(*[z3.If(l, m.dup * c.value, default_value(sort)) for l, m, c in zip(live, members, cells)])
    if agg.fn == "sum":
        out_sort = sort_of(agg.dtype)
        return Cell(z3.ToReal(total) if out_sort == z3.RealSort() and sort == z3.IntSort() else total, any_value)
    count = z3.Sum(*[z3.If(l, m.dup, 0) for l, m in zip(live, members)])
    return Cell(z3.ToReal(total) / z3.ToReal(count), any_value)  # avg


# ----------------------------------------------------------------------------- pivot


@dataclass(frozen=True)
class PivotSlot:
    """One pivoted column: `fn` of `value` over the group's rows where `chosen` (`p <=> v`)."""

    fn: str
    value: X.Expr | None  # None for count(*)
    chosen: X.Expr
    agg: X.Agg  # the aggregate over all rows of a group (what the slot computes per value)


def pivot_slots(op: P.Aggregate) -> dict[X.Col, PivotSlot]:
    """The pivoted columns of a Pivot node, as translate/spark_plan.py writes them:
    `fn(CASE WHEN p <=> v THEN x END)`, and for count `CASE WHEN count(CASE WHEN p <=> v THEN 1
    END) > 0 THEN count(CASE WHEN p <=> v THEN x END) END` (NULL where no row has value v).

    >>> p, x, out = X.Col("year", 1, "int"), X.Col("rev", 2, "double"), X.Col("2006", 3, "double")
    >>> chosen = X.Cmp("<=>", p, X.Lit(2006, "int"))
    >>> slot = X.Agg("max", X.Case(((chosen, x),), X.Lit(None, "null")), "double")
    >>> s = pivot_slots(P.Aggregate(P.Source("t", (p, x)), (), ((out, slot),), pivot=True))[out]
    >>> s.fn, str(s.value), str(s.chosen)
    ('max', 'rev', 'year <=> 2006')
    """
    found = {}
    for col, e in op.outputs:
        slot = _slot(e)
        if slot is not None:
            found[col] = slot
    return found


def _slot(e: X.Expr) -> PivotSlot | None:
    def selected(case: X.Expr) -> tuple[X.Expr, X.Expr] | None:
        if isinstance(case, X.Case) and len(case.branches) == 1 and case.default == X.Lit(None, "null"):
            return case.branches[0]
        return None

    if isinstance(e, X.Agg) and e.fn != "count" and e.arg is not None and e.by is None and selected(e.arg):
        chosen, value = selected(e.arg)  # type: ignore[misc]
        return PivotSlot(e.fn, value, chosen, X.Agg(e.fn, value, e.dtype, e.distinct))
    branch = selected(e)
    if branch is None or not isinstance(branch[1], X.Agg) or branch[1].fn != "count":
        return None
    counted = selected(branch[1].arg) if branch[1].arg is not None else None
    if counted is None:
        return None
    chosen, value = counted
    value = None if isinstance(value, X.Lit) and value.value is not None else value
    return PivotSlot("count", value, chosen, X.Agg("count", value, "long", branch[1].distinct))


# aggregates whose value over a group does not change when rows with a NULL argument go
_SKIP_NULLS = frozenset({"avg", "average", "mean", "sum", "max", "min", "count"})


def rows_for_some_slot(op: P.Aggregate) -> X.Expr | None:
    """The rows that add to some pivoted column: a row of another value than the pivot's, or
    whose value is NULL where every slot skips NULLs, adds to none. `p IN (v1, ...) AND x IS NOT
    NULL` when every slot takes one column x of the rows of its value; None when a slot's
    aggregate reads NULLs (first, collect_list) or the node is not a pivot.

    >>> p, x = X.Col("track", 1, "string"), X.Col("rank", 2, "double")
    >>> def slot(v): return X.Agg("avg", X.Case(((X.Cmp("<=>", p, X.Lit(v, "string")), x),), X.Lit(None, "null")), "double")
    >>> op = P.Aggregate(P.Source("t", (p, x)), (), tuple((X.Col(v, i + 3, "double"), slot(v))
    ...                                             for i, v in enumerate(["a", "b"])), pivot=True)
    >>> str(rows_for_some_slot(op))
    "track IN ('a', 'b') AND rank IS NOT NULL"
    """
    slots = pivot_slots(op)
    if not op.pivot or not slots or any(s.fn not in _SKIP_NULLS for s in slots.values()):
        return None
    if any(c not in slots and any(isinstance(n, X.Agg) for n in X.walk(e)) for c, e in op.outputs):
        return None  # an aggregate over every row of the group besides the slots
    # a count slot tells no rows (NULL) from rows whose values are all NULL (0): its rows stay
    parts = [s.chosen if s.fn == "count" or s.value is None else X.and_(s.chosen, X.IsNotNull(s.value))
             for s in slots.values()]
    chosen = [s.chosen for s in slots.values()]
    values = {s.value for s in slots.values()}
    if not (all(isinstance(c, X.Cmp) and c.op == "<=>" and isinstance(c.right, X.Lit) and c.right.value is not None
                for c in chosen) and len({c.left for c in chosen}) == 1):
        return X.or_(*dict.fromkeys(parts))
    # `p <=> v` for a value v is `p = v` in a filter (a NULL p fails both)
    listed = X.In(chosen[0].left, tuple(dict.fromkeys(c.right for c in chosen)))
    if len(values) == 1 and None not in values and all(s.fn != "count" for s in slots.values()):
        return X.and_(listed, X.IsNotNull(values.pop()))
    return listed  # the rows of the listed values (several columns or a count: their NULLs stay)
