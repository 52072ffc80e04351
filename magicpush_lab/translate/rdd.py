"""An RDD round trip read as operators over the rows of the DataFrame it came from.

`df.rdd.map(f).filter(g).toDF(schema)` (or `spark.createDataFrame(rdd, schema)`) is, row by
row, a Python function of the DataFrame's row followed by Spark's check of the result against
the schema. The tracer records the steps (capture/rdd.py); this module writes each output column,
and whether a row is kept, as a Python UDF of the DataFrame's columns whose body is the recorded
functions called in turn and then the check `createDataFrame` makes (`verifySchema`, on by
default): a wrong type raises TypeError (an int for a double too), an int outside the type's range
ValueError, None for a non-nullable field ValueError, a row of the wrong length ValueError. The UDF
reader (symbolic/python_udf.py) reads these bodies as it reads any UDF, so a late filter moves
past the round trip to the DataFrame's source as it moves past a `withColumn`:

    Project(column_j = <UDF j of the columns>)           one per schema field
      Filter(<UDF: every filter step keeps the row>)      when there is a filter step
        <the DataFrame's plan>

A field that is only a field of the DataFrame's row passed through (`lambda r: (r.id, ...)`)
with the same type is that column itself. What is not read gives a barrier with the reason:
column names without types (`toDF(["a", "b"])`: Spark infers the types from the first rows,
which a filter moved below it changes, and fails on no rows), `verifySchema=False`,
`flatMapValues`, a `flatMap` whose elements are not read (`_flat_map` says which are), and
steps that are not a function of one element (`distinct`, `groupByKey`...), but for
`reduceByKey(f)` after a map to (key, value) pairs, read as a fold of each key's values
(`_reduced`).

>>> src = synthesized_column(["lambda r: (r.id, r.score * 2)"], ["map"], ["id", "score"], 1, "double", True)
>>> print(src.splitlines()[-3])
    if v is not None and not isinstance(v, float):
"""

from __future__ import annotations

import ast
import json
import textwrap
from dataclasses import dataclass

from magicpush_lab.capture.rdd import FOLD_STEPS, OP, OTHER_STEPS, SAME_ROWS, STEPS_PREFIX
from magicpush_lab.capture.trace import Event
from magicpush_lab.ir import expr as X
from magicpush_lab.ir import plan as P
from magicpush_lab.ir.types import FRACTIONAL, INTEGRAL, integer_range, integer_widens, spark_type

__all__ = ["OP", "is_round_trip", "round_trip_plan", "synthesized_column", "synthesized_keep"]


class NotRead(ValueError):
    """Why the round trip is a barrier."""


@dataclass(frozen=True)
class _Step:
    method: str
    name: str
    preamble: tuple[str, ...]  # what the function reads, as the tracer recorded it
    function: str  # the function: `def ...` or a lambda expression
    node: ast.FunctionDef | ast.Lambda


def is_round_trip(event: Event) -> bool:
    return event.op == OP and len(event.inputs) == 1 and any(a.startswith(STEPS_PREFIX) for a in event.args)


def round_trip_plan(event: Event, child: P.Plan, output: tuple[X.Col, ...]) -> P.Plan:
    """The operators of the round trip over `child` (the DataFrame's plan), giving `output` (the
    columns of Spark's plan of the DataFrame made back); a barrier when it cannot be read."""
    try:
        return _read(event, child, output)
    except NotRead as err:
        return P.Other((child,), output, f"RDD round trip: {err}", event.id)


