"""Expression trees: the predicates and column computations of a pipeline.

Every node is a frozen dataclass, so trees are immutable and hashable; rewrites
build new trees. Semantics are Spark SQL's (three-valued logic, NULL
propagation), written down in docs/semantics.md.

>>> from magicpush_lab.ir.expr import Col, Lit, Cmp, conjuncts, And
>>> p = And((Cmp(">", Col("v", 1, "int"), Lit(995, "int")), Cmp("<", Col("w", 2, "int"), Lit(3, "int"))))
>>> [str(c) for c in conjuncts(p)]
['v > 995', 'w < 3']
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass, field, replace
from typing import Callable, Iterator, Union

Value = Union[int, float, str, bool, None, _dt.date, _dt.datetime]


@dataclass(frozen=True)
class Col:
    """A column reference; `id` is Spark's exprId, which tells apart same-named columns."""

    name: str
    id: int = -1
    # identity is (name, exprId): the same column may be seen with and without its type
    dtype: str = field(default="other", compare=False)

    def __str__(self) -> str:
        return self.name


# column ids from here up are the fields of an aggregate's min/max of a struct, each a column
# of its own named `struct.field`, and the first two items of a sorted collected list
# (translate/spark_plan._struct_extremum_outputs, _sorted_list_outputs): far above Spark's exprIds
STRUCT_FIELD_IDS = 1 << 40


def is_struct_field(c: Col) -> bool:
    """`c` is a field of a struct extremum (named by its path `struct.field`) or an item of a
    sorted list (named `get(list, i)`, which no code writes back)."""
    return c.id >= STRUCT_FIELD_IDS


@dataclass(frozen=True)
class Lit:
    """A literal; `value` None is SQL NULL of type `dtype`."""

    value: Value
    dtype: str

    def __str__(self) -> str:
        return "NULL" if self.value is None else repr(self.value)


@dataclass(frozen=True)
class Arith:
    """Binary arithmetic: + - * / % with Spark's NULL propagation."""

    op: str
    left: "Expr"
    right: "Expr"
    dtype: str = "other"

    def __str__(self) -> str:
        return f"({self.left} {self.op} {self.right})"


@dataclass(frozen=True)
class Neg:
    arg: "Expr"

    def __str__(self) -> str:
        return f"-{self.arg}"


@dataclass(frozen=True)
class Cmp:
    """Comparison: = != < <= > >= and the null-safe <=>."""

    op: str
    left: "Expr"
    right: "Expr"

    def __str__(self) -> str:
        return f"{self.left} {self.op} {self.right}"


@dataclass(frozen=True)
class And:
    args: tuple["Expr", ...]

    def __str__(self) -> str:
        return " AND ".join(_paren(a) for a in self.args)


@dataclass(frozen=True)
class Or:
    args: tuple["Expr", ...]

    def __str__(self) -> str:
        return " OR ".join(_paren(a) for a in self.args)


@dataclass(frozen=True)
class Not:
    arg: "Expr"

    def __str__(self) -> str:
        return f"NOT {_paren(self.arg)}"


@dataclass(frozen=True)
class IsNull:
    arg: "Expr"

    def __str__(self) -> str:
        return f"{_paren(self.arg)} IS NULL"


@dataclass(frozen=True)
class IsNotNull:
    arg: "Expr"

    def __str__(self) -> str:
        return f"{_paren(self.arg)} IS NOT NULL"


@dataclass(frozen=True)
class In:
    """`arg IN (values...)`, SQL semantics: NULL if no match and a NULL is involved."""

    arg: "Expr"
    values: tuple["Expr", ...]

    def __str__(self) -> str:
        return f"{_paren(self.arg)} IN ({', '.join(map(str, self.values))})"


@dataclass(frozen=True)
class Case:
    """CASE WHEN c1 THEN v1 ... ELSE default END; a NULL condition counts as false."""

    branches: tuple[tuple["Expr", "Expr"], ...]
    default: "Expr"

    def __str__(self) -> str:
        whens = " ".join(f"WHEN {c} THEN {v}" for c, v in self.branches)
        return f"CASE {whens} ELSE {self.default} END"


@dataclass(frozen=True)
class Coalesce:
    args: tuple["Expr", ...]

    def __str__(self) -> str:
        return f"coalesce({', '.join(map(str, self.args))})"


@dataclass(frozen=True)
class Cast:
    arg: "Expr"
    dtype: str

    def __str__(self) -> str:
        return f"cast({self.arg} as {self.dtype})"


