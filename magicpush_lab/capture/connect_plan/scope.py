"""Name resolution for the Connect reader: a relation's input columns (`Scope`), and the
expressions of a relation resolved against them into Catalyst's forms with their types.

A name resolves only to exactly one input column (case-insensitively, as Spark's analyzer
does by default), a plan id only to a relation read here; qualified and quoted paths, SQL
strings and functions without a known Catalyst form and result type are refused.
"""

from __future__ import annotations

from typing import Any

from magicpush_lab.capture.connect_plan.casts import booleans, cast_to, in_one_type, integral, numeric, widened
from magicpush_lab.capture.connect_plan.records import RecordWriter
from magicpush_lab.capture.connect_plan.shapes import (AGG, EXPR, Attr, NotReadable, Typed, literal, node,
                                                       sort_order)

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
#: epoch numbers as timestamps and back: Catalyst class, the input types it takes, its type
_EPOCH = {"timestamp_seconds": ("SecondsToTimestamp", ("integer", "long", "short", "byte", "double", "float"), "timestamp"),
          "timestamp_millis": ("MillisToTimestamp", ("integer", "long", "short", "byte"), "timestamp"),
          "timestamp_micros": ("MicrosToTimestamp", ("integer", "long", "short", "byte"), "timestamp"),
          "unix_seconds": ("UnixSeconds", ("timestamp",), "long"),
          "unix_millis": ("UnixMillis", ("timestamp",), "long"),
          "unix_micros": ("UnixMicros", ("timestamp",), "long")}
#: aggregate functions: Catalyst class
AGGREGATES = {"sum": "Sum", "max": "Max", "min": "Min", "count": "Count", "avg": "Average", "mean": "Average"}
#: the value of the row with the extreme ordering value (aggregations only, never windows here)
BY_AGGREGATES = {"max_by": "MaxBy", "min_by": "MinBy"}

# PythonEvalType.SQL_GROUPED_AGG_PANDAS_UDF
_GROUPED_AGG_PANDAS_UDF = 202


