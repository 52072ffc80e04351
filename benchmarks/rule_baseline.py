"""The rule-based baseline of the MagicPush paper (Section 7.1.2, rules (1)-(9)), for comparison.

The benchmarks measure the engine against this baseline; the product never uses it. It walks
every filter of a plan from where it is toward the sources, like the engine, but decides each
step by pattern-matching rules collected from existing systems instead of search and proof:

(1) projection: a conjunct passes when the columns it reads are kept, renamed or computed by a
    deterministic built-in expression (substituted, as Spark's optimizer does); a column set by
    a Python or pandas UDF is substituted only if the UDF is an invertible function of a single
    column, checked with Z3 under a time limit (a black box or a time-out is not invertible);
(2) group-by (and distinct): conjuncts on the group keys; `max(c) > v` / `max(c) >= v` becomes
    `c > v` / `c >= v` (`min` with `<`, `<=`) when that aggregate is the only one of a grouped
    aggregate (another aggregate would see fewer rows);
(3) union, sort, repartition: the predicate passes unchanged (under each input's column names);
(4) inner join: each conjunct on one input goes to that input; a conjunct reading both stays;
(5) inner join, a conjunct that is a disjunction of conjunctions each reading both inputs: each
    input also gets the disjunction of its own parts (TPC-H Q7), the conjunct itself stays;
(6) left (right) outer join: conjuncts on the preserved input go to it; a conjunct on the join
    key alone also goes, with the key renamed, to the other input;
(7) semi and anti join: the predicate (on left columns) goes to the left input;
(8) a subquery (RowIterPipeline, a UDF looping over a collected table): the conjuncts of the
    loop's filter that read only the loop row go to the collected table, as the subquery's own
    WHERE would in SQL; conjuncts of F that do not read the UDF's column go below it as (1);
(9) pivot and unpivot: conjuncts on the index columns only.

A join's own condition is a filter on the join's output for the inputs whose unmatched rows
the join drops, so its conjuncts on one input go there by (4), (6) and (7). Deterministic
conjuncts before the first nondeterministic one move (as in Spark); no predicate moves past an
operator that computes a nondeterministic column, nor past a nondeterministic filter, and a
conjunct that can raise does not move below another filter (its guard, maybe). Any other
operator (top-k, window, explode, grouped map, full outer join, barriers) stops the predicate.

A push is `exact` when every step on its way was an exact rule, which would let the late
filter go; this is only reported.

>>> from magicpush_lab.ir import expr as X, plan as P
>>> v, s = X.Col("v", 1, "int"), X.Col("store", 2, "string")
>>> src = P.Source("sales", (v, s), origin=0)
>>> agg = P.Aggregate(src, (s,), ((s, s), (X.Col("mx", 3, "int"), X.Agg("max", v, "int"))))
>>> late = P.Filter(agg, X.And((X.Cmp("=", s, X.Lit("a", "string")), X.Cmp(">", X.Col("mx", 3, "int"), X.Lit(9, "int")))))
>>> [(str(p.predicate), p.exact) for p in baseline_push(late)]
[("store = 'a' AND v > 9", True)]
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

import z3

from magicpush_lab.ir import expr as X
from magicpush_lab.ir import plan as P

INVERTIBLE_MS = 1000  # Z3's limit for one invertibility check

SourceKey = tuple  # (origin, name, column ids): one scan, self-joins told apart


@dataclass(frozen=True)
class BaselinePush:
    """A predicate the rules carried to a source, and the rules that carried it."""

    source: P.Source
    predicate: X.Expr
    rules: tuple[str, ...]
    exact: bool


@dataclass
class _Context:
    plan: P.Plan
    timeout_ms: int
    invertible: dict = field(default_factory=dict)
    pushes: list = field(default_factory=list)


def source_key(source: P.Source) -> SourceKey:
    return (source.origin, source.name, frozenset(c.id for c in source.output))


def baseline_push(plan: P.Plan, timeout_ms: int = INVERTIBLE_MS) -> list[BaselinePush]:
    """What rules (1)-(9) push to the sources, from every filter with an operator below it and
    every join condition; the same predicate reaching a source twice is kept once."""
    ctx = _Context(plan, timeout_ms)
    for node in P.nodes(plan):
        if isinstance(node, P.Filter) and not _on_source(node.child):
            movable, whole = _movable(node.condition)
            _walk(node.child, movable, (), whole, ctx)
    for join, side, conjunct, rule in _join_condition_conjuncts(plan):
        _walk(join.children[side], conjunct, (rule,), False, ctx)
    seen, out = set(), []
    for p in ctx.pushes:
        key = (source_key(p.source), p.predicate)
        if key not in seen:
            seen.add(key)
            out.append(p)
    return out


def per_source(pushes: list[BaselinePush]) -> dict[SourceKey, X.Expr]:
    """Each source's predicate: the conjunction of what arrived there."""
    found: dict[SourceKey, X.Expr] = {}
    for p in pushes:
        key = source_key(p.source)
        found[key] = X.and_(found.get(key, X.TRUE), p.predicate)
    return found


