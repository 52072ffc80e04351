"""Projections read from Connect relations (select, withColumn(s), drop, withColumnsRenamed,
toDF), with the operators Spark's analyzer puts under a projection for the window functions
(a Window between two Projects) or the generator (a Generate) among its items.

Every projection's columns are checked against the server's schema of the relation
(RecordWriter.projection): a column read here under another name or type than the server's is
refused.
"""

from __future__ import annotations

from typing import Any

from magicpush_lab.capture.connect_plan.records import RecordWriter
from magicpush_lab.capture.connect_plan.scope import Scope
from magicpush_lab.capture.connect_plan.shapes import EXPR, NotReadable, Read, Typed, is_column
from magicpush_lab.capture.connect_plan.windows import GeneratorItem, Steps, WindowItem, generator_name


def project(writer: RecordWriter, rel: Any, inputs: list[Read], client: Any) -> Read:
    """select(...): its items resolved, named as the server's schema names them."""
    (child,) = inputs
    scope = Scope(writer, child.output)
    schema = writer.schema(rel, client)
    items: list[Typed | None] = []
    steps = Steps()
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
        if generator_name(e) is not None:
            steps.generator(writer, scope, position, e.unresolved_function, names or [])
            items.append(None)
            continue
        if names is not None and len(names) != 1:
            raise NotReadable("an alias of several names")
        if e.WhichOneof("expr_type") == "window":
            if names is None and column >= len(schema):
                raise NotReadable("more columns than the server names")
            items.append(steps.window(writer, scope, position, e.window,
                                      names[0] if names else schema[column][0]))
            continue
        value = scope.expr(e)
        if names is not None:
            items.append(writer.named(value, names[0]))
            continue
        if column >= len(schema):
            raise NotReadable("more columns than the server names")
        items.append(writer.named(value, value.attr.name if value.attr is not None else schema[column][0]))
    return _stepped(writer, rel, inputs, client, items, steps)


def with_columns(writer: RecordWriter, rel: Any, inputs: list[Read], client: Any) -> Read:
    """withColumn(s): the input's columns, one of the same name replaced, the others added."""
    (child,) = inputs
    scope = Scope(writer, child.output)
    items: list[Typed | None] = [Typed(a.flat(), a.dtype, a) for a in child.output]
    steps = Steps()
    for alias in rel.with_columns.aliases:
        if len(alias.name) != 1 or alias.HasField("metadata"):
            raise NotReadable("withColumns with several names or metadata")
        name = alias.name[0]
        same = [i for i, a in enumerate(items) if a is not None and a.attr is not None
                and a.attr.name.lower() == name.lower()]
        if len(same) > 1:
            raise NotReadable(f"several columns named {name}")
        position = same[0] if same else len(items)
        if generator_name(alias.expr) is not None:
            steps.generator(writer, scope, position, alias.expr.unresolved_function, [name])
            value = None
        elif alias.expr.WhichOneof("expr_type") == "window":
            value = steps.window(writer, scope, position, alias.expr.window, name)
        else:
            value = writer.alias(scope.expr(alias.expr), name)
        if same:
            items[same[0]] = value
        else:
            items.append(value)
    return _stepped(writer, rel, inputs, client, items, steps)


def _stepped(writer: RecordWriter, rel: Any, inputs: list[Read], client: Any, items: list[Typed | None],
             steps: Steps) -> Read:
    """A projection, with the operators Spark's analyzer puts under it for the window
    functions or the generator among its items (`None` marks the generator's place)."""
    if steps.windows and steps.generators:
        raise NotReadable("a window function and a generator in one step: not analysed on Spark Connect yet")
    if steps.windows:
        return _windowed(writer, rel, inputs, client, items, steps.windows)  # type: ignore[arg-type]
    if steps.generators:
        return _generated(writer, rel, inputs, client, items, steps.generators)
    return writer.projection(rel, inputs, client, items)  # type: ignore[arg-type]


