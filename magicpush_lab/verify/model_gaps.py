"""Two places where a proof step is sound alone but the model around it is not: checked on
the whole walk, once a predicate has reached its source.

Double arithmetic. Doubles are reals in the model, so `0.0 * d < 3.0` is `d IS NOT NULL`
there; for NaN and the infinities Spark's value is NaN and the comparison differs. A
pushed predicate is refused when the late filter depends on double `+ - *` (in the
filter or in the computed columns it reads) and the predicate does not keep every such
node as it is: then the proof may have used a real-number identity. "As it is" is read
over the values, not the names: a late filter's node is compared with the predicate's
nodes after every column it reads is replaced by the expression that computed it (a
rename, a projection, a union's inputs), down to the sources, so `gross * 2 > 10` above
`gross = amt * 1.2` above `amt = amount` keeps its arithmetic in `(amount * 1.2) * 2 > 10`:
the same doubles computed from the same values.

Rows NULL-padded anew. Pushing a predicate to the non-preserved input of an outer join
turns some matched rows into NULL-padded ones, which the late filter then removes. But
every operator between the join and the late filter, and the filter itself, now runs on
those padded rows: a Python UDF there can raise on the NULLs, a job failing where the
original ran. Each step's proof only covers its own input rows, so the walk refuses
when a Python UDF that may raise runs above an outer join it pushed through.

>>> d, u = X.Col("d", 1, "double"), X.Col("u", 2, "double")
>>> late = P.Filter(P.Project(P.Source("t", (d,)), ((u, X.Arith("*", X.Lit(0.0, "double"), d, "double")),)),
...                 X.Cmp("<", u, X.Lit(3.0, "double")))
>>> lost_double_arithmetic(late, X.IsNotNull(d))
'the late filter computes (0.0 * d) in doubles, which the pushed predicate does not keep'
>>> lost_double_arithmetic(late, X.Cmp("<", X.Arith("*", X.Lit(0.0, "double"), d, "double"), X.Lit(3.0, "double")))
''
>>> renamed = P.Filter(P.Project(P.Source("t", (d,)), ((u, d),)), X.Cmp("<", X.Arith("*", X.Lit(0.0, "double"), u,
...                    "double"), X.Lit(3.0, "double")))
>>> lost_double_arithmetic(renamed, X.Cmp("<", X.Arith("*", X.Lit(0.0, "double"), d, "double"), X.Lit(3.0, "double")))
''
"""

from __future__ import annotations

import functools
import itertools

import z3

from magicpush_lab.ir import expr as X
from magicpush_lab.ir import plan as P
from magicpush_lab.ir.types import FRACTIONAL
from magicpush_lab.symbolic.python_udf import interpret_call
from magicpush_lab.symbolic.solver import satisfiable
from magicpush_lab.symbolic.udf_inline import with_calls_inlined
from magicpush_lab.symbolic.values import NotModelled, fresh_cell
from magicpush_lab.verify.overflow import same_source_columns

_OUTER = ("LeftOuterJoin", "RightOuterJoin", "FullOuterJoin")
DOUBLE_GAP = "the late filter computes"  # how a refusal for double arithmetic starts


def lost_double_arithmetic(late: P.Filter, pred: X.Expr) -> str:
    """Why `pred` may rely on real-number arithmetic the late filter does on doubles, or ""."""
    same = same_source_columns(late)
    kept = set(X.walk(X.substitute(pred, same)))
    inline = _Inliner(late, same)
    for node in double_arithmetic(late):
        if not inline(node) & kept:
            return f"{DOUBLE_GAP} {node} in doubles, which the pushed predicate does not keep"
    return ""


def double_arithmetic(late: P.Filter) -> list[X.Expr]:
    """Double `+ - *` nodes in the late filter and in the computed columns it reads, through
    any number of operators (a column is read when a read column's expression reads it)."""
    defs = _definitions(late)
    exprs, seen, todo = list(dict.fromkeys((late.condition, with_calls_inlined(late.condition)))), set(), \
        list(X.columns(late.condition))
    while todo:
        c = todo.pop()
        if c in seen:
            continue
        seen.add(c)
        for e in defs.get(c, []):
            exprs.append(e)
            todo.extend(X.columns(e))
    return [n for e in exprs for n in X.walk(e)
            if isinstance(n, (X.Arith, X.Neg)) and X.dtype_of(n) in FRACTIONAL]