# ----------------------------------------------------------------------------- the walk

def _on_source(node: P.Plan) -> bool:
    while isinstance(node, P.Filter):
        node = node.child
    return isinstance(node, P.Source)


def _movable(pred: X.Expr) -> tuple[X.Expr, bool]:
    """The deterministic conjuncts before the first nondeterministic one, and whether that is all."""
    kept = []
    for c in X.conjuncts(pred):
        if not X.is_deterministic(c):
            return X.and_(*kept), False
        kept.append(c)
    return X.and_(*kept), True


def _walk(node: P.Plan, pred: X.Expr, rules: tuple[str, ...], exact: bool, ctx: _Context) -> None:
    if pred == X.TRUE:
        return
    if isinstance(node, P.Source):
        ctx.pushes.append(BaselinePush(node, pred, rules, exact))
        return
    handler = _HANDLERS.get(type(node))
    if handler is None:
        return  # no rule for this operator: the predicate stops here
    for child, g, rule, step_exact in handler(node, pred, ctx):
        _walk(child, g, rules + (rule,), exact and step_exact, ctx)


def _split(pred: X.Expr, rewrite) -> tuple[X.Expr, bool]:
    """Each conjunct rewritten by `rewrite` (None: it cannot pass); the conjunction of those that
    pass, and whether all did."""
    passed = [rewrite(c) for c in X.conjuncts(pred)]
    return X.and_(*[g for g in passed if g is not None]), all(g is not None for g in passed)


def _filter(node: P.Filter, pred: X.Expr, ctx: _Context):
    """Filters commute, except that a conjunct that can raise (a cast that may fail, a UDF that
    may raise) stays above the filter, which may be its guard: Spark, combining the two, keeps
    the lower filter's condition first."""
    if not X.is_deterministic(node.condition):
        return []
    g, whole = _split(pred, lambda c: None if _may_raise(c) else c)
    return [(node.child, g, "filters commute", whole)]


def _may_raise(e: X.Expr) -> bool:
    """Can evaluating `e` raise on some row (or can it not be modelled at all)?"""
    from magicpush_lab.symbolic.encode import Evaluator
    from magicpush_lab.symbolic.table import SymbolicRow
    from magicpush_lab.symbolic.values import NotModelled

    ev = Evaluator()
    try:
        ev.eval(e, SymbolicRow("raise"))
    except NotModelled:
        return True
    return not z3.is_false(z3.simplify(z3.Or(ev.error(), ev.cast_failure())))


def _project(node: P.Project, pred: X.Expr, ctx: _Context):
    if not all(X.is_deterministic(e) for _, e in node.outputs):
        return []
    mapping = dict(node.outputs)

    def rewrite(c: X.Expr) -> X.Expr | None:
        if not all(col in mapping and _substitutable(mapping[col], ctx) for col in X.columns(c)):
            return None
        return X.substitute(c, {col: mapping[col] for col in X.columns(c)})

    g, whole = _split(pred, rewrite)
    return [(node.child, g, "(1) projection", whole)]


def _reorder(node: P.Reorder, pred: X.Expr, ctx: _Context):
    return [(node.child, pred, "(3) sort", True)]


