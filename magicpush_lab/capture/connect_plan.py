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
from typing import Any, Iterable

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


class Unsupported(ValueError):
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
        except Unsupported as err:
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
                raise Unsupported("a filter whose condition is not a boolean")
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
                raise Unsupported("toDF with another number of names than columns")
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
        raise Unsupported(_RELATION_REASONS.get(kind or "", "not analysed yet"))

    # -- projections -------------------------------------------------------------
    def _alias(self, value: Typed, name: str) -> Typed:
        attr = self._fresh(name, value.dtype)
        return Typed(_node(_EXPR + "Alias", [value], name=name,
                           exprId={"product-class": _EXPR + "ExprId", "id": attr.expr_id, "jvmId": "connect"},
                           qualifier=[]), value.dtype, attr)

    def _projection(self, rel: Any, inputs: list[_Read], client: Any, items: list[Typed]) -> _Read:
        """A Project of `items` (columns passed through, or Aliases), checked against the server's
        schema of `rel`: same names, same types, in order."""
        schema = self._schema(rel, client)
        output = [i.attr for i in items]
        if any(a is None for a in output) or len(schema) != len(output):
            raise Unsupported("its columns are not the ones the server names")
        for attr, (name, dtype, _) in zip(output, schema):
            if attr.name != name or attr.dtype != dtype:  # type: ignore[union-attr]
                raise Unsupported(f"column {name}: read here as {attr.dtype}, the server says {dtype}")  # type: ignore
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
        items: list[Typed] = []
        for e in rel.project.expressions:
            kind = e.WhichOneof("expr_type")
            if kind == "unresolved_star" and not e.unresolved_star.HasField("unparsed_target") \
                    and not e.unresolved_star.HasField("plan_id"):
                items.extend(Typed(a.flat(), a.dtype, a) for a in child.output)
                continue
            if kind == "alias":
                if len(e.alias.name) != 1 or e.alias.HasField("metadata"):
                    raise Unsupported("an alias of several names or with metadata")
                items.append(self._named(scope.expr(e.alias.expr), e.alias.name[0]))
                continue
            value = scope.expr(e)
            position = len(items)
            if position >= len(schema):
                raise Unsupported("more columns than the server names")
            items.append(self._named(value, value.attr.name if value.attr is not None else schema[position][0]))
        return self._projection(rel, inputs, client, items)

    def _with_columns(self, rel: Any, inputs: list[_Read], client: Any) -> _Read:
        (child,) = inputs
        scope = _Scope(self, child.output)
        items = [Typed(a.flat(), a.dtype, a) for a in child.output]
        for alias in rel.with_columns.aliases:
            if len(alias.name) != 1 or alias.HasField("metadata"):
                raise Unsupported("withColumns with several names or metadata")
            name = alias.name[0]
            value = self._alias(scope.expr(alias.expr), name)
            same = [i for i, a in enumerate(items) if a.attr is not None and a.attr.name.lower() == name.lower()]
            if len(same) > 1:
                raise Unsupported(f"several columns named {name}")
            if same:
                items[same[0]] = value
            else:
                items.append(value)
        return self._projection(rel, inputs, client, items)

    def _drop(self, rel: Any, inputs: list[_Read], client: Any) -> _Read:
        (child,) = inputs
        scope = _Scope(self, child.output)
        gone: set[int] = set()
        for name in rel.drop.column_names:
            gone |= {a.expr_id for a in child.output if a.name.lower() == name.lower()}
        for e in rel.drop.columns:
            value = scope.expr(e)
            if value.attr is None:
                raise Unsupported("drop of an expression that is not a column")
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
            raise Unsupported("dropDuplicatesWithinWatermark: not analysed")
        if spec.all_columns_as_keys or not spec.column_names:
            keys = list(child.output)
        else:
            keys = []
            for name in spec.column_names:
                found = [a for a in child.output if a.name.lower() == name.lower()]
                if len(found) != 1:
                    raise Unsupported(f"dropDuplicates on {name}: not one column of that name")
                keys.append(found[0])
        return _Read(self._record("Deduplicate", inputs, keys=[a.flat() for a in keys]), child.output)

    def _join(self, rel: Any, inputs: list[_Read], client: Any) -> _Read:
        spec = rel.join
        left, right = inputs
        if spec.join_type not in _JOIN_TYPES:
            raise Unsupported(f"{_JOIN_NAMES.get(spec.join_type, 'this')} join: not analysed")
        if {a.expr_id for a in left.output} & {a.expr_id for a in right.output}:
            raise Unsupported("a join of a DataFrame with itself: not analysed yet")
        join_type = _JOIN_TYPES[spec.join_type]
        jtype = {"object": f"org.apache.spark.sql.catalyst.plans.{join_type}$"}
        using = list(spec.using_columns)
        if spec.HasField("join_condition") and using:
            raise Unsupported("a join with both a condition and using columns")
        if not using:
            condition = None
            if spec.HasField("join_condition"):
                cond = _Scope(self, left.output + right.output).expr(spec.join_condition)
                if cond.dtype != "boolean":
                    raise Unsupported("a join condition that is not a boolean")
                condition = cond.flat
            rid = self._record("Join", inputs, joinType=jtype, condition=condition)
            output = left.output + ([] if join_type in ("LeftSemi", "LeftAnti") else right.output)
            schema = self._schema(rel, client)
            if [n for n, _, _ in schema] != [a.name for a in output]:
                raise Unsupported("its columns are not the ones the server names")
            return _Read(rid, output)
        pairs = []
        for name in using:
            mine = [a for a in left.output if a.name.lower() == name.lower()]
            theirs = [a for a in right.output if a.name.lower() == name.lower()]
            if len(mine) != 1 or len(theirs) != 1 or mine[0].dtype != theirs[0].dtype:
                raise Unsupported(f"join on {name}: not one column of one type on each side")
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
            raise Unsupported({1: "intersect", 3: "subtract/exceptAll"}.get(spec.set_op_type, "set operation")
                              + ": not analysed")
        if spec.by_name or spec.allow_missing_columns:
            raise Unsupported("unionByName: not analysed yet")
        if not spec.is_all:
            raise Unsupported("a union without duplicates: not analysed yet")
        left, right = inputs
        if [a.dtype for a in left.output] != [a.dtype for a in right.output]:
            raise Unsupported("a union of columns of different types (Spark casts them): not analysed yet")
        schema = self._schema(rel, client)
        if [n for n, _, _ in schema] != [a.name for a in left.output]:
            raise Unsupported("its columns are not the ones the server names")
        return _Read(self._record("Union", inputs, byName=False, allowMissingCol=False), left.output)

    def _aggregate(self, rel: Any, inputs: list[_Read], client: Any) -> _Read:
        spec = rel.aggregate
        (child,) = inputs
        if spec.group_type != 1:
            raise Unsupported({2: "rollup", 3: "cube", 4: "pivot", 5: "groupingSets"}.get(spec.group_type, "grouping")
                              + ": not analysed on Spark Connect yet")
        scope = _Scope(self, child.output)
        keys = [scope.expr(e) for e in spec.grouping_expressions]
        if any(k.attr is None for k in keys):
            raise Unsupported("grouping by an expression that is not a column: not analysed yet")
        schema = self._schema(rel, client)
        items: list[Typed] = list(keys)
        aggregates = _Scope(self, child.output, aggregates=True)
        for e in spec.aggregate_expressions:
            position = len(items)
            if position >= len(schema):
                raise Unsupported("more columns than the server names")
            if e.WhichOneof("expr_type") == "alias":
                if len(e.alias.name) != 1:
                    raise Unsupported("an alias of several names")
                items.append(self._alias(aggregates.expr(e.alias.expr), e.alias.name[0]))
            else:
                items.append(self._alias(aggregates.expr(e), schema[position][0]))
        output = [i.attr for i in items]
        if [n for n, _, _ in schema] != [a.name for a in output] or \
                [t for _, t, _ in schema] != [a.dtype for a in output]:  # type: ignore[union-attr]
            raise Unsupported("its columns are not the ones the server names")
        rid = self._record("Aggregate", inputs, groupingExpressions=[k.flat for k in keys],
                           aggregateExpressions=[i.flat for i in items])
        return _Read(rid, output)  # type: ignore[arg-type]


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
    "fill_na": "fillna on Spark Connect: not analysed yet",
    "drop_na": "dropna on Spark Connect: not analysed yet",
    "replace": "replace on Spark Connect: not analysed yet",
    "unpivot": "unpivot on Spark Connect: not analysed yet",
    "map_partitions": "mapInPandas/mapInArrow: the function sees whole batches of rows",
    "group_map": "applyInPandas on Spark Connect: not analysed yet",
    "co_group_map": "cogroup applyInPandas: not analysed",
    "collect_metrics": "observe: its metrics count the rows that reach it",
    "with_watermark": "withWatermark: streaming is not analysed",
    "to_schema": "to(schema) on Spark Connect: not analysed yet",
}