def _read(event: Event, child: P.Plan, output: tuple[X.Col, ...]) -> P.Plan:
    info = json.loads(next(a for a in event.args if a.startswith(STEPS_PREFIX))[len(STEPS_PREFIX):])
    if not info.get("explicit"):
        raise NotRead("the DataFrame's types are inferred from the RDD's first rows (toDF with column names, or no"
                      " schema): a filter moved below it would change them, and an empty RDD fails; give the schema"
                      " (toDF(\"a int, b string\")) to have it analysed")
    if not info.get("verify", True):
        raise NotRead("createDataFrame(..., verifySchema=False) hands Spark unchecked values: not analysed")
    schema = info.get("schema") or {}
    if schema.get("type") != "struct":
        raise NotRead("a schema that is not a struct of fields: not analysed")
    fields = [(f["name"], spark_type(f["type"]), bool(f.get("nullable", True))) for f in schema["fields"]]
    if [n for n, _, _ in fields] != [c.name for c in output]:
        raise NotRead("the schema's fields are not the DataFrame's columns")
    steps = [_step(s) for s in info.get("steps", [])]
    steps = [s for s in steps if s.method not in SAME_ROWS]  # the same bag of rows, in another order
    if not steps:
        raise NotRead("no function of the rows was recorded")
    preamble = _merged(steps)
    columns = [c for c in child.output]
    if len({c.name for c in columns}) != len(columns):
        raise NotRead("the DataFrame has two columns of one name: its rows are ambiguous")
    read = _fields_read(steps[0], [c.name for c in columns])
    args = tuple(c for c in columns if read is None or c.name in read)
    names = [c.name for c in args]
    functions = [s.function for s in steps]
    methods = [s.method for s in steps]
    if "flatMap" in methods:
        return _flat_map(event, child, output, fields, steps, args, preamble)
    if any(m in FOLD_STEPS for m in methods):
        return _reduced(event, child, output, fields, steps, args, preamble)
    plan: P.Plan = child
    if "filter" in methods:
        keep = synthesized_keep(functions, methods, names, preamble)
        plan = P.Filter(plan, _udf(f"rdd{event.id}_keep", args, "boolean", keep))
    passed = _passed_through(steps, columns)
    outputs = []
    for j, (col, (name, dtype, nullable)) in enumerate(zip(output, fields)):
        known = passed.get(j)
        if known is not None and _same_value(known.dtype, dtype) and nullable:
            outputs.append((col, known if known.dtype == dtype else X.Cast(known, dtype)))
            continue
        source = synthesized_column(functions, methods, names, j, dtype, nullable, len(fields), preamble, name)
        outputs.append((col, _udf(f"rdd{event.id}_{name}", args, dtype, source)))
    return P.Project(plan, tuple(outputs), event.id)


def _flat_map(event: Event, child: P.Plan, output: tuple[X.Col, ...], fields: list[tuple[str, str, bool]],
              steps: list[_Step], args: tuple[X.Col, ...], preamble: tuple[str, ...]) -> P.Plan:
    """`rdd[.filter(g)...].flatMap(f)`: each row becomes the elements f yields. A field that every
    element carries as the same field of the row (`lambda r: [(r.id, x) for x in ...]`) is that
    column, so a filter on it keeps or drops all of a row's elements together and moves below as
    through explode (verify/row_expand.py); every other field is an unknown value of the element.

        Project(field j = the row's column, or the generated column)
          RowExpand("flatMap", generated = the other fields)
            Filter(<UDF: every filter step keeps the row>)      when there are filter steps
              <the DataFrame's plan>

    f and createDataFrame's check of each element may raise on a row a pushed filter drops: the
    verifier flags such a push as one that may hide an error."""
    methods = [s.method for s in steps]
    if methods[-1] != "flatMap" or any(m != "filter" for m in methods[:-1]):
        raise NotRead("flatMap: only filter steps before one flatMap, the last step, are analysed")
    last = steps[-1]
    elements = _yielded(last.node)
    if elements is None:
        raise NotRead("flatMap: the elements it yields are not read (a list or tuple display, or a list or"
                      " generator comprehension, of tuples is)")
    if any(len(e) != len(fields) for e in elements):
        raise NotRead("flatMap: an element has another number of fields than the schema")
    param = last.node.args.args[0].arg
    by_name = {c.name: c for c in child.output}
    plan: P.Plan = child
    if len(steps) > 1:
        names = [c.name for c in args]
        keep = synthesized_keep([s.function for s in steps[:-1]], methods[:-1], names, preamble)
        plan = P.Filter(plan, _udf(f"rdd{event.id}_keep", args, "boolean", keep))
    passed: dict[int, X.Col] = {}
    for j, (name, dtype, nullable) in enumerate(fields):
        read = {_row_field(e[j], param) for e in elements}
        col = by_name.get(read.pop()) if len(read) == 1 and None not in read else None
        if col is not None and nullable and _same_value(col.dtype, dtype):
            passed[j] = col
    generated = tuple(c for j, c in enumerate(output) if j not in passed)
    expand = P.RowExpand(plan, "flatMap", generated, False, event.id)
    outputs = tuple((c, (passed[j] if passed[j].dtype == c.dtype else X.Cast(passed[j], c.dtype)) if j in passed
                     else c) for j, c in enumerate(output))
    return P.Project(expand, outputs, event.id)