def _union(node: P.Union, pred: X.Expr, ctx: _Context):
    return [(child, X.substitute(pred, m), "(3) union", True) for child, m in zip(node.inputs, node.column_maps())]


def _inner_join(node: P.InnerJoin, pred: X.Expr, ctx: _Context):
    sides = (frozenset(node.left.output), frozenset(node.right.output))
    parts: tuple[list, list] = ([], [])
    whole = True
    for c in X.conjuncts(pred):
        cols = X.columns(c)
        home = [i for i, own in enumerate(sides) if cols and cols <= own]
        if home:
            parts[home[0]].append(c)
            continue
        whole = False
        for i, own in enumerate(sides):  # rule (5): a disjunction across the inputs
            extra = _disjunction_part(c, own)
            if extra is not None:
                parts[i].append(extra)
    return [(child, X.and_(*g), "(4)/(5) inner join", whole) for child, g in zip(node.children, parts)]


def _disjunction_part(c: X.Expr, own: frozenset) -> X.Expr | None:
    """Rule (5): for a disjunction of conjunctions, the disjunction of each one's literals on
    `own`; None when some disjunct has no literal on `own` (that input is not restricted)."""
    disjuncts = X.disjuncts(c)
    if len(disjuncts) < 2:
        return None
    mine = []
    for d in disjuncts:
        lits = [lit for lit in X.conjuncts(d) if X.columns(lit) and X.columns(lit) <= own]
        if not lits:
            return None
        mine.append(X.and_(*lits))
    return X.or_(*mine)


def _outer_join(node: P.OuterJoin, pred: X.Expr, ctx: _Context):
    if node.preserved == "both":
        return []
    kept = 0 if node.preserved == "left" else 1
    own = frozenset(node.children[kept].output)
    keys = _equi_keys(node.condition, node.children[kept].output, node.children[1 - kept].output)
    on_kept, whole = _split(pred, lambda c: c if X.columns(c) and X.columns(c) <= own else None)
    on_key = X.and_(*[X.substitute(c, keys) for c in X.conjuncts(on_kept) if X.columns(c) <= set(keys)])
    out = [(node.children[kept], on_kept, "(6) outer join, preserved input", whole)]
    if on_key != X.TRUE:
        out.append((node.children[1 - kept], on_key, "(6) outer join, join key", whole))
    return out


def _equi_keys(condition: X.Expr, mine, other) -> dict[X.Col, X.Col]:
    """Join key of `mine` -> the key of `other` it is equated with by a conjunct `a = b`."""
    mine, other = set(mine), set(other)
    keys: dict[X.Col, X.Col] = {}
    for c in X.conjuncts(condition):
        if isinstance(c, X.Cmp) and c.op == "=" and isinstance(c.left, X.Col) and isinstance(c.right, X.Col):
            for a, b in ((c.left, c.right), (c.right, c.left)):
                if a in mine and b in other:
                    keys.setdefault(a, b)
    return keys


def _semi_join(node: P.SemiJoin, pred: X.Expr, ctx: _Context):
    return [(node.left, pred, "(7) semi/anti join", True)]


_BOUND = {("max", ">"), ("max", ">="), ("min", "<"), ("min", "<=")}
_MIRROR = {">": "<", ">=": "<=", "<": ">", "<=": ">="}


def _aggregate(node: P.Aggregate, pred: X.Expr, ctx: _Context):
    keys = {c: e for c, e in node.outputs if e in node.keys and X.is_deterministic(e)
            and _substitutable(e, ctx)}
    aggregates = [(c, e) for c, e in node.outputs if c not in keys]
    rule = "(9) pivot" if node.pivot else "(2) group-by"

    def rewrite(c: X.Expr) -> X.Expr | None:
        if X.columns(c) and X.columns(c) <= set(keys):
            return X.substitute(c, keys)
        if node.pivot or not node.keys or len(aggregates) != 1:
            return None
        return _extreme_bound(c, aggregates[0], ctx)

    g, whole = _split(pred, rewrite)
    return [(node.child, g, rule, whole)]


