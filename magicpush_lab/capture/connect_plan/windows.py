"""Window functions and generators in a projection, as Spark's analyzer resolves them: each
function's Catalyst form, the frame Spark gives it, what it reads; explode and posexplode with
the columns they add. The projection (projections.py) then writes the operators the analyzer
puts under it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from magicpush_lab.capture.connect_plan.casts import integral, numeric
from magicpush_lab.capture.connect_plan.records import RecordWriter
from magicpush_lab.capture.connect_plan.scope import AGGREGATES, Scope
from magicpush_lab.capture.connect_plan.shapes import (AGG, EXPR, Attr, NotReadable, Typed, alias_as, frame_bound,
                                                       literal, node, sort_order, window_frame)


@dataclass(frozen=True)
class WindowItem:
    """One window function of a projection, before Spark's analyzer moves what it reads below
    the Window: its output column, the expressions it reads in the order the analyzer collects
    them (the function's arguments, then the partition keys, then the order keys), and how to
    write its Alias, partitioning and order once each of those is replaced by the column that
    carries it (`build`)."""

    attr: Attr
    reads: tuple[Typed, ...]
    build: Callable[[Callable[[Typed], Typed]], tuple[Typed, list[Any], list[Any]]]


@dataclass(frozen=True)
class GeneratorItem:
    """One generator of a projection: its Catalyst form, whether it is an `_outer` one, and the
    columns it adds."""

    generator: Typed
    outer: bool
    output: list[Attr]


class Steps:
    """The window functions and generators met among a projection's items, by position."""

    def __init__(self) -> None:
        self.windows: dict[int, WindowItem] = {}
        self.generators: dict[int, GeneratorItem] = {}

    def window(self, writer: RecordWriter, scope: Scope, position: int, w: Any, name: str) -> Typed:
        """The window function `w` at `position`, named `name`: its column, for the projection."""
        item = window_item(writer, scope, w, name)
        self.windows[position] = item
        return Typed(item.attr.flat(), item.attr.dtype, item.attr)

    def generator(self, writer: RecordWriter, scope: Scope, position: int, f: Any,
                  names: list[str]) -> None:
        """The generator call `f` at `position`, its columns named `names` when given."""
        self.generators[position] = generator_item(writer, scope, f, names)


# explode and posexplode: the generators whose Catalyst form (Explode, PosExplode) and output
# columns are known here; `_outer` keeps a row with NULLs where the array is empty or NULL
GENERATORS = {"explode": "Explode", "explode_outer": "Explode", "posexplode": "PosExplode",
              "posexplode_outer": "PosExplode"}


def generator_name(e: Any) -> str | None:
    """The name of the generator expression `e` calls (explode...), None for any other."""
    if e.WhichOneof("expr_type") != "unresolved_function":
        return None
    f = e.unresolved_function
    name = f.function_name.lower()
    if name not in GENERATORS or f.is_user_defined_function or f.is_distinct:
        return None
    return name


# ranking window functions: Catalyst class, result type, and whether the order keys are its
# arguments (the analyzer gives rank, dense_rank and percent_rank the order's expressions)
_RANKING = {"row_number": ("RowNumber", "integer", False), "rank": ("Rank", "integer", True),
            "dense_rank": ("DenseRank", "integer", True), "percent_rank": ("PercentRank", "double", True),
            "cume_dist": ("CumeDist", "double", False), "ntile": ("NTile", "integer", False)}


def window_item(writer: RecordWriter, scope: Scope, w: Any, name: str) -> WindowItem:
    """`fn(...).over(window)` as Spark's analyzer resolves it: the function's Catalyst form
    with the frame Spark gives it (ResolveWindowFrame: a ranking function's or lag/lead's own
    frame; an aggregate's rows from the partition's start to its end without an order, to
    the current row's last peer with one)."""
    fn = w.window_function
    if fn.WhichOneof("expr_type") != "unresolved_function":
        raise NotReadable("a window over something other than a function: not analysed on Spark Connect yet")
    f = fn.unresolved_function
    fname = f.function_name.lower()
    if f.is_distinct or f.is_user_defined_function:
        raise NotReadable(f"window function {f.function_name} (DISTINCT or user-defined): "
                          "not analysed on Spark Connect yet")
    partition = [scope.expr(e) for e in w.partition_spec]
    keys = [scope.expr(so.child) for so in w.order_spec]
    reads: list[Typed] = []
    call: Callable[[Callable[[Typed], Typed]], list[dict[str, Any]]]
    if fname in _RANKING:
        cls, dtype, order_args = _RANKING[fname]
        if w.HasField("frame_spec"):
            raise NotReadable(f"{fname} with a frame of its own: not analysed on Spark Connect yet")
        if not keys:
            raise NotReadable(f"{fname} over a window without an order (Spark refuses it)")
        fixed: list[Typed] = []
        if fname == "ntile":
            fixed = [scope.expr(a) for a in f.arguments]
            if len(fixed) != 1 or fixed[0].flat[0]["class"] != EXPR + "Literal" or fixed[0].dtype != "integer":
                raise NotReadable("ntile of something other than an integer literal: not analysed")
        elif f.arguments:
            raise NotReadable(f"{fname} with arguments: not analysed on Spark Connect yet")

        # the analyzer gives rank & co. the order's expressions once they are carried below
        def call(sub: Callable[[Typed], Typed]) -> list[dict[str, Any]]:
            return node(EXPR + cls, [sub(k) for k in keys] if order_args else fixed)

        frame = window_frame(fname != "cume_dist", frame_bound("UnboundedPreceding"), frame_bound("CurrentRow"))
    elif fname in ("lag", "lead"):
        if w.HasField("frame_spec") or not keys:
            raise NotReadable(f"{fname} with a frame of its own or without an order: not analysed on Spark Connect yet")
        value, offset, default, frame = offset_parts(scope, fname, f)
        dtype = value.dtype
        reads.append(value)

        def call(sub: Callable[[Typed], Typed]) -> list[dict[str, Any]]:
            return node(EXPR + ("Lag" if fname == "lag" else "Lead"), [sub(value), offset, default],
                        ignoreNulls=False)
    elif fname in AGGREGATES or fname in ("first", "last"):
        if fname in AGGREGATES:
            value, dtype = window_aggregate(scope, fname, f)
            function = (AGG + AGGREGATES[fname], {})
        else:  # first/last(value, ignorenulls): the flag a field of First/Last, not an argument
            args = [scope.expr(a) for a in f.arguments]
            if len(args) != 2 or args[1].flat[0]["class"] != EXPR + "Literal" or args[1].dtype != "boolean":
                raise NotReadable(f"{fname} in this form: not analysed on Spark Connect yet")
            value, dtype = args[0], args[0].dtype
            function = (AGG + fname.capitalize(), {"ignoreNulls": args[1].flat[0]["value"] == "true"})
        reads.append(value)
        result_id = {"product-class": EXPR + "ExprId", "id": writer.next_id(), "jvmId": "connect"}

        def call(sub: Callable[[Typed], Typed]) -> list[dict[str, Any]]:
            return node(AGG + "AggregateExpression", [node(function[0], [sub(value)], **function[1])],
                        mode={"object": AGG + "Complete$"}, isDistinct=False, filter=None, resultId=result_id)

        if w.HasField("frame_spec"):
            frame = user_frame(scope, w.frame_spec)
        elif keys:
            frame = window_frame(False, frame_bound("UnboundedPreceding"), frame_bound("CurrentRow"))
        else:
            frame = window_frame(True, frame_bound("UnboundedPreceding"), frame_bound("UnboundedFollowing"))
    else:
        raise NotReadable(f"window function {f.function_name}: not analysed on Spark Connect yet")
    reads += partition + keys
    attr = writer.fresh(name, dtype)
    sort = list(w.order_spec)

    def build(sub: Callable[[Typed], Typed]) -> tuple[Typed, list[Any], list[Any]]:
        by = [sub(k).flat for k in partition]
        order = [sort_order(sub(k), so) for k, so in zip(keys, sort)]
        spec = node(EXPR + "WindowSpecDefinition", [*by, *order, frame])
        expression = Typed(node(EXPR + "WindowExpression", [call(sub), spec]), dtype)
        return alias_as(expression, attr), by, order

    return WindowItem(attr, tuple(reads), build)

def offset_parts(scope: Scope, fname: str, f: Any) -> tuple[Typed, Typed, Typed, list]:
    """lag/lead(value, k, default) as the analyzer gives them: the value, the offset k and the
    default (NULL unless given, of the value's type: any other would be cast), over a frame
    of the one row k rows before (lag) or after (lead)."""
    args = [scope.expr(a) for a in f.arguments]
    if len(args) == 2:  # no default given: Spark's is a NULL literal, left untyped
        args.append(literal(None, "void"))
    if len(args) != 3:
        raise NotReadable(f"{fname} with ignorenulls: not analysed on Spark Connect yet")
    value, offset, default = args
    if offset.flat[0]["class"] != EXPR + "Literal" or offset.dtype != "integer" or int(offset.flat[0]["value"]) < 1:
        raise NotReadable(f"{fname} with an offset that is not a positive integer literal")
    if default.flat[0]["class"] != EXPR + "Literal" or default.dtype not in ("void", value.dtype):
        raise NotReadable(f"{fname} with a default of another type than the column's (Spark casts it)")
    k = int(offset.flat[0]["value"])
    at = literal(-k if fname == "lag" else k, "integer").flat
    return value, offset, default, window_frame(True, at, at)

def window_aggregate(scope: Scope, fname: str, f: Any) -> tuple[Typed, Any]:
    """An aggregate over a window: its argument (count("*") is count(1)) and its result type.
    Unlike in a groupBy, the analyzer adds no cast to the argument here."""
    args = list(f.arguments)
    if fname == "count" and len(args) == 1 and args[0].WhichOneof("expr_type") == "unresolved_star":
        return literal(1, "integer"), "long"
    if len(args) != 1:
        raise NotReadable(f"{fname} of {len(args)} arguments over a window")
    value = scope.expr(args[0])
    if fname == "count":
        return value, "long"
    if isinstance(value.dtype, str) and value.dtype.startswith("decimal"):
        raise NotReadable(f"{fname} of a decimal column over a window: not analysed on Spark Connect yet")
    if fname in ("sum", "avg", "mean"):
        if not numeric(value.name):
            raise NotReadable(f"{fname} of a {value.name} column over a window: not analysed on Spark Connect yet")
        return value, "double" if fname != "sum" or not integral(value.name) else "long"
    return value, value.dtype

def user_frame(scope: Scope, spec: Any) -> list[dict[str, Any]]:
    """rowsBetween / rangeBetween: row offsets as integer literals (what the analyzer keeps);
    a range frame only from and to the partition's ends or the current row (an offset in
    value units is cast to the order key's type)."""
    rows = spec.frame_type == 1
    if spec.frame_type not in (1, 2):
        raise NotReadable("a window frame of an unknown type")

    def bound(b: Any, lower: bool) -> list[dict[str, Any]]:
        which = b.WhichOneof("boundary")
        if which == "current_row":
            return frame_bound("CurrentRow")
        if which == "unbounded":
            return frame_bound("UnboundedPreceding" if lower else "UnboundedFollowing")
        if which == "value" and rows:
            value = scope.expr(b.value)
            if value.flat[0]["class"] == EXPR + "Literal" and value.dtype == "integer":
                return value.flat
        raise NotReadable("a window frame bound other than a row offset, the current row or the "
                          "partition's end: not analysed on Spark Connect yet")

    return window_frame(rows, bound(spec.lower, True), bound(spec.upper, False))

def generator_item(writer: RecordWriter, scope: Scope, f: Any, names: list[str]) -> GeneratorItem:
    """explode/posexplode(_outer) of an array or a map column: Catalyst's Explode or
    PosExplode and the columns it adds (pos, then col for an array's element or key and
    value for a map's entry; the names given instead when aliased)."""
    name = f.function_name.lower()
    args = [scope.expr(a) for a in f.arguments]
    if len(args) != 1:
        raise NotReadable(f"{name} of {len(args)} arguments")
    (arg,) = args
    outer = name.endswith("_outer")
    t = arg.dtype
    if isinstance(t, dict) and t.get("type") == "array":
        fields = [("col", t["elementType"], bool(t.get("containsNull", True)))]
    elif isinstance(t, dict) and t.get("type") == "map":
        fields = [("key", t["keyType"], False), ("value", t["valueType"], bool(t.get("valueContainsNull", True)))]
    else:
        raise NotReadable(f"{name} of a {arg.name} value")
    if GENERATORS[name] == "PosExplode":
        fields.insert(0, ("pos", "integer", False))
    if names:
        if len(names) != len(fields):
            raise NotReadable(f"{name} aliased with {len(names)} names for {len(fields)} columns")
        fields = [(n, t, null) for n, (_, t, null) in zip(names, fields)]
    output = [writer.fresh(n, t, null or outer) for n, t, null in fields]
    return GeneratorItem(Typed(node(EXPR + GENERATORS[name], [arg]), "generator"), outer, output)