def _reduced(event: Event, child: P.Plan, output: tuple[X.Col, ...], fields: list[tuple[str, str, bool]],
             steps: list[_Step], args: tuple[X.Col, ...], preamble: tuple[str, ...]) -> P.Plan:
    """`rdd[.filter(g)...].map(lambda r: (r.k, r.v)).reduceByKey(f)`: one row per key, its values
    folded by f. Read as a groupBy whose aggregate is the fold (X.FoldBody): no start value (NULL),
    then `v if acc is None else f(acc, v)` over the key's values that are not None:

        Aggregate(keys = k; k, fold of v)
          Filter(<UDF: every filter step keeps the row>)      when there are filter steps
            <the DataFrame's plan>

    That is Spark's result only for an f that does not depend on the order of the values and of
    Spark's partial results, and that gives its other argument back for None (or raises): the
    fold keeps f for verify/aggregate.py to prove both. The pair must be two fields of the row
    passed through, stored in the schema's fields unchanged (the same types, nullable)."""
    methods = [s.method for s in steps]
    if methods[-1] not in FOLD_STEPS or methods[-2:-1] != ["map"] or any(m != "filter" for m in methods[:-2]):
        raise NotRead("reduceByKey: only filter steps, one map to (key, value) and reduceByKey, the last step, "
                      "are analysed")
    pair = steps[-2]
    body = pair.node.body if isinstance(pair.node, ast.Lambda) else None
    passed = _passed_through(steps[:-1], list(child.output))
    if not isinstance(body, ast.Tuple) or len(body.elts) != 2 or set(passed) != {0, 1}:
        raise NotRead("reduceByKey: the map before it must give a pair of the row's fields "
                      "(lambda r: (r.key, r.value))")
    if len(fields) != 2:
        raise NotRead("reduceByKey: the schema must have two fields, the key and the folded value")
    key, value = passed[0], passed[1]
    if key.dtype in FRACTIONAL or value.dtype in FRACTIONAL:
        # Python groups NaN keys apart where Spark groups them together, and compares NaN values
        # with an order the proofs do not model
        raise NotRead("reduceByKey: a floating-point key or value is not analysed (NaN)")
    for col, (_, dtype, nullable) in zip((key, value), fields):
        if col.dtype != dtype or not nullable or not _same_value(col.dtype, dtype):
            raise NotRead(f"reduceByKey: `{col.name}` ({col.dtype}) is not stored unchanged in a nullable "
                          f"{dtype} field")
    plan: P.Plan = child
    if len(steps) > 2:
        keep = synthesized_keep([s.function for s in steps[:-2]], methods[:-2], [c.name for c in args], preamble)
        plan = P.Filter(plan, _udf(f"rdd{event.id}_keep", args, "boolean", keep))
    # the fold's own variables get ids below any Spark exprId, one triple per event
    acc, elem, result = (X.Col(n, -2_000_000 - 3 * event.id - i, value.dtype)
                         for i, n in enumerate(("acc", "value", "result")))
    reduce = X.PyUdf(f"rdd{event.id}_reduce", (acc, elem), value.dtype,
                     _preamble(preamble) + _steps([steps[-1].function], ["reduceByKey"])
                     + "def _rdd_reduce(_acc, _value):\n    return _step0(_acc, _value)\n", True, "python")
    fold = X.FoldBody(zero=X.Lit(None, value.dtype), acc=acc, elem=elem,
                      merge=X.Case(((X.IsNull(acc), elem),), reduce), result=result, finish=result, reduce=reduce)
    outputs = ((output[0], key), (output[1], X.Agg("fold", value, value.dtype, False, fold)))
    return P.Aggregate(plan, (key,), outputs, event.id)


