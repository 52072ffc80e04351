"""The rows a GroupBy's kept groups read: a candidate for a filter on aggregates.

A late filter on aggregate outputs keeps some groups. A row that changes no aggregate of any
group the filter keeps, and whose absence lets no dropped group pass, may go before the
GroupBy. Per aggregate, the rows that can matter:

- `count(x)`, `avg(x)`: x is not NULL (the others are skipped);
- `sum(x)`: x is neither NULL nor 0 (a 0 adds nothing);
- `max(x)` / `min(x)`: x is not NULL and, when the filter bounds that output from the side
  the extremum moves away from (`min(x) < 50`, `max(x) >= 21`), x within that bound: a row
  beyond it is never the extremum of a kept group, and a dropped group stays dropped without
  it (the extremum of fewer rows is further beyond the bound);
- `max_by(x, o)` / `min_by(x, o)`: o is not NULL (a row without an ordering value is never
  picked);
- `count(*)` and anything else: every row.

A candidate that would only remove rows adding a NULL or a 0 is not proposed: on most tables
it removes nothing, and such a suggestion is noise.

A row matters when it matters to some aggregate: the candidate is the disjunction. Only the
verifier (verify/aggregate_halves.py) decides whether it is correct; this only proposes it.
`CASE WHEN c THEN v ELSE d END` tests with literal `v` and `d` are written as tests of `c`, as
a user writes them.

>>> k, a, b = X.Col("k", 0, "int"), X.Col("a", 1, "int"), X.Col("b", 2, "int")
>>> lo_a, lo_b = X.Col("lo_a", 3, "int"), X.Col("lo_b", 4, "int")
>>> op = P.Aggregate(P.Source("t", (k, a, b)), (k,), ((k, k), (lo_a, X.Agg("min", a, "int")),
...                                                  (lo_b, X.Agg("min", b, "int"))))
>>> late = X.and_(X.Cmp("<", lo_a, X.Lit(50, "int")), X.Cmp("<", lo_b, X.Lit(50, "int")))
>>> str(rows_kept_groups_read(op, late))
'a < 50 OR b < 50'
"""

from __future__ import annotations

from typing import Callable

from magicpush_lab.ir import expr as X
from magicpush_lab.ir import plan as P
from magicpush_lab.symbolic.aggregate_ops import aggregates

# the bound a conjunct on an extremum's output puts on the rows that can be that extremum of a
# kept group: for min, `<`/`<=`/`=` give an upper bound; for max, `>`/`>=`/`=` a lower one
_TOWARDS = {"min": {"<": "<", "<=": "<=", "=": "<="}, "max": {">": ">", ">=": ">=", "=": ">="}}
_FLIPPED = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "=": "=", "!=": "!="}


def rows_kept_groups_read(op: P.Aggregate, f: X.Expr) -> X.Expr | None:
    """The rows some aggregate of a group `f` keeps can read, or None when every row can
    (count(*), an aggregate not listed above, a pivot or a deduplication)."""
    if op.pivot or op.deduplicate or not op.keys:
        return None
    outputs = {col: e for col, e in op.outputs}
    orders = _order_bounds(op, f, outputs)
    parts = []
    for agg in aggregates(op):
        if agg.by is not None and _struct_order(agg.by) is not None:
            part = orders.get((agg.fn, agg.by))
            if part is None:
                return None
            parts.append(part)
            continue
        part = _read_by(agg, [c for c in X.conjuncts(f) if _reads_only(c, _columns_of(agg, outputs))
                              or _reads_only(c, _second_of(agg, outputs))])
        if part is None:
            return None
        parts.append(part)
    kept = _unabsorbed([filter_form(p) for p in parts])
    # rows whose read column only adds a NULL or a 0 are what every sum and count skips:
    # filtering them alone removes nothing on most tables, and such a suggestion is noise. A
    # column computed below (a UDF's value) is another matter: its 0 is a condition on the row
    if not kept or all(_adds_nothing(p, _computed(op.child)) for p in kept):
        return None
    return _common_first(kept)