@dataclass(frozen=True)
class Func:
    """A Spark built-in function; encoded where the engine knows it, else uninterpreted."""

    name: str
    args: tuple["Expr", ...]
    dtype: str = "other"
    deterministic: bool = True
    # what else the Catalyst expression holds besides its arguments (a struct field's ordinal,
    # a LIKE's escape character), as canonical JSON: two calls are the same function only if
    # these agree too
    params: str = ""

    def __str__(self) -> str:
        call = f"{self.name}({', '.join(map(str, self.args))})"
        return f"{call}[{self.params}]" if self.params else call


#: the name of a try_cast call, `Func(TRY_CAST, (x,), dtype)`: Spark's cast that gives NULL where
#: the value does not convert; deterministic, never raising, an uninterpreted function in the
#: model, written back as `x.try_cast(dtype)`
TRY_CAST = "try_cast"


@dataclass(frozen=True)
class PyUdf:
    """A call of a Python UDF; `source` is the function's code when the trace captured it.
    `name` tells functions apart: Spark's name for the function, with `#k` after it for a
    second function of that name (capture/udfs.py); `shown_name` is the one users wrote."""

    name: str
    args: tuple["Expr", ...]
    dtype: str
    source: str | None = field(default=None, compare=True)
    deterministic: bool = True
    kind: str = "python"
    # a pandas UDF whose body is not read as element-wise: each value may depend on the other
    # rows of its batch, and a pushed filter changes the batches (symbolic/pandas_udf.py)
    batch_dependent: bool = False
    # a Python UDF run through Arrow (Spark 4's default) rather than pickled: the two convert
    # the returned value differently (symbolic/python_udf.py, _to_column)
    arrow: bool = True

    @property
    def shown_name(self) -> str:
        """The function's name as the user's code has it.

        >>> PyUdf("<lambda>#2", (), "int").shown_name
        '<lambda>'
        """
        return self.name.split("#", 1)[0]

    def __str__(self) -> str:
        return f"{self.shown_name}({', '.join(map(str, self.args))})"


@dataclass(frozen=True)
class FoldBody:
    """The reduce of a user-defined aggregation, Spark's
    `aggregate(collect_list(arg), zero, (acc, x) -> merge, r -> finish)`: starting from `zero`,
    `merge` folds in the group's non-NULL values one by one, and `finish` maps the result."""

    zero: "Expr"
    acc: Col
    elem: Col
    merge: "Expr"
    result: Col
    finish: "Expr"
    # `rdd.reduceByKey(f)`'s f, a call of (acc, elem): Spark also merges partial results with it,
    # and calls it with None where the merge above skips NULLs (verify/aggregate.py checks both)
    reduce: "PyUdf | None" = None


@dataclass(frozen=True)
class Agg:
    """An aggregate call inside an Aggregate's outputs; `arg` None is count(*); fn "fold" is
    a user-defined reduce over the group's values, described by `fold`."""

    fn: str  # "max" | "min" | "sum" | "count" | "avg" | "fold" | "max_by" | "min_by" | ...
    arg: "Expr | None"
    dtype: str = "other"
    distinct: bool = False
    fold: FoldBody | None = None
    # max_by(arg, by) / min_by(arg, by): arg of a row whose `by` is the group's largest/smallest
    by: "Expr | None" = None

    def __str__(self) -> str:
        inner = "*" if self.arg is None else str(self.arg)
        if self.by is not None:
            inner += f", {self.by}"
        if self.fold is not None:
            b = self.fold
            return (f"aggregate(collect_list({inner}), {b.zero}, ({b.acc.name}, {b.elem.name}) -> {b.merge}"
                    f"{'' if b.finish == b.result else f', {b.result.name} -> {b.finish}'})")
        return f"{self.fn}({'DISTINCT ' if self.distinct else ''}{inner})"


@dataclass(frozen=True)
class ArrayExists:
    """Spark's `exists(array, var -> body)`: TRUE if the body is TRUE for some element, NULL if
    it is never TRUE but NULL for some element, else FALSE. `body` may read the row's columns."""

    array: "Expr"
    var: Col
    body: "Expr"
    dtype: str = "boolean"

    def __str__(self) -> str:
        return f"exists({self.array}, {self.var.name} -> {self.body})"


Expr = Union[Col, Lit, Arith, Neg, Cmp, And, Or, Not, IsNull, IsNotNull, In, Case, Coalesce, Cast, Func, PyUdf,
             Agg, ArrayExists]

TRUE = Lit(True, "boolean")
FALSE = Lit(False, "boolean")


def _paren(e: Expr) -> str:
    return f"({e})" if isinstance(e, (And, Or)) else str(e)