def _yielded(node: ast.FunctionDef | ast.Lambda) -> list[list[ast.expr]] | None:
    """The element displays a flatMap function returns: each a list of its fields' expressions."""
    body = node.body if isinstance(node, ast.Lambda) else None
    if isinstance(node, ast.FunctionDef) and len(node.body) == 1 and isinstance(node.body[0], ast.Return):
        body = node.body[0].value
    param = node.args.args[0].arg
    if isinstance(body, (ast.ListComp, ast.GeneratorExp)):
        bound = {n.id for g in body.generators for n in ast.walk(g.target) if isinstance(n, ast.Name)}
        if param in bound or not isinstance(body.elt, (ast.Tuple, ast.List)):
            return None
        return [list(body.elt.elts)]
    if isinstance(body, (ast.List, ast.Tuple)) and all(isinstance(e, (ast.Tuple, ast.List)) for e in body.elts):
        return [list(e.elts) for e in body.elts]  # type: ignore[attr-defined]
    return None


def _row_field(e: ast.expr, param: str) -> str | None:
    """The field of the row `e` reads as `r.name` or `r["name"]`, else None."""
    if isinstance(e, ast.Attribute) and isinstance(e.value, ast.Name) and e.value.id == param \
            and not hasattr(tuple, e.attr):
        return e.attr
    if isinstance(e, ast.Subscript) and isinstance(e.value, ast.Name) and e.value.id == param \
            and isinstance(e.slice, ast.Constant) and isinstance(e.slice.value, str):
        return e.slice.value
    return None


def _udf(name: str, args: tuple[X.Col, ...], dtype: str, source: str) -> X.PyUdf:
    return X.PyUdf(name, args, dtype, source, True, "python")


def _step(recorded: dict) -> _Step:
    method = recorded.get("method")
    if method in OTHER_STEPS:
        raise NotRead(f"{method}: its result is not a function of one element")
    if method in SAME_ROWS:
        return _Step(method, "", (), "", ast.Lambda(args=None, body=None))  # type: ignore[arg-type]
    if method == "flatMapValues":
        raise NotRead(f"{method}: one element to several rows is not analysed yet")
    source = recorded.get("source")
    if not source:
        raise NotRead(f"{method}: the function's source was not recorded")
    try:
        tree = ast.parse(textwrap.dedent(source))
    except SyntaxError as err:
        raise NotRead(f"{method}: the function's source does not parse ({err.msg})") from err
    last = tree.body[-1] if tree.body else None
    if isinstance(last, ast.FunctionDef):
        node: ast.FunctionDef | ast.Lambda = last
        function = ast.unparse(last)
    elif isinstance(last, ast.Expr) and isinstance(last.value, ast.Lambda):
        node, function = last.value, ast.unparse(last.value)
    elif isinstance(last, ast.Assign) and isinstance(last.value, ast.Lambda):
        node, function = last.value, ast.unparse(last.value)
    else:
        raise NotRead(f"{method}: cannot find the function in its recorded source")
    arity = 2 if method in FOLD_STEPS else 1
    if len(node.args.args) != arity or node.args.vararg or node.args.kwarg or node.args.kwonlyargs:
        raise NotRead(f"{method}: a function of {'two values' if arity == 2 else 'one element'} is expected")
    return _Step(method, recorded.get("name") or "", tuple(ast.unparse(s) for s in tree.body[:-1]), function, node)


_RESERVED = ("Row", "_step", "_rdd_")