def _computed(plan: P.Plan) -> set[X.Col]:
    """The columns computed below (a renamed column is what it renames)."""
    defs = {c: e for node in P.nodes(plan) for c, e in (getattr(node, "outputs", None) or ()) if e != c}
    computed = {c for c, e in defs.items() if not isinstance(e, X.Col)}
    renames = {c: e for c, e in defs.items() if isinstance(e, X.Col)}
    grew = True
    while grew:
        more = {c for c, e in renames.items() if e in computed and c not in computed}
        computed |= more
        grew = bool(more)
    return computed


def _adds_nothing(part: X.Expr, computed: set[X.Col]) -> bool:
    """`x IS NOT NULL` or `x != 0` of a column read as it is, or `NOT isnan(x)` (a pandas
    aggregate skips NaN as it skips NULL), or a conjunction of them: the test of a row adding
    nothing."""
    if isinstance(part, X.And):
        return all(_adds_nothing(p, computed) for p in part.args)
    if isinstance(part, X.Not) and isinstance(part.arg, X.Func) and part.arg.name == "isnan":
        return isinstance(part.arg.args[0], X.Col) and part.arg.args[0] not in computed
    if isinstance(part, X.IsNotNull):
        return isinstance(part.arg, X.Col) and part.arg not in computed
    zero = _constant(part.right) if isinstance(part, X.Cmp) else None
    return isinstance(part, X.Cmp) and part.op == "!=" and isinstance(part.left, X.Col) \
        and part.left not in computed and zero is not None and zero.value == 0


def filter_form(e: X.Expr) -> X.Expr:
    """`e` as a filter reads it, where NULL and FALSE both drop the row, written plainly:
    `coalesce(p, false)` is `p`; a comparison of `CASE WHEN c THEN v END` (NULL otherwise) with a
    literal is `c AND` the comparison of `v`; a conjunct another one implies goes (`x != 0`
    beside `x > 500`, `x IS NOT NULL` beside a comparison of x with a literal). Only AND and OR
    are looked through: under NOT a NULL is no longer a FALSE.

    >>> a = X.Col("a", 1, "double")
    >>> nan_free = X.Case(((X.Not(X.Func("isnan", (a,), "boolean")), a),), X.Lit(None, "double"))
    >>> e = X.and_(X.Coalesce((X.Cmp(">", nan_free, X.Lit(500.0, "double")), X.FALSE)),
    ...            X.Cmp("!=", a, X.Lit(0.0, "double")), X.IsNotNull(a))
    >>> str(filter_form(e))
    'NOT isnan(a) AND a > 500.0'
    """
    if isinstance(e, X.And):
        flat: list[X.Expr] = []
        for part in (filter_form(p) for p in e.args):
            flat.extend(q for q in X.conjuncts(part) if q not in flat)
        return X.and_(*(q for q in flat if not any(_implies(other, q) for other in flat if other is not q)))
    if isinstance(e, X.Or):
        return _common_first([filter_form(p) for p in e.args])
    if isinstance(e, X.Coalesce) and len(e.args) == 2 and e.args[1] == X.FALSE:
        return filter_form(e.args[0])
    if isinstance(e, X.IsNotNull) and isinstance(e.arg, X.Coalesce) and isinstance(e.arg.args[-1], X.Lit) \
            and e.arg.args[-1].value is not None:
        return X.TRUE  # a coalesce ending in a literal is never NULL
    if isinstance(e, X.Cmp) and e.op != "<=>" and _constant(e.right) is not None and isinstance(e.left, X.Case) \
            and len(e.left.branches) == 1 and isinstance(e.left.default, X.Lit) and e.left.default.value is None:
        cond, value = e.left.branches[0]
        return filter_form(X.and_(cond, X.Cmp(e.op, value, e.right)))
    return e


def _common_first(parts: list[X.Expr]) -> X.Expr:
    """A disjunction with the conjuncts every part shares written once, in front:
    `(a AND b) OR (a AND c)` is `a AND (b OR c)`."""
    shared = [c for c in X.conjuncts(parts[0]) if all(c in X.conjuncts(p) for p in parts[1:])]
    if not shared or len(parts) < 2:
        return X.or_(*parts)
    rest = [X.and_(*(c for c in X.conjuncts(p) if c not in shared)) for p in parts]
    return X.and_(*shared) if X.TRUE in rest else X.and_(*shared, X.or_(*rest))