def _extreme_bound(c: X.Expr, aggregate: tuple[X.Col, X.Expr], ctx: _Context) -> X.Expr | None:
    """`max(e) > v` -> `e > v` (and >=; min with < and <=), v a literal."""
    col, agg = aggregate
    if not (isinstance(agg, X.Agg) and agg.arg is not None and agg.fold is None):
        return None
    if not isinstance(c, X.Cmp):
        return None
    op, left, right = c.op, c.left, c.right
    if isinstance(left, X.Lit) and right == col:
        op, left, right = _MIRROR.get(op, ""), right, left
    if left != col or not isinstance(right, X.Lit) or right.value is None or (agg.fn, op) not in _BOUND:
        return None
    if not X.is_deterministic(agg.arg) or not _substitutable(agg.arg, ctx):
        return None
    return X.Cmp(op, agg.arg, right)


def _expand(node: P.Expand, pred: X.Expr, ctx: _Context):
    """Rule (9), unpivot: an index column is one every projection copies from the same input column."""
    index = {}
    for j, out in enumerate(node.output):
        exprs = {p[j] for p in node.projections}
        if len(exprs) == 1 and isinstance(next(iter(exprs)), X.Col):
            index[out] = next(iter(exprs))
    g, whole = _split(pred, lambda c: X.substitute(c, index) if X.columns(c) <= set(index) else None)
    return [(node.child, g, "(9) unpivot", whole)]


def _row_iter(node: P.RowIterPipeline, pred: X.Expr, ctx: _Context):
    passed = {c: e for c, e in node.outputs if isinstance(e, X.Col)}
    g, whole = _split(pred, lambda c: X.substitute(c, passed) if X.columns(c) <= set(passed) else None)
    out = [(node.child, g, "(1) projection, beside a subquery", whole)]
    side = _subquery_predicate(node, ctx)
    if side is not None:
        out.append((node.side_input, side, "(8) subquery", False))
    return out


_HANDLERS = {P.Filter: _filter, P.Project: _project, P.Reorder: _reorder, P.Union: _union,
             P.InnerJoin: _inner_join, P.OuterJoin: _outer_join, P.SemiJoin: _semi_join,
             P.Aggregate: _aggregate, P.Expand: _expand, P.RowIterPipeline: _row_iter}


# ----------------------------------------------------------------------------- join conditions

def _join_condition_conjuncts(plan: P.Plan):
    """(join, input, conjunct, rule): a join condition's conjuncts on one input whose unmatched
    rows the join drops (inner: both, semi: both, anti: right, left/right outer: the other)."""
    found = []
    for node in P.nodes(plan):
        if isinstance(node, P.InnerJoin):
            sides, rule = (0, 1), "(4) join condition"
        elif isinstance(node, P.SemiJoin):
            sides, rule = ((1,) if node.anti else (0, 1)), "(7) semi/anti join condition"
        elif isinstance(node, P.OuterJoin) and node.preserved in ("left", "right"):
            sides, rule = ((1,) if node.preserved == "left" else (0,)), "(6) outer join condition"
        else:
            continue
        movable, _ = _movable(node.condition)
        for side in sides:
            own = set(node.children[side].output)
            for c in X.conjuncts(movable):
                if X.columns(c) and X.columns(c) <= own:
                    found.append((node, side, c, rule))
    return found


# ----------------------------------------------------------------------------- UDFs

def _substitutable(e: X.Expr, ctx: _Context) -> bool:
    """Rule (1): an expression may replace its column in F unless it calls a UDF that is not an
    invertible function of a single column."""
    return all(_invertible(u, ctx) for u in X.walk(e) if isinstance(u, X.PyUdf))


def _invertible(udf: X.PyUdf, ctx: _Context) -> bool:
    if udf not in ctx.invertible:
        ctx.invertible[udf] = _prove_invertible(udf, ctx.timeout_ms)
    return ctx.invertible[udf]