def _merged(steps: list[_Step]) -> tuple[str, ...]:
    """The steps' preambles as one: a name two steps bind differently cannot be both."""
    lines: list[str] = []
    bound: dict[str, str] = {}
    for s in steps:
        for line in s.preamble:
            node = ast.parse(line).body[0]
            names = _bound_names(node)
            for n in names:
                if n.startswith(_RESERVED):
                    raise NotRead(f"the functions read a name the analysis uses ({n})")
                if bound.setdefault(n, line) != line:
                    raise NotRead(f"two steps read {n} with different values")
            if line not in lines:
                lines.append(line)
    return tuple(lines)


def _bound_names(node: ast.stmt) -> list[str]:
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return [a.asname or a.name.split(".")[0] for a in node.names]
    if isinstance(node, ast.FunctionDef):
        return [node.name]
    if isinstance(node, ast.Assign):
        return [t.id for t in node.targets if isinstance(t, ast.Name)]
    return []


def _fields_read(step: _Step, names: list[str]) -> set[str] | None:
    """The fields of the DataFrame's row the first function reads, when it reads it only as
    `r.name` or `r["name"]`; None when it may read any (a position, the row passed on)."""
    param = step.node.args.args[0].arg
    body = step.node.body if isinstance(step.node, ast.FunctionDef) else [step.node.body]
    read: set[str] = set()
    uses = 0
    for stmt in body:
        for n in ast.walk(stmt):
            if isinstance(n, ast.Name) and n.id == param:
                uses += 1
            if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == param \
                    and n.attr in names:
                read.add(n.attr)
            elif isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name) and n.value.id == param \
                    and isinstance(n.slice, ast.Constant) and isinstance(n.slice.value, str) and n.slice.value in names:
                read.add(n.slice.value)
            elif isinstance(n, (ast.FunctionDef, ast.Lambda)) and n is not step.node:
                return None  # a nested function may read the row in ways not seen here
    assigned = any(isinstance(n, ast.Name) and n.id == param and isinstance(n.ctx, ast.Store)
                   for stmt in body for n in ast.walk(stmt))
    counted = sum(1 for stmt in body for n in ast.walk(stmt)
                  if isinstance(n, (ast.Attribute, ast.Subscript)) and isinstance(n.value, ast.Name)
                  and n.value.id == param)
    if assigned or counted != uses:
        return None  # the row itself is used: every field may matter
    return read


def _passed_through(steps: list[_Step], columns: list[X.Col]) -> dict[int, X.Col]:
    """Output position -> the DataFrame's column it is, when the last step is a map of a display
    of fields of the row (`lambda r: (r.id, r.name)`) and the others only filter."""
    last = steps[-1]
    if last.method != "map" or any(s.method != "filter" for s in steps[:-1]):
        return {}
    body = last.node.body if isinstance(last.node, ast.Lambda) else None
    if isinstance(last.node, ast.FunctionDef) and len(last.node.body) == 1 \
            and isinstance(last.node.body[0], ast.Return):
        body = last.node.body[0].value
    if not isinstance(body, (ast.Tuple, ast.List)):
        return {}
    param = last.node.args.args[0].arg
    by_name = {c.name: c for c in columns}
    found = {}
    for j, e in enumerate(body.elts):
        if isinstance(e, ast.Attribute) and isinstance(e.value, ast.Name) and e.value.id == param \
                and e.attr in by_name and not hasattr(tuple, e.attr):
            found[j] = by_name[e.attr]
        elif isinstance(e, ast.Subscript) and isinstance(e.value, ast.Name) and e.value.id == param \
                and isinstance(e.slice, ast.Constant):
            key = e.slice.value
            if isinstance(key, str) and key in by_name:
                found[j] = by_name[key]
            elif isinstance(key, int) and not isinstance(key, bool) and 0 <= key < len(columns):
                found[j] = columns[key]
    return found