def _implies(a: X.Expr, b: X.Expr) -> bool:
    """Conjunct `a` holds only where conjunct `b` does (both comparisons of one expression with
    number literals, or `b` that expression's IS NOT NULL)."""
    if not (isinstance(a, X.Cmp) and a.op in ("<", "<=", ">", ">=", "=") and _constant(a.right) is not None):
        return False
    if isinstance(b, X.IsNotNull):
        return b.arg == a.left
    if not (isinstance(b, X.Cmp) and b.left == a.left and _constant(b.right) is not None):
        return False
    va, vb = _constant(a.right).value, _constant(b.right).value
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (va, vb)):
        return False
    if b.op == "!=":
        return {"<": va <= vb, "<=": va < vb, ">": va >= vb, ">=": va > vb, "=": va != vb}[a.op]
    return a == b or _looser(b, a)


def _unabsorbed(parts: list[X.Expr]) -> list[X.Expr]:
    """The disjuncts without those another one implies: `x != 0` or `x IN (1, 2)` (NULL where x
    is) beside `x IS NOT NULL`.

    >>> x = X.Col("x", 1, "int")
    >>> [str(p) for p in _unabsorbed([X.IsNotNull(x), X.In(X.Cast(x, "long"), (X.Lit(1, "long"),))])]
    ['x IS NOT NULL']
    """
    not_null = {p.arg for p in parts if isinstance(p, X.IsNotNull)}

    def absorbed(p: X.Expr) -> bool:
        if isinstance(p, X.Cmp) and p.op != "<=>":
            tested, values = p.left, (p.right,)
        elif isinstance(p, X.In):
            tested, values = p.arg, p.values
        else:
            return False
        while isinstance(tested, X.Cast):
            tested = tested.arg
        return tested in not_null and all(_constant(v) is not None for v in values)

    return [p for p in parts if not absorbed(p)]


def _struct_order(by: X.Expr) -> X.Col | None:
    """The column a struct's min/max orders by (translate/spark_plan._struct_extremum_outputs:
    CASE WHEN c IS NULL THEN <the smallest value> ELSE c END), or None for any other order."""
    if isinstance(by, X.Case) and len(by.branches) == 1 and isinstance(by.default, X.Col):
        (test, value), = by.branches
        if test == X.IsNull(by.default) and isinstance(value, X.Lit) and value.value is not None:
            return by.default
    return None


def _order_bounds(op: P.Aggregate, f: X.Expr, outputs: dict[X.Col, X.Expr]) -> dict:
    """For the fields of a struct's min (max), the rows that can be the picked row of a group
    `f` keeps: a conjunct bounding the ordering field's own output from the side the extremum
    moves away from (`first.day < 38`) bounds every field's row (a row beyond it is never the
    first); a NULL ordering field orders first, so for min such rows can be picked too. Keyed
    by (min_by or max_by, the order); an order without such a bound has no entry (every row)."""
    bounds: dict = {}
    for col, e in outputs.items():
        if not (isinstance(e, X.Agg) and e.by is not None and e.fn in ("min_by", "max_by")):
            continue
        ordered = _struct_order(e.by)
        if ordered is None or e.arg != ordered:
            continue
        fn = "min" if e.fn == "min_by" else "max"
        found = [b for b in (_bound(fn, c, ordered) for c in X.conjuncts(f) if _reads_only(c, {col}))
                 if b is not None]
        if found:
            bound = X.and_(*found)
            bounds[(e.fn, e.by)] = X.or_(bound, X.IsNull(ordered)) if fn == "min" else bound
    return bounds


def _second_of(agg: X.Agg, outputs: dict[X.Col, X.Expr]) -> set[X.Col]:
    """For max(x) (min(x)), the output columns that are the second largest (smallest) x: the
    largest is at least the second, so a lower bound on the second bounds it too."""
    second = {"max": "second_max", "min": "second_min"}.get(agg.fn)
    return {col for col, e in outputs.items()
            if isinstance(e, X.Agg) and e.fn == second and e.arg == agg.arg} if second and not agg.distinct else set()


