"""Candidate input predicates G for a late filter F above one operator, most selective first:
one generator per operator family, which the walk's operator table (pushdown/operators.py)
dispatches to.

Components come from F rewritten through the operator (paper, Section 4.4.1):
output columns replaced by the expressions that compute them, UDF bodies
interpreted so the result speaks only of input columns, conjuncts that cannot
be expressed below the operator dropped (which can only give a superset
pushdown). Every candidate still goes through the verifier.
"""

from __future__ import annotations

from typing import Iterator

import z3

from magicpush_lab.ir import expr as X
from magicpush_lab.budget import Budget
from magicpush_lab.ir import plan as P
from magicpush_lab.search.aggregate_reads import filter_form, rows_kept_groups_read, rows_some_flag_true
from magicpush_lab.search.candidate import Candidate
from magicpush_lab.search.formula import FORMULA_MS, predicate_from_formula, written_decimals
from magicpush_lab.search.padded import padded_predicate
from magicpush_lab.search.preimage import preimage
from magicpush_lab.symbolic.udf_inline import inline_calls
from magicpush_lab.symbolic.aggregate_ops import PivotSlot, pivot_slots, rows_for_some_slot
from magicpush_lab.symbolic.encode import Evaluator, truth
from magicpush_lab.symbolic.row_ops import apply_op
from magicpush_lab.symbolic.table import SymbolicRow
from magicpush_lab.symbolic.values import NotModelled
from magicpush_lab.symbolic import nan
from magicpush_lab.translate.spark_plan import unwritten_call


def through_row_selection(op: P.Plan, f: X.Expr, budget: Budget) -> Iterator[Candidate]:
    """Filter, Reorder, TopK, Window, RowExpand: operators that keep the input's columns."""
    if isinstance(op, P.Filter) and isinstance(op.child, P.Expand) and X.is_deterministic(op.condition):
        # right above an unpivot, the filter's own condition joined: rows reaching it passed the
        # condition, and below the unpivot the two together name columns neither names alone
        # (`reason IN ('breach', ...)` and `status = TRUE` make `breach = TRUE OR ...`)
        joined = X.and_(*X.conjuncts(f), *(c for c in X.conjuncts(op.condition) if c not in X.conjuncts(f)))
        if joined != f:
            yield Candidate((joined,), "late filter joined to the filter right above the UnPivot")
    # a filter commutes with another filter (which stays where it is) and with reordering
    yield Candidate((f,), f"late filter moved below the {P.operator_name(op)}")
    if isinstance(op, P.RowExpand):
        yield from _through_explode(op, f)
    if isinstance(op, P.TopK):
        yield from _conjunct_candidates(f, "below the limit")
    if isinstance(op, P.Window):
        yield from _through_window(op, f)


def _conjunct_candidates(f: X.Expr, where: str) -> Iterator[Candidate]:
    """Each conjunct of F alone (superset candidates: F stays and keeps the rest)."""
    parts = X.conjuncts(f)
    if len(parts) > 1:
        for c in parts:
            yield Candidate((c,), f"a conjunct of the late filter {where}")


def _through_window(op: P.Window, f: X.Expr) -> Iterator[Candidate]:
    """The conjuncts on the window's input columns (a filter beside `rn == 1`), and, for an
    equality on a column a partition key is computed from, that key's value: `store = 's3'`
    under `partitionBy(upper(store))` gives `upper(store) <=> upper('s3')`, which keeps whole
    partitions (a superset candidate: F stays)."""
    computed = set(op.computed)
    own = [c for c in X.conjuncts(f) if not X.columns(c) & computed]
    if own and len(own) < len(X.conjuncts(f)):
        yield Candidate((X.and_(*own),), "the late filter's conjuncts on the window's input")
    keyed = [k for c in own for k in _partition_values(op, c)]
    if keyed:
        yield Candidate((X.and_(*keyed),), "the partition keys' values for the late filter's equalities")
    yield from _conjunct_candidates(X.and_(*own) if own else X.TRUE, "below the window")
    front = [p for p in (_order_prefix(op, c) for c in own) if p is not None]
    if front:
        yield Candidate((X.and_(*front),), "the late filter's bounds on the window's order, with the rows "
                                           "sorting before them")