def children(e: Expr) -> tuple[Expr, ...]:
    """The direct sub-expressions of `e`, in a fixed order."""
    if isinstance(e, (Col, Lit)):
        return ()
    if isinstance(e, (Arith, Cmp)):
        return (e.left, e.right)
    if isinstance(e, (Neg, Not, IsNull, IsNotNull, Cast)):
        return (e.arg,)
    if isinstance(e, (And, Or, Coalesce, Func, PyUdf)):
        return e.args
    if isinstance(e, In):
        return (e.arg, *e.values)
    if isinstance(e, Case):
        return (*[x for b in e.branches for x in b], e.default)
    if isinstance(e, Agg):
        return tuple(x for x in (e.arg, e.by) if x is not None)
    if isinstance(e, ArrayExists):
        return (e.array, e.body)
    raise TypeError(f"not an expression: {e!r}")


def with_children(e: Expr, kids: tuple[Expr, ...]) -> Expr:
    """`e` with its direct sub-expressions replaced by `kids` (same order as `children`)."""
    if isinstance(e, (Col, Lit)):
        return e
    if isinstance(e, (Arith, Cmp)):
        return replace(e, left=kids[0], right=kids[1])
    if isinstance(e, (Neg, Not, IsNull, IsNotNull, Cast)):
        return replace(e, arg=kids[0])
    if isinstance(e, (And, Or, Coalesce, Func, PyUdf)):
        return replace(e, args=tuple(kids))
    if isinstance(e, In):
        return replace(e, arg=kids[0], values=tuple(kids[1:]))
    if isinstance(e, Case):
        n = len(e.branches)
        branches = tuple((kids[2 * i], kids[2 * i + 1]) for i in range(n))
        return Case(branches, kids[2 * n])
    if isinstance(e, Agg):
        if e.arg is None:
            return e
        return replace(e, arg=kids[0], by=kids[1]) if e.by is not None else replace(e, arg=kids[0])
    if isinstance(e, ArrayExists):
        return replace(e, array=kids[0], body=kids[1])
    raise TypeError(f"not an expression: {e!r}")


def transform(e: Expr, fn: Callable[[Expr], Expr | None]) -> Expr:
    """Rewrite bottom-up: `fn` returns a replacement or None to keep the node."""
    kids = children(e)
    if kids:
        e = with_children(e, tuple(transform(k, fn) for k in kids))
    out = fn(e)
    return e if out is None else out


def walk(e: Expr) -> Iterator[Expr]:
    """Every node of `e`, parents before children; iterative, for deep expressions."""
    stack = [e]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(children(node)))


def columns(e: Expr) -> frozenset[Col]:
    """The columns `e` reads from its row (a lambda's variable is not one of them)."""
    bound = {x.var for x in walk(e) if isinstance(x, ArrayExists)}
    return frozenset(x for x in walk(e) if isinstance(x, Col) and x not in bound)


def is_deterministic(e: Expr) -> bool:
    return all(_same_value_every_run(x) for x in walk(e))


def _same_value_every_run(x: Expr) -> bool:
    """A call's value for a row is the same in the original and the rewritten run: it is
    deterministic and does not read the rest of its batch."""
    return getattr(x, "deterministic", True) and not getattr(x, "batch_dependent", False)


def first_nondeterministic(*exprs: Expr) -> Expr | None:
    """The first nondeterministic call in `exprs`, or None: such a value differs between the
    original and the rewritten run, so no filter may be reordered around it."""
    return next((x for e in exprs for x in walk(e) if not _same_value_every_run(x)), None)


def has_python_udf(e: Expr) -> bool:
    return any(isinstance(x, PyUdf) for x in walk(e))


def substitute(e: Expr, mapping: dict[Col, Expr]) -> Expr:
    """Replace column references by expressions (matching on name and exprId)."""
    return transform(e, lambda x: mapping.get(x) if isinstance(x, Col) else None)


def conjuncts(e: Expr) -> tuple[Expr, ...]:
    """Split nested ANDs into a flat tuple of conjuncts."""
    if isinstance(e, And):
        return tuple(c for a in e.args for c in conjuncts(a))
    return (e,)


def disjuncts(e: Expr) -> tuple[Expr, ...]:
    if isinstance(e, Or):
        return tuple(c for a in e.args for c in disjuncts(a))
    return (e,)


def and_(*args: Expr) -> Expr:
    """Conjunction that flattens, drops TRUE and keeps order without duplicates."""
    flat: list[Expr] = []
    for a in args:
        for c in conjuncts(a):
            if c == TRUE or c in flat:
                continue
            if c == FALSE:
                return FALSE
            flat.append(c)
    if not flat:
        return TRUE
    return flat[0] if len(flat) == 1 else And(tuple(flat))


