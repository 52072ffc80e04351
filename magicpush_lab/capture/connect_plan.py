"""Spark Connect plans read into a PlanStore, in the form the engine reads classic plans in.

A Connect plan is unresolved: a relation names its columns as the user wrote them, functions by
name, and leaves types to the server's analyzer. The engine (translate/spark_plan.py) reads
resolved plans: every column one attribute with an id and a type, casts written out. This module
resolves a Connect relation tree into such records on the client side, asking the server only
for what the protocol answers, each relation's schema (`AnalyzePlan`), and writes the records in
Catalyst's JSON shapes (`Project`, `Filter`, `AttributeReference`, `EqualTo`...), so that everything
after the trace is the same for both kinds of session.

Soundness before coverage. A relation is read only when every name in it resolves to exactly
one input column, every function is one whose Catalyst form and result type are known here, the
implicit casts Spark would add are the numeric widenings written out below (anything else that
needs a cast is refused), and the columns computed here have the names and types the server's
schema gives them. Anything else becomes an `Opaque` record: a barrier with the reason, over its
inputs (translated as usual), with the server's schema as its output, so a filter never moves
through what was not understood.

Each relation is read once per kernel: the client gives every relation a plan id that stays
with it in every later plan made from it, so a relation met again (the input of the next call of
a pipeline) is found by that id. Reading the plans of a pipeline of K calls asks for at most K
schemas, when the trace is pulled, never while the notebook runs.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any, Callable, Iterable

from magicpush_lab.capture.plan_store import PlanStore

_EXPR = "org.apache.spark.sql.catalyst.expressions."
_AGG = "org.apache.spark.sql.catalyst.expressions.aggregate."
_PLAN = "org.apache.spark.sql.catalyst.plans.logical."
_JOIN_TYPES = {1: "Inner", 2: "FullOuter", 3: "LeftOuter", 4: "RightOuter", 5: "LeftAnti", 6: "LeftSemi",
               7: "Cross"}
#: what each join type is called in PySpark, for the notes
_JOIN_NAMES = {0: "unspecified", 1: "inner", 2: "full", 3: "left", 4: "right", 5: "left_anti",
               6: "left_semi", 7: "cross"}

# numeric types from narrowest to widest: Spark's implicit cast between two of them goes up
_NUMERIC_RANK = {"byte": 0, "short": 1, "integer": 2, "long": 3, "float": 4, "double": 5}
_INTEGRAL = {"byte", "short", "integer", "long"}

_COMPARISONS = {"==": "EqualTo", "<=>": "EqualNullSafe", ">": "GreaterThan", ">=": "GreaterThanOrEqual",
                "<": "LessThan", "<=": "LessThanOrEqual"}
_ARITHMETIC = {"+": "Add", "-": "Subtract", "*": "Multiply", "%": "Remainder"}
# string functions of one string argument: Catalyst class and result type
_STRING_UNARY = {"upper": ("Upper", "string"), "lower": ("Lower", "string"), "length": ("Length", "integer"),
                 "trim": ("StringTrim", "string"), "ltrim": ("StringTrimLeft", "string"),
                 "rtrim": ("StringTrimRight", "string")}
_STRING_BINARY = {"startswith": "StartsWith", "endswith": "EndsWith", "contains": "Contains"}
_DATE_PARTS = {"year": "Year", "month": "Month", "dayofmonth": "DayOfMonth", "day": "DayOfMonth",
               "dayofweek": "DayOfWeek", "dayofyear": "DayOfYear", "quarter": "Quarter"}
_AGGREGATES = {"sum": "Sum", "max": "Max", "min": "Min", "count": "Count", "avg": "Average", "mean": "Average"}


class NotReadable(ValueError):
    """Something in a Connect relation this reader does not resolve: the relation is a barrier."""


@dataclass(frozen=True)
class Attr:
    """One output column of a relation: what an AttributeReference record says."""

    name: str
    dtype: Any  # Spark's JSON form of the type: "integer", "decimal(10,2)", {"type": "struct", ...}
    nullable: bool
    expr_id: int

    def flat(self) -> list[dict[str, Any]]:
        return [{"class": _EXPR + "AttributeReference", "num-children": 0, "name": self.name,
                 "dataType": self.dtype, "nullable": self.nullable, "metadata": {},
                 "exprId": {"product-class": _EXPR + "ExprId", "id": self.expr_id, "jvmId": "connect"},
                 "qualifier": []}]


@dataclass(frozen=True)
class Typed:
    """A resolved expression in Spark's flat form, with its type."""

    flat: list[dict[str, Any]]
    dtype: Any
    attr: Attr | None = None  # the column, when the expression is one

    @property
    def name(self) -> str:
        return self.dtype if isinstance(self.dtype, str) else "other"


@dataclass
class _Read:
    rid: int
    output: list[Attr]


@dataclass(frozen=True)
class _WindowItem:
    """One window function of a projection, before Spark's analyzer moves what it reads below
    the Window: its output column, the expressions it reads in the order the analyzer collects
    them (the function's arguments, then the partition keys, then the order keys), and how to
    write its Alias, partitioning and order once each of those is replaced by the column that
    carries it (`build`)."""

    attr: Attr
    reads: tuple[Typed, ...]
    build: Callable[[Callable[[Typed], Typed]], tuple[Typed, list[Any], list[Any]]]


@dataclass(frozen=True)
class _GeneratorItem:
    generator: Typed
    outer: bool
    output: list[Attr]


class _Steps:
    """The window functions and generators met among a projection's items, by position."""

    def __init__(self) -> None:
        self.windows: dict[int, _WindowItem] = {}
        self.generators: dict[int, _GeneratorItem] = {}

    def window(self, encoder: ConnectPlanEncoder, scope: _Scope, position: int, w: Any, name: str) -> Typed:
        item = encoder._window_item(scope, w, name)
        self.windows[position] = item
        return Typed(item.attr.flat(), item.attr.dtype, item.attr)

    def generator(self, encoder: ConnectPlanEncoder, scope: _Scope, position: int, f: Any,
                  names: list[str]) -> None:
        self.generators[position] = encoder._generator_item(scope, f, names)


# explode and posexplode: the generators whose Catalyst form (Explode, PosExplode) and output
# columns are known here; `_outer` keeps a row with NULLs where the array is empty or NULL
_GENERATORS = {"explode": "Explode", "explode_outer": "Explode", "posexplode": "PosExplode",
               "posexplode_outer": "PosExplode"}


def _generator_name(e: Any) -> str | None:
    if e.WhichOneof("expr_type") != "unresolved_function":
        return None
    f = e.unresolved_function
    name = f.function_name.lower()
    if name not in _GENERATORS or f.is_user_defined_function or f.is_distinct:
        return None
    return name


# ranking window functions: Catalyst class, result type, and whether the order keys are its
# arguments (the analyzer gives rank, dense_rank and percent_rank the order's expressions)
_RANKING = {"row_number": ("RowNumber", "integer", False), "rank": ("Rank", "integer", True),
            "dense_rank": ("DenseRank", "integer", True), "percent_rank": ("PercentRank", "double", True),
            "cume_dist": ("CumeDist", "double", False), "ntile": ("NTile", "integer", False)}
_FRAME = _EXPR + "SpecifiedWindowFrame"


