"""The Connect reader's operators other than projections and aggregations: filter, the ones that
pass their input's columns through (alias, hint, repartition, sort, limit, dropDuplicates), join,
union, and the missing-value functions (dropna, fillna), in the shapes the server plans them in.

Every reader here and in projections.py and aggregates.py is called the same way, with the
writer, the relation, the inputs read and the session's client (for the server's schemas).
"""

from __future__ import annotations

from typing import Any

from magicpush_lab.capture.connect_plan.casts import integral, numeric
from magicpush_lab.capture.connect_plan.records import RecordWriter
from magicpush_lab.capture.connect_plan.scope import Scope
from magicpush_lab.capture.connect_plan.shapes import EXPR, PLAN, Attr, NotReadable, Read, Typed, literal, node
from magicpush_lab.ir.types import integer_range, spark_type

_JOIN_TYPES = {1: "Inner", 2: "FullOuter", 3: "LeftOuter", 4: "RightOuter", 5: "LeftAnti", 6: "LeftSemi",
               7: "Cross"}
#: what each join type is called in PySpark, for the notes
_JOIN_NAMES = {0: "unspecified", 1: "inner", 2: "full", 3: "left", 4: "right", 5: "left_anti",
               6: "left_semi", 7: "cross"}


def filter_rows(writer: RecordWriter, rel: Any, inputs: list[Read], client: Any) -> Read:
    """filter/where on a boolean condition."""
    (child,) = inputs
    cond = Scope(writer, child.output).expr(rel.filter.condition)
    if cond.dtype != "boolean":
        raise NotReadable("a filter whose condition is not a boolean")
    return Read(writer.record("Filter", inputs, condition=cond.flat), child.output)


def subquery_alias(writer: RecordWriter, rel: Any, inputs: list[Read], client: Any) -> Read:
    """alias(name): the same columns under a name of the relation's."""
    return Read(writer.record("SubqueryAlias", inputs, identifier={"name": rel.subquery_alias.alias}),
                inputs[0].output)


def hint(writer: RecordWriter, rel: Any, inputs: list[Read], client: Any) -> Read:
    return Read(writer.record("ResolvedHint", inputs), inputs[0].output)


def repartition(writer: RecordWriter, rel: Any, inputs: list[Read], client: Any) -> Read:
    """repartition(n) / coalesce(n)."""
    return Read(writer.record("Repartition", inputs, numPartitions=rel.repartition.num_partitions,
                              shuffle=bool(rel.repartition.shuffle)), inputs[0].output)


def repartition_by_expression(writer: RecordWriter, rel: Any, inputs: list[Read], client: Any) -> Read:
    """repartition(columns...)."""
    scope = Scope(writer, inputs[0].output)
    keys = [scope.expr(e).flat for e in rel.repartition_by_expression.partition_exprs]
    return Read(writer.record("RepartitionByExpression", inputs, partitionExpressions=keys),
                inputs[0].output)


def limit(writer: RecordWriter, rel: Any, inputs: list[Read], client: Any) -> Read:
    """limit(n) as Spark plans it: a GlobalLimit over a LocalLimit."""
    (child,) = inputs
    count = literal(int(rel.limit.limit), "integer").flat
    local = writer.store.intern({"class": PLAN + "LocalLimit", "#kids": [child.rid],
                                 "limitExpr": writer.store.field(count)})
    rid = writer.store.intern({"class": PLAN + "GlobalLimit", "#kids": [local],
                               "limitExpr": writer.store.field(count)})
    return Read(rid, child.output)


def sort(writer: RecordWriter, rel: Any, inputs: list[Read], client: Any) -> Read:
    """orderBy/sortWithinPartitions: a Sort by the resolved order."""
    (child,) = inputs
    scope = Scope(writer, child.output)
    order = [scope.sort_order(e) for e in rel.sort.order]
    return Read(writer.record("Sort", inputs, order=order, **{"global": bool(rel.sort.is_global)}),
                child.output)


def deduplicate(writer: RecordWriter, rel: Any, inputs: list[Read], client: Any) -> Read:
    """dropDuplicates, on every column or on the named ones."""
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
    return Read(writer.record("Deduplicate", inputs, keys=[a.flat() for a in keys]), child.output)