# the comparisons that bound the first order key from the front of an ascending (descending) order
_FRONT = {True: ("<", "<="), False: (">", ">=")}


def _order_prefix(op: P.Window, conjunct: X.Expr) -> X.Expr | None:
    """A bound on the first order key from the front of the order that the conjunct implies, with
    the NULLs when the order puts them first: `duration < 60` under `orderBy("duration")` (NULLS
    FIRST) gives `duration < 60 OR duration IS NULL`, a prefix of every partition's order; of a
    disjunction, the loosest of its parts' bounds (`(v > 20 AND v < 30) OR v >= 35` under a
    descending order gives `v > 20`).

    >>> d = X.Col("d", 1, "int")
    >>> w = P.Window(P.Source("t", (d,)), (), (), order=((d, True, True),))
    >>> str(_order_prefix(w, X.Cmp("<", d, X.Lit(60, "int"))))
    'd < 60 OR d IS NULL'
    >>> down = P.Window(P.Source("t", (d,)), (), (), order=((d, False, False),))
    >>> str(_order_prefix(down, X.or_(X.and_(X.Cmp(">", d, X.Lit(20, "int")), X.Cmp("<", d, X.Lit(30, "int"))),
    ...                               X.Cmp(">=", d, X.Lit(35, "int")))))
    'd > 20'
    >>> str(_order_prefix(w, X.or_(X.Cmp("=", d, X.Lit(65, "int")), X.Cmp("<", d, X.Lit(60, "int")))))
    'd <= 65 OR d IS NULL'
    """
    if not op.order:
        return None
    key, ascending, nulls_first = op.order[0]
    bound = _front_bound(key, ascending, conjunct)
    if bound is None:
        return None
    return X.or_(bound, X.IsNull(key)) if nulls_first else bound


def _front_bound(key: X.Expr, ascending: bool, e: X.Expr) -> X.Cmp | None:
    """The bound on `key` from the front of its order that `e` implies (an equality bounds it
    too): the tightest of a conjunction's, the loosest of a disjunction's (None where a part has
    none)."""
    if isinstance(e, X.Cmp):
        literal = e.right if isinstance(e.right, X.Lit) else (e.right.arg if isinstance(e.right, X.Cast) else None)
        ok = e.left == key and e.op in (*_FRONT[ascending], "=") and isinstance(literal, X.Lit) \
            and isinstance(literal.value, (int, float)) and not isinstance(literal.value, bool)
        if ok and e.op == "=":  # an equality bounds the key from the front too: `v = 15` gives `v >= 15`
            return X.Cmp(_FRONT[ascending][1], e.left, e.right)
        return e if ok else None
    if isinstance(e, X.And):
        found = [b for b in (_front_bound(key, ascending, c) for c in e.args) if b is not None]
        return min(found, key=lambda b: _looseness(b, ascending)) if found else None
    if isinstance(e, X.Or):
        found = [_front_bound(key, ascending, d) for d in e.args]
        if any(b is None for b in found):
            return None
        return max(found, key=lambda b: _looseness(b, ascending))  # type: ignore[arg-type, return-value]
    return None


def _looseness(b: X.Cmp, ascending: bool) -> tuple[float, int]:
    """How much of the order a front bound keeps: larger keeps more (`<= 5` more than `< 5`)."""
    literal = b.right if isinstance(b.right, X.Lit) else b.right.arg  # type: ignore[union-attr]
    value = float(literal.value)  # type: ignore[union-attr, arg-type]
    inclusive = int(b.op in ("<=", ">="))
    return (value, inclusive) if ascending else (-value, inclusive)