def _definitions(late: P.Filter) -> dict[X.Col, list[X.Expr]]:
    """Each column computed in the pipeline -> the expressions computing it (several through a
    union or an unpivot); a column passed on unchanged has none."""
    defs: dict[X.Col, list[X.Expr]] = {}
    for node in P.nodes(late):
        for c, e in getattr(node, "outputs", ()) or ():
            if e != c:
                defs.setdefault(c, []).append(e)
                written = with_calls_inlined(e)  # a UDF's arithmetic in view (symbolic/udf_inline.py)
                if written != e:
                    defs[c].append(written)
        if isinstance(node, P.Expand):
            for row in node.rows():
                for c, e in row.items():
                    if e != c:
                        defs.setdefault(c, []).append(e)
        if isinstance(node, P.Union):
            for mapping in node.column_maps():
                for c, m in mapping.items():
                    if m != c:
                        defs.setdefault(c, []).append(m)
    return defs


class _Inliner:
    """An expression with every column replaced by what computed it, down to the sources: the
    values it is computed from, whatever the columns are called on the way. Several readings
    where a column has several definitions (a union's inputs), at most MAX_READINGS; past that
    only the expression as written, which can only refuse more."""

    MAX_READINGS = 16

    def __init__(self, late: P.Filter, same: dict[X.Col, X.Col]) -> None:
        self.defs, self.same = _definitions(late), same
        self.memo: dict[X.Col, frozenset[X.Expr]] = {}

    def __call__(self, e: X.Expr) -> frozenset[X.Expr]:
        cols = sorted(X.columns(e), key=lambda c: (c.name, c.id))
        options = [self.column(c) for c in cols]
        readings = {X.substitute(e, self.same)}
        if all(options) and _product_size(options) <= self.MAX_READINGS:
            readings |= {X.substitute(e, dict(zip(cols, choice))) for choice in itertools.product(*options)}
        return frozenset(readings)

    def column(self, c: X.Col) -> frozenset[X.Expr]:
        if c not in self.memo:
            self.memo[c] = frozenset()  # a definition reading itself (none in Spark's plans) stops here
            found: set[X.Expr] = set()
            for e in self.defs.get(c, []):
                found |= self(e)
            self.memo[c] = frozenset(found) if c in self.defs else frozenset({self.same.get(c, c)})
        return self.memo[c]


def _product_size(options: list[frozenset[X.Expr]]) -> int:
    size = 1
    for o in options:
        size *= len(o)
    return size


def new_double_arithmetic(late: P.Filter, pred: X.Expr) -> str:
    """Why `pred` computes in doubles what the late filter never computes, or "": the proof
    treated it as real arithmetic (`d - d` is 0 there, NaN in Spark for NaN and infinities).
    What the late filter computes is read over the values, as in `lost_double_arithmetic`.

    >>> d = X.Col("d", 1, "double")
    >>> late = P.Filter(P.Source("t", (d,)), X.Cmp(">", d, X.Lit(1.0, "double")))
    >>> new_double_arithmetic(late, X.Cmp(">=", X.Arith("-", d, d, "double"), X.Lit(1.0, "double")))
    'the pushed predicate computes (d - d) in doubles, which the original does not'
    """
    same = same_source_columns(late)
    inline = _Inliner(late, same)
    known = {n for node in double_arithmetic(late) for reading in inline(node) for n in X.walk(reading)}
    # isnan(d - d), the engine's own test for NaN and the infinities, means what it says in Spark
    known |= {a for n in X.walk(pred) if isinstance(n, X.Func) and n.name == "isnan" for a in n.args}
    for node in X.walk(pred):
        if _in_doubles(node) and node not in known and X.substitute(node, same) not in known:
            return f"the pushed predicate computes {node} in doubles, which the original does not"
    return ""


def _in_doubles(node: X.Expr) -> bool:
    """`+ - *` or negation with a double result or a double operand (a candidate built by
    substitution can keep the type of the expression it replaced)."""
    if isinstance(node, X.Arith):
        return any(X.dtype_of(x) in FRACTIONAL for x in (node, node.left, node.right))
    return isinstance(node, X.Neg) and X.dtype_of(node.arg) in FRACTIONAL


def double_sort_key(late: P.Filter, pred: X.Expr, steps) -> str:
    """Nothing, now: NaN's place in a sort or a window's order is part of the TOPK and window
    proofs themselves (verify/topk.py, verify/window.py refuse by name what they cannot relate
    over the reals, symbolic/nan.order_gap), so a walk they let through needs no check here.
    Kept for its caller (pushdown/guards.py); the walk's composition of proved steps is sound.

    >>> double_sort_key(P.Filter(P.Source("t", ()), X.TRUE), X.TRUE, ())
    ''
    """
    return ""