class _Scope:
    """Resolves expressions against the columns of a relation's inputs."""

    def __init__(self, encoder: ConnectPlanEncoder, columns: list[Attr], aggregates: bool = False) -> None:
        self.encoder, self.columns, self.aggregates = encoder, columns, aggregates

    # -- names ----------------------------------------------------------------
    def column(self, name: str, plan_id: int | None) -> Typed:
        if not name or any(ch in name for ch in ".`"):
            raise Unsupported(f"column {name!r}: qualified or quoted names are not resolved yet")
        if plan_id is not None:
            owner = self.encoder._reads.get(plan_id)
            if owner is None:
                raise Unsupported(f"column {name} of a DataFrame not read here")
            ids = {a.expr_id for a in self.columns}
            found = [a for a in owner.output if a.name.lower() == name.lower() and a.expr_id in ids]
        else:
            found = [a for a in self.columns if a.name.lower() == name.lower()]
        if len(found) != 1:
            raise Unsupported(f"column {name}: {'no' if not found else 'several'} input columns of that name")
        a = found[0]
        return Typed(a.flat(), a.dtype, a)

    # -- expressions -------------------------------------------------------------
    def expr(self, e: Any) -> Typed:
        kind = e.WhichOneof("expr_type")
        if kind == "unresolved_attribute":
            ua = e.unresolved_attribute
            if ua.is_metadata_column:
                raise Unsupported("a metadata column")
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
            raise Unsupported("an alias inside an expression")
        raise Unsupported({"expression_string": "an SQL expression string (selectExpr, expr(), filter(str))",
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
        raise Unsupported(f"a {kind} literal: not analysed on Spark Connect yet")

    def cast(self, c: Any) -> Typed:
        from pyspark.sql.connect.types import proto_schema_to_pyspark_data_type

        if c.eval_mode not in (0,):
            raise Unsupported("a try_cast or a cast with an explicit mode")
        value = self.expr(c.expr)
        if c.HasField("type"):
            target = proto_schema_to_pyspark_data_type(c.type).jsonValue()
        else:
            from pyspark.sql.types import _parse_datatype_string

            try:
                target = _parse_datatype_string(c.type_str).jsonValue()
            except Exception as err:
                raise Unsupported(f"cast to {c.type_str!r}") from err
        if not isinstance(target, str) or target.startswith("decimal") or target in ("timestamp", "timestamp_ntz"):
            raise Unsupported(f"a cast to {target}: not analysed on Spark Connect yet")
        return Typed(_node(_EXPR + "Cast", [value], dataType=target), target)

    def udf(self, f: Any) -> Typed:
        from pyspark.sql.connect.types import proto_schema_to_pyspark_data_type

        if not f.HasField("python_udf"):
            raise Unsupported("a user-defined function that is not a Python UDF")
        args = [self.expr(a) for a in f.arguments]
        dtype = proto_schema_to_pyspark_data_type(f.python_udf.output_type).jsonValue()
        return Typed(_node(_EXPR + "PythonUDF", args, name=f.function_name, dataType=dtype,
                           evalType=int(f.python_udf.eval_type), udfDeterministic=bool(f.deterministic),
                           resultId={"id": next(self.encoder._ids)}), dtype)

    def sort_order(self, so: Any) -> list[dict[str, Any]]:
        """A SortOrder message (what Sort lists) as Catalyst's SortOrder; an unspecified null
        ordering is Spark's default for the direction."""
        value = self.expr(so.child)
        ascending = so.direction != 2
        nulls_first = {1: True, 2: False}.get(so.null_ordering, ascending)
        return _node(_EXPR + "SortOrder", [value],
                     direction={"object": _EXPR + ("Ascending$" if ascending else "Descending$")},
                     nullOrdering={"object": _EXPR + ("NullsFirst$" if nulls_first else "NullsLast$")},
                     sameOrderExpressions=[])

    def function(self, f: Any) -> Typed:
        name = f.function_name.lower()
        if f.is_user_defined_function or f.HasField("is_internal") and f.is_internal:
            raise Unsupported(f"function {f.function_name}: not analysed on Spark Connect yet")
        if name in _AGGREGATES:
            return self.aggregate(name, f)
        if f.is_distinct:
            raise Unsupported(f"{name}(DISTINCT ...) outside an aggregation")
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
                raise Unsupported(f"{name} of {a.name} values: not analysed on Spark Connect yet")
            return Typed(_node(_EXPR + _ARITHMETIC[name], [a, b], evalMode="ANSI"), a.dtype)
        if name == "/" and len(args) == 2:
            a, b = (_cast_to(x, "double") for x in args)
            return Typed(_node(_EXPR + "Divide", [a, b], evalMode="ANSI"), "double")
        if name == "negative" and len(args) == 1 and args[0].name in _NUMERIC_RANK:
            return Typed(_node(_EXPR + "UnaryMinus", args), args[0].dtype)
        if name == "in" and len(args) >= 2:
            if len({a.name for a in args}) != 1 or args[0].name not in _NUMERIC_RANK | {"string": 0, "date": 0}:
                raise Unsupported("isin over values of another type than the column's")
            return Typed(_node(_EXPR + "In", args), "boolean")
        if name == "when" and len(args) >= 2:
            return self.when(args)
        if name == "coalesce" and args:
            if len({a.name for a in args if a.name != "void"}) != 1:
                raise Unsupported("coalesce of values of different types")
            dtype = next(a.dtype for a in args if a.name != "void")
            return Typed(_node(_EXPR + "Coalesce", [_typed_null(a, dtype) for a in args]), dtype)
        if name in _STRING_UNARY and len(args) == 1 and args[0].name == "string":
            cls, dtype = _STRING_UNARY[name]
            return Typed(_node(_EXPR + cls, args), dtype)
        if name in _STRING_BINARY and len(args) == 2 and all(a.name == "string" for a in args):
            return Typed(_node(_EXPR + _STRING_BINARY[name], args), "boolean")
        if name in _DATE_PARTS and len(args) == 1 and args[0].name == "date":
            return Typed(_node(_EXPR + _DATE_PARTS[name], args), "integer")
        if name == "abs" and len(args) == 1 and args[0].name in _NUMERIC_RANK:
            return Typed(_node(_EXPR + "Abs", args, failOnError=True), args[0].dtype)
        raise Unsupported(f"function {f.function_name}"
                          + (f" over {', '.join(a.name for a in args)}" if args else "")
                          + ": not analysed on Spark Connect yet")

    def when(self, args: list[Typed]) -> Typed:
        pairs = [(args[i], args[i + 1]) for i in range(0, len(args) - 1, 2)]
        default = args[-1] if len(args) % 2 else None
        _booleans([c for c, _ in pairs])
        values = [v for _, v in pairs] + ([default] if default is not None else [])
        types = {v.name for v in values if v.name != "void"}
        if len(types) != 1:
            raise Unsupported("when/otherwise with values of different types (Spark casts them)")
        dtype = next(v.dtype for v in values if v.name != "void")
        kids: list[Any] = []
        for c, v in pairs:
            kids += [c, _typed_null(v, dtype)]
        if default is not None:
            kids.append(_typed_null(default, dtype))
        return Typed(_node(_EXPR + "CaseWhen", kids), dtype)

    def aggregate(self, name: str, f: Any) -> Typed:
        if not self.aggregates:
            raise Unsupported(f"aggregate {name} outside an aggregation")
        inner = _Scope(self.encoder, self.columns)
        args = list(f.arguments)
        if name == "count" and len(args) == 1 and args[0].WhichOneof("expr_type") == "unresolved_star":
            values = [_literal(1, "integer")]  # count("*") is count(1)
        else:
            values = [inner.expr(a) for a in args]
        if len(values) != 1:
            raise Unsupported(f"{name} of {len(values)} arguments")
        (value,) = values
        if name == "count":
            dtype: Any = "long"
        elif value.name not in _NUMERIC_RANK and name in ("sum", "avg", "mean"):
            raise Unsupported(f"{name} of a {value.name} column: not analysed on Spark Connect yet")
        elif name == "sum":
            dtype = "long" if value.name in _INTEGRAL else "double"
        elif name in ("avg", "mean"):
            dtype = "double"
            value = _cast_to(value, "double")
        else:
            if isinstance(value.dtype, str) and value.dtype.startswith("decimal"):
                raise Unsupported(f"{name} of a decimal column: not analysed on Spark Connect yet")
            dtype = value.dtype
        if name == "sum" and value.name in _INTEGRAL and value.name != "long":
            value = _cast_to(value, "long")
        fn = _node(_AGG + _AGGREGATES[name], [value])
        return Typed(_node(_AGG + "AggregateExpression", [fn], mode={"object": _AGG + "Complete$"},
                           isDistinct=bool(f.is_distinct), filter=None,
                           resultId={"product-class": _EXPR + "ExprId", "id": next(self.encoder._ids),
                                     "jvmId": "connect"}), dtype)


def _booleans(args: list[Typed]) -> None:
    if any(a.name not in ("boolean", "void") for a in args):
        raise Unsupported("a logical operator over values that are not booleans")


def _cast_to(value: Typed, dtype: str) -> Typed:
    if value.dtype == dtype:
        return value
    if value.name not in _NUMERIC_RANK and value.name != "void":
        raise Unsupported(f"{value.name} where a number is needed: not analysed on Spark Connect yet")
    if value.name == "void":
        return _typed_null(value, dtype)
    return Typed(_node(_EXPR + "Cast", [value], dataType=dtype), dtype)


def _typed_null(value: Typed, dtype: Any) -> Typed:
    """A NULL literal takes the type of what it stands beside, as Spark's analyzer types it."""
    if value.name == "void":
        return _literal(None, dtype)
    return value


def _widened(args: list[Typed]) -> tuple[Typed, Typed]:
    """Two operands in the type Spark compares or computes them in: equal types as they are,
    two numeric types widened to the wider (Spark's implicit cast), a NULL as the other's type;
    any other pair (a string and a number, a date and a string, decimals) is refused."""
    a, b = args
    if a.name == "void" and b.name == "void":
        raise Unsupported("an operator over two NULLs")
    if a.name == "void":
        return _typed_null(a, b.dtype), b
    if b.name == "void":
        return a, _typed_null(b, a.dtype)
    if a.dtype == b.dtype and (a.name in _NUMERIC_RANK or a.name in ("string", "boolean", "date")):
        return a, b
    if a.name in _NUMERIC_RANK and b.name in _NUMERIC_RANK:
        wide = a.name if _NUMERIC_RANK[a.name] >= _NUMERIC_RANK[b.name] else b.name
        if {a.name, b.name} & {"float"} and {a.name, b.name} & {"long", "integer"}:
            raise Unsupported("a float beside an integer (Spark widens both to double or float): not analysed")
        return _cast_to(a, wide), _cast_to(b, wide)
    raise Unsupported(f"an operator over {a.name} and {b.name} (Spark casts them): not analysed on Spark Connect yet")