def _partition_values(op: P.Window, conjunct: X.Expr) -> list[X.Expr]:
    """`k <=> k[c := v]` for each partition key k computed from column c alone, when the conjunct
    is `c = v` or `c IN (v, ...)` with literals (one such test per value, or-ed)."""
    if isinstance(conjunct, X.Cmp) and conjunct.op == "=":
        col, lits = conjunct.left, (conjunct.right,)
        if isinstance(col, X.Lit):
            col, lits = conjunct.right, (conjunct.left,)
    elif isinstance(conjunct, X.In):
        col, lits = conjunct.arg, conjunct.values
    else:
        return []
    if not isinstance(col, X.Col) or not all(isinstance(v, X.Lit) and v.value is not None for v in lits):
        return []
    found = []
    for key in op.partition:
        if key != col and X.columns(key) == {col}:
            # null-safe: the model does not know that upper('a') is not NULL, Spark does
            found.append(X.or_(*(X.Cmp("<=>", key, X.substitute(key, {col: v})) for v in lits)))
    return found


def through_union(op: P.Union, f: X.Expr, budget: Budget) -> Iterator[Candidate]:
    # every input gets the late filter, its columns renamed to that input's
    yield Candidate(tuple(X.substitute(f, dict(m)) for m in op.column_maps()),
                    "late filter pushed into every union input")


def through_semi_join(op: P.SemiJoin, f: X.Expr, budget: Budget) -> Iterator[Candidate]:
    yield Candidate((f, None), "the late filter on the left input, whose columns are the output")


def _through_explode(op: P.RowExpand, f: X.Expr) -> Iterator[Candidate]:
    """A filter on the exploded element: keep the rows with some element that passes it,
    `exists(array, x -> F[element := x])`, a superset candidate (the late filter stays)."""
    if op.array is None or not X.columns(f) & {op.generated[-1]}:
        return
    element = op.generated[-1]
    var = X.Col("x", -1 - element.id if element.id >= 0 else element.id - 1, element.dtype)
    # conjuncts on the row's own columns stay outside the lambda, where a scan can skip on them
    on_element = [c for c in X.conjuncts(f) if element in X.columns(c)]
    on_row = [c for c in X.conjuncts(f) if element not in X.columns(c)]
    exists = X.ArrayExists(op.array, var, X.substitute(X.and_(*on_element), {element: var}))
    yield Candidate((X.and_(*on_row, exists),), "rows with an element that passes the late filter")


def through_project(op: P.Project, f: X.Expr, budget: Budget) -> Iterator[Candidate]:
    mapping = {col: e for col, e in op.outputs}
    unchanged = _same_names_below(op, f)
    if unchanged is not None:
        # often the transform does not matter to F (the paper's Listing 5): try F as it is first,
        # on the input's columns of the same names; it is simpler and cheaper to evaluate
        yield Candidate((unchanged,), "the late filter unchanged, on the input's columns")
    whole = X.substitute(f, mapping)
    looked_up = _with_preimages(op, f, mapping)
    if looked_up is not None:
        # `udf(x) = 'CALIFORNIA'` as the inputs the UDF maps there, from its own constants; then
        # the body is not also written as Column code: `x IN (...)` reads better, and the written
        # body, an equivalence where the preimage drops another conjunct, would be preferred
        yield Candidate((looked_up,), "the late filter's constants as the inputs the UDF maps to them")
    written = inline_calls(whole) if looked_up is None else None
    if written is not None:
        # the UDFs' arithmetic (or text cleaning, lookups) written as Column code: the same
        # values, where a formula read back from the model may differ (symbolic/udf_inline.py)
        yield Candidate((written,), "the late filter with the UDFs' bodies written as Column expressions")
    parts = []  # per conjunct of F: its expression over the input, or None
    for conjunct in X.conjuncts(f):
        parts.append(_rewrite_conjunct(op, conjunct, mapping, whole, budget))
    usable = [p for p in parts if p is not None]
    if not usable:
        return
    if len(usable) == len(parts):
        yield Candidate((X.and_(*usable),), "late filter rewritten through the projection")
    else:
        # conjuncts on columns with no expressible counterpart below are dropped
        yield Candidate((X.and_(*usable),), "conjuncts that can be expressed below the projection")


