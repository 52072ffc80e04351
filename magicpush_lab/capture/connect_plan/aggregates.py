"""Aggregations read from Connect relations: groupBy(...).agg(...), rollup and cube (expanded as
Spark's analyzer expands them) and applyInPandas (FlatMapGroupsInPandas).
"""

from __future__ import annotations

from typing import Any

from magicpush_lab.capture.connect_plan.records import RecordWriter
from magicpush_lab.capture.connect_plan.scope import Scope
from magicpush_lab.capture.connect_plan.shapes import AGG, Attr, NotReadable, Read, Typed, literal


def aggregate(writer: RecordWriter, rel: Any, inputs: list[Read], client: Any) -> Read:
    """groupBy(columns).agg(...), rollup and cube: an Aggregate of the keys and the aggregates,
    named and typed as the server's schema says (rollup and cube over an Expand)."""
    spec = rel.aggregate
    (child,) = inputs
    if spec.group_type not in (1, 2, 3):
        raise NotReadable({4: "pivot", 5: "groupingSets"}.get(spec.group_type, "grouping")
                          + ": not analysed on Spark Connect yet")
    scope = Scope(writer, child.output)
    keys = [scope.expr(e) for e in spec.grouping_expressions]
    if any(k.attr is None for k in keys):
        raise NotReadable("grouping by an expression that is not a column: not analysed yet")
    schema = writer.schema(rel, client)
    grouping = [k.flat for k in keys]
    if spec.group_type != 1:
        if not keys:  # Spark plans it as a plain global aggregate, without an Expand
            raise NotReadable("rollup/cube without columns: not analysed on Spark Connect yet")
        below, keys, gid = _grouping_sets(writer, inputs, keys, spec.group_type == 2)
        inputs, grouping = [below], [k.flat for k in keys] + [gid.flat()]
    items: list[Typed] = list(keys)
    aggregates = Scope(writer, child.output, aggregates=True)
    for e in spec.aggregate_expressions:
        position = len(items)
        if position >= len(schema):
            raise NotReadable("more columns than the server names")
        if e.WhichOneof("expr_type") == "alias":
            if len(e.alias.name) != 1:
                raise NotReadable("an alias of several names")
            items.append(writer.alias(aggregates.expr(e.alias.expr), e.alias.name[0]))
        else:
            items.append(writer.alias(aggregates.expr(e), schema[position][0]))
    if spec.group_type != 1 and any(i.flat[1]["class"] != AGG + "AggregateExpression" for i in items[len(keys):]):
        # outside an aggregate function a key is the expanded column (NULL in the rolled-up
        # rows), which this reader does not substitute
        raise NotReadable("rollup/cube with an expression around an aggregate: not analysed on Spark Connect yet")
    output = [i.attr for i in items]
    if [n for n, _, _ in schema] != [a.name for a in output] or \
            [t for _, t, _ in schema] != [a.dtype for a in output]:  # type: ignore[union-attr]
        raise NotReadable("its columns are not the ones the server names")
    rid = writer.record("Aggregate", inputs, groupingExpressions=grouping,
                        aggregateExpressions=[i.flat for i in items])
    return Read(rid, output)  # type: ignore[arg-type]


def _grouping_sets(writer: RecordWriter, inputs: list[Read], keys: list[Typed],
                   rollup: bool) -> tuple[Read, list[Typed], Attr]:
    """rollup/cube as Spark's analyzer expands them (ResolveGroupingAnalytics): a Project adding
    each key again under its name, an Expand with one projection per grouping set (the keys
    left out of the set NULL, and the set's spark_grouping_id: one bit per key, the first key
    the highest, set when the key is left out), in Spark's order of the sets (rollup: every
    prefix of the keys, longest first; cube: every subset, the sets with the first key
    first); the Aggregate then groups by the Expand's key columns and the grouping id.
    Aggregates keep reading the input's own columns."""
    (child,) = inputs
    copies = [writer.alias(k, k.attr.name) for k in keys]  # type: ignore[union-attr]
    project = Read(writer.record("Project", inputs, projectList=[a.flat() for a in child.output]
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
        row += [c.attr.flat() if i in kept else literal(None, c.dtype).flat  # type: ignore[union-attr]
                for i, c in enumerate(copies)]
        projections.append(row + [literal(gid, "long").flat])
    expanded = [writer.fresh(k.attr.name, k.dtype) for k in keys]  # type: ignore[union-attr]
    gid_attr = writer.fresh("spark_grouping_id", "long", False)
    output = child.output + expanded + [gid_attr]
    rid = writer.record("Expand", [project], projections=projections, output=[a.flat() for a in output])
    return Read(rid, output), [Typed(a.flat(), a.dtype, a) for a in expanded], gid_attr


def group_map(writer: RecordWriter, rel: Any, inputs: list[Read], client: Any) -> Read:
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
    scope = Scope(writer, child.output)
    keys = [scope.expr(e) for e in spec.grouping_expressions]
    if any(k.attr is None or not k.flat[0]["class"].endswith("AttributeReference") for k in keys):
        raise NotReadable("applyInPandas grouped by an expression that is not a column: "
                          "not analysed on Spark Connect yet")
    call = scope.udf(f)
    if not isinstance(call.dtype, dict) or call.dtype.get("type") != "struct":
        raise NotReadable("applyInPandas whose schema is not a struct")
    output = [writer.fresh(fld["name"], fld["type"], bool(fld.get("nullable", True)))
              for fld in call.dtype["fields"]]
    schema = writer.schema(rel, client)
    if [(n, t) for n, t, _ in schema] != [(a.name, a.dtype) for a in output]:
        raise NotReadable("its columns are not the ones the server names")
    project = Read(writer.record("Project", inputs, projectList=[k.flat for k in keys]
                                 + [a.flat() for a in child.output]),
                   [k.attr for k in keys] + child.output)  # type: ignore[misc]
    rid = writer.record("FlatMapGroupsInPandas", [project], groupingAttributes=[k.flat for k in keys],
                        functionExpr=call.flat, output=[a.flat() for a in output])
    return Read(rid, output)