def _columns_of(agg: X.Agg, outputs: dict[X.Col, X.Expr]) -> set[X.Col]:
    """The output columns that are exactly this aggregate."""
    return {col for col, e in outputs.items() if e == agg}


def _reads_only(conjunct: X.Expr, cols: set[X.Col]) -> bool:
    read = X.columns(conjunct)
    return bool(read) and read <= cols


def _read_by(agg: X.Agg, on_it: list[X.Expr]) -> X.Expr | None:
    if agg.arg is None or agg.fold is not None or (agg.distinct and agg.fn not in ("max", "min")):
        return None
    x = agg.arg
    if agg.by is not None:  # max_by, min_by: only a row with an ordering value can be picked
        return _not_null(agg.by) if agg.fn in ("max_by", "min_by") else None
    if agg.fn in ("count", "avg"):
        return _not_null(x)
    if agg.fn == "sum":
        return _tested(x, lambda v: X.Cmp("!=", v, _zero(X.dtype_of(v))))
    if agg.fn in ("max", "min", "second_max", "second_min"):
        # a row outside the bound on the second item is neither of a kept group's first two
        fn = agg.fn.removeprefix("second_")
        bounds = [b for b in (_bound(fn, c, x) for c in on_it) if b is not None]
        return X.and_(*bounds) if bounds else _not_null(x)
    return None


def _zero(dtype: str) -> X.Lit:
    return X.Lit(0.0 if dtype in ("double", "float") else 0, dtype)


def _bound(fn: str, conjunct: X.Expr, x: X.Expr) -> X.Expr | None:
    """The test on x that `conjunct` (on the extremum's output column) gives its rows, or None."""
    conjunct = _flag_test(conjunct)
    if isinstance(conjunct, X.Or):
        parts = [_bound(fn, d, x) for d in conjunct.args]
        return None if any(p is None for p in parts) else _loosest(parts)
    if isinstance(conjunct, X.In) and isinstance(_widened(conjunct.arg), X.Col):
        parts = [_bound(fn, X.Cmp("=", conjunct.arg, v), x) for v in conjunct.values]
        return None if any(p is None for p in parts) else _loosest(parts)
    if isinstance(conjunct, X.Col) and conjunct.dtype == "boolean" and fn == "max":
        return _tested(x, lambda v: v)  # max of booleans is TRUE: some row's x is TRUE
    if not isinstance(conjunct, X.Cmp):
        return None
    op, left, right = conjunct.op, _widened(conjunct.left), _widened(conjunct.right)
    if _constant(left) is not None and isinstance(right, X.Col):
        op, left, right = _FLIPPED.get(op, op), right, left
    value = _constant(right)
    if not (isinstance(left, X.Col) and value is not None and value.value is not None):
        return None
    towards = _TOWARDS[fn].get(op)
    return None if towards is None else _tested(x, lambda v: X.Cmp(towards, v, right))


def _flag_test(e: X.Expr) -> X.Expr:
    """`cast(b as int) >= 1` (`= 1`, `> 0`) of a boolean column b is b TRUE: written as `b`.

    >>> b = X.Col("has_0", 1, "boolean")
    >>> str(_flag_test(X.Cmp(">=", X.Cast(b, "int"), X.Lit(1, "int"))))
    'has_0'
    """
    if isinstance(e, X.Cmp) and isinstance(e.left, X.Cast) and isinstance(e.left.arg, X.Col) \
            and e.left.arg.dtype == "boolean" and e.left.dtype in ("byte", "short", "int", "long"):
        value = _constant(e.right)
        if value is not None and (e.op, value.value) in ((">=", 1), ("=", 1), (">", 0)):
            return e.left.arg
    return e