def join(writer: RecordWriter, rel: Any, inputs: list[Read], client: Any) -> Read:
    """A join on a condition (or none), or on using columns as Spark plans it: the keys once, in
    front, under a Project (coalesced for a full outer join)."""
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
            cond = Scope(writer, left.output + right.output).expr(spec.join_condition)
            if cond.dtype != "boolean":
                raise NotReadable("a join condition that is not a boolean")
            condition = cond.flat
        rid = writer.record("Join", inputs, joinType=jtype, condition=condition)
        output = left.output + ([] if join_type in ("LeftSemi", "LeftAnti") else right.output)
        schema = writer.schema(rel, client)
        if [n for n, _, _ in schema] != [a.name for a in output]:
            raise NotReadable("its columns are not the ones the server names")
        return Read(rid, output)
    pairs = []
    for name in using:
        mine = [a for a in left.output if a.name.lower() == name.lower()]
        theirs = [a for a in right.output if a.name.lower() == name.lower()]
        if len(mine) != 1 or len(theirs) != 1 or mine[0].dtype != theirs[0].dtype:
            raise NotReadable(f"join on {name}: not one column of one type on each side")
        pairs.append((mine[0], theirs[0]))
    condition = None
    for a, b in pairs:
        eq = node(EXPR + "EqualTo", [a.flat(), b.flat()])
        condition = eq if condition is None else node(EXPR + "And", [condition, eq])
    joined = Read(writer.record("Join", inputs, joinType=jtype, condition=condition), left.output + right.output)
    keys_l, keys_r = [a for a, _ in pairs], [b for _, b in pairs]
    rest_l = [a for a in left.output if a not in keys_l]
    rest_r = [b for b in right.output if b not in keys_r]
    if join_type in ("LeftSemi", "LeftAnti"):
        items = [Typed(a.flat(), a.dtype, a) for a in keys_l + rest_l]
    elif join_type == "RightOuter":
        items = [Typed(a.flat(), a.dtype, a) for a in keys_r + rest_l + rest_r]
    elif join_type == "FullOuter":
        items = [writer.alias(Typed(node(EXPR + "Coalesce", [a.flat(), b.flat()]), a.dtype), a.name)
                 for a, b in pairs] + [Typed(a.flat(), a.dtype, a) for a in rest_l + rest_r]
    else:
        items = [Typed(a.flat(), a.dtype, a) for a in keys_l + rest_l + rest_r]
    return writer.projection(rel, [joined], client, items)


def set_op(writer: RecordWriter, rel: Any, inputs: list[Read], client: Any) -> Read:
    """union/unionAll of inputs of the same column types, by position; other set operations
    are refused."""
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
    schema = writer.schema(rel, client)
    if [n for n, _, _ in schema] != [a.name for a in left.output]:
        raise NotReadable("its columns are not the ones the server names")
    return Read(writer.record("Union", inputs, byName=False, allowMissingCol=False), left.output)


def fill_na(writer: RecordWriter, rel: Any, inputs: list[Read], client: Any) -> Read:
    """fillna as the server plans it (DataFrameNaFunctions.fill): a Project over every column,
    each filled one `coalesce(c, cast(value as c's type))` under its own name, a float or
    double column's NaN first made NULL (`nanvl(c, NULL)`). One value fills the columns (all,
    or the subset) of its kind: a number the numeric ones, a string the string ones, a
    boolean the boolean ones; a dict fills each column it names with its value. Read only
    where that cast keeps the value exactly (an integral value within an integral column's
    range; no decimal columns), so the value filled is the one the user wrote."""
    spec = rel.fill_na
    (child,) = inputs
    values = [Scope(writer, child.output).literal(v) for v in spec.values]
    if any(fill_kind(v.dtype) is None for v in values):
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
                 if a.expr_id in ids and fill_kind(a.dtype) == fill_kind(values[0].dtype)}
    elif len(values) == len(names):
        fills = {}
        for name, value in zip(names, values):
            attr = named(name)
            if fill_kind(attr.dtype) != fill_kind(value.dtype):
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
        if integral(a.dtype):
            low, high = integer_range(spark_type(a.dtype))
            number = float(raw)
            if not number.is_integer() or not low <= number < high:
                raise NotReadable(f"fillna of the {a.dtype} column {a.name} with {raw} (Spark casts it): "
                                  "not analysed on Spark Connect yet")
        column = Typed(a.flat(), a.dtype, a)
        if a.dtype in ("float", "double"):
            null = node(EXPR + "Cast", [literal(None, "void")], dataType=a.dtype)
            column = Typed(node(EXPR + "NaNvl", [column, null]), a.dtype)
        filled = node(EXPR + "Coalesce", [column, node(EXPR + "Cast", [value], dataType=a.dtype)])
        items.append(writer.alias(Typed(filled, a.dtype), a.name))
    return writer.projection(rel, inputs, client, items)


def drop_na(writer: RecordWriter, rel: Any, inputs: list[Read], client: Any) -> Read:
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
    cond = node(EXPR + "AtLeastNNonNulls", [a.flat() for a in columns], n=int(n))
    return Read(writer.record("Filter", inputs, condition=cond), child.output)


def fill_kind(dtype: Any) -> str | None:
    """Which fillna values fill a column of this type: numbers fill numeric columns, strings
    string ones, booleans boolean ones."""
    if not isinstance(dtype, str):
        return None
    if dtype.startswith("string") and dtype != "string":
        # Spark fills a collated string column too, with a cast to its collation: not written here
        raise NotReadable(f"fillna over a {dtype} column: not analysed on Spark Connect yet")
    if numeric(dtype) or dtype.startswith("decimal"):
        return "number"
    return dtype if dtype in ("string", "boolean") else None