def _with_preimages(op: P.Project, f: X.Expr, mapping: dict[X.Col, X.Expr]) -> X.Expr | None:
    """F below the projection with each `udf(x) = 'c'` conjunct as the inputs that give 'c'
    (search/preimage.py) and the conjuncts without a UDF as they are; None when no conjunct
    has such a preimage."""
    parts, found = [], False
    for conjunct in X.conjuncts(f):
        substituted = X.substitute(conjunct, mapping)
        pre = preimage(substituted)
        if pre is not None:
            parts.append(pre)
            found = True
        elif not X.has_python_udf(substituted) and X.is_deterministic(substituted) \
                and not unwritten_call(substituted):
            parts.append(substituted)
    return X.and_(*parts) if found else None


def _same_names_below(op: P.Project, f: X.Expr) -> X.Expr | None:
    """F with each recomputed column replaced by the input column of the same name and type, if
    any differs (a column recomputed into another type, a label mapped to a number, is another
    value altogether)."""
    below = {c.name: c for c in op.child.output}
    recomputed = {col: below[col.name] for col, e in op.outputs
                  if e != col and col in X.columns(f) and col.name in below and below[col.name].dtype == col.dtype}
    passed = {col for col, e in op.outputs if e == col}
    if not recomputed or not X.columns(f) <= passed | set(recomputed):
        return None
    return X.substitute(f, recomputed)


def _rewrite_conjunct(op: P.Project, conjunct: X.Expr, mapping: dict[X.Col, X.Expr],
                      whole: X.Expr, budget: Budget) -> X.Expr | None:
    substituted = X.substitute(conjunct, mapping)
    if unwritten_call(substituted):
        return None  # a function a pushed predicate never calls: this conjunct stays behind
    if not X.has_python_udf(substituted) and X.is_deterministic(substituted):
        return _readable(substituted, budget)  # when(...).otherwise(...) = 1 reads back as the when's test
    # a Python UDF in the way: interpret it and read the condition back as SQL
    try:
        row = SymbolicRow("in0")
        ev = Evaluator()
        out = apply_op(op, [row], ev)
        phi = truth(ev.eval(conjunct, out))
    except (NotModelled, z3.Z3Exception):
        return None
    derived = predicate_from_formula(phi, [row], budget.slice_ms(FORMULA_MS), written_decimals([substituted]))
    exposed = nan.exposed_arguments([substituted], derived) if derived is not None else ()
    if len(exposed) == 1 and nan.pandas_only([whole], exposed[0]):
        # a pandas UDF sees NaN as NULL: NaN rows get what the NULL row gets (symbolic/nan.py)
        on_null = _readable(X.substitute(derived, {exposed[0]: X.Lit(None, X.dtype_of(exposed[0]))}),
                            budget, simplify=True)
        return nan.nan_as_null(derived, exposed[0], on_null)
    # read from a UDF body over a double: rows where it is NaN stay (symbolic/nan.py)
    return nan.keep_nan_rows(derived, exposed) if exposed else derived


def through_join(op: P.InnerJoin, f: X.Expr, budget: Budget) -> Iterator[Candidate]:
    left_cols, right_cols = set(op.left.output), set(op.right.output)
    left, right, mixed = [], [], []
    for c in X.conjuncts(f):
        cols = X.columns(c)
        if cols and cols <= left_cols:
            left.append(c)
        elif cols and cols <= right_cols:
            right.append(c)
        else:
            mixed.append(c)
    gl = X.and_(*left) if left else None
    gr = X.and_(*right) if right else None
    if gl is not None or gr is not None:
        yield Candidate((gl, gr), "late filter split between the join inputs")
    # a conjunct reading both inputs still says something about each: (a1 AND b1) OR (a2 AND b2)
    # implies a1 OR a2 on the left (the paper's rule (5) for disjunctions, TPC-H Q7 and Q19)
    implied_l = [x for x in (implied_on(c, left_cols) for c in mixed) if x is not None]
    implied_r = [x for x in (implied_on(c, right_cols) for c in mixed) if x is not None]
    if implied_l or implied_r:
        gl2 = X.and_(*left, *implied_l) if left or implied_l else None
        gr2 = X.and_(*right, *implied_r) if right or implied_r else None
        yield Candidate((gl2, gr2), "the late filter's parts on each join input, disjunctions included")