def _windowed(writer: RecordWriter, rel: Any, inputs: list[Read], client: Any, items: list[Typed],
              windows: dict[int, WindowItem]) -> Read:
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
            if is_column(read):
                if read.attr.expr_id not in have:  # type: ignore[union-attr]
                    have.add(read.attr.expr_id)  # type: ignore[union-attr]
                    added.append(read)
                continue
            if read.flat[0]["class"] == EXPR + "Literal":  # a constant stays where it is
                continue
            classes = {record["class"] for record in read.flat}
            if EXPR + "AttributeReference" not in classes or EXPR + "PythonUDF" in classes:
                raise NotReadable("a window over a constant expression or a UDF's result: "
                                  "not analysed on Spark Connect yet")
            key = repr(read.flat)
            if key not in helpers:
                helper = writer.alias(read, f"_w{len(added)}")
                added.append(helper)
                helpers[key] = Typed(helper.attr.flat(), read.dtype, helper.attr)  # type: ignore[union-attr]
            carried[id(read)] = helpers[key]
    built = [windows[p].build(lambda e: carried.get(id(e), e)) for p in sorted(windows)]
    if len({repr((partition, order)) for _, partition, order in built}) != 1:
        raise NotReadable("window functions over different partitions or orders in one step: "
                          "not analysed on Spark Connect yet")
    below_items = regular + added
    below = Read(writer.record("Project", inputs, projectList=[i.flat for i in below_items]),
                 [i.attr for i in below_items])  # type: ignore[misc]
    _, partition, order = built[0]
    computed = [alias for alias, _, _ in built]
    window = Read(writer.record("Window", [below], windowExpressions=[c.flat for c in computed],
                                partitionSpec=partition, orderSpec=order),
                  below.output + [c.attr for c in computed])  # type: ignore[misc]
    again = window.output + [c.attr for c in computed]
    middle = Read(writer.record("Project", [window], projectList=[a.flat() for a in again]), again)  # type: ignore
    final = [Typed(i.attr.flat(), i.dtype, i.attr) for i in items]  # type: ignore[union-attr]
    return writer.projection(rel, [middle], client, final)


def _generated(writer: RecordWriter, rel: Any, inputs: list[Read], client: Any, items: list[Typed | None],
               generators: dict[int, GeneratorItem]) -> Read:
    """A generator in a projection, as Spark's analyzer reads it (ResolveGenerate): a Generate
    keeping every input column and adding the generator's, under a Project of the items with
    the generator's columns in its place."""
    if len(generators) != 1:
        raise NotReadable("several generators in one step (Spark refuses them)")
    ((position, gen),) = generators.items()
    (child,) = inputs
    generate = Read(writer.record("Generate", inputs, generator=gen.generator.flat, unrequiredChildIndex=[],
                                  outer=gen.outer, generatorOutput=[a.flat() for a in gen.output]),
                    child.output + gen.output)
    final: list[Typed] = []
    for i, item in enumerate(items):
        if i == position:
            final.extend(Typed(a.flat(), a.dtype, a) for a in gen.output)
        elif item is not None:
            final.append(item)
    return writer.projection(rel, [generate], client, final)


def drop(writer: RecordWriter, rel: Any, inputs: list[Read], client: Any) -> Read:
    """drop(...): the input's columns but those named (every column of a name) or given."""
    (child,) = inputs
    scope = Scope(writer, child.output)
    gone: set[int] = set()
    for name in rel.drop.column_names:
        gone |= {a.expr_id for a in child.output if a.name.lower() == name.lower()}
    for e in rel.drop.columns:
        value = scope.expr(e)
        if value.attr is None:
            raise NotReadable("drop of an expression that is not a column")
        gone.add(value.attr.expr_id)
    return writer.projection(rel, inputs, client,
                             [Typed(a.flat(), a.dtype, a) for a in child.output if a.expr_id not in gone])


def renamed(writer: RecordWriter, rel: Any, inputs: list[Read], client: Any) -> Read:
    """withColumnsRenamed: every column of an old name aliased to its new one."""
    (child,) = inputs
    spec = rel.with_columns_renamed
    pairs = [(r.col_name, r.new_col_name) for r in spec.renames] or list(spec.rename_columns_map.items())
    items = [Typed(a.flat(), a.dtype, a) for a in child.output]
    for old, new in pairs:
        for i, item in enumerate(items):
            if item.attr is not None and item.attr.name.lower() == old.lower():
                items[i] = writer.alias(item, new)
    return writer.projection(rel, inputs, client, items)


def to_df(writer: RecordWriter, rel: Any, inputs: list[Read], client: Any) -> Read:
    """toDF(names): every input column aliased to its new name."""
    (child,) = inputs
    names = list(rel.to_df.column_names)
    if len(names) != len(child.output):
        raise NotReadable("toDF with another number of names than columns")
    return writer.projection(rel, inputs, client, [writer.alias(Typed(a.flat(), a.dtype, a), n)
                                                   for a, n in zip(child.output, names)])
