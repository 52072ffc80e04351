"""NaN at the Python boundary: where the real-number model of doubles is not enough.

Doubles are reals in the model. Spark orders NaN above every number, so for
comparisons NaN behaves like a real larger than any other, and a proof over
the reals covers it. Python does not: every comparison with NaN is False
(`!=` is True). A Python UDF that receives NaN can therefore take a branch
that no real input takes, and a predicate read back from its body (which
Spark evaluates with its own NaN order) can disagree with it on NaN rows.

The engine does not model NaN inside UDFs. It keeps NaN rows instead: a
predicate derived from a UDF body whose argument is a double gets
`OR isnan(arg - arg)` (TRUE for NaN and the infinities, which the reals lack too) and
can only be a superset pushdown, so on those rows the late filter, running the UDF
itself, still decides.

>>> from magicpush_lab.ir.expr import Col, Cmp, Lit, PyUdf
>>> amount = Col("amount", 1, "double")
>>> call = PyUdf("f", (amount,), "int", "def f(a):\\n    return 1")
>>> [str(a) for a in exposed_arguments([call], Cmp(">", amount, Lit(5.0, "double")))]
['amount']
>>> str(keep_nan_rows(Cmp(">", amount, Lit(5.0, "double")), [amount]))
'amount > 5.0 OR isnan((amount - amount))'

Pandas UDFs are the exception that can be exact: Spark hands a double column to a pandas
UDF as float64, where NULL and NaN are both NaN, so the body cannot tell them apart; and a NaN
it returns becomes NULL on the way back (Arrow marks NaN as missing). When an argument reaches
the original only through pandas UDFs, a NaN row therefore behaves exactly as the same row
with NULL there, which the model does cover. G can then be
`(G0 AND NOT isnan(a)) OR (isnan(a) AND G0[a := NULL])`, with G0 proved in the model and the
NaN part checked to be G0 on the NULL row; it can be an equivalence.

>>> call = PyUdf("twice", (amount,), "double", "def twice(s):\\n    return s * 2", kind="pandas")
>>> pandas_only([Cmp(">", call, Lit(4.0, "double"))], amount)
True
>>> g = nan_as_null(Cmp(">", amount, Lit(2.0, "double")), amount, Lit(False, "boolean"))
>>> str(g)
'amount > 2.0 AND NOT isnan(amount)'
>>> [str(x) for x in split_nan_as_null(g, amount)]
['amount > 2.0', 'False']
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

from magicpush_lab.ir import expr as X
from magicpush_lab.ir.types import FRACTIONAL
from magicpush_lab.symbolic.udf_inline import written_in

if TYPE_CHECKING:
    import z3

    from magicpush_lab.symbolic.encode import Evaluator
    from magicpush_lab.symbolic.table import SymbolicRow


def isnan(arg: X.Expr) -> X.Func:
    return X.Func("isnan", (arg,), "boolean", True)


def exposed_arguments(original: Iterable[X.Expr], g: X.Expr) -> tuple[X.Expr, ...]:
    """Double arguments of the Python UDF calls the original evaluates but G does not call.

    A call G makes itself runs on the same values on both sides, so NaN affects both alike;
    a call G was derived from is where the model and Python can part.
    """
    in_g = {n for n in X.walk(g) if isinstance(n, X.PyUdf)}
    # a pandas UDF sees NaN as a missing element, which the model does not have either
    found: list[X.Expr] = []
    for e in original:
        for n in X.walk(e):
            # a body G writes out as Column code computes what the call does, NaN included
            if isinstance(n, X.PyUdf) and n.kind in ("python", "pandas") and n not in in_g and not written_in(n, g):
                for a in n.args:
                    if X.dtype_of(a) in FRACTIONAL and a not in found:
                        found.append(a)
    return tuple(found)


def not_finite(arg: X.Expr) -> X.Func:
    """TRUE where `arg` is NaN or an infinity: `arg - arg` is 0.0 for every finite value and NaN
    for those (and FALSE on NULL, as isnan is). Python UDFs meet infinities as they meet NaN,
    outside the reals of the model (`inf * 0` is NaN, so `x * 0 == 0` is False for x = -inf).

    >>> str(not_finite(X.Col("amount", 1, "double")))
    'isnan((amount - amount))'
    """
    return isnan(X.Arith("-", arg, arg, X.dtype_of(arg)))


def keep_nan_rows(g: X.Expr, args: Iterable[X.Expr]) -> X.Expr:
    """G widened to keep every row where one of `args` is NaN or infinite."""
    return X.or_(g, *(not_finite(a) for a in args))


def pandas_only(original: Iterable[X.Expr], arg: X.Expr) -> bool:
    """Every read of `arg` in `original` is an argument of a pandas UDF, or in a conjunct that
    calls no UDF (Spark evaluates such a conjunct itself, alike on both sides)."""
    def outside(e: X.Expr) -> bool:
        if e == arg:
            return True
        if isinstance(e, X.PyUdf) and e.kind == "pandas":
            return any(a != arg and outside(a) for a in e.args)
        if isinstance(e, X.PyUdf):
            return True  # a Python UDF reading it sees NaN, not None
        return any(outside(k) for k in X.children(e))

    exprs = [c for e in original for c in X.conjuncts(e) if X.has_python_udf(c)]
    return any(arg in X.walk(e) for e in exprs) and not any(outside(e) for e in exprs)


def nan_as_null(g0: X.Expr, arg: X.Expr, on_null: X.Expr) -> X.Expr:
    """G0 on rows where `arg` is not NaN, `on_null` (G0 with `arg` NULL) where it is."""
    return X.or_(X.and_(g0, X.Not(isnan(arg))), X.and_(isnan(arg), on_null))


def split_nan_as_null(g: X.Expr, arg: X.Expr) -> tuple[X.Expr, X.Expr] | None:
    """(G0, the NaN rows' part) when `g` has nan_as_null's shape, else None."""
    parts = X.disjuncts(g) if isinstance(g, X.Or) and len(g.args) == 2 else (g,)
    first = X.conjuncts(parts[0])
    if X.Not(isnan(arg)) not in first:
        return None
    g0 = X.and_(*(c for c in first if c != X.Not(isnan(arg))))
    if len(parts) == 1:
        return g0, X.FALSE
    second = X.conjuncts(parts[1])
    if isnan(arg) not in second:
        return None
    return g0, X.and_(*(c for c in second if c != isnan(arg)))


def keeps_nan_rows(g: X.Expr, args: Iterable[X.Expr]) -> bool:
    """G has `not_finite(arg)` as a disjunct for every one of `args` (so it is TRUE on the rows
    where it is NaN or infinite)."""
    parts = X.disjuncts(g)
    return all(not_finite(a) in parts for a in args)


# ----------------------------------------------------------------------------- two rows

# Functions of a double that give equal results for equal doubles in Spark's sense (-0.0 equals
# 0.0, NaN equals NaN), so a proof that reads them on reals covers NaN, the infinities and -0.0
# too (see order_gap). A string of a double, a hash or pow(-0.0, -1) tell -0.0 from 0.0.
_ORDER_SAFE_FUNCTIONS = frozenset({"isnan", "nanvl", "greatest", "least", "abs", "round", "bround",
                                   "floor", "ceil", "signum"})


def order_gap(exprs: Iterable[X.Expr]) -> str:
    """Why a claim relating two rows through `exprs` (a sort, a partition, a group) may not
    hold for NaN, the infinities or -0.0 although Z3 proved it over the reals, or "".

    Spark compares doubles with NaN above every number and equal to itself, and -0.0 equal to
    0.0 (in sorts, partitions, groups and comparisons alike). Where doubles are only compared,
    passed through (CASE, coalesce, greatest/least, abs) or given to a function that sees no
    difference between equal doubles, any table's doubles map to reals that compare the same
    way (NaN above the largest number, the infinities just inside it, each finite value
    itself), so the proof over the reals covers them. Arithmetic does not map (NaN - NaN is
    NaN, not 0), nor does a Python UDF (Python's NaN compares False with everything), nor a
    function that tells -0.0 from 0.0 (a cast to string): those are named.

    >>> d = X.Col("d", 1, "double")
    >>> order_gap([X.Cmp(">", d, X.Lit(3.0, "double")), X.Func("isnan", (d,), "boolean")])
    ''
    >>> order_gap([X.Cmp(">", X.Arith("-", d, d, "double"), X.Lit(0.0, "double"))])
    '(d - d) computes on the double d, and NaN and the infinities are not reals there'
    >>> order_gap([X.Cmp("=", X.Cast(d, "string"), X.Lit("0.0", "string"))])
    'cast(d as string) tells -0.0 from 0.0 (or NaN from NaN)'
    """
    for e in exprs:
        for node in X.walk(e):
            doubles = [c for c in X.children(node) if X.dtype_of(c) in FRACTIONAL]
            if not doubles or _order_safe(node):
                continue
            if isinstance(node, (X.Arith, X.Neg)):
                return f"{node} computes on the double {doubles[0]}, and NaN and the infinities are not reals there"
            if isinstance(node, X.PyUdf):
                return (f"{node} passes the double {doubles[0]} to Python, where NaN compares unlike "
                        f"in Spark's order")
            return f"{node} tells -0.0 from 0.0 (or NaN from NaN)"
    return ""


def _order_safe(node: X.Expr) -> bool:
    """`node` reads its double children only as Spark compares them."""
    if isinstance(node, (X.Cmp, X.In, X.IsNull, X.IsNotNull, X.Case, X.Coalesce, X.And, X.Or, X.Not)):
        return True
    if isinstance(node, X.Func):
        return node.name in _ORDER_SAFE_FUNCTIONS
    if isinstance(node, X.Cast):
        return node.dtype not in ("string", "binary", "other")
    return False


def order_facts(ev: "Evaluator", rows: "list[SymbolicRow]", exprs: Iterable[X.Expr]) -> "z3.BoolRef":
    """What Spark's order says of NaN, for the doubles `exprs` read on `rows`: `isnan` is never
    NULL and holds of a non-NULL value only, every NaN is the same value, above every other double the claim
    reads (columns and literals). True of the reals order_gap maps a table's doubles to (NaN
    to one value above all others), so a proof may assume it; with it, `isnan(d)` under a sort
    on `d` descending is seen to keep the first rows.

    >>> import z3
    >>> from magicpush_lab.symbolic.encode import Evaluator, truth
    >>> from magicpush_lab.symbolic.table import SymbolicRow
    >>> d = X.Col("d", 1, "double")
    >>> ev, a, b = Evaluator(), SymbolicRow("a"), SymbolicRow("b")
    >>> claim = z3.Implies(z3.And(truth(ev.eval(isnan(d), a)), ev.eval(d, b).notnull), ev.eval(d, a).value >= ev.eval(d, b).value)
    >>> z3.prove(z3.Implies(order_facts(ev, [a, b], [isnan(d)]), claim))
    proved
    """
    import z3

    from magicpush_lab.symbolic.encode import truth

    terms: list[X.Expr] = []
    literals: list[float] = []
    for e in exprs:
        for n in X.walk(e):
            if isinstance(n, X.Col) and X.dtype_of(n) in FRACTIONAL and n not in terms:
                terms.append(n)
            if isinstance(n, X.Func) and n.name == "isnan" and n.args and n.args[0] not in terms:
                terms.append(n.args[0])
            if isinstance(n, X.Lit) and n.dtype in FRACTIONAL and isinstance(n.value, (int, float)) \
                    and n.value == n.value and abs(n.value) != float("inf"):
                literals.append(float(n.value))
    cells = []
    facts = []
    for t in terms:
        for r in rows:
            value, test = ev.eval(t, r), ev.eval(isnan(t), r)
            cells.append((value, truth(test)))
            facts.append(test.notnull)  # isnan is TRUE or FALSE, never NULL
            facts.append(z3.Implies(truth(test), value.notnull))
    for value, is_nan in cells:
        facts += [z3.Implies(is_nan, value.value > z3.RealVal(lit)) for lit in literals]
    for i, (a, a_nan) in enumerate(cells):
        for b, b_nan in cells[i + 1:]:
            if a.sort != b.sort:
                continue
            facts.append(z3.Implies(z3.And(a_nan, b_nan), a.value == b.value))
            facts.append(z3.Implies(z3.And(a_nan, z3.Not(b_nan), b.notnull), a.value > b.value))
            facts.append(z3.Implies(z3.And(b_nan, z3.Not(a_nan), a.notnull), b.value > a.value))
    return z3.And(*facts) if facts else z3.BoolVal(True)