def implied_on(e: X.Expr, cols: set[X.Col]) -> X.Expr | None:
    """A predicate on `cols` only that is TRUE wherever `e` is TRUE, or None when none is found.
    A conjunction keeps its parts on `cols`; a disjunction needs one from every disjunct.

    >>> a, b = X.Col("a", 1, "int"), X.Col("b", 2, "int")
    >>> e = X.or_(X.and_(X.Cmp("=", a, X.Lit(1, "int")), X.Cmp("=", b, X.Lit(2, "int"))),
    ...           X.and_(X.Cmp("=", a, X.Lit(2, "int")), X.Cmp("=", b, X.Lit(1, "int"))))
    >>> str(implied_on(e, {a}))
    'a = 1 OR a = 2'
    """
    if X.columns(e) and X.columns(e) <= cols:
        return e
    if isinstance(e, X.And):
        parts = [x for x in (implied_on(c, cols) for c in e.args) if x is not None]
        return X.and_(*parts) if parts else None
    if isinstance(e, X.Or):
        parts = [implied_on(d, cols) for d in e.args]
        return None if any(x is None for x in parts) else X.or_(*parts)
    return None


def through_aggregate(op: P.Aggregate, f: X.Expr, budget: Budget) -> Iterator[Candidate]:
    """Key conjuncts rewritten onto the keys; aggregate conjuncts with each aggregate replaced
    by its argument (`max(x) > 3` gives `x > 3`), which only the verifier can accept or refuse;
    for a pivot, conjuncts on one pivoted column as a test of that value's rows only."""
    mapping = {col: e for col, e in op.outputs}
    if op.pivot:
        yield from _through_pivot(op, f, budget)
    if _reads_functions_of_keys(op, f):
        # `word_count > 200` below dropDuplicates(["text"]), `word_count = udf(text)` computed
        # further down: the input's own column, not the UDF called again on the input's rows
        # (which a filter further down would have to let through, and which runs the UDF twice)
        yield Candidate((f,), "the late filter on the input's columns that are functions of the keys")
    on_keys, on_rows = [], []
    for conjunct in X.conjuncts(f):
        substituted = X.substitute(conjunct, mapping)
        aggs = [n for n in X.walk(substituted) if isinstance(n, X.Agg)]
        if not aggs:
            on_keys.append(substituted)
        elif all(a.arg is not None and a.fn != "count" for a in aggs):
            # (a count is no value of its argument: `count(s) - count(s)` is not `s - s`)
            per_row = X.transform(substituted, lambda n: n.arg if isinstance(n, X.Agg) else None)
            on_rows.append(filter_form(_readable(per_row, budget)))
    if on_keys and on_rows:
        yield Candidate((X.and_(*on_keys, *on_rows),), "group-key conjuncts and aggregate arguments")
    if on_rows and not on_keys:
        yield Candidate((X.and_(*on_rows),), "the late filter on the aggregates' arguments")
    # only a filter on aggregates tells which rows a kept group needs; on keys alone, every row
    # of a kept group counts (the key candidate below keeps whole groups)
    on_aggregates = any(isinstance(n, X.Agg) for n in X.walk(X.substitute(f, mapping)))
    read = rows_kept_groups_read(op, f) if on_aggregates else None
    if read is not None and read != X.TRUE:
        yield Candidate((X.and_(*on_keys, read),), "the rows some aggregate of a kept group reads")
    flagged = rows_some_flag_true(op, f) if on_aggregates else None
    if flagged is not None and flagged not in (read, X.TRUE):
        yield Candidate((X.and_(*on_keys, flagged),), "the rows on which some flag of a kept group is TRUE")
    if on_keys:
        yield Candidate((X.and_(*on_keys),), "the late filter's conjuncts on group keys")


def _reads_functions_of_keys(op: P.Aggregate, f: X.Expr) -> bool:
    """F reads a column dropDuplicates passes on as a function of its keys (the same value in
    every row of a group), and otherwise only its keys: F holds on the input as it is."""
    if not op.deduplicate:
        return False
    on_keys = {c for c, e in op.outputs if not any(isinstance(n, X.Agg) for n in X.walk(e))}
    functions = {c for c, e in op.outputs if c in on_keys and e != c}
    read = X.columns(f)
    return bool(read & functions) and read <= on_keys & set(op.child.output)