def _prove_invertible(udf: X.PyUdf, timeout_ms: int) -> bool:
    """Is `udf` a function of one column that maps different values (NULL included) to different
    results, on every input it does not raise on? A UDF read as a black box is not."""
    from magicpush_lab.symbolic.encode import Evaluator
    from magicpush_lab.symbolic.table import SymbolicRow, domain
    from magicpush_lab.symbolic.values import NotModelled
    from magicpush_lab.symbolic.solver import prove

    if len(udf.args) != 1 or not isinstance(udf.args[0], X.Col) or not udf.deterministic or udf.batch_dependent:
        return False
    ev = Evaluator()
    a, b = SymbolicRow("inv_a"), SymbolicRow("inv_b")
    try:
        fa, fb = ev.eval(udf, a), ev.eval(udf, b)
    except NotModelled:
        return False
    if any(name.startswith("udf_") for name, *_ in ev._functions):
        return False  # the body could not be read: a black box
    xa, xb = a.cell(udf.args[0]), b.cell(udf.args[0])
    claim = z3.Implies(z3.And(domain([a, b]), z3.Not(ev.error()), _same(fa, fb)), _same(xa, xb))
    return prove(claim, timeout_ms).proved


def _same(p, q) -> z3.BoolRef:
    return z3.And(p.notnull == q.notnull, z3.Implies(p.notnull, p.value == q.value))


# ----------------------------------------------------------------------------- rule (8)

def _subquery_predicate(node: P.RowIterPipeline, ctx: _Context) -> X.Expr | None:
    """The subquery's own WHERE, read from the UDF: its one loop over the collected rows must be
    `for r in rows: if cond: ...` with no else, and `cond` a conjunction of `==`/`!=`/`is`
    comparisons, which raise on no value (so dropping rows hides no error). The conjuncts
    `r.field == constant` are the predicate. Nothing when the UDF is called more than once in the
    pipeline, since every call reads the same collected list."""
    if node.udf.source is None or _udf_calls(ctx.plan, node.udf.name) != 1:
        return None
    try:
        tree = ast.parse(node.udf.source.strip())
    except SyntaxError:
        return None
    reads = [n for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == node.side_name]
    loops = [n for n in ast.walk(tree) if isinstance(n, ast.For) and isinstance(n.iter, ast.Name)
             and n.iter.id == node.side_name]
    if len(loops) != 1 or len(reads) != 1 or not isinstance(loops[0].target, ast.Name):
        return None
    loop, var = loops[0], loops[0].target.id
    if loop.orelse or len(loop.body) != 1 or not isinstance(loop.body[0], ast.If) or loop.body[0].orelse:
        return None
    test = loop.body[0].test
    tests = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) else [test]
    if not all(isinstance(t, ast.Compare) and len(t.ops) == 1
               and isinstance(t.ops[0], (ast.Eq, ast.NotEq, ast.Is, ast.IsNot)) for t in tests):
        return None
    columns = {c.name: c for c in node.side_input.output}
    found = [_field_equals(t, var, columns) for t in tests]
    return X.and_(*[g for g in found if g is not None]) if any(found) else None


def _field_equals(t: ast.Compare, var: str, columns: dict) -> X.Expr | None:
    if not isinstance(t.ops[0], ast.Eq):
        return None
    for field_side, const_side in ((t.left, t.comparators[0]), (t.comparators[0], t.left)):
        name = _field_of(field_side, var)
        if name is None or name not in columns or not isinstance(const_side, ast.Constant):
            continue
        col, value = columns[name], const_side.value
        numeric = col.dtype in ("byte", "short", "int", "long", "float", "double") or col.dtype.startswith("decimal")
        if isinstance(value, bool) or value is None:
            return None
        if (isinstance(value, (int, float)) and numeric and value == value) or \
                (isinstance(value, str) and col.dtype == "string"):
            return X.Cmp("=", col, X.Lit(value, col.dtype))
    return None


def _field_of(e: ast.expr, var: str) -> str | None:
    """`r.f` or `r['f']` for the loop variable `r`: the field's name."""
    if isinstance(e, ast.Attribute) and isinstance(e.value, ast.Name) and e.value.id == var:
        return e.attr
    if isinstance(e, ast.Subscript) and isinstance(e.value, ast.Name) and e.value.id == var \
            and isinstance(e.slice, ast.Constant) and isinstance(e.slice.value, str):
        return e.slice.value
    return None


def _udf_calls(plan: P.Plan, name: str) -> int:
    return sum(1 for node in P.nodes(plan) for e in P.expressions(node) for x in X.walk(e)
               if isinstance(x, X.PyUdf) and x.name == name)