def _frame(rows: bool, lower: list[dict[str, Any]], upper: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return _node(_FRAME, [lower, upper], frameType={"object": _EXPR + ("RowFrame$" if rows else "RangeFrame$")})


def _bound(name: str) -> list[dict[str, Any]]:
    return [{"class": _EXPR + name + "$", "num-children": 0}]


def _node(cls: str, kids: Iterable[Typed | list] = (), **fields: Any) -> list[dict[str, Any]]:
    flats = [k.flat if isinstance(k, Typed) else k for k in kids]
    out = [{"class": cls, "num-children": len(flats), **fields}]
    for k in flats:
        out.extend(k)
    return out


def _literal(value: Any, dtype: Any) -> Typed:
    text = None if value is None else ("true" if value is True else "false" if value is False else str(value))
    return Typed(_node(_EXPR + "Literal", value=text, dataType=dtype), dtype)


class ConnectPlanEncoder:
    """Reads Connect plans (connect.ConnectHandle) into one PlanStore, each relation once."""

    def __init__(self, store: PlanStore) -> None:
        self.store = store
        self._reads: dict[int, _Read] = {}  # plan id -> the relation's record and output
        self._ids = itertools.count(1)
        self._down_until: dict[int, float] = {}  # id(client) -> until when it counts as unreachable
        self._up_at: dict[int, float] = {}  # id(client) -> when it last answered the probe

    # -- entry ----------------------------------------------------------------
    def encode(self, handle: Any) -> int:
        plan_id = getattr(handle.plan, "_plan_id", None)
        known = self._reads.get(plan_id) if plan_id is not None else None
        if known is not None:  # read as part of a later plan already: no proto, no request
            return known.rid
        client = handle.session.client
        self._check_reachable(client)
        relation = handle.plan.plan(client)
        return self._relation(relation, client).rid

    def _check_reachable(self, client: Any) -> None:
        """A server that does not answer fails this read at once, and the next ones for a while,
        instead of each schema request retrying it for minutes."""
        import time

        from magicpush_lab.capture.connect_probe import CONNECT_PROBE_SECONDS, reachable

        now = time.monotonic()
        if self._down_until.get(id(client), 0.0) > now:
            raise ConnectionError("the Spark Connect server cannot be reached: the plan was not read")
        if self._up_at.get(id(client), -60.0) > now - 10.0:  # it answered a moment ago: this pull
            return
        try:
            reachable(client, CONNECT_PROBE_SECONDS)
        except ConnectionError:
            self._down_until[id(client)] = now + 30.0
            raise
        self._up_at[id(client)] = now

    # -- relations --------------------------------------------------------------
    def _relation(self, rel: Any, client: Any) -> _Read:
        plan_id = rel.common.plan_id if rel.HasField("common") and rel.common.HasField("plan_id") else None
        if plan_id is not None and plan_id in self._reads:
            return self._reads[plan_id]
        kind = rel.WhichOneof("rel_type")
        inputs = [self._relation(r, client) for r in _inputs(rel, kind)]
        try:
            read = self._resolved(rel, kind, inputs, client)
        except NotReadable as err:
            read = self._opaque(rel, kind, inputs, client, str(err))
        except Exception as err:  # a shape this reader did not expect: a barrier, never a guess
            read = self._opaque(rel, kind, inputs, client, f"not read ({type(err).__name__}: {err})")
        if plan_id is not None:
            self._reads[plan_id] = read
        return read

    def _schema(self, rel: Any, client: Any) -> list[tuple[str, Any, bool]]:
        """(name, type, nullable) of each column of `rel`, from the server."""
        from pyspark.sql.connect.proto import base_pb2

        plan = base_pb2.Plan()
        plan.root.CopyFrom(rel)
        schema = client.schema(plan)
        return [(f.name, f.dataType.jsonValue(), bool(f.nullable)) for f in schema.fields]

    def _fresh(self, name: str, dtype: Any, nullable: bool = True) -> Attr:
        return Attr(name, dtype, nullable, next(self._ids))

    def _record(self, cls: str, inputs: list[_Read], **fields: Any) -> int:
        record = {k: self.store.field(v) for k, v in fields.items()}
        record["class"] = _PLAN + cls
        record["#kids"] = [i.rid for i in inputs]
        return self.store.intern(record)

    def _opaque(self, rel: Any, kind: str | None, inputs: list[_Read], client: Any, reason: str) -> _Read:
        try:
            output = [self._fresh(n, t, null) for n, t, null in self._schema(rel, client)]
        except Exception as err:  # the server cannot say either: a barrier without columns
            output, reason = [], f"{reason}; its schema could not be read ({type(err).__name__})"
        rid = self._record("Opaque", inputs, reason=f"Spark Connect {kind or 'relation'}: {reason}",
                           output=[a.flat() for a in output])
        return _Read(rid, output)

    def _leaf(self, rel: Any, cls: str, client: Any) -> _Read:
        output = [self._fresh(n, t, null) for n, t, null in self._schema(rel, client)]
        rid = self._record(cls, [], output=[a.flat() for a in output])
        return _Read(rid, output)

    def _resolved(self, rel: Any, kind: str | None, inputs: list[_Read], client: Any) -> _Read:
        if kind == "read":
            return self._leaf(rel, "LogicalRelation", client)
        if kind in ("local_relation", "cached_local_relation", "chunked_cached_local_relation"):
            return self._leaf(rel, "LocalRelation", client)
        if kind == "range":
            return self._leaf(rel, "Range", client)
        if kind in ("sql", "cached_remote_relation"):  # a source: its inside is not a step of the notebook
            return self._leaf(rel, "LogicalRelation", client)
        if kind == "filter":
            (child,) = inputs
            cond = _Scope(self, child.output).expr(rel.filter.condition)
            if cond.dtype != "boolean":
                raise NotReadable("a filter whose condition is not a boolean")
            return _Read(self._record("Filter", inputs, condition=cond.flat), child.output)
        if kind == "project":
            return self._project(rel, inputs, client)
        if kind == "with_columns":
            return self._with_columns(rel, inputs, client)
        if kind == "drop":
            return self._drop(rel, inputs, client)
        if kind == "with_columns_renamed":
            return self._renamed(rel, inputs, client)
        if kind == "to_df":
            (child,) = inputs
            names = list(rel.to_df.column_names)
            if len(names) != len(child.output):
                raise NotReadable("toDF with another number of names than columns")
            return self._projection(rel, inputs, client, [self._alias(Typed(a.flat(), a.dtype, a), n)
                                                          for a, n in zip(child.output, names)])
        if kind == "subquery_alias":
            return _Read(self._record("SubqueryAlias", inputs, identifier={"name": rel.subquery_alias.alias}),
                         inputs[0].output)
        if kind == "hint":
            return _Read(self._record("ResolvedHint", inputs), inputs[0].output)
        if kind == "repartition":
            return _Read(self._record("Repartition", inputs, numPartitions=rel.repartition.num_partitions,
                                      shuffle=bool(rel.repartition.shuffle)), inputs[0].output)
        if kind == "repartition_by_expression":
            scope = _Scope(self, inputs[0].output)
            keys = [scope.expr(e).flat for e in rel.repartition_by_expression.partition_exprs]
            return _Read(self._record("RepartitionByExpression", inputs, partitionExpressions=keys),
                         inputs[0].output)
        if kind == "sort":
            return self._sort(rel, inputs)
        if kind == "limit":
            (child,) = inputs
            limit = _literal(int(rel.limit.limit), "integer").flat
            local = self.store.intern({"class": _PLAN + "LocalLimit", "#kids": [child.rid],
                                       "limitExpr": self.store.field(limit)})
            rid = self.store.intern({"class": _PLAN + "GlobalLimit", "#kids": [local],
                                     "limitExpr": self.store.field(limit)})
            return _Read(rid, child.output)
        if kind == "deduplicate":
            return self._deduplicate(rel, inputs)
        if kind == "join":
            return self._join(rel, inputs, client)
        if kind == "set_op":
            return self._set_op(rel, inputs, client)
        if kind == "aggregate":
            return self._aggregate(rel, inputs, client)
        if kind == "group_map":
            return self._group_map(rel, inputs, client)
        if kind == "drop_na":
            return self._drop_na(rel, inputs)
        if kind == "fill_na":
            return self._fill_na(rel, inputs, client)
        raise NotReadable(_RELATION_REASONS.get(kind or "", "not analysed yet"))

    # -- projections -------------------------------------------------------------
    def _alias(self, value: Typed, name: str) -> Typed:
        return self._alias_as(value, self._fresh(name, value.dtype))

    @staticmethod
    def _alias_as(value: Typed, attr: Attr) -> Typed:
        """`value AS attr`: the Alias that makes the column `attr`."""
        return Typed(_node(_EXPR + "Alias", [value], name=attr.name,
                           exprId={"product-class": _EXPR + "ExprId", "id": attr.expr_id, "jvmId": "connect"},
                           qualifier=[]), value.dtype, attr)

    def _projection(self, rel: Any, inputs: list[_Read], client: Any, items: list[Typed]) -> _Read:
        """A Project of `items` (columns passed through, or Aliases), checked against the server's
        schema of `rel`: same names, same types, in order."""
        schema = self._schema(rel, client)
        output = [i.attr for i in items]
        if any(a is None for a in output) or len(schema) != len(output):
            raise NotReadable("its columns are not the ones the server names")
        for attr, (name, dtype, _) in zip(output, schema):
            if attr.name != name or attr.dtype != dtype:  # type: ignore[union-attr]
                raise NotReadable(f"column {name}: read here as {attr.dtype}, the server says {dtype}")  # type: ignore
        rid = self._record("Project", inputs, projectList=[i.flat for i in items])
        return _Read(rid, output)  # type: ignore[arg-type]

    def _named(self, value: Typed, name: str) -> Typed:
        """A projection item: the column itself when it keeps its name, else an Alias."""
        if value.attr is not None and value.attr.name == name and value.flat[0]["class"].endswith("AttributeReference"):
            return value
        return self._alias(value, name)

    def _project(self, rel: Any, inputs: list[_Read], client: Any) -> _Read:
        (child,) = inputs
        scope = _Scope(self, child.output)
        schema = self._schema(rel, client)
        items: list[Typed | None] = []
        steps = _Steps()
        for e in rel.project.expressions:
            kind = e.WhichOneof("expr_type")
            if kind == "unresolved_star" and not e.unresolved_star.HasField("unparsed_target") \
                    and not e.unresolved_star.HasField("plan_id"):
                items.extend(Typed(a.flat(), a.dtype, a) for a in child.output)
                continue
            names: list[str] | None = None
            if kind == "alias":
                if e.alias.HasField("metadata"):
                    raise NotReadable("an alias with metadata")
                names, e = list(e.alias.name), e.alias.expr
            position = len(items)
            # the server's column of this item: a generator before it makes several columns
            column = position + sum(len(g.output) - 1 for g in steps.generators.values())
            if _generator_name(e) is not None:
                steps.generator(self, scope, position, e.unresolved_function, names or [])
                items.append(None)
                continue
            if names is not None and len(names) != 1:
                raise NotReadable("an alias of several names")
            if e.WhichOneof("expr_type") == "window":
                if names is None and column >= len(schema):
                    raise NotReadable("more columns than the server names")
                items.append(steps.window(self, scope, position, e.window,
                                          names[0] if names else schema[column][0]))
                continue
            value = scope.expr(e)
            if names is not None:
                items.append(self._named(value, names[0]))
                continue
            if column >= len(schema):
                raise NotReadable("more columns than the server names")
            items.append(self._named(value, value.attr.name if value.attr is not None else schema[column][0]))
        return self._stepped(rel, inputs, client, items, steps)

    def _with_columns(self, rel: Any, inputs: list[_Read], client: Any) -> _Read:
        (child,) = inputs
        scope = _Scope(self, child.output)
        items: list[Typed | None] = [Typed(a.flat(), a.dtype, a) for a in child.output]
        steps = _Steps()
        for alias in rel.with_columns.aliases:
            if len(alias.name) != 1 or alias.HasField("metadata"):
                raise NotReadable("withColumns with several names or metadata")
            name = alias.name[0]
            same = [i for i, a in enumerate(items) if a is not None and a.attr is not None
                    and a.attr.name.lower() == name.lower()]
            if len(same) > 1:
                raise NotReadable(f"several columns named {name}")
            position = same[0] if same else len(items)
            if _generator_name(alias.expr) is not None:
                steps.generator(self, scope, position, alias.expr.unresolved_function, [name])
                value = None
            elif alias.expr.WhichOneof("expr_type") == "window":
                value = steps.window(self, scope, position, alias.expr.window, name)
            else:
                value = self._alias(scope.expr(alias.expr), name)
            if same:
                items[same[0]] = value
            else:
                items.append(value)
        return self._stepped(rel, inputs, client, items, steps)

    def _stepped(self, rel: Any, inputs: list[_Read], client: Any, items: list[Typed | None],
                 steps: _Steps) -> _Read:
        """A projection, with the operators Spark's analyzer puts under it for the window
        functions or the generator among its items (`None` marks the generator's place)."""
        if steps.windows and steps.generators:
            raise NotReadable("a window function and a generator in one step: not analysed on Spark Connect yet")
        if steps.windows:
            return self._windowed(rel, inputs, client, items, steps.windows)  # type: ignore[arg-type]
        if steps.generators:
            return self._generated(rel, inputs, client, items, steps.generators)
        return self._projection(rel, inputs, client, items)  # type: ignore[arg-type]

    def _windowed(self, rel: Any, inputs: list[_Read], client: Any, items: list[Typed],
                  windows: dict[int, _WindowItem]) -> _Read:
        """Window functions in a projection, in the shape Spark's analyzer gives them
        (ExtractWindowExpressions): a Project of the items without a window function, then of
        what the windows read that is not among those (an input column as itself, any other
        expression as a helper column `_w<n>`, n counting what was added before it), the Window
        computing every window function (all over one partitioning and order: Spark makes one
        Window per specification, in an order this reader does not know), a Project of the
        Window's output and the window columns again, and on top the projection's own columns
        in its order."""
        regular = [item for i, item in enumerate(items) if i not in windows]
        have = {item.attr.expr_id for item in regular if item.attr is not None}
        added: list[Typed] = []
        carried: dict[int, Typed] = {}  # id of an expression read -> the helper column carrying it
        helpers: dict[str, Typed] = {}  # an expression's records -> its helper column: one per expression
        for position in sorted(windows):
            for read in windows[position].reads:
                if _is_column(read):
                    if read.attr.expr_id not in have:  # type: ignore[union-attr]
                        have.add(read.attr.expr_id)  # type: ignore[union-attr]
                        added.append(read)
                    continue
                if read.flat[0]["class"] == _EXPR + "Literal":  # a constant stays where it is
                    continue
                classes = {node["class"] for node in read.flat}
                if _EXPR + "AttributeReference" not in classes or _EXPR + "PythonUDF" in classes:
                    raise NotReadable("a window over a constant expression or a UDF's result: "
                                      "not analysed on Spark Connect yet")
                key = repr(read.flat)
                if key not in helpers:
                    helper = self._alias(read, f"_w{len(added)}")
                    added.append(helper)
                    helpers[key] = Typed(helper.attr.flat(), read.dtype, helper.attr)  # type: ignore[union-attr]
                carried[id(read)] = helpers[key]
        built = [windows[p].build(lambda e: carried.get(id(e), e)) for p in sorted(windows)]
        if len({repr((partition, order)) for _, partition, order in built}) != 1:
            raise NotReadable("window functions over different partitions or orders in one step: "
                              "not analysed on Spark Connect yet")
        below_items = regular + added
        below = _Read(self._record("Project", inputs, projectList=[i.flat for i in below_items]),
                      [i.attr for i in below_items])  # type: ignore[misc]
        _, partition, order = built[0]
        computed = [alias for alias, _, _ in built]
        window = _Read(self._record("Window", [below], windowExpressions=[c.flat for c in computed],
                                    partitionSpec=partition, orderSpec=order),
                       below.output + [c.attr for c in computed])  # type: ignore[misc]
        again = window.output + [c.attr for c in computed]
        middle = _Read(self._record("Project", [window], projectList=[a.flat() for a in again]), again)  # type: ignore
        final = [Typed(i.attr.flat(), i.dtype, i.attr) for i in items]  # type: ignore[union-attr]
        return self._projection(rel, [middle], client, final)

    def _generated(self, rel: Any, inputs: list[_Read], client: Any, items: list[Typed | None],
                   generators: dict[int, _GeneratorItem]) -> _Read:
        """A generator in a projection, as Spark's analyzer reads it (ResolveGenerate): a Generate
        keeping every input column and adding the generator's, under a Project of the items with
        the generator's columns in its place."""
        if len(generators) != 1:
            raise NotReadable("several generators in one step (Spark refuses them)")
        ((position, gen),) = generators.items()
        (child,) = inputs
        generate = _Read(self._record("Generate", inputs, generator=gen.generator.flat, unrequiredChildIndex=[],
                                      outer=gen.outer, generatorOutput=[a.flat() for a in gen.output]),
                         child.output + gen.output)
        final: list[Typed] = []
        for i, item in enumerate(items):
            if i == position:
                final.extend(Typed(a.flat(), a.dtype, a) for a in gen.output)
            elif item is not None:
                final.append(item)
        return self._projection(rel, [generate], client, final)

    def _drop(self, rel: Any, inputs: list[_Read], client: Any) -> _Read:
        (child,) = inputs
        scope = _Scope(self, child.output)
        gone: set[int] = set()
        for name in rel.drop.column_names:
            gone |= {a.expr_id for a in child.output if a.name.lower() == name.lower()}
        for e in rel.drop.columns:
            value = scope.expr(e)
            if value.attr is None:
                raise NotReadable("drop of an expression that is not a column")
            gone.add(value.attr.expr_id)
        return self._projection(rel, inputs, client,
                                [Typed(a.flat(), a.dtype, a) for a in child.output if a.expr_id not in gone])

    def _renamed(self, rel: Any, inputs: list[_Read], client: Any) -> _Read:
        (child,) = inputs
        spec = rel.with_columns_renamed
        pairs = [(r.col_name, r.new_col_name) for r in spec.renames] or list(spec.rename_columns_map.items())
        items = [Typed(a.flat(), a.dtype, a) for a in child.output]
        for old, new in pairs:
            for i, item in enumerate(items):
                if item.attr is not None and item.attr.name.lower() == old.lower():
                    items[i] = self._alias(item, new)
        return self._projection(rel, inputs, client, items)

    # -- window functions and generators --------------------------------------------------
    def _window_item(self, scope: _Scope, w: Any, name: str) -> _WindowItem:
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
                if len(fixed) != 1 or fixed[0].flat[0]["class"] != _EXPR + "Literal" or fixed[0].dtype != "integer":
                    raise NotReadable("ntile of something other than an integer literal: not analysed")
            elif f.arguments:
                raise NotReadable(f"{fname} with arguments: not analysed on Spark Connect yet")

            # the analyzer gives rank & co. the order's expressions once they are carried below
            def call(sub: Callable[[Typed], Typed]) -> list[dict[str, Any]]:
                return _node(_EXPR + cls, [sub(k) for k in keys] if order_args else fixed)

            frame = _frame(fname != "cume_dist", _bound("UnboundedPreceding"), _bound("CurrentRow"))
        elif fname in ("lag", "lead"):
            if w.HasField("frame_spec") or not keys:
                raise NotReadable(f"{fname} with a frame of its own or without an order: not analysed on Spark Connect yet")
            value, offset, default, frame = self._offset_parts(scope, fname, f)
            dtype = value.dtype
            reads.append(value)

            def call(sub: Callable[[Typed], Typed]) -> list[dict[str, Any]]:
                return _node(_EXPR + ("Lag" if fname == "lag" else "Lead"), [sub(value), offset, default],
                             ignoreNulls=False)
        elif fname in _AGGREGATES or fname in ("first", "last"):
            if fname in _AGGREGATES:
                value, dtype = self._window_aggregate(scope, fname, f)
                function = (_AGG + _AGGREGATES[fname], {})
            else:  # first/last(value, ignorenulls): the flag a field of First/Last, not an argument
                args = [scope.expr(a) for a in f.arguments]
                if len(args) != 2 or args[1].flat[0]["class"] != _EXPR + "Literal" or args[1].dtype != "boolean":
                    raise NotReadable(f"{fname} in this form: not analysed on Spark Connect yet")
                value, dtype = args[0], args[0].dtype
                function = (_AGG + fname.capitalize(), {"ignoreNulls": args[1].flat[0]["value"] == "true"})
            reads.append(value)
            result_id = {"product-class": _EXPR + "ExprId", "id": next(self._ids), "jvmId": "connect"}

            def call(sub: Callable[[Typed], Typed]) -> list[dict[str, Any]]:
                return _node(_AGG + "AggregateExpression", [_node(function[0], [sub(value)], **function[1])],
                             mode={"object": _AGG + "Complete$"}, isDistinct=False, filter=None, resultId=result_id)

            if w.HasField("frame_spec"):
                frame = self._user_frame(scope, w.frame_spec)
            elif keys:
                frame = _frame(False, _bound("UnboundedPreceding"), _bound("CurrentRow"))
            else:
                frame = _frame(True, _bound("UnboundedPreceding"), _bound("UnboundedFollowing"))
        else:
            raise NotReadable(f"window function {f.function_name}: not analysed on Spark Connect yet")
        reads += partition + keys
        attr = self._fresh(name, dtype)
        sort = list(w.order_spec)

        def build(sub: Callable[[Typed], Typed]) -> tuple[Typed, list[Any], list[Any]]:
            by = [sub(k).flat for k in partition]
            order = [_sort_order(sub(k), so) for k, so in zip(keys, sort)]
            spec = _node(_EXPR + "WindowSpecDefinition", [*by, *order, frame])
            expression = Typed(_node(_EXPR + "WindowExpression", [call(sub), spec]), dtype)
            return self._alias_as(expression, attr), by, order

        return _WindowItem(attr, tuple(reads), build)

    def _offset_parts(self, scope: _Scope, fname: str, f: Any) -> tuple[Typed, Typed, Typed, list]:
        """lag/lead(value, k, default) as the analyzer gives them: the value, the offset k and the
        default (NULL unless given, of the value's type: any other would be cast), over a frame
        of the one row k rows before (lag) or after (lead)."""
        args = [scope.expr(a) for a in f.arguments]
        if len(args) == 2:  # no default given: Spark's is a NULL literal, left untyped
            args.append(_literal(None, "void"))
        if len(args) != 3:
            raise NotReadable(f"{fname} with ignorenulls: not analysed on Spark Connect yet")
        value, offset, default = args
        if offset.flat[0]["class"] != _EXPR + "Literal" or offset.dtype != "integer" or int(offset.flat[0]["value"]) < 1:
            raise NotReadable(f"{fname} with an offset that is not a positive integer literal")
        if default.flat[0]["class"] != _EXPR + "Literal" or default.dtype not in ("void", value.dtype):
            raise NotReadable(f"{fname} with a default of another type than the column's (Spark casts it)")
        k = int(offset.flat[0]["value"])
        at = _literal(-k if fname == "lag" else k, "integer").flat
        return value, offset, default, _frame(True, at, at)

    def _window_aggregate(self, scope: _Scope, fname: str, f: Any) -> tuple[Typed, Any]:
        """An aggregate over a window: its argument (count("*") is count(1)) and its result type.
        Unlike in a groupBy, the analyzer adds no cast to the argument here."""
        args = list(f.arguments)
        if fname == "count" and len(args) == 1 and args[0].WhichOneof("expr_type") == "unresolved_star":
            return _literal(1, "integer"), "long"
        if len(args) != 1:
            raise NotReadable(f"{fname} of {len(args)} arguments over a window")
        value = scope.expr(args[0])
        if fname == "count":
            return value, "long"
        if isinstance(value.dtype, str) and value.dtype.startswith("decimal"):
            raise NotReadable(f"{fname} of a decimal column over a window: not analysed on Spark Connect yet")
        if fname in ("sum", "avg", "mean"):
            if value.name not in _NUMERIC_RANK:
                raise NotReadable(f"{fname} of a {value.name} column over a window: not analysed on Spark Connect yet")
            return value, "double" if fname != "sum" or value.name not in _INTEGRAL else "long"
        return value, value.dtype

    def _user_frame(self, scope: _Scope, spec: Any) -> list[dict[str, Any]]:
        """rowsBetween / rangeBetween: row offsets as integer literals (what the analyzer keeps);
        a range frame only from and to the partition's ends or the current row (an offset in
        value units is cast to the order key's type)."""
        rows = spec.frame_type == 1
        if spec.frame_type not in (1, 2):
            raise NotReadable("a window frame of an unknown type")

        def bound(b: Any, lower: bool) -> list[dict[str, Any]]:
            which = b.WhichOneof("boundary")
            if which == "current_row":
                return _bound("CurrentRow")
            if which == "unbounded":
                return _bound("UnboundedPreceding" if lower else "UnboundedFollowing")
            if which == "value" and rows:
                value = scope.expr(b.value)
                if value.flat[0]["class"] == _EXPR + "Literal" and value.dtype == "integer":
                    return value.flat
            raise NotReadable("a window frame bound other than a row offset, the current row or the "
                              "partition's end: not analysed on Spark Connect yet")

        return _frame(rows, bound(spec.lower, True), bound(spec.upper, False))

    def _generator_item(self, scope: _Scope, f: Any, names: list[str]) -> _GeneratorItem:
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
        if _GENERATORS[name] == "PosExplode":
            fields.insert(0, ("pos", "integer", False))
        if names:
            if len(names) != len(fields):
                raise NotReadable(f"{name} aliased with {len(names)} names for {len(fields)} columns")
            fields = [(n, t, null) for n, (_, t, null) in zip(names, fields)]
        output = [self._fresh(n, t, null or outer) for n, t, null in fields]
        return _GeneratorItem(Typed(_node(_EXPR + _GENERATORS[name], [arg]), "generator"), outer, output)

    # -- the other operators --------------------------------------------------------
    def _sort(self, rel: Any, inputs: list[_Read]) -> _Read:
        (child,) = inputs
        scope = _Scope(self, child.output)
        order = [scope.sort_order(e) for e in rel.sort.order]
        return _Read(self._record("Sort", inputs, order=order, **{"global": bool(rel.sort.is_global)}),
                     child.output)

    def _deduplicate(self, rel: Any, inputs: list[_Read]) -> _Read:
        (child,) = inputs
        spec = rel.deduplicate
        if spec.within_watermark:
            raise NotReadable("dropDuplicatesWithinWatermark: not analysed")
        if spec.all_columns_as_keys or not spec.column_names:
            keys = list(child.output)
        else:
            keys = []
            for name in spec.column_names:
                found = [a for a in child.output if a.name.lower() == name.lower()]
                if len(found) != 1:
                    raise NotReadable(f"dropDuplicates on {name}: not one column of that name")
                keys.append(found[0])
        return _Read(self._record("Deduplicate", inputs, keys=[a.flat() for a in keys]), child.output)

    def _join(self, rel: Any, inputs: list[_Read], client: Any) -> _Read:
        spec = rel.join
        left, right = inputs
        if spec.join_type not in _JOIN_TYPES:
            raise NotReadable(f"{_JOIN_NAMES.get(spec.join_type, 'this')} join: not analysed")
        if {a.expr_id for a in left.output} & {a.expr_id for a in right.output}:
            raise NotReadable("a join of a DataFrame with itself: not analysed yet")
        join_type = _JOIN_TYPES[spec.join_type]
        jtype = {"object": f"org.apache.spark.sql.catalyst.plans.{join_type}$"}
        using = list(spec.using_columns)
        if spec.HasField("join_condition") and using:
            raise NotReadable("a join with both a condition and using columns")
        if not using:
            condition = None
            if spec.HasField("join_condition"):
                cond = _Scope(self, left.output + right.output).expr(spec.join_condition)
                if cond.dtype != "boolean":
                    raise NotReadable("a join condition that is not a boolean")
                condition = cond.flat
            rid = self._record("Join", inputs, joinType=jtype, condition=condition)
            output = left.output + ([] if join_type in ("LeftSemi", "LeftAnti") else right.output)
            schema = self._schema(rel, client)
            if [n for n, _, _ in schema] != [a.name for a in output]:
                raise NotReadable("its columns are not the ones the server names")
            return _Read(rid, output)
        pairs = []
        for name in using:
            mine = [a for a in left.output if a.name.lower() == name.lower()]
            theirs = [a for a in right.output if a.name.lower() == name.lower()]
            if len(mine) != 1 or len(theirs) != 1 or mine[0].dtype != theirs[0].dtype:
                raise NotReadable(f"join on {name}: not one column of one type on each side")
            pairs.append((mine[0], theirs[0]))
        condition = None
        for a, b in pairs:
            eq = _node(_EXPR + "EqualTo", [a.flat(), b.flat()])
            condition = eq if condition is None else _node(_EXPR + "And", [condition, eq])
        join = _Read(self._record("Join", inputs, joinType=jtype, condition=condition), left.output + right.output)
        keys_l, keys_r = [a for a, _ in pairs], [b for _, b in pairs]
        rest_l = [a for a in left.output if a not in keys_l]
        rest_r = [b for b in right.output if b not in keys_r]
        if join_type in ("LeftSemi", "LeftAnti"):
            items = [Typed(a.flat(), a.dtype, a) for a in keys_l + rest_l]
        elif join_type == "RightOuter":
            items = [Typed(a.flat(), a.dtype, a) for a in keys_r + rest_l + rest_r]
        elif join_type == "FullOuter":
            items = [self._alias(Typed(_node(_EXPR + "Coalesce", [a.flat(), b.flat()]), a.dtype), a.name)
                     for a, b in pairs] + [Typed(a.flat(), a.dtype, a) for a in rest_l + rest_r]
        else:
            items = [Typed(a.flat(), a.dtype, a) for a in keys_l + rest_l + rest_r]
        return self._projection(rel, [join], client, items)

    def _set_op(self, rel: Any, inputs: list[_Read], client: Any) -> _Read:
        spec = rel.set_op
        if spec.set_op_type != 2:
            raise NotReadable({1: "intersect", 3: "subtract/exceptAll"}.get(spec.set_op_type, "set operation")
                              + ": not analysed")
        if spec.by_name or spec.allow_missing_columns:
            raise NotReadable("unionByName: not analysed yet")
        if not spec.is_all:
            raise NotReadable("a union without duplicates: not analysed yet")
        left, right = inputs
        if [a.dtype for a in left.output] != [a.dtype for a in right.output]:
            raise NotReadable("a union of columns of different types (Spark casts them): not analysed yet")
        schema = self._schema(rel, client)
        if [n for n, _, _ in schema] != [a.name for a in left.output]:
            raise NotReadable("its columns are not the ones the server names")
        return _Read(self._record("Union", inputs, byName=False, allowMissingCol=False), left.output)

    def _aggregate(self, rel: Any, inputs: list[_Read], client: Any) -> _Read:
        spec = rel.aggregate
        (child,) = inputs
        if spec.group_type not in (1, 2, 3):
            raise NotReadable({4: "pivot", 5: "groupingSets"}.get(spec.group_type, "grouping")
                              + ": not analysed on Spark Connect yet")
        scope = _Scope(self, child.output)
        keys = [scope.expr(e) for e in spec.grouping_expressions]
        if any(k.attr is None for k in keys):
            raise NotReadable("grouping by an expression that is not a column: not analysed yet")
        schema = self._schema(rel, client)
        grouping = [k.flat for k in keys]
        if spec.group_type != 1:
            if not keys:  # Spark plans it as a plain global aggregate, without an Expand
                raise NotReadable("rollup/cube without columns: not analysed on Spark Connect yet")
            below, keys, gid = self._grouping_sets(inputs, keys, spec.group_type == 2)
            inputs, grouping = [below], [k.flat for k in keys] + [gid.flat()]
        items: list[Typed] = list(keys)
        aggregates = _Scope(self, child.output, aggregates=True)
        for e in spec.aggregate_expressions:
            position = len(items)
            if position >= len(schema):
                raise NotReadable("more columns than the server names")
            if e.WhichOneof("expr_type") == "alias":
                if len(e.alias.name) != 1:
                    raise NotReadable("an alias of several names")
                items.append(self._alias(aggregates.expr(e.alias.expr), e.alias.name[0]))
            else:
                items.append(self._alias(aggregates.expr(e), schema[position][0]))
        if spec.group_type != 1 and any(i.flat[1]["class"] != _AGG + "AggregateExpression" for i in items[len(keys):]):
            # outside an aggregate function a key is the expanded column (NULL in the rolled-up
            # rows), which this reader does not substitute
            raise NotReadable("rollup/cube with an expression around an aggregate: not analysed on Spark Connect yet")
        output = [i.attr for i in items]
        if [n for n, _, _ in schema] != [a.name for a in output] or \
                [t for _, t, _ in schema] != [a.dtype for a in output]:  # type: ignore[union-attr]
            raise NotReadable("its columns are not the ones the server names")
        rid = self._record("Aggregate", inputs, groupingExpressions=grouping,
                           aggregateExpressions=[i.flat for i in items])
        return _Read(rid, output)  # type: ignore[arg-type]

    def _grouping_sets(self, inputs: list[_Read], keys: list[Typed], rollup: bool) -> tuple[_Read, list[Typed], Attr]:
        """rollup/cube as Spark's analyzer expands them (ResolveGroupingAnalytics): a Project adding
        each key again under its name, an Expand with one projection per grouping set (the keys
        left out of the set NULL, and the set's spark_grouping_id: one bit per key, the first key
        the highest, set when the key is left out), in Spark's order of the sets (rollup: every
        prefix of the keys, longest first; cube: every subset, the sets with the first key
        first); the Aggregate then groups by the Expand's key columns and the grouping id.
        Aggregates keep reading the input's own columns."""
        (child,) = inputs
        copies = [self._alias(k, k.attr.name) for k in keys]  # type: ignore[union-attr]
        project = _Read(self._record("Project", inputs, projectList=[a.flat() for a in child.output]
                                     + [c.flat for c in copies]),
                        child.output + [c.attr for c in copies])  # type: ignore[misc]
        n = len(keys)
        if rollup:
            sets = [list(range(i)) for i in range(n, -1, -1)]
        else:
            sets = [[]]
            for i in range(n - 1, -1, -1):
                sets = [[i] + rest for rest in sets] + sets
        projections = []
        for kept in sets:
            gid = sum(1 << (n - 1 - i) for i in range(n) if i not in kept)
            row = [a.flat() for a in child.output]
            row += [c.attr.flat() if i in kept else _literal(None, c.dtype).flat  # type: ignore[union-attr]
                    for i, c in enumerate(copies)]
            projections.append(row + [_literal(gid, "long").flat])
        expanded = [self._fresh(k.attr.name, k.dtype) for k in keys]  # type: ignore[union-attr]
        gid_attr = self._fresh("spark_grouping_id", "long", False)
        output = child.output + expanded + [gid_attr]
        rid = self._record("Expand", [project], projections=projections, output=[a.flat() for a in output])
        return _Read(rid, output), [Typed(a.flat(), a.dtype, a) for a in expanded], gid_attr

    def _group_map(self, rel: Any, inputs: list[_Read], client: Any) -> _Read:
        """groupBy(columns).applyInPandas(fn, schema) as Spark plans it: the keys projected in
        front of the input's columns, and FlatMapGroupsInPandas over that with the function as a
        PythonUDF of every input column and the schema's columns as its output."""
        spec = rel.group_map
        (child,) = inputs
        extra = {f.name for f, _ in spec.ListFields()} - {"input", "grouping_expressions", "func"}
        if extra:
            raise NotReadable(f"a grouped map with {', '.join(sorted(extra))}: not analysed on Spark Connect yet")
        f = spec.func
        if not f.HasField("python_udf") or f.python_udf.eval_type != 201:  # SQL_GROUPED_MAP_PANDAS_UDF
            raise NotReadable("a grouped map other than applyInPandas: not analysed on Spark Connect yet")
        scope = _Scope(self, child.output)
        keys = [scope.expr(e) for e in spec.grouping_expressions]
        if any(k.attr is None or not k.flat[0]["class"].endswith("AttributeReference") for k in keys):
            raise NotReadable("applyInPandas grouped by an expression that is not a column: "
                              "not analysed on Spark Connect yet")
        call = scope.udf(f)
        if not isinstance(call.dtype, dict) or call.dtype.get("type") != "struct":
            raise NotReadable("applyInPandas whose schema is not a struct")
        output = [self._fresh(fld["name"], fld["type"], bool(fld.get("nullable", True)))
                  for fld in call.dtype["fields"]]
        schema = self._schema(rel, client)
        if [(n, t) for n, t, _ in schema] != [(a.name, a.dtype) for a in output]:
            raise NotReadable("its columns are not the ones the server names")
        project = _Read(self._record("Project", inputs, projectList=[k.flat for k in keys]
                                     + [a.flat() for a in child.output]),
                        [k.attr for k in keys] + child.output)  # type: ignore[misc]
        rid = self._record("FlatMapGroupsInPandas", [project], groupingAttributes=[k.flat for k in keys],
                           functionExpr=call.flat, output=[a.flat() for a in output])
        return _Read(rid, output)

    def _fill_na(self, rel: Any, inputs: list[_Read], client: Any) -> _Read:
        """fillna as the server plans it (DataFrameNaFunctions.fill): a Project over every column,
        each filled one `coalesce(c, cast(value as c's type))` under its own name, a float or
        double column's NaN first made NULL (`nanvl(c, NULL)`). One value fills the columns (all,
        or the subset) of its kind: a number the numeric ones, a string the string ones, a
        boolean the boolean ones; a dict fills each column it names with its value. Read only
        where that cast keeps the value exactly (an integral value within an integral column's
        range; no decimal columns), so the value filled is the one the user wrote."""
        spec = rel.fill_na
        (child,) = inputs
        values = [_Scope(self, child.output).literal(v) for v in spec.values]
        if any(_fill_kind(v.dtype) is None for v in values):
            raise NotReadable("fillna with a value that is not a number, a string or a boolean")
        names = list(spec.cols)

        def named(name: str) -> Attr:
            found = [a for a in child.output if a.name.lower() == name.lower()]
            if len(found) != 1 or any(ch in name for ch in ".`"):  # Spark reads a dot as a struct field
                raise NotReadable(f"fillna on {name}: not one column of that name")
            return found[0]

        if len(values) == 1:
            chosen = [named(n) for n in names] if names else list(child.output)
            ids = {a.expr_id for a in chosen}
            fills = {a.expr_id: values[0] for a in child.output
                     if a.expr_id in ids and _fill_kind(a.dtype) == _fill_kind(values[0].dtype)}
        elif len(values) == len(names):
            fills = {}
            for name, value in zip(names, values):
                attr = named(name)
                if _fill_kind(attr.dtype) != _fill_kind(value.dtype):
                    raise NotReadable(f"fillna of {name} ({attr.dtype}) with a {value.dtype} value (Spark casts it): "
                                      "not analysed on Spark Connect yet")
                fills[attr.expr_id] = value
        else:
            raise NotReadable("fillna with another number of values than columns")
        items: list[Typed] = []
        for a in child.output:
            value = fills.get(a.expr_id)
            if value is None:
                items.append(Typed(a.flat(), a.dtype, a))
                continue
            if isinstance(a.dtype, str) and a.dtype.startswith("decimal"):
                raise NotReadable(f"fillna of the decimal column {a.name}: not analysed on Spark Connect yet")
            raw = value.flat[0]["value"]
            if a.dtype in _INTEGER_RANGE:
                low, high = _INTEGER_RANGE[a.dtype]
                number = float(raw)
                if not number.is_integer() or not low <= number <= high:
                    raise NotReadable(f"fillna of the {a.dtype} column {a.name} with {raw} (Spark casts it): "
                                      "not analysed on Spark Connect yet")
            column = Typed(a.flat(), a.dtype, a)
            if a.dtype in ("float", "double"):
                column = Typed(_node(_EXPR + "NaNvl", [column, _node(_EXPR + "Cast", [_literal(None, "void")],
                                                                       dataType=a.dtype)]), a.dtype)
            filled = _node(_EXPR + "Coalesce", [column, _node(_EXPR + "Cast", [value], dataType=a.dtype)])
            items.append(self._alias(Typed(filled, a.dtype), a.name))
        return self._projection(rel, inputs, client, items)

    def _drop_na(self, rel: Any, inputs: list[_Read]) -> _Read:
        """dropna as Spark plans it: a Filter keeping the rows with at least n of the columns
        neither NULL nor NaN (AtLeastNNonNulls; n = thresh, else every column for how="any" and
        one for how="all", which PySpark sends as thresh)."""
        spec = rel.drop_na
        (child,) = inputs
        if spec.cols:
            columns = []
            for name in spec.cols:
                found = [a for a in child.output if a.name.lower() == name.lower()]
                if len(found) != 1 or any(ch in name for ch in ".`"):  # Spark reads a dot as a struct field
                    raise NotReadable(f"dropna on {name}: not one column of that name")
                columns.append(found[0])
        else:
            columns = list(child.output)
        n = spec.min_non_nulls if spec.HasField("min_non_nulls") else len(columns)
        cond = _node(_EXPR + "AtLeastNNonNulls", [a.flat() for a in columns], n=int(n))
        return _Read(self._record("Filter", inputs, condition=cond), child.output)


def _inputs(rel: Any, kind: str | None) -> list[Any]:
    """The relations `rel` reads, in the order of their fields (a join's left before its right):
    every field of the relation's message that holds a relation, so that a kind not read here
    still becomes a barrier over its inputs rather than a source."""
    if kind is None:
        return []
    out: list[Any] = []
    for field, value in getattr(rel, kind).ListFields():
        if field.message_type is None or field.message_type.full_name != "spark.connect.Relation":
            continue
        if hasattr(value, "WhichOneof"):  # one relation
            out.append(value)
        else:  # a repeated field of relations
            out.extend(value)
    return out


# why a relation kind stops every pushdown, in the PySpark user's words
_RELATION_REASONS = {
    "sample": "sample: which rows are drawn depends on the rows before it",
    "offset": "offset: which rows are kept depends on the order",
    "tail": "tail: which rows are kept depends on the order",
    "replace": "replace on Spark Connect: not analysed yet",
    "unpivot": "unpivot on Spark Connect: not analysed yet",
    "map_partitions": "mapInPandas/mapInArrow: the function sees whole batches of rows",
    "co_group_map": "cogroup applyInPandas: not analysed",
    "collect_metrics": "observe: its metrics count the rows that reach it",
    "with_watermark": "withWatermark: streaming is not analysed",
    "to_schema": "to(schema) on Spark Connect: not analysed yet",
}


_INTEGER_RANGE = {"byte": (-2 ** 7, 2 ** 7 - 1), "short": (-2 ** 15, 2 ** 15 - 1),
                  "integer": (-2 ** 31, 2 ** 31 - 1), "long": (-2 ** 63, 2 ** 63 - 1)}


def _fill_kind(dtype: Any) -> str | None:
    """Which fillna values fill a column of this type: numbers fill numeric columns, strings
    string ones, booleans boolean ones."""
    if not isinstance(dtype, str):
        return None
    if dtype.startswith("string") and dtype != "string":
        # Spark fills a collated string column too, with a cast to its collation: not written here
        raise NotReadable(f"fillna over a {dtype} column: not analysed on Spark Connect yet")
    if dtype in _NUMERIC_RANK or dtype.startswith("decimal"):
        return "number"
    return dtype if dtype in ("string", "boolean") else None


class _Scope:
    """Resolves expressions against the columns of a relation's inputs."""

    def __init__(self, encoder: ConnectPlanEncoder, columns: list[Attr], aggregates: bool = False) -> None:
        self.encoder, self.columns, self.aggregates = encoder, columns, aggregates

    # -- names ----------------------------------------------------------------
    def column(self, name: str, plan_id: int | None) -> Typed:
        whole = _unquoted(name)
        if not whole or "`" in whole or whole == name and "." in name:
            raise NotReadable(f"column {name!r}: qualified or quoted names are not resolved yet")
        name = whole
        if plan_id is not None:
            owner = self.encoder._reads.get(plan_id)
            if owner is None:
                raise NotReadable(f"column {name} of a DataFrame not read here")
            ids = {a.expr_id for a in self.columns}
            found = [a for a in owner.output if a.name.lower() == name.lower() and a.expr_id in ids]
        else:
            found = [a for a in self.columns if a.name.lower() == name.lower()]
        if len(found) != 1:
            raise NotReadable(f"column {name}: {'no' if not found else 'several'} input columns of that name")
        a = found[0]
        return Typed(a.flat(), a.dtype, a)

    # -- expressions -------------------------------------------------------------
    def expr(self, e: Any) -> Typed:
        kind = e.WhichOneof("expr_type")
        if kind == "unresolved_attribute":
            ua = e.unresolved_attribute
            if ua.is_metadata_column:
                raise NotReadable("a metadata column")
            return self.column(ua.unparsed_identifier, ua.plan_id if ua.HasField("plan_id") else None)
        if kind == "literal":
            return self.literal(e.literal)
        if kind == "unresolved_function":
            return self.function(e.unresolved_function)
        if kind == "cast":
            return self.cast(e.cast)
        if kind == "common_inline_user_defined_function":
            return self.udf(e.common_inline_user_defined_function)
        if kind == "alias":
            if len(e.alias.name) != 1:
                raise NotReadable("an alias of several names inside an expression")
            # only a projection's top-level alias names a column (handled by the projection);
            # inside an expression Spark's analyzer drops it (the pandas API on Spark's masks hold one)
            return self.expr(e.alias.expr)
        raise NotReadable({"expression_string": "an SQL expression string (selectExpr, expr(), filter(str))",
                           "window": "a window function", "lambda_function": "a higher-order function",
                           "unresolved_extract_value": "a struct field or array element",
                           "subquery_expression": "a subquery"}.get(kind or "", f"expression {kind}")
                          + ": not analysed on Spark Connect yet")

    def literal(self, lit: Any) -> Typed:
        kind = lit.WhichOneof("literal_type")
        if kind in ("integer", "long", "short", "byte", "boolean", "string", "float", "double"):
            value = getattr(lit, kind)
            if kind in ("float", "double") and value != value:
                value = "NaN"
            return _literal(value, kind)
        if kind == "date":
            return _literal(int(lit.date), "date")
        if kind == "null":
            return _literal(None, "void")
        raise NotReadable(f"a {kind} literal: not analysed on Spark Connect yet")

    def cast(self, c: Any) -> Typed:
        from pyspark.sql.connect.types import proto_schema_to_pyspark_data_type

        if c.eval_mode not in (0,):
            raise NotReadable("a try_cast or a cast with an explicit mode")
        value = self.expr(c.expr)
        if c.HasField("type"):
            target = proto_schema_to_pyspark_data_type(c.type).jsonValue()
        else:
            from pyspark.sql.types import _parse_datatype_string

            try:
                target = _parse_datatype_string(c.type_str).jsonValue()
            except Exception as err:
                raise NotReadable(f"cast to {c.type_str!r}") from err
        if not isinstance(target, str) or target.startswith("decimal") or target in ("timestamp", "timestamp_ntz"):
            raise NotReadable(f"a cast to {target}: not analysed on Spark Connect yet")
        return Typed(_node(_EXPR + "Cast", [value], dataType=target), target)

    def udf(self, f: Any) -> Typed:
        from pyspark.sql.connect.types import proto_schema_to_pyspark_data_type

        if not f.HasField("python_udf"):
            raise NotReadable("a user-defined function that is not a Python UDF")
        args = [self.expr(a) for a in f.arguments]
        dtype = proto_schema_to_pyspark_data_type(f.python_udf.output_type).jsonValue()
        return Typed(_node(_EXPR + "PythonUDF", args, name=f.function_name, dataType=dtype,
                           evalType=int(f.python_udf.eval_type), udfDeterministic=bool(f.deterministic),
                           resultId={"id": next(self.encoder._ids)}), dtype)

    def sort_order(self, so: Any) -> list[dict[str, Any]]:
        """A SortOrder message (what Sort lists) as Catalyst's SortOrder; an unspecified null
        ordering is Spark's default for the direction."""
        return _sort_order(self.expr(so.child), so)

    def function(self, f: Any) -> Typed:
        name = f.function_name.lower()
        if f.is_user_defined_function or f.HasField("is_internal") and f.is_internal:
            raise NotReadable(f"function {f.function_name}: not analysed on Spark Connect yet")
        if name in _AGGREGATES:
            return self.aggregate(name, f)
        if f.is_distinct:
            raise NotReadable(f"{name}(DISTINCT ...) outside an aggregation")
        args = [self.expr(a) for a in f.arguments]
        if name in _COMPARISONS and len(args) == 2:
            a, b = _widened(args)
            return Typed(_node(_EXPR + _COMPARISONS[name], [a, b]), "boolean")
        if name == "!=" and len(args) == 2:
            a, b = _widened(args)
            return Typed(_node(_EXPR + "Not", [_node(_EXPR + "EqualTo", [a, b])]), "boolean")
        if name in ("and", "or") and len(args) == 2:
            _booleans(args)
            return Typed(_node(_EXPR + name.capitalize(), args), "boolean")
        if name in ("not", "!") and len(args) == 1:
            _booleans(args)
            return Typed(_node(_EXPR + "Not", args), "boolean")
        if name in ("isnull", "isnotnull") and len(args) == 1:
            return Typed(_node(_EXPR + ("IsNull" if name == "isnull" else "IsNotNull"), args), "boolean")
        if name in _ARITHMETIC and len(args) == 2:
            a, b = _widened(args)
            if a.name not in _NUMERIC_RANK:
                raise NotReadable(f"{name} of {a.name} values: not analysed on Spark Connect yet")
            return Typed(_node(_EXPR + _ARITHMETIC[name], [a, b], evalMode="ANSI"), a.dtype)
        if name == "/" and len(args) == 2:
            a, b = (_cast_to(x, "double") for x in args)
            return Typed(_node(_EXPR + "Divide", [a, b], evalMode="ANSI"), "double")
        if name == "negative" and len(args) == 1 and args[0].name in _NUMERIC_RANK:
            return Typed(_node(_EXPR + "UnaryMinus", args), args[0].dtype)
        if name == "in" and len(args) >= 2:
            if len({a.name for a in args}) != 1 or args[0].name not in _NUMERIC_RANK | {"string": 0, "date": 0}:
                raise NotReadable("isin over values of another type than the column's")
            return Typed(_node(_EXPR + "In", args), "boolean")
        if name == "when" and len(args) >= 2:
            return self.when(args)
        if name == "coalesce" and args:
            values = _in_one_type(args, "coalesce")
            return Typed(_node(_EXPR + "Coalesce", values), values[0].dtype)
        if name in _STRING_UNARY and len(args) == 1 and args[0].name == "string":
            cls, dtype = _STRING_UNARY[name]
            return Typed(_node(_EXPR + cls, args), dtype)
        if name in _STRING_BINARY and len(args) == 2 and all(a.name == "string" for a in args):
            return Typed(_node(_EXPR + _STRING_BINARY[name], args), "boolean")
        if name in _DATE_PARTS and len(args) == 1 and args[0].name == "date":
            return Typed(_node(_EXPR + _DATE_PARTS[name], args), "integer")
        if name == "isnan" and len(args) == 1 and args[0].name in ("double", "float"):
            return Typed(_node(_EXPR + "IsNaN", args), "boolean")
        if name == "distributed_sequence_id":
            raise NotReadable("the pandas API on Spark's default index (distributed_sequence_id): each row's index "
                              "counts the rows before it, which a filter moved below it would change (a "
                              "pandas-on-Spark read with index_col= has no such index)")
        if name == "monotonically_increasing_id" and not args:
            # nondeterministic (spark_plan reads it so); the pandas API on Spark's row order
            return Typed(_node(_EXPR + "MonotonicallyIncreasingID", [], dataType="long"), "long")
        if name == "abs" and len(args) == 1 and args[0].name in _NUMERIC_RANK:
            return Typed(_node(_EXPR + "Abs", args, failOnError=True), args[0].dtype)
        raise NotReadable(f"function {f.function_name}"
                          + (f" over {', '.join(a.name for a in args)}" if args else "")
                          + ": not analysed on Spark Connect yet")

    def when(self, args: list[Typed]) -> Typed:
        pairs = [(args[i], args[i + 1]) for i in range(0, len(args) - 1, 2)]
        default = args[-1] if len(args) % 2 else None
        _booleans([c for c, _ in pairs])
        values = _in_one_type([v for _, v in pairs] + ([default] if default is not None else []), "when/otherwise")
        kids: list[Any] = []
        for (c, _), v in zip(pairs, values):
            kids += [c, v]
        if default is not None:
            kids.append(values[-1])
        return Typed(_node(_EXPR + "CaseWhen", kids), values[0].dtype)

    def aggregate(self, name: str, f: Any) -> Typed:
        if not self.aggregates:
            raise NotReadable(f"aggregate {name} outside an aggregation")
        inner = _Scope(self.encoder, self.columns)
        args = list(f.arguments)
        if name == "count" and len(args) == 1 and args[0].WhichOneof("expr_type") == "unresolved_star":
            values = [_literal(1, "integer")]  # count("*") is count(1)
        else:
            values = [inner.expr(a) for a in args]
        if len(values) != 1:
            raise NotReadable(f"{name} of {len(values)} arguments")
        (value,) = values
        if name == "count":
            dtype: Any = "long"
        elif value.name not in _NUMERIC_RANK and name in ("sum", "avg", "mean"):
            raise NotReadable(f"{name} of a {value.name} column: not analysed on Spark Connect yet")
        elif name == "sum":
            dtype = "long" if value.name in _INTEGRAL else "double"
        elif name in ("avg", "mean"):
            dtype = "double"  # Average reads any numeric input as it is: the analyzer adds no cast
        else:
            if isinstance(value.dtype, str) and value.dtype.startswith("decimal"):
                raise NotReadable(f"{name} of a decimal column: not analysed on Spark Connect yet")
            dtype = value.dtype
        fn = _node(_AGG + _AGGREGATES[name], [value])  # Sum of integers is a long without a cast
        return Typed(_node(_AGG + "AggregateExpression", [fn], mode={"object": _AGG + "Complete$"},
                           isDistinct=bool(f.is_distinct), filter=None,
                           resultId={"product-class": _EXPR + "ExprId", "id": next(self.encoder._ids),
                                     "jvmId": "connect"}), dtype)


def _unquoted(name: str) -> str:
    """A column name as the user means it: "`a`" is "a" and "`a.b`" the column named "a.b" (the
    pandas API on Spark quotes every name it refers to); a name with a quote inside is left as
    it is.

    >>> _unquoted("`id`"), _unquoted("id"), _unquoted("`a``b`")
    ('id', 'id', '`a``b`')
    """
    if len(name) >= 2 and name[0] == name[-1] == "`" and "`" not in name[1:-1]:
        return name[1:-1]
    return name


def _sort_order(value: Typed, so: Any) -> list[dict[str, Any]]:
    """`value` in Catalyst's SortOrder with the direction and null ordering of the SortOrder
    message `so`; an unspecified null ordering is Spark's default for the direction."""
    ascending = so.direction != 2
    nulls_first = {1: True, 2: False}.get(so.null_ordering, ascending)
    return _node(_EXPR + "SortOrder", [value],
                 direction={"object": _EXPR + ("Ascending$" if ascending else "Descending$")},
                 nullOrdering={"object": _EXPR + ("NullsFirst$" if nulls_first else "NullsLast$")},
                 sameOrderExpressions=[])


def _is_column(value: Typed) -> bool:
    return value.attr is not None and value.flat[0]["class"] == _EXPR + "AttributeReference"


def _booleans(args: list[Typed]) -> None:
    if any(a.name not in ("boolean", "void") for a in args):
        raise NotReadable("a logical operator over values that are not booleans")


def _cast_to(value: Typed, dtype: str) -> Typed:
    if value.dtype == dtype:
        return value
    if value.name not in _NUMERIC_RANK and value.name != "void":
        raise NotReadable(f"{value.name} where a number is needed: not analysed on Spark Connect yet")
    if value.name == "void":
        return _typed_null(value, dtype)
    return Typed(_node(_EXPR + "Cast", [value], dataType=dtype), dtype)


def _typed_null(value: Typed, dtype: Any) -> Typed:
    """A NULL literal takes the type of what it stands beside, as Spark's analyzer types it."""
    if value.name == "void":
        return _literal(None, dtype)
    return value


def _in_one_type(values: list[Typed], what: str) -> list[Typed]:
    """The values of a CASE or a coalesce in the one type Spark's analyzer gives them all: one
    type as it is, numbers of several types cast to the widest, NULLs typed alike; any other
    mix (a string and a number, decimals, a float beside an integer) is refused."""
    names = {v.name for v in values if v.name != "void"}
    if not names:
        raise NotReadable(f"{what} of NULLs only")
    if len(names) == 1:
        dtype = next(v.dtype for v in values if v.name != "void")
        return [_typed_null(v, dtype) for v in values]
    if not names <= _NUMERIC_RANK.keys() or ("float" in names and names & {"integer", "long"}):
        raise NotReadable(f"{what} over {', '.join(sorted(names))} (Spark casts them): not analysed on Spark Connect yet")
    return [_cast_to(v, max(names, key=_NUMERIC_RANK.__getitem__)) for v in values]


def _widened(args: list[Typed]) -> tuple[Typed, Typed]:
    """Two operands in the type Spark compares or computes them in: equal types as they are,
    two numeric types widened to the wider (Spark's implicit cast), a NULL as the other's type;
    any other pair (a string and a number, a date and a string, decimals) is refused."""
    a, b = args
    if a.name == "void" and b.name == "void":
        raise NotReadable("an operator over two NULLs")
    if a.name == "void":
        return _typed_null(a, b.dtype), b
    if b.name == "void":
        return a, _typed_null(b, a.dtype)
    if a.dtype == b.dtype and (a.name in _NUMERIC_RANK or a.name in ("string", "boolean", "date")):
        return a, b
    if a.name in _NUMERIC_RANK and b.name in _NUMERIC_RANK:
        wide = a.name if _NUMERIC_RANK[a.name] >= _NUMERIC_RANK[b.name] else b.name
        if {a.name, b.name} & {"float"} and {a.name, b.name} & {"long", "integer"}:
            raise NotReadable("a float beside an integer (Spark widens both to double or float): not analysed")
        return _cast_to(a, wide), _cast_to(b, wide)
    raise NotReadable(f"an operator over {a.name} and {b.name} (Spark casts them): not analysed on Spark Connect yet")