def rows_some_flag_true(op: P.Aggregate, f: X.Expr) -> X.Expr | None:
    """When `f` needs some `bool_or` of the group TRUE, the rows on which some `bool_or`'s
    condition is TRUE: a row where every condition is FALSE or NULL changes a flag only from
    NULL to FALSE, which another kept row may already decide. None unless every aggregate is a
    `bool_or` (max of a boolean) and `f` needs one of them TRUE. Only a proposal: the verifier
    decides.

    >>> k, lo = X.Col("k", 0, "int"), X.Col("lo", 1, "int")
    >>> h0, h1 = X.Col("h0", 2, "boolean"), X.Col("h1", 3, "boolean")
    >>> op = P.Aggregate(P.Source("t", (k, lo)), (k,), ((k, k), (h0, X.Agg("max", X.Cmp("<=", lo, X.Lit(0, "int")), "boolean")),
    ...                                                 (h1, X.Agg("max", X.Cmp("<=", lo, X.Lit(1, "int")), "boolean"))))
    >>> str(rows_some_flag_true(op, X.and_(h0, X.IsNotNull(h1))))
    'lo <= 0 OR lo <= 1'
    """
    if op.pivot or op.deduplicate or not op.keys:
        return None
    aggs = aggregates(op)
    if not aggs or any(a.fn != "max" or a.dtype != "boolean" or a.arg is None or a.distinct for a in aggs):
        return None
    outputs = {col: e for col, e in op.outputs}
    flags = {col for col, e in outputs.items() if isinstance(e, X.Agg)}
    if not any(_flag_test(c) in flags for c in X.conjuncts(f)):
        return None
    return filter_form(X.or_(*(_tested(a.arg, lambda v: v) for a in aggs)))


_EXACT_WIDENINGS = {("byte", "short"), ("byte", "int"), ("byte", "long"), ("short", "int"), ("short", "long"),
                    ("int", "long"), ("byte", "double"), ("short", "double"), ("int", "double"), ("float", "double")}


def _widened(e: X.Expr) -> X.Expr:
    """A column under a cast that keeps every value and its order (Spark widens `lo IN (1, 2)`
    on an int output to `cast(lo as bigint) IN (...)`, and may cast a column to its own type):
    the column itself, else `e`.

    >>> str(_widened(X.Cast(X.Col("lo", 1, "int"), "long"))), str(_widened(X.Cast(X.Col("d", 2, "double"), "int")))
    ('lo', 'cast(d as int)')
    """
    if isinstance(e, X.Cast) and isinstance(e.arg, X.Col) and \
            (e.arg.dtype == e.dtype or (e.arg.dtype, e.dtype) in _EXACT_WIDENINGS):
        return e.arg
    return e


def _loosest(bounds: list[X.Expr]) -> X.Expr:
    """The disjunction of bounds, each side of one expression kept once, at its loosest:
    `x <= 3 OR x <= 5` is `x <= 5`.

    >>> x = X.Col("x", 1, "int")
    >>> str(_loosest([X.Cmp("<=", x, X.Lit(3, "int")), X.Cmp("<", x, X.Lit(5, "int")), X.Cmp(">=", x, X.Lit(9, "int"))]))
    'x < 5 OR x >= 9'
    """
    kept: list[X.Expr] = []
    for b in bounds:
        loosest = b
        for other in bounds:
            if _looser(other, loosest):
                loosest = other
        if loosest not in kept:
            kept.append(loosest)
    return X.or_(*kept)


def _looser(a: X.Expr, b: X.Expr) -> bool:
    """`a` holds wherever `b` does and somewhere more (one expression, one direction)."""
    if not (isinstance(a, X.Cmp) and isinstance(b, X.Cmp) and a.left == b.left):
        return False
    va, vb = _constant(a.right), _constant(b.right)
    if va is None or vb is None or not all(isinstance(v.value, (int, float)) for v in (va, vb)):
        return False
    up, down = {"<", "<="}, {">", ">="}
    if a.op in up and b.op in up:
        return va.value > vb.value or (va.value == vb.value and a.op == "<=" and b.op == "<")
    if a.op in down and b.op in down:
        return va.value < vb.value or (va.value == vb.value and a.op == ">=" and b.op == ">")
    return False


def _constant(e: X.Expr) -> X.Lit | None:
    """A literal, or a cast of a number literal to a number type (Spark widens `col < 50` on a
    bigint column to `col < cast(50 as bigint)`): the literal whose value it has."""
    if isinstance(e, X.Cast) and isinstance(e.arg, X.Lit) and isinstance(e.arg.value, (int, float)) \
            and not isinstance(e.arg.value, bool) and e.dtype in ("byte", "short", "int", "long", "float", "double"):
        return e.arg
    return e if isinstance(e, X.Lit) else None