def _through_pivot(op: P.Aggregate, f: X.Expr, budget: Budget) -> Iterator[Candidate]:
    """A conjunct on one pivoted column `v` (`max` of x over the rows whose pivot column is v)
    can only drop rows of value v: `NOT (p <=> v) OR H`, H the conjunct on x itself (for max
    and min: `"2006" > 100` gives `rev > 100`) or `x IS NOT NULL` (rows every aggregate skips).
    The key conjuncts come along; the verifier (verify/aggregate.py) decides."""
    slots = pivot_slots(op)
    keys = [X.substitute(c, dict(op.outputs)) for c in X.conjuncts(f)
            if not X.columns(c) & set(slots) and X.columns(c) <= set(op.output)]
    keys = [k for k in keys if not any(isinstance(n, X.Agg) for n in X.walk(k))]
    by_slot: dict[X.Col, list[X.Expr]] = {}
    for c in X.conjuncts(f):
        read = X.columns(c) & set(slots)
        if len(read) == 1:
            by_slot.setdefault(next(iter(read)), []).append(c)
    if not by_slot:
        return
    # rows of another value than the pivot's, or whose value every slot skips, add to no column
    # (verify/aggregate.py: the late filter must fail where every pivoted column is NULL)
    some = rows_for_some_slot(op)
    extra = [some] if some is not None else []
    for how, per_row in (("the conjunct on the value column", _slot_as_row),
                         ("rows the aggregate skips", _slot_non_null)):
        parts = []
        for col, cs in by_slot.items():
            h = per_row(slots[col], X.and_(*cs), col, budget)
            if h is None:
                break
            parts.append(X.or_(X.Not(slots[col].chosen), h))
        else:
            if extra:
                # a part whose test the rows that add to a column already pass is not repeated
                implied = set(X.conjuncts(some))
                kept = [p for p in parts if p not in implied and not implied & set(getattr(p, "args", ()))]
                yield Candidate((X.and_(*keys, *extra, *kept),),
                                f"pivot: rows that add to a column, of the filtered values {how}")
            yield Candidate((X.and_(*keys, *parts),), f"pivot: rows of the filtered values, {how}")
    if extra:
        yield Candidate((X.and_(*keys, *extra),), "pivot: the rows that add to some pivoted column")


def _slot_as_row(slot: PivotSlot, c: X.Expr, col: X.Col, budget: Budget) -> X.Expr | None:
    if slot.fn not in ("max", "min") or slot.value is None:
        return None
    return X.substitute(c, {col: slot.value})


def _slot_non_null(slot: PivotSlot, c: X.Expr, col: X.Col, budget: Budget) -> X.Expr | None:
    return X.IsNotNull(slot.value) if slot.value is not None else None


def through_unpivot(op: P.Expand, f: X.Expr, budget: Budget) -> Iterator[Candidate]:
    """F rewritten once per made row (paper, Section 4.4.1: a column that maps to several input
    columns gives one component per column): the same predicate for every row is the late
    filter itself below the unpivot; otherwise "any made row passes", a superset candidate."""
    substituted = []
    for projection in op.rows():
        e = X.substitute(f, projection)
        if e not in substituted:
            substituted.append(e)
    # the name column becomes a literal per row: fold `'v2005' = 'v2006'` and the like
    per_row = []
    for e in substituted:
        folded = _readable(e, budget, simplify=True) if _has_constant_part(e) else e
        if folded not in per_row:
            per_row.append(folded)
    if len(per_row) == 1:
        yield Candidate((per_row[0],), "late filter moved below the UnPivot")
        return
    # each part is already simplified (constant parts folded); or_ drops the false ones and keeps
    # the projections' order, so the predicate reads in the notebook's column order
    yield Candidate((_common_conjuncts_first(per_row),), "the late filter on any row the UnPivot makes")