def or_(*args: Expr) -> Expr:
    """Disjunction that flattens, drops FALSE and keeps order without duplicates."""
    flat: list[Expr] = []
    for a in args:
        for d in disjuncts(a):
            if d == FALSE or d in flat:
                continue
            if d == TRUE:
                return TRUE
            flat.append(d)
    if not flat:
        return FALSE
    return flat[0] if len(flat) == 1 else Or(tuple(flat))


def case_(branches: tuple[tuple[Expr, Expr], ...], default: Expr) -> Expr:
    """CASE without its dead branches: a branch whose condition is the literal false or NULL is
    never taken, and one whose condition is the literal true ends the CASE. Spark never
    evaluates a dead branch's value, so dropping it changes neither the value nor the errors.
    The pandas API on Spark writes a division by a literal this way, with the divide-by-zero
    branch (infinities and NaN) behind a literal false.

    >>> a = Col("a", 1, "double")
    >>> str(case_(((FALSE, Lit(float("inf"), "double")),), Arith("/", a, Lit(2.0, "double"), "double")))
    '(a / 2.0)'
    >>> str(case_(((Cmp(">", a, Lit(0.0, "double")), a), (TRUE, Lit(1.0, "double"))), Lit(0.0, "double")))
    'CASE WHEN a > 0.0 THEN a ELSE 1.0 END'
    >>> case_(((Lit(None, "boolean"), a),), Lit(None, "null"))  # nothing left: a NULL of the CASE's type
    Lit(value=None, dtype='double')
    """
    live: list[tuple[Expr, Expr]] = []
    for cond, value in branches:
        if isinstance(cond, Lit) and cond.value is True:
            default = value
            break
        if isinstance(cond, Lit) and (cond.value is False or cond.value is None):
            continue
        live.append((cond, value))
    if live:
        return Case(tuple(live), default)
    if isinstance(default, Lit) and default.value is None and default.dtype in ("null", "other"):
        # the type a CASE without ELSE has comes from its values, which are gone now
        return Lit(None, dtype_of(Case(branches, default)))
    return default


def dtype_of(e: Expr) -> str:
    """The IR type of an expression's value, where it can be told without Spark."""
    if isinstance(e, (Cmp, And, Or, Not, IsNull, IsNotNull, In)):
        return "boolean"
    if isinstance(e, (Neg,)):
        return dtype_of(e.arg)
    if isinstance(e, Case):
        known = [dtype_of(v) for _, v in e.branches] + [dtype_of(e.default)]
        return next((t for t in known if t not in ("null", "other")), "other")
    if isinstance(e, Coalesce):
        return next((t for t in map(dtype_of, e.args) if t not in ("null", "other")), "other")
    return getattr(e, "dtype", "other")


def unguarded(c: Expr) -> Expr:
    """A condition without the NULL guards around it that change nothing in a filter, where NULL
    and false both drop the row: `CASE WHEN p IS NULL THEN false ELSE p END` (which evaluates
    `p` first, so it raises where `p` does) and a cast of a boolean to boolean. The pandas API
    on Spark wraps every mask in several of them.

    >>> a, b = Col("a", 1, "long"), Col("b", 2, "long")
    >>> p = Cmp(">", a, Lit(5, "long"))
    >>> guarded = Case(((IsNull(p), FALSE),), p)
    >>> str(unguarded(Case(((IsNull(guarded), FALSE),), Cast(guarded, "boolean"))))
    'a > 5'
    >>> str(unguarded(Case(((IsNull(b), FALSE),), p)))  # a guard on another value drops rows
    'CASE WHEN b IS NULL THEN False ELSE a > 5 END'
    """
    while True:
        c = _without_boolean_cast(c)
        if not (isinstance(c, Case) and len(c.branches) == 1 and c.branches[0][1] == FALSE
                and isinstance(c.branches[0][0], IsNull) and _without_boolean_cast(c.default) == c.branches[0][0].arg):
            return c
        c = c.default


def _without_boolean_cast(e: Expr) -> Expr:
    while isinstance(e, Cast) and e.dtype == "boolean" and dtype_of(e.arg) == "boolean":
        e = e.arg
    return e


def size(e: Expr) -> int:
    """Number of comparison-like literals in `e`: the paper's proxy for selectivity."""
    return sum(1 for x in walk(e) if isinstance(x, (Cmp, IsNull, IsNotNull, In)))