def _same_value(source: str, target: str) -> bool:
    """A value of a `source` column given to a `target` field is stored unchanged (and passes
    createDataFrame's check): the same type, or a wider integer type."""
    if source == target:
        return source in INTEGRAL or source in FRACTIONAL or source in ("string", "boolean", "date")
    return integer_widens(source, target)


# ----------------------------------------------------------------------------- the bodies


def _header(name: str, fields: list[str]) -> str:
    params = ", ".join(f"_c{i}" for i in range(len(fields)))
    row = ", ".join(f"{f!r}: _c{i}" for i, f in enumerate(fields))
    return f"def {name}({params}):\n    r = Row(**{{{row}}})\n"


def _chain(methods: list[str], dropped: str) -> str:
    lines = []
    for i, method in enumerate(methods):
        if method == "map":
            lines.append(f"    r = _step{i}(r)")
        elif method == "mapValues":
            lines.append(f"    r = (r[0], _step{i}(r[1]))")
        elif method == "filter":
            lines.append(f"    if not _step{i}(r):\n        return {dropped}")
    return "\n".join(lines) + ("\n" if lines else "")


def _steps(functions: list[str], methods: list[str]) -> str:
    out = []
    for i, (fn, method) in enumerate(zip(functions, methods)):
        if fn.startswith("def "):
            name = ast.parse(fn).body[0].name  # type: ignore[attr-defined]
            out.append(f"{fn}\n_step{i} = {name}")
        else:
            out.append(f"_step{i} = {fn}")
    return "\n".join(out) + "\n"


def _preamble(lines: tuple[str, ...]) -> str:
    return "\n".join((*lines, "from pyspark.sql import Row")) + "\n"


def synthesized_keep(functions: list[str], methods: list[str], fields: list[str],
                     preamble: tuple[str, ...] = ()) -> str:
    """The body deciding whether a row of the DataFrame is kept by the filter steps."""
    return (_preamble(preamble) + _steps(functions, methods) + _header("_rdd_keep", fields)
            + _chain(methods, "False") + "    return True\n")


_CHECKS = {"float": "float", "double": "float", "string": "str", "boolean": "bool", "date": "date"}


def synthesized_column(functions: list[str], methods: list[str], fields: list[str], j: int, dtype: str,
                       nullable: bool, width: int | None = None, preamble: tuple[str, ...] = (),
                       field: str | None = None) -> str:
    """The body computing field `j` of the row the steps make, checked as createDataFrame checks it."""
    width = width if width is not None else j + 1
    name = field or f"_{j}"
    lines = [
        "    if isinstance(r, dict):",
        f"        v = r.get({name!r})",
        "    else:",
        "        if not isinstance(r, (tuple, list)):",
        "            raise TypeError('StructType can not accept this object')",
        f"        if len(r) != {width}:",
        "            raise ValueError('the row has another number of fields than the schema')",
        f"        v = r[{j}]",
    ]
    if not nullable:
        lines += ["    if v is None:", "        raise ValueError('a field that is not nullable: None is not allowed')"]
    if dtype in INTEGRAL:
        low, high = integer_range(dtype)
        lines += ["    if v is not None and (isinstance(v, bool) or not isinstance(v, int)):",
                  "        raise TypeError('an integer field: this object is not an int')",
                  f"    if v is not None and not ({low} <= v <= {high - 1}):",
                  "        raise ValueError('out of range')"]
    elif dtype in _CHECKS and dtype != "string":
        # a str field takes any object (Spark converts it): no check, and the reader then reads
        # a result that is not a str as a black box
        lines += [f"    if v is not None and not isinstance(v, {_CHECKS[dtype]}):",
                  f"        raise TypeError('a {dtype} field: this object is not a {_CHECKS[dtype]}')"]
    lines.append("    return v")
    imports = ("from datetime import date",) if dtype == "date" else ()
    return (_preamble(preamble + imports) + _steps(functions, methods) + _header(f"_rdd_{_safe(name)}", fields)
            + _chain(methods, "None") + "\n".join(lines) + "\n")


def _safe(name: str) -> str:
    return "".join(ch if ch.isalnum() else "_" for ch in name)