def _common_conjuncts_first(parts: list[X.Expr]) -> X.Expr:
    """`OR` of `parts` with the conjuncts every part has taken out in front: `A AND (B1 OR B2)`
    for `(A AND B1) OR (A AND B2)`, the same rows, with `A` evaluated once (an id column's
    test, the same for every row an unpivot makes).

    >>> a, b, c = (X.IsNotNull(X.Col(n, i, "int")) for i, n in enumerate("abc"))
    >>> str(_common_conjuncts_first([X.and_(a, b), X.and_(a, c)]))
    'a IS NOT NULL AND (b IS NOT NULL OR c IS NOT NULL)'
    """
    shared = [c for c in X.conjuncts(parts[0]) if all(c in X.conjuncts(p) for p in parts[1:])]
    if not shared:
        return X.or_(*parts)
    rest = [X.and_(*(c for c in X.conjuncts(p) if c not in shared)) for p in parts]
    return X.and_(*shared, X.or_(*rest)) if X.TRUE not in rest else X.and_(*shared)


def _has_constant_part(e: X.Expr) -> bool:
    """Some part of `e` other than a literal reads no column (so it can be folded)."""
    return any(not isinstance(n, X.Lit) and not X.columns(n) for n in X.walk(e))


def _readable(e: X.Expr, budget: Budget, simplify: bool = False) -> X.Expr:
    """A CASE inside a comparison (conditional aggregates) read back as plain conditions."""
    if not simplify and not any(isinstance(n, X.Case) for n in X.walk(e)):
        return e
    try:
        row = SymbolicRow("in0")
        phi = truth(Evaluator().eval(e, row))
    except (NotModelled, z3.Z3Exception):
        return e
    return predicate_from_formula(phi, [row], budget.slice_ms(FORMULA_MS), written_decimals([e])) or e


def through_outer_join(op: P.OuterJoin, f: X.Expr, budget: Budget) -> Iterator[Candidate]:
    """Each input's conjuncts, both inputs first; the verifier decides which side may take them."""
    split = next(through_join(P.InnerJoin(op.left, op.right, op.condition), f, budget), None)
    if split is None:
        return
    gl, gr = split.predicates
    if gl is not None and gr is not None:
        yield Candidate((gl, gr), "late filter split between the join inputs")
    if gl is not None:
        yield Candidate((gl, None), "the late filter's conjuncts on the left input")
    if gr is not None:
        yield Candidate((None, gr), "the late filter's conjuncts on the right input")


def through_full_outer_join(op: P.OuterJoin, f: X.Expr, budget: Budget) -> Iterator[Candidate]:
    """F on each input's NULL-padded row (the other input's columns NULL), then each input's
    conjuncts. A row F keeps is either matched or padded; the padded form is what reads a
    filter on the coalesced key (`coalesce(a.k, b.k) > 3`) as `a.k > 3` and `b.k > 3`."""
    gl = _padded_conjuncts(f, op.right.output, op.left.output)
    gr = _padded_conjuncts(f, op.left.output, op.right.output)
    seen = []
    found = [((gl, gr), "the late filter on each input's NULL-padded row"),
             *((c.predicates, c.how) for c in through_outer_join(op, f, budget)),
             ((gl, None), "the late filter on the left input's NULL-padded row"),
             ((None, gr), "the late filter on the right input's NULL-padded row")]
    for pair, how in found:
        if any(x is not None for x in pair) and pair not in seen:
            seen.append(pair)
            yield Candidate(pair, how)


def _padded_conjuncts(f: X.Expr, nulled: tuple[X.Col, ...], kept: tuple[X.Col, ...]) -> X.Expr | None:
    """Each conjunct of F on a row whose `nulled` columns are NULL, keeping those that become a
    test of the `kept` columns (a conjunct that becomes FALSE only says padded rows fail it)."""
    parts = []
    for conjunct in X.conjuncts(f):
        padded = padded_predicate(conjunct, nulled)
        if padded not in (X.TRUE, X.FALSE) and X.columns(padded) and X.columns(padded) <= set(kept):
            parts.append(padded)
    return X.and_(*parts) if parts else None


def through_row_to_row(op: P.Plan, f: X.Expr, budget: Budget) -> Iterator[Candidate]:
    """Filter, Reorder or Project: the operators a row-by-row pandas body is made of."""
    if isinstance(op, P.Project):
        yield from through_project(op, f, budget)
    else:
        yield from through_row_selection(op, f, budget)