def udf_on_padded_rows(late: P.Filter, steps) -> str:
    """Why a walk through an outer join may run a Python UDF on rows it NULL-padded anew, or "".
    A UDF whose body reads, and raises for no argument values at all (NULLs included), is safe
    there: `str(name).replace("\\n", "")` gives "None" for a padded row, which the late filter
    then removes."""
    if not any(s.operator in _OUTER for s in steps):
        return ""
    exprs = [late.condition] + [e for n in P.nodes(late.child) if _above_outer_join(n)
                                for e in P.expressions(n)]
    udf = next((x for x in _python_udfs(exprs) if not never_raises(x)), None)
    if udf is None:
        return ""
    return f"{udf.shown_name}() runs above an outer join the predicate passed, on rows it may NULL-pad"


@functools.lru_cache(maxsize=256)
def never_raises(udf: X.PyUdf, timeout_ms: int = 2000) -> bool:
    """The Python UDF's body reads and raises for no values of its arguments, NULL or not (a
    time-out or a body not read counts as "may raise").

    >>> s = X.Col("s", 1, "string")
    >>> never_raises(X.PyUdf("clean", (s,), "string", "lambda v: str(v).strip()"))
    True
    >>> never_raises(X.PyUdf("clean", (s,), "string", "lambda v: v.strip()"))  # None.strip()
    False
    """
    if udf.kind != "python" or udf.source is None or not udf.deterministic:
        return False
    types = tuple(X.dtype_of(a) for a in udf.args)
    try:
        _, error = interpret_call(udf.source, tuple(fresh_cell(f"a{i}", t) for i, t in enumerate(types)),
                                  udf.dtype, types, udf.arrow)
    except (NotModelled, SyntaxError, z3.Z3Exception):  # a body not read may raise, for all we know
        return False
    return satisfiable(error, timeout_ms) is False


def _python_udfs(exprs) -> list[X.PyUdf]:
    """The Python UDFs `exprs` call, those of an aggregate's fold included (the reduce of
    `rdd.reduceByKey(f)` runs on every value of its group, a NULL-padded one too).

    >>> v, acc, x = X.Col("v", 1, "int"), X.Col("acc", -1, "int"), X.Col("x", -2, "int")
    >>> low = X.PyUdf("low", (acc, x), "int", "low = lambda a, b: min(a, b)")
    >>> body = X.FoldBody(X.Lit(None, "int"), acc, x, low, X.Col("r", -3, "int"), X.Col("r", -3, "int"), low)
    >>> [u.name for u in _python_udfs([X.Agg("fold", v, "int", fold=body)])]
    ['low', 'low']
    """
    found = []
    for e in exprs:
        for node in X.walk(e):
            if isinstance(node, X.PyUdf):
                found.append(node)
            elif isinstance(node, X.Agg) and node.fold is not None:
                body = node.fold
                parts = [body.zero, body.merge, body.finish] + ([body.reduce] if body.reduce is not None else [])
                found += _python_udfs(parts)
    return found


def _above_outer_join(node: P.Plan) -> bool:
    return any(isinstance(n, P.OuterJoin) for n in P.nodes(node) if n is not node)


def udf_above_a_limit(late: P.Filter, steps) -> str:
    """Why a walk through `orderBy(...).limit(k)` may run a Python UDF on rows it never met, or "".

    Below the limit the pushed predicate drops rows, so the limit keeps others in their place:
    the rows the late filter drops are not the same, and every operator between the limit and
    the late filter (and the filter itself) runs on them. A Python UDF there can raise on one,
    a job failing where the original ran; the TOPK proof covers the rows kept, not the errors
    of what runs above on the others.

    >>> a, u = X.Col("a", 1, "string"), X.Col("u", 2, "string")
    >>> f = X.PyUdf("f", (a,), "string", "f = lambda x: x + '!'")
    >>> top = P.TopK(P.Source("t", (a,)), ((a, True, False),), 2)
    >>> late = P.Filter(P.Project(top, ((u, f),)), X.Cmp("=", u, X.Lit("x!", "string")))
    >>> from types import SimpleNamespace as Step  # the walk's steps: only the operator is read
    >>> udf_above_a_limit(late, (Step(operator="TopK"),))
    'f() runs above a limit the predicate passed, on rows the limit did not keep before'
    """
    if not any(s.operator == "TopK" for s in steps):
        return ""
    exprs = [late.condition] + [e for n in P.nodes(late.child) if _above_limit(n) for e in P.expressions(n)]
    udf = next(iter(_python_udfs(exprs)), None)
    if udf is None:
        return ""
    return f"{udf.shown_name}() runs above a limit the predicate passed, on rows the limit did not keep before"


def _above_limit(node: P.Plan) -> bool:
    return any(isinstance(n, P.TopK) for n in P.nodes(node) if n is not node)