class Scope:
    """Resolves expressions against the columns of a relation's inputs."""

    def __init__(self, writer: RecordWriter, columns: list[Attr], aggregates: bool = False) -> None:
        self.writer, self.columns, self.aggregates = writer, columns, aggregates

    # -- names ----------------------------------------------------------------
    def column(self, name: str, plan_id: int | None) -> Typed:
        whole = unquoted(name)
        if not whole or "`" in whole or whole == name and "." in name:
            raise NotReadable(f"column {name!r}: qualified or quoted names are not resolved yet")
        name = whole
        if plan_id is not None:
            owner = self.writer.reads.get(plan_id)
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
            return literal(value, kind)
        if kind == "date":
            return literal(int(lit.date), "date")
        if kind == "null":
            return literal(None, "void")
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
        return Typed(node(EXPR + "Cast", [value], dataType=target), target)

    def udf(self, f: Any) -> Typed:
        from pyspark.sql.connect.types import proto_schema_to_pyspark_data_type

        if not f.HasField("python_udf"):
            raise NotReadable("a user-defined function that is not a Python UDF")
        args = [self.expr(a) for a in f.arguments]
        dtype = proto_schema_to_pyspark_data_type(f.python_udf.output_type).jsonValue()
        eval_type = int(f.python_udf.eval_type)
        if eval_type == _GROUPED_AGG_PANDAS_UDF:
            # a grouped-aggregate pandas UDF: Spark's analyzer makes it an aggregate function
            fn = node(EXPR + "PythonUDAF", args, name=f.function_name, dataType=dtype, evalType=eval_type,
                      udfDeterministic=bool(f.deterministic), resultId={"id": self.writer.next_id()})
            return self._aggregate_expression(fn, dtype, False)
        return Typed(node(EXPR + "PythonUDF", args, name=f.function_name, dataType=dtype,
                          evalType=eval_type, udfDeterministic=bool(f.deterministic),
                          resultId={"id": self.writer.next_id()}), dtype)

    def sort_order(self, so: Any) -> list[dict[str, Any]]:
        """A SortOrder message (what Sort lists) as Catalyst's SortOrder; an unspecified null
        ordering is Spark's default for the direction."""
        return sort_order(self.expr(so.child), so)

    def function(self, f: Any) -> Typed:
        name = f.function_name.lower()
        if f.is_user_defined_function or f.HasField("is_internal") and f.is_internal:
            raise NotReadable(f"function {f.function_name}: not analysed on Spark Connect yet")
        if name in AGGREGATES or name in BY_AGGREGATES:
            return self.aggregate(name, f)
        if f.is_distinct:
            raise NotReadable(f"{name}(DISTINCT ...) outside an aggregation")
        args = [self.expr(a) for a in f.arguments]
        if name in _COMPARISONS and len(args) == 2:
            a, b = widened(args)
            return Typed(node(EXPR + _COMPARISONS[name], [a, b]), "boolean")
        if name == "!=" and len(args) == 2:
            a, b = widened(args)
            return Typed(node(EXPR + "Not", [node(EXPR + "EqualTo", [a, b])]), "boolean")
        if name in ("and", "or") and len(args) == 2:
            booleans(args)
            return Typed(node(EXPR + name.capitalize(), args), "boolean")
        if name in ("not", "!") and len(args) == 1:
            booleans(args)
            return Typed(node(EXPR + "Not", args), "boolean")
        if name in ("isnull", "isnotnull") and len(args) == 1:
            return Typed(node(EXPR + ("IsNull" if name == "isnull" else "IsNotNull"), args), "boolean")
        if name in _ARITHMETIC and len(args) == 2:
            a, b = widened(args)
            if not numeric(a.name):
                raise NotReadable(f"{name} of {a.name} values: not analysed on Spark Connect yet")
            return Typed(node(EXPR + _ARITHMETIC[name], [a, b], evalMode="ANSI"), a.dtype)
        if name == "/" and len(args) == 2:
            a, b = (cast_to(x, "double") for x in args)
            return Typed(node(EXPR + "Divide", [a, b], evalMode="ANSI"), "double")
        if name == "negative" and len(args) == 1 and numeric(args[0].name):
            return Typed(node(EXPR + "UnaryMinus", args), args[0].dtype)
        if name == "in" and len(args) >= 2:
            if len({a.name for a in args}) != 1 or not (numeric(args[0].name) or args[0].name in ("string", "date")):
                raise NotReadable("isin over values of another type than the column's")
            return Typed(node(EXPR + "In", args), "boolean")
        if name == "when" and len(args) >= 2:
            return self.when(args)
        if name == "coalesce" and args:
            values = in_one_type(args, "coalesce")
            return Typed(node(EXPR + "Coalesce", values), values[0].dtype)
        if name in _STRING_UNARY and len(args) == 1 and args[0].name == "string":
            cls, dtype = _STRING_UNARY[name]
            return Typed(node(EXPR + cls, args), dtype)
        if name in _STRING_BINARY and len(args) == 2 and all(a.name == "string" for a in args):
            return Typed(node(EXPR + _STRING_BINARY[name], args), "boolean")
        if name in _DATE_PARTS and len(args) == 1 and args[0].name == "date":
            return Typed(node(EXPR + _DATE_PARTS[name], args), "integer")
        if name in _EPOCH and len(args) == 1 and args[0].name in _EPOCH[name][1]:
            # deterministic conversions (no time zone): a filter that does not read them passes
            cls, _, dtype = _EPOCH[name]
            return Typed(node(EXPR + cls, args), dtype)
        if name == "isnan" and len(args) == 1 and args[0].name in ("double", "float"):
            return Typed(node(EXPR + "IsNaN", args), "boolean")
        if name == "distributed_sequence_id":
            raise NotReadable("the pandas API on Spark's default index (distributed_sequence_id): each row's index "
                              "counts the rows before it, which a filter moved below it would change (a "
                              "pandas-on-Spark read with index_col= has no such index)")
        if name == "monotonically_increasing_id" and not args:
            # nondeterministic (spark_plan reads it so); the pandas API on Spark's row order
            return Typed(node(EXPR + "MonotonicallyIncreasingID", [], dataType="long"), "long")
        if name == "abs" and len(args) == 1 and numeric(args[0].name):
            return Typed(node(EXPR + "Abs", args, failOnError=True), args[0].dtype)
        raise NotReadable(f"function {f.function_name}"
                          + (f" over {', '.join(a.name for a in args)}" if args else "")
                          + ": not analysed on Spark Connect yet")

    def when(self, args: list[Typed]) -> Typed:
        pairs = [(args[i], args[i + 1]) for i in range(0, len(args) - 1, 2)]
        default = args[-1] if len(args) % 2 else None
        booleans([c for c, _ in pairs])
        values = in_one_type([v for _, v in pairs] + ([default] if default is not None else []), "when/otherwise")
        kids: list[Any] = []
        for (c, _), v in zip(pairs, values):
            kids += [c, v]
        if default is not None:
            kids.append(values[-1])
        return Typed(node(EXPR + "CaseWhen", kids), values[0].dtype)

    def aggregate(self, name: str, f: Any) -> Typed:
        if not self.aggregates:
            raise NotReadable(f"aggregate {name} outside an aggregation")
        inner = Scope(self.writer, self.columns)
        args = list(f.arguments)
        if name == "count" and len(args) == 1 and args[0].WhichOneof("expr_type") == "unresolved_star":
            values = [literal(1, "integer")]  # count("*") is count(1)
        else:
            values = [inner.expr(a) for a in args]
        if name in BY_AGGREGATES:
            return self._by_aggregate(name, values, f)
        if len(values) != 1:
            raise NotReadable(f"{name} of {len(values)} arguments")
        (value,) = values
        if name == "count":
            dtype: Any = "long"
        elif not numeric(value.name) and name in ("sum", "avg", "mean"):
            raise NotReadable(f"{name} of a {value.name} column: not analysed on Spark Connect yet")
        elif name == "sum":
            dtype = "long" if integral(value.name) else "double"
        elif name in ("avg", "mean"):
            dtype = "double"  # Average reads any numeric input as it is: the analyzer adds no cast
        else:
            if isinstance(value.dtype, str) and value.dtype.startswith("decimal"):
                raise NotReadable(f"{name} of a decimal column: not analysed on Spark Connect yet")
            dtype = value.dtype
        fn = node(AGG + AGGREGATES[name], [value])  # Sum of integers is a long without a cast
        return self._aggregate_expression(fn, dtype, bool(f.is_distinct))

    def _by_aggregate(self, name: str, values: list[Typed], f: Any) -> Typed:
        """max_by(x, ord) / min_by(x, ord): the analyzer adds no cast to either argument."""
        if len(values) != 2 or f.is_distinct:
            raise NotReadable(f"{name} of {len(values)} arguments{' (DISTINCT)' if f.is_distinct else ''}")
        if any(isinstance(v.dtype, str) and v.dtype.startswith("decimal") for v in values):
            raise NotReadable(f"{name} of a decimal column: not analysed on Spark Connect yet")
        fn = node(AGG + BY_AGGREGATES[name], values)
        return self._aggregate_expression(fn, values[0].dtype, False)

    def _aggregate_expression(self, fn: Any, dtype: Any, distinct: bool) -> Typed:
        return Typed(node(AGG + "AggregateExpression", [fn], mode={"object": AGG + "Complete$"},
                          isDistinct=distinct, filter=None, resultId=_expression_id(self.writer)), dtype)


def _expression_id(writer: Any) -> dict[str, Any]:
    return {"product-class": EXPR + "ExprId", "id": writer.next_id(), "jvmId": "connect"}


def unquoted(name: str) -> str:
    """A column name as the user means it: "`a`" is "a" and "`a.b`" the column named "a.b" (the
    pandas API on Spark quotes every name it refers to); a name with a quote inside is left as
    it is.

    >>> unquoted("`id`"), unquoted("id"), unquoted("`a``b`")
    ('id', 'id', '`a``b`')
    """
    if len(name) >= 2 and name[0] == name[-1] == "`" and "`" not in name[1:-1]:
        return name[1:-1]
    return name