def _not_null(x: X.Expr) -> X.Expr:
    """x is not NULL; a comparison with a literal is NULL exactly where its other side is."""
    if isinstance(x, X.Cmp) and x.op != "<=>":
        for side, other in ((x.left, x.right), (x.right, x.left)):
            constant = _constant(other)
            if constant is not None and constant.value is not None:
                return _not_null(side)
    return _tested(x, X.IsNotNull)


def _tested(x: X.Expr, test: Callable[[X.Expr], X.Expr]) -> X.Expr:
    """`test(x)`, with `x` = CASE WHEN c THEN v ELSE d END taken apart: for literal v and d the
    test of c alone; `c AND test(v)` when the test fails on the literal d.

    >>> c, v = X.Cmp("=", X.Col("type", 1, "int"), X.Lit(4, "int")), X.Col("amount", 2, "int")
    >>> str(_tested(X.Case(((c, X.Lit(1, "int")),), X.Lit(None, "null")), X.IsNotNull))
    'type = 4'
    >>> str(_tested(X.Case(((c, v),), X.Lit(0, "int")), lambda e: X.Cmp("!=", e, X.Lit(0, "int"))))
    'type = 4 AND amount != 0'
    >>> c2 = X.Cmp("=", X.Col("type", 1, "int"), X.Lit(5, "int"))
    >>> str(_tested(X.Case(((c, v), (c2, v)), X.Lit(0, "int")), lambda e: X.Cmp("!=", e, X.Lit(0, "int"))))
    '(type = 4 AND amount != 0) OR (type = 5 AND amount != 0)'
    """
    if not (isinstance(x, X.Case) and _constant(x.default) is not None):
        return test(x)
    on_default = _literal_truth(test(default := x.default))
    if on_default is None:
        return test(x)
    if len(x.branches) > 1:
        if on_default is not False:
            return test(x)
        # some branch is taken and its value passes: each branch's condition with its test (a
        # row an earlier branch takes is kept too, which keeps more rows, never fewer)
        return X.or_(*(_tested(X.Case((branch,), default), test) for branch in x.branches))
    cond, value = x.branches[0]
    on_value = _literal_truth(test(value)) if _constant(value) is not None else None
    if on_default is False:
        if on_value is True:
            return cond
        return X.FALSE if on_value is False else X.and_(cond, _tested(value, test))
    if on_value is False:  # the test holds where c is not TRUE
        return X.or_(X.Not(cond), X.IsNull(cond))
    return X.TRUE if on_value is True else test(x)


_NULL = "NULL"  # a test's value that is SQL NULL, which a filter treats as false


def _literal_truth(e: X.Expr) -> bool | None:
    """The truth of a test of literals in a filter (NULL counts as false), or None when it
    reads anything else or an operator not folded here."""
    value = _literal_value(e)
    return None if value is None else value is True


def _literal_value(e: X.Expr) -> bool | str | None:
    """True, False or _NULL for a test of literals; None when it cannot be folded here."""
    if isinstance(e, X.Not):
        inner = _literal_value(e.arg)
        return inner if inner in (None, _NULL) else not inner
    if isinstance(e, X.IsNotNull) and isinstance(e.arg, X.Lit):
        return e.arg.value is not None
    if isinstance(e, X.IsNull) and isinstance(e.arg, X.Lit):
        return e.arg.value is None
    if isinstance(e, X.Lit) and e.value is None:
        return _NULL
    if isinstance(e, X.Lit) and isinstance(e.value, bool):
        return e.value
    left, right = (_constant(e.left), _constant(e.right)) if isinstance(e, X.Cmp) else (None, None)
    if isinstance(e, X.Cmp) and left is not None and right is not None:
        a, b = left.value, right.value
        if a is None or b is None:
            return _NULL if e.op != "<=>" else a is None and b is None
        if isinstance(a, bool) != isinstance(b, bool) or not all(isinstance(v, (int, float)) for v in (a, b)):
            return None
        return {"=": a == b, "!=": a != b, "<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b,
                "<=>": a == b}.get(e.op)
    return None
