"""Spark analyzed plans (as decoded JSON) -> IR operator trees.

Spark's analyzed plan is the source of truth for what a pipeline computes: it
has resolved every column to an exprId, inserted the casts, and expanded
`join(df, "k")` into a condition. The trace adds what the plan lacks: which
notebook call produced which subtree (matched by equal subtree JSON) and the
Python source of UDFs.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Mapping

from magicpush_lab.capture.trace import Udf
from magicpush_lab.ir import expr as X
from magicpush_lab.ir import plan as P
from magicpush_lab.ir.types import FRACTIONAL, INTEGRAL, spark_type
from magicpush_lab.translate.plan_json import Node, PlanNodes, expression, expressions

_CMP = {"EqualTo": "=", "EqualNullSafe": "<=>", "GreaterThan": ">", "GreaterThanOrEqual": ">=",
        "LessThan": "<", "LessThanOrEqual": "<="}
_ARITH = {"Add": "+", "Subtract": "-", "Multiply": "*", "Divide": "/", "Remainder": "%",
          "IntegralDivide": "div"}

# Spark functions a pushed predicate may call: deterministic, pure, and each written back as
# the PySpark function of its name (_snake). Their names are the server's allow-list
# (server/contract.schema.json, SparkFunction; tests/test_security.py keeps the two equal).
_PREDICATE_FUNCTIONS = frozenset("""
Upper Lower Length Substring Concat ConcatWs StringTrim StringTrimLeft StringTrimRight StartsWith EndsWith
Contains Like RLike ILike RegExpExtract RegExpReplace StringReplace StringLPad StringRPad InitCap Reverse
SubstringIndex StringInstr StringLocate Ascii Chr Base64 UnBase64 Levenshtein FormatNumber StringRepeat
Year Month DayOfMonth DayOfWeek WeekDay DayOfYear Hour Minute Second Quarter WeekOfYear DateAdd DateSub
DateDiff ParseToDate ParseToTimestamp DateFormatClass TruncDate TruncTimestamp MakeDate LastDay AddMonths
MonthsBetween CurrentDate CurrentTimestamp ToUnixTimestamp UnixTimestamp FromUnixTime
Abs Round BRound Floor Ceil Sqrt Log Log10 Log2 Exp Pow Signum Greatest Least Pmod
Size GetArrayItem ElementAt GetStructField GetMapValue ArrayContains If NaNvl IsNaN AtLeastNNonNulls
KnownNotNull KnownFloatingPointNormalized Md5 Sha1 Sha2 Crc32 Murmur3Hash XxHash64 Hex Unhex
CreateNamedStruct CreateArray CreateMap StringSplit
""".split())

# Spark functions as deterministic as those above (the same inputs give the same output), that
# a filter may pass when it does not read them, and whose output a filter may be rewritten
# through as an uninterpreted function; never written into a predicate: some have no PySpark
# function of their own (datetime_sub, timestamp_add_interval), some build values as large as
# a request asks (sequence, array_repeat, space), and the allow-list stays short.
_DETERMINISTIC_NEVER_WRITTEN = frozenset("""
SplitPart StringTranslate Overlay SoundEx StringSpace FormatString Elt Bin Conv
BitLength OctetLength StringToMap RegExpExtractAll RegExpCount RegExpSubStr RegExpInStr Encode Decode
ArrayDistinct ArrayJoin ArrayMax ArrayMin ArrayPosition ArrayRemove ArrayUnion ArrayIntersect ArrayExcept
ArraysOverlap ArrayRepeat ArraysZip Slice Flatten SortArray Sequence ArrayCompact ArrayAppend ArrayInsert Get
MapKeys MapValues MapEntries MapFromArrays MapFromEntries MapConcat GetJsonObject JsonToStructs StructsToJson
DateFromUnixDate UnixDate MakeTimestamp NextDay TimestampAdd TimestampDiff SecondsToTimestamp
MillisToTimestamp MicrosToTimestamp UnixSeconds UnixMillis UnixMicros FromUTCTimestamp ToUTCTimestamp
ConvertTimezone TimeAdd DateAddInterval DatetimeSub TimestampAddInterval TimestampAddYMInterval
DateAddYMInterval SubtractTimestamps SubtractDates MultiplyInterval DivideInterval MakeInterval
MakeDTInterval MakeYMInterval ExtractIntervalDays ExtractIntervalHours ExtractIntervalMinutes
ExtractIntervalSeconds ExtractIntervalMonths ExtractIntervalYears PreciseTimestampConversion
Cos Sin Tan Cot Acos Asin Atan Atan2 Sinh Cosh Tanh Cbrt Hypot Logarithm Log1p Expm1 Rint ToDegrees
ToRadians Factorial ShiftLeft ShiftRight BitwiseAnd BitwiseOr BitwiseXor BitwiseNot BitwiseCount WidthBucket
""".split())

# Known to be deterministic; anything else is treated as nondeterministic, which only ever
# blocks a pushdown (never allows a wrong one). Left out on purpose: Spark's nondeterministic
# expressions (Rand, Randn, Uuid, Shuffle, MonotonicallyIncreasingID, SparkPartitionID,
# InputFileName...) and the higher-order functions (transform, filter, aggregate, array_sort
# with a comparator), whose lambdas may call them.
_DETERMINISTIC = _PREDICATE_FUNCTIONS | _DETERMINISTIC_NEVER_WRITTEN

TRY_CAST = X.TRY_CAST


def unwritten_call(*exprs: X.Expr) -> str | None:
    """The first function in `exprs` that is never written into a pushed predicate (its
    PySpark name), or None: a candidate calling one cannot be suggested.

    >>> gap = X.Func("datetime_sub", (X.Col("t", 1, "timestamp"),), "timestamp")
    >>> unwritten_call(X.Cmp(">", gap, X.Col("u", 2, "timestamp"))), unwritten_call(X.Col("v", 3, "int"))
    ('datetime_sub', None)
    """
    for e in exprs:
        for sub in X.walk(e):
            if isinstance(sub, X.Func) and sub.name in _NEVER_WRITTEN_NAMES:
                return sub.name
    return None


# (UDF source, argument types, return type) -> why the body is not element-wise, or None
PandasBodyReason = Callable[[str | None, tuple[str, ...], str], str | None]


class TranslateError(ValueError):
    """The plan uses something translate cannot read (the caller turns it into a barrier)."""


@dataclass(frozen=True)
class Context:
    """What translation needs besides the plan: provenance and UDF source."""

    events_by_key: Mapping[str, int] = field(default_factory=dict)
    source_events: frozenset[int] = frozenset()
    udfs: Mapping[str, Udf] = field(default_factory=dict)
    # result id of a PythonUDF expression -> the trace name of the function it calls, where that
    # is not Spark's name for it (capture/udfs.py: two functions of one name)
    udf_calls: Mapping[int, str] = field(default_factory=dict)
    # event id -> the collected DataFrame as a source, for UDFs that loop over a collect() result
    collected: Mapping[int, P.Source] = field(default_factory=dict)
    # the plans' nodes, and the events' plans by their loose digest (plan_json.PlanNodes.loose):
    # a subtree Spark re-read with fresh exprIds (a self-join's second read) is tied to the one
    # event whose plan has its shape; a shape two events share ties it to neither
    nodes: PlanNodes | None = None
    events_by_loose: Mapping[str, list[int]] = field(default_factory=dict)
    # record id -> its expression in IR: a column read at every step of a chain is translated once
    memo: dict = field(default_factory=dict, compare=False)
    # the exprId of an aggregate's min/max of a struct, or of its sorted collected list -> its
    # fields by ordinal (its first two items), each a column of its own (_struct_extremum_outputs,
    # _sorted_list_outputs); the plan nodes already looked through for them
    struct_fields: dict = field(default_factory=dict, compare=False)
    scanned: set = field(default_factory=set, compare=False)
    # (source, argument types, return type) -> why a scalar pandas UDF's body cannot be read
    # element by element, None when it can (symbolic/pandas_udf.unreadable_reason, given by the
    # caller: reading a body is the symbolic layer's job). Without it every pandas UDF counts
    # as reading its whole batch, which only ever blocks a pushdown.
    pandas_body_reason: PandasBodyReason | None = None
    # event id -> how that event's plan is read instead of from the plan alone (an RDD round
    # trip's leaf is read as the steps over the DataFrame the rows came from: translate/rdd.py)
    rebuilt: Mapping[int, Callable[["Node", "Context"], P.Plan]] = field(default_factory=dict)

    def udf_name(self, call: Node) -> str:
        """The trace name of the function a PythonUDF expression calls."""
        name = str(call.field("name"))
        result_id = call.field("resultId")
        result_id = result_id.get("id") if isinstance(result_id, dict) else None
        if result_id is not None and int(result_id) in self.udf_calls:
            return self.udf_calls[int(result_id)]
        if result_id is None and any(u.function_name == name and u.name != name for u in self.udfs.values()):
            raise TranslateError(f"a call of {name} that cannot be told from another function of that name")
        return name

    def origin_of(self, n: Node) -> int | None:
        origin = self.events_by_key.get(n.key)
        if origin is not None or self.nodes is None or not isinstance(n.key, int):
            return origin
        alike = self.events_by_loose.get(self.nodes.loose(n.key))
        if not alike:
            return None
        mine = self.nodes.shape(n.key)
        matches = {self.events_by_key[k] for k in alike if self.nodes.shape(k) == mine}
        return matches.pop() if len(matches) == 1 else None


# ----------------------------------------------------------------------------- expressions


def to_expr(n: Node, ctx: Context) -> X.Expr:
    """Translate one Catalyst expression (once per record of a trace's plans)."""
    if isinstance(n.key, int):
        found = ctx.memo.get(n.key)
        if found is None:
            found = ctx.memo[n.key] = _to_expr(n, ctx)
        return found
    return _to_expr(n, ctx)


def _to_expr(n: Node, ctx: Context) -> X.Expr:
    if n.cls == "ArrayAggregate" and _is_group_fold(n):
        return _fold(n, ctx)
    if n.cls == "GetStructField" and n.kids and _expr_id(n.kids[0]) in ctx.struct_fields \
            and n.kids[0].cls == "AttributeReference":
        fields = ctx.struct_fields[_expr_id(n.kids[0])]
        return fields[int(n.field("ordinal"))]
    if n.cls == "Get" and len(n.kids) == 2 and n.kids[0].cls == "AttributeReference" \
            and _expr_id(n.kids[0]) in ctx.struct_fields and n.kids[1].cls == "Literal":
        # get() of a sorted collected list: its first or second item, NULL where there is none
        index = str(n.kids[1].field("value"))
        if index in ("0", "1"):
            return ctx.struct_fields[_expr_id(n.kids[0])][int(index)]
    if n.cls == "AttributeReference" and _expr_id(n) in ctx.struct_fields:
        raise TranslateError(f"`{n.field('name')}`, the min or max of a struct or a sorted collected list, read "
                             "otherwise than field by field or as its first two items: not analysed yet")
    if n.cls == "NamedLambdaVariable":
        return X.Col(n.field("name"), _expr_id(n), spark_type(n.field("dataType")))
    kids = tuple(to_expr(k, ctx) for k in n.kids) if n.cls not in ("CaseWhen",) else ()
    if n.cls == "AttributeReference":
        return X.Col(n.field("name"), _expr_id(n), spark_type(n.field("dataType")))
    if n.cls == "Literal":
        dtype = spark_type(n.field("dataType"))
        return X.Lit(_literal_value(n.field("value"), dtype), dtype)
    if n.cls in _CMP:
        return X.Cmp(_CMP[n.cls], kids[0], kids[1])
    if n.cls == "And":
        return X.and_(*kids)
    if n.cls == "Or":
        return X.or_(*kids)
    if n.cls == "Not":
        return X.Not(kids[0])
    if n.cls == "IsNull":
        return X.IsNull(kids[0])
    if n.cls == "IsNotNull":
        return X.IsNotNull(kids[0])
    if n.cls == "In":
        return X.In(kids[0], kids[1:])
    if n.cls in _ARITH:
        return X.Arith(_ARITH[n.cls], kids[0], kids[1], _arith_type(n.cls, kids))
    if n.cls == "UnaryMinus":
        return X.Neg(kids[0])
    if n.cls == "UnaryPositive":
        return kids[0]
    if n.cls == "CaseWhen":
        parts = tuple(to_expr(k, ctx) for k in n.kids)
        pairs = tuple((parts[i], parts[i + 1]) for i in range(0, len(parts) - 1, 2))
        default = parts[-1] if len(parts) % 2 == 1 else X.Lit(None, "null")
        return X.case_(pairs, default)
    if n.cls == "If":
        return X.case_(((kids[0], kids[1]),), kids[2])
    if n.cls == "Coalesce":
        return X.Coalesce(kids)
    if n.cls == "Cast":
        if n.field("evalMode") == "TRY":  # NULL where the value does not convert (capture/classic_plan.py)
            return X.Func(TRY_CAST, kids, spark_type(n.field("dataType")))
        if n.field("evalMode") == "MIXED":
            raise TranslateError("a try_cast and a cast in one step: which cast raises is not known")
        return X.Cast(kids[0], spark_type(n.field("dataType")))
    if n.cls == "Alias":
        return kids[0]
    if n.cls == "AggregateExpression":
        fn_node = n.kids[0]
        if n.field("filter"):
            raise TranslateError("aggregate with a FILTER clause: not analysed yet")
        args = tuple(to_expr(k, ctx) for k in fn_node.kids)
        if fn_node.cls == "PythonUDAF":
            return _pandas_aggregate(fn_node, args, ctx)
        # bool_or (some, any) and bool_and (every) are max and min over booleans (FALSE < TRUE,
        # NULLs skipped): one aggregate for the proofs, not two; Average is the IR's avg
        fn = {"bool_or": "max", "bool_and": "min", "average": "avg"}.get(_snake(fn_node.cls), _snake(fn_node.cls))
        if fn == "count" and all(isinstance(a, X.Lit) and a.value is not None for a in args):
            return X.Agg("count", None, "long", bool(n.field("isDistinct")))
        if fn in ("max_by", "min_by") and len(args) == 2:
            # the value of a row whose ordering value is the group's largest (smallest); which of
            # several tied rows Spark takes is not fixed, before or after a pushdown
            return X.Agg(fn, args[0], _type_of(args[0]), False, by=args[1])
        if len(args) != 1:
            raise TranslateError(f"aggregate {fn_node.cls} with {len(args)} arguments")
        dtype = {"count": "long", "avg": "double"}.get(fn, _type_of(args[0]))
        if fn == "sum" and dtype in ("int", "short", "byte"):
            dtype = "long"
        return X.Agg(fn, args[0], dtype, bool(n.field("isDistinct")))
    if n.cls == "PythonUDF":
        name = ctx.udf_name(n)
        udf = ctx.udfs.get(name)
        eval_type = int(n.field("evalType") or 100)
        return X.PyUdf(
            name=name,
            args=kids,
            dtype=spark_type(n.field("dataType")),
            source=udf.source if udf else None,
            deterministic=bool(n.field("udfDeterministic", True)) and (udf.deterministic if udf else True),
            kind="pandas" if 200 <= eval_type < 300 else "python",
            batch_dependent=_batch_dependent(eval_type, udf, kids, spark_type(n.field("dataType")), ctx),
            arrow=eval_type != _PICKLED_PYTHON_UDF,
        )
    if n.cls == "NaNvl":
        # fillna/na.fill on a double column: coalesce(nanvl(x, v), v); named as PySpark names it
        return X.Func("nanvl", kids, _type_of(kids[0]))
    if n.cls == "AtLeastNNonNulls":
        return at_least_non_null(int(n.field("n")), kids)
    return X.Func(
        name=_snake(n.cls),
        args=kids,
        dtype=spark_type(n.field("dataType")) if n.field("dataType") else _result_type(n.cls, kids),
        # a JVM UDF (an ML transformer's, a library's) says itself whether it is deterministic; it
        # is never written into a predicate (unwritten_call), so a filter only moves past it
        deterministic=n.cls in _DETERMINISTIC or n.cls == "ScalaUDF" and n.field("udfDeterministic", False) is True,
        params=function_params(n),
    )


def _pandas_aggregate(n: Node, args: tuple[X.Expr, ...], ctx: Context) -> X.Expr:
    """A grouped-aggregate pandas UDF: its body read as Spark's aggregates where it is one of the
    shapes translate/pandas_aggregate.py reads; else one opaque aggregate of its arguments."""
    from magicpush_lab.translate import pandas_aggregate, pandas_body

    udf = ctx.udfs.get(ctx.udf_name(n))
    dtype = spark_type(n.field("dataType"))
    deterministic = bool(n.field("udfDeterministic", True)) and (udf.deterministic if udf else True)
    if deterministic and not (udf and udf.int_extension_dtype):
        try:
            return pandas_aggregate.aggregate_of(udf.source if udf else None, args, dtype)
        except pandas_body.BodyNotRead:
            pass
    if len(args) != 1:
        raise TranslateError(f"aggregate {n.cls} with {len(args)} arguments")
    return X.Agg("python_udaf", args[0], dtype)


def at_least_non_null(n: int, args: tuple[X.Expr, ...]) -> X.Expr:
    """`dropna(thresh=n)`'s condition (Catalyst's AtLeastNNonNulls) in plain IR: at least `n`
    of the arguments are neither NULL nor, for floating-point ones, NaN.

    >>> a, b = X.Col("a", 1, "int"), X.Col("b", 2, "int")
    >>> str(at_least_non_null(2, (a, b)))
    '(CASE WHEN a IS NOT NULL THEN 1 ELSE 0 END + CASE WHEN b IS NOT NULL THEN 1 ELSE 0 END) >= 2'
    """
    def counted(e: X.Expr) -> X.Expr:
        present = X.IsNotNull(e)
        if X.dtype_of(e) in ("double", "float"):
            present = X.and_(present, X.Not(X.Func("isnan", (e,), "boolean")))
        return X.Case(((present, X.Lit(1, "int")),), X.Lit(0, "int"))

    if not args:
        return X.Lit(n <= 0, "boolean")
    total = counted(args[0])
    for e in args[1:]:
        total = X.Arith("+", total, counted(e), "int")
    return X.Cmp(">=", total, X.Lit(n, "int"))


# fields every expression's JSON has that say nothing of which function it is
_NOT_PARAMS = frozenset({"dataType", "nullable"})


def function_params(n: Node) -> str:
    """The fields of a function's Catalyst node besides its arguments, as canonical JSON ("" when
    none): a struct field's ordinal, a LIKE's escape character, a time zone. Catalyst's JSON
    gives each child as its index; an int field that may be such an index is kept only when
    the ints outnumber the children (then which is which is unclear, and keeping all is safe:
    it only makes two calls less alike).

    >>> from magicpush_lab.translate.plan_json import Node
    >>> kid = Node("AttributeReference", {}, (), 0)
    >>> function_params(Node("GetStructField", {"child": 0, "ordinal": 1, "name": "b"}, (kid,), 1))
    '{"name": "b", "ordinal": 1}'
    >>> function_params(Node("Upper", {"child": 0}, (kid,), 2))
    ''
    """
    def child_index(v: Any) -> bool:
        if isinstance(v, list):
            return all(child_index(x) for x in v)
        return isinstance(v, int) and not isinstance(v, bool) and 0 <= v < len(n.kids)

    fields = {k: v for k, v in n.fields.items() if k not in _NOT_PARAMS and not isinstance(v, Node)}
    indices = [k for k, v in fields.items() if child_index(v)]
    count = sum(len(v) if isinstance(v, list) else 1 for k, v in fields.items() if k in indices)
    if count <= len(n.kids):
        fields = {k: v for k, v in fields.items() if k not in indices}
    return json.dumps(fields, sort_keys=True, default=str) if fields else ""


# PythonEvalType.SQL_BATCHED_UDF: a row-at-a-time Python UDF whose values are pickled (101 is
# the Arrow-optimised one); its results are converted differently (symbolic/python_udf.py)
_PICKLED_PYTHON_UDF = 100

# PythonEvalType.SQL_SCALAR_PANDAS_UDF: the one pandas kind whose body may be element-wise
_SCALAR_PANDAS_UDF = 200


def _batch_dependent(eval_type: int, udf: Udf | None, args: tuple[X.Expr, ...], dtype: str,
                     ctx: Context) -> bool:
    """A vectorised UDF sees a batch of rows; unless its body reads as element-wise, a row's
    value may depend on the other rows of the batch (symbolic/pandas_udf.py)."""
    if not 200 <= eval_type < 300:
        return False
    if eval_type != _SCALAR_PANDAS_UDF or udf is None or ctx.pandas_body_reason is None:
        return True
    arg_types = tuple(_type_of(a) for a in args)
    if udf.int_extension_dtype and any(t in INTEGRAL for t in arg_types):
        # nullable Int series: pd.NA compares as NA, not False; the reader models NaN/None only
        return True
    return ctx.pandas_body_reason(udf.source, arg_types, dtype) is not None


def _is_group_fold(n: Node) -> bool:
    """aggregate(collect_list(x), zero, (acc, x) -> merge, r -> finish) inside a groupBy."""
    if len(n.kids) != 4:
        return False
    argument, _, merge, finish = n.kids
    return (argument.cls == "AggregateExpression" and not argument.field("isDistinct")
            and not argument.field("filter") and argument.kids[0].cls == "CollectList"
            and merge.cls == "LambdaFunction" and len(merge.kids) == 3
            and finish.cls == "LambdaFunction" and len(finish.kids) == 2)


def _fold(n: Node, ctx: Context) -> X.Expr:
    argument, zero, merge, finish = n.kids
    arg = to_expr(argument.kids[0].kids[0], ctx)
    body = X.FoldBody(zero=to_expr(zero, ctx), acc=to_expr(merge.kids[1], ctx), elem=to_expr(merge.kids[2], ctx),
                      merge=to_expr(merge.kids[0], ctx), result=to_expr(finish.kids[1], ctx),
                      finish=to_expr(finish.kids[0], ctx))
    return X.Agg("fold", arg, _type_of(body.finish), False, body)


# result types of common functions, which Catalyst's JSON does not write down
_RESULT_TYPES = {
    **dict.fromkeys("Length OctetLength BitLength Year Month DayOfMonth DayOfWeek WeekDay DayOfYear Hour "
                    "Minute Second Quarter WeekOfYear Size Ascii Levenshtein StringInstr StringLocate "
                    "DateDiff".split(), "int"),
    **dict.fromkeys("Upper Lower Substring Concat ConcatWs StringTrim StringTrimLeft StringTrimRight "
                    "RegExpExtract RegExpReplace StringReplace StringLPad StringRPad InitCap Reverse "
                    "SubstringIndex Base64 FormatNumber StringRepeat Md5 Sha1 Sha2 Hex "
                    "DateFormatClass".split(), "string"),
    **dict.fromkeys("StartsWith EndsWith Contains Like RLike ILike IsNaN ArrayContains AtLeastNNonNulls "
                    "InSet".split(), "boolean"),
    **dict.fromkeys("Sqrt Log Log10 Log2 Exp Pow".split(), "double"),
    **dict.fromkeys("CurrentDate DateAdd DateSub ParseToDate TruncDate MakeDate LastDay AddMonths".split(),
                    "date"),
    # _DETERMINISTIC_NEVER_WRITTEN's: a filter may compare their outputs as uninterpreted values
    **dict.fromkeys("ArrayJoin SplitPart StringTranslate Overlay SoundEx StringSpace FormatString Elt Bin Conv "
                    "RegExpSubStr GetJsonObject StructsToJson Decode".split(), "string"),
    **dict.fromkeys("RegExpCount RegExpInStr BitwiseCount UnixDate".split(), "int"),
    **dict.fromkeys("UnixSeconds UnixMillis UnixMicros TimestampDiff Factorial WidthBucket ArrayPosition".split(),
                    "long"),
    **dict.fromkeys("Cos Sin Tan Cot Acos Asin Atan Atan2 Sinh Cosh Tanh Cbrt Hypot Logarithm Log1p Expm1 Rint "
                    "ToDegrees ToRadians".split(), "double"),
    **dict.fromkeys("ArraysOverlap".split(), "boolean"),
    **dict.fromkeys("SecondsToTimestamp MillisToTimestamp MicrosToTimestamp FromUTCTimestamp ToUTCTimestamp "
                    "MakeTimestamp".split(), "timestamp"),
    **dict.fromkeys("DateFromUnixDate NextDay".split(), "date"),
}
_SAME_AS_FIRST_ARGUMENT = {"Abs", "Greatest", "Least", "Round", "BRound", "Signum", "Pmod", "NaNvl",
                           "TimeAdd", "TimestampAddInterval", "DatetimeSub", "TimestampAddYMInterval",
                           "ShiftLeft", "ShiftRight", "BitwiseAnd", "BitwiseOr", "BitwiseXor", "BitwiseNot"}


def _result_type(cls: str, kids: tuple[X.Expr, ...]) -> str:
    if cls in _SAME_AS_FIRST_ARGUMENT and kids:
        return _type_of(kids[0])
    return _RESULT_TYPES.get(cls, "other")


def _expr_id(n: Node) -> int:
    eid = n.field("exprId") or {}
    return int(eid.get("id", -1)) if isinstance(eid, dict) else -1


def _literal_value(raw: Any, dtype: str) -> X.Value:
    if raw is None:
        return None
    text = str(raw)
    if dtype in INTEGRAL:
        return int(text)
    if dtype in FRACTIONAL:
        return float(text.replace("Infinity", "inf"))
    if dtype == "boolean":
        return text == "true"
    if dtype == "date":
        # Catalyst stores dates as days since the epoch
        return dt.date(1970, 1, 1) + dt.timedelta(days=int(text)) if text.lstrip("-").isdigit() \
            else dt.date.fromisoformat(text)
    if dtype == "timestamp":
        if text.lstrip("-").isdigit():
            return dt.datetime(1970, 1, 1) + dt.timedelta(microseconds=int(text))
        return dt.datetime.fromisoformat(text)
    return text


def _arith_type(cls: str, kids: tuple[X.Expr, ...]) -> str:
    types = [_type_of(k) for k in kids]
    if cls == "Divide" or any(t in FRACTIONAL for t in types):
        return "double"
    decimals = [t for t in types if t.startswith("decimal")]
    if decimals:
        return decimals[0]
    if cls == "IntegralDivide" or "long" in types:
        return "long"
    return "int" if all(t in INTEGRAL for t in types) else "other"


def _type_of(e: X.Expr) -> str:
    return X.dtype_of(e)


# Catalyst classes whose PySpark function is not their name in snake case. Each takes its
# arguments in the class's child order (tests/test_function_names.py runs them both ways);
# a class missing here gets a name no function has, and a predicate using it is never
# written as code (rewrite/pyspark_column.spark_function refuses it).
_FUNCTION_NAMES = {"StartsWith": "startswith", "EndsWith": "endswith", "RegExpExtract": "regexp_extract",
                   "RegExpExtractAll": "regexp_extract_all", "RegExpReplace": "regexp_replace",
                   "RegExpCount": "regexp_count", "RegExpSubStr": "regexp_substr",
                   "RegExpInStr": "regexp_instr",
                   "DayOfMonth": "dayofmonth", "DayOfWeek": "dayofweek", "DayOfYear": "dayofyear",
                   "WeekDay": "weekday", "WeekOfYear": "weekofyear", "InitCap": "initcap",
                   "StringTrim": "trim", "StringTrimLeft": "ltrim", "StringTrimRight": "rtrim",
                   "StringLPad": "lpad", "StringRPad": "rpad", "StringInstr": "instr",
                   "StringRepeat": "repeat", "UnBase64": "unbase64", "XxHash64": "xxhash64",
                   "DateFormatClass": "date_format", "FromUnixTime": "from_unixtime",
                   "TruncDate": "trunc", "TruncTimestamp": "date_trunc", "StringLocate": "locate",
                   "IsNaN": "isnan", "StringSplit": "split"}


def _snake(name: str) -> str:
    """The PySpark function of a Catalyst expression class.

    >>> [_snake(c) for c in ("Upper", "RegExpExtract", "RLike", "StartsWith")]
    ['upper', 'regexp_extract', 'rlike', 'startswith']
    """
    if name in _FUNCTION_NAMES:
        return _FUNCTION_NAMES[name]
    out = []
    for i, ch in enumerate(name):
        if ch.isupper() and i and not name[i - 1].isupper():
            out.append("_")
        out.append(ch.lower())
    return "".join(out)


# ----------------------------------------------------------------------------- plans

_LEAVES = {"LogicalRelation", "LogicalRDD", "LocalRelation", "Range", "HiveTableRelation",
           "DataSourceV2Relation", "InMemoryRelation", "OneRowRelation", "LogicalRelationWithTable"}
_PASS_THROUGH = {"SubqueryAlias", "ResolvedHint", "View"}
# row order and placement only; a Sort under a limit never gets here, the limit is a barrier
_REORDER = {"Sort", "Repartition", "RepartitionByExpression", "RebalancePartitions"}


def to_plan(n: Node, ctx: Context) -> P.Plan:
    """Translate a plan node and everything below it."""
    if n.key not in ctx.scanned:
        # before any expression above an aggregate is read: its struct extrema's fields are
        # columns of their own wherever they are read (_to_expr)
        _scan_struct_extrema(n, ctx)
    origin = ctx.origin_of(n)
    if origin is not None and origin in ctx.rebuilt:
        return ctx.rebuilt[origin](n, ctx)
    if origin is not None and origin in ctx.source_events:
        return P.Source(_source_name(n), output_of(n), origin)
    if n.cls in _LEAVES or not n.kids:
        return P.Source(_source_name(n), output_of(n), origin)
    if n.cls in _PASS_THROUGH:
        inner = to_plan(n.kids[0], ctx)
        return inner if origin is None else _with_origin(inner, origin)
    try:
        return _operator(n, ctx, origin)
    except TranslateError as err:
        return P.Other(tuple(to_plan(k, ctx) for k in n.kids), output_of(n), str(err), origin)


def _operator(n: Node, ctx: Context, origin: int | None) -> P.Plan:
    if n.cls == "Opaque":  # a Spark Connect relation the trace could not resolve (capture/connect_plan/)
        raise TranslateError(str(n.field("reason") or "a relation the trace could not read"))
    if n.cls == "Filter":
        return P.Filter(to_plan(n.kids[0], ctx), to_expr(expression(n.field("condition")), ctx), origin)
    if n.cls == "Project" and n.kids[0].cls == "Aggregate" and _pivot_firsts(n.kids[0]):
        return _pivot(n, ctx, origin)
    if n.cls == "Project":
        outputs = tuple(_named(e, ctx) for e in expressions(n.field("projectList")))
        looping = _side_input_calls(outputs, ctx)
        if looping:
            return _row_iter(to_plan(n.kids[0], ctx), outputs, looping, ctx, origin)
        return P.Project(to_plan(n.kids[0], ctx), outputs, origin)
    if n.cls == "Aggregate":
        keys = tuple(to_expr(e, ctx) for e in expressions(n.field("groupingExpressions")))
        outputs = tuple(o for e in expressions(n.field("aggregateExpressions"))
                        for o in (_struct_extremum_outputs(e, ctx) or _sorted_list_outputs(e, ctx)
                                  or (_named(e, ctx),)))
        return P.Aggregate(to_plan(n.kids[0], ctx), keys, outputs, origin)
    if n.cls == "GlobalLimit":
        return _top_k(n, ctx, origin)
    if n.cls == "Expand":
        if n.field("projections") is None:
            raise TranslateError("Expand whose projections the plan does not show")
        output = output_of(n)
        projections = tuple(tuple(to_expr(e, ctx) for e in expressions(row)) for row in n.field("projections"))
        if any(len(p) != len(output) for p in projections):
            raise TranslateError("Expand: projections do not match its output")
        return P.Expand(to_plan(n.kids[0], ctx), projections, output, origin)
    if n.cls == "Generate" and _is_stack(n):
        return _stack(n, ctx, origin)
    if n.cls == "Generate":
        if n.field("unrequiredChildIndex"):
            raise TranslateError("generate that drops input columns: not analysed yet")
        generator = expression(n.field("generator"))
        generated = tuple(c for c in (to_expr(e, ctx) for e in expressions(n.field("generatorOutput")))
                          if isinstance(c, X.Col))
        array = None
        # over an array, explode makes one column and posexplode two; over a map, one more (the key)
        if generator is not None and generator.kids and \
                len(generated) == {"Explode": 1, "PosExplode": 2}.get(generator.cls, -1):
            array = to_expr(generator.kids[0], ctx)
        return P.RowExpand(to_plan(n.kids[0], ctx), _snake(generator.cls) if generator else "generate",
                           generated, bool(n.field("outer")), origin, array)
    if n.cls == "Window":
        return _window(n, ctx, origin)
    if n.cls == "FlatMapGroupsInPandas":
        return _grouped_map(n, ctx, origin)
    if n.cls in ("LocalLimit", "Offset", "Tail"):
        raise TranslateError(f"{n.cls}: which rows are kept depends on the order")
    if n.cls in _REORDER:
        return P.Reorder(to_plan(n.kids[0], ctx), n.cls, origin)
    if n.cls == "Union":
        if n.field("byName") or n.field("allowMissingCol"):
            raise TranslateError("union by name: not analysed yet")
        inputs = tuple(to_plan(k, ctx) for k in n.kids)
        if not inputs[0].output or any(len(i.output) != len(inputs[0].output) for i in inputs):
            raise TranslateError("union: input columns unknown")
        return P.Union(inputs, inputs[0].output, origin)
    if n.cls == "Join":
        join_type = str((n.field("joinType") or {}).get("object", "")).rsplit(".", 1)[-1].rstrip("$")
        if join_type not in ("Inner", "Cross", "LeftOuter", "RightOuter", "FullOuter", "LeftSemi", "LeftAnti"):
            raise TranslateError(f"{join_type or 'this'} join: not analysed yet")
        cond = expression(n.field("condition"))
        condition = to_expr(cond, ctx) if cond is not None else X.TRUE
        left, right = to_plan(n.kids[0], ctx), to_plan(n.kids[1], ctx)
        if join_type in ("Inner", "Cross"):  # a cross join is an inner join on TRUE
            return P.InnerJoin(left, right, condition, origin)
        if join_type in ("LeftSemi", "LeftAnti"):
            return P.SemiJoin(left, right, condition, join_type == "LeftAnti", origin)
        if join_type == "FullOuter":
            return P.OuterJoin(left, right, condition, "both", origin)
        return P.OuterJoin(left, right, condition, "left" if join_type == "LeftOuter" else "right", origin)
    if n.cls in ("Deduplicate", "Distinct"):
        return _distinct(n, ctx, origin)
    raise TranslateError(_BARRIERS.get(n.cls, f"{n.cls}: no pushdown analysis for this operator yet"))


# Why an operator stops every pushdown, in the PySpark user's words (shown in the panel's notes)
_BARRIERS = {
    "Sample": "sample/randomSplit/sampleBy: which rows are drawn depends on the rows before it, "
              "so no filter can move below it",
    "MapInPandas": "mapInPandas: the function sees whole batches of rows and its body is not analysed",
    "PythonMapInArrow": "mapInArrow: the function sees whole batches of rows and its body is not analysed",
    "MapInArrow": "mapInArrow: the function sees whole batches of rows and its body is not analysed",
    "CollectMetrics": "observe: its metrics count the rows that reach it, which a filter moved below it "
                      "would change",
    "Intersect": "intersect/intersectAll: set operations are not analysed yet",
    "Except": "subtract/exceptAll: set operations are not analysed yet",
    "FlatMapCoGroupsInPandas": "cogroup().applyInPandas: the function's body is not analysed",
    "FlatMapGroupsInArrow": "applyInArrow: the function's body is not analysed",
    "DeduplicateWithinWatermark": "dropDuplicatesWithinWatermark: streaming deduplication is not analysed",
    "AttachDistributedSequence": "zipWithIndex, or the pandas API on Spark's default index: each row's index "
                                 "counts the rows before it, which a filter moved below it would change "
                                 "(a pandas-on-Spark read with index_col= has no such index)",
    "LateralJoin": "lateralJoin: a correlated join is not analysed yet",
    "NearestByJoin": "nearestByJoin: each row keeps its top matches among the whole other input: "
                     "not analysed yet",
    "Deduplicate": "dropDuplicates over columns the plan does not show: not analysed",
}


def _distinct(n: Node, ctx: Context, origin: int | None) -> P.Plan:
    """distinct() and dropDuplicates() over every column: a GroupBy whose keys are all the columns
    (Spark's own rewrite of DISTINCT). On a subset of the columns, as Spark rewrites it too, a
    GroupBy on the subset whose other columns are `first` of the group: one arbitrary row's
    values (`deduplicate`), so only filters keeping or dropping whole groups move below it."""
    child = to_plan(n.kids[0], ctx)
    keys = tuple(to_expr(e, ctx) for e in expressions(n.field("keys"))) if n.cls == "Deduplicate" \
        else child.output
    if not child.output or not set(keys) <= set(child.output):
        raise TranslateError(_BARRIERS["Deduplicate"])
    if set(keys) == set(child.output):
        return P.Aggregate(child, tuple(child.output), tuple((c, c) for c in child.output), origin)
    outputs = tuple((c, c) if c in keys else (c, function_of_keys(child, c, set(keys)) or X.Agg("first", c, c.dtype))
                    for c in child.output)
    return P.Aggregate(child, tuple(k for k in child.output if k in keys), outputs, origin, deduplicate=True)


def function_of_keys(child: P.Plan, col: X.Col, keys: set[X.Col]) -> X.Expr | None:
    """`col` as a deterministic expression of `keys` alone, when a projection below `child`
    computes it so (through filters, reorderings and projections passing it on): every row of
    a group then has the same value, and `first` of the group is that expression of its keys.
    `word_count = udf(text)` below `dropDuplicates(["text"])` is `udf(text)` of the group, also
    through an earlier `dropDuplicates(["title", "text"])`, which read it so itself.

    >>> t, n = X.Col("t", 1, "string"), X.Col("n", 2, "int")
    >>> counted = P.Project(P.Source("s", (t,)), ((t, t), (n, X.Func("length", (t,), "int"))))
    >>> str(function_of_keys(P.Filter(counted, X.TRUE), n, {t})), function_of_keys(counted, n, set())
    ('length(t)', None)
    """
    node = child
    while isinstance(node, (P.Filter, P.Reorder, P.Project, P.Aggregate)):
        if isinstance(node, (P.Project, P.Aggregate)):
            made = dict(node.outputs).get(col)
            if made is None or any(isinstance(n, X.Agg) for n in X.walk(made)):
                return None
            if made != col:
                # the key columns it reads are the group's own: the same ids, so the same values
                fits = X.columns(made) <= keys and X.first_nondeterministic(made) is None
                return made if fits else None
        node = node.child
    return None


def _grouped_map(n: Node, ctx: Context, origin: int | None) -> P.Plan:
    """groupBy(keys).applyInPandas(fn, schema): fn's body read as a sub-plan (translate/pandas_body.py).

    The function receives the PythonUDF's argument columns; Spark assigns the returned
    frame's columns to the schema by label (or by position when that is turned off), so
    the body must return the schema's columns under their names and in their order,
    where both ways agree.
    """
    from magicpush_lab.translate import pandas_body

    udf_node = expression(n.field("functionExpr"))
    if udf_node is None or udf_node.cls != "PythonUDF":
        raise TranslateError("applyInPandas without a Python function in the plan")
    if int(udf_node.field("evalType") or 0) != 201:  # SQL_GROUPED_MAP_PANDAS_UDF: fn(pdf) -> pdf
        raise TranslateError("applyInPandas in a form other than fn(pdf) -> pdf")
    name = ctx.udf_name(udf_node)
    udf = ctx.udfs.get(name)
    if not bool(udf_node.field("udfDeterministic", True)) or (udf is not None and not udf.deterministic):
        raise TranslateError(f"applyInPandas function {name} is nondeterministic")
    inputs = tuple(to_expr(k, ctx) for k in udf_node.kids)
    if not all(isinstance(c, X.Col) for c in inputs) or len({c.name for c in inputs}) != len(inputs):
        raise TranslateError("applyInPandas over columns the body cannot name")
    try:
        body = pandas_body.body_plan(udf.source if udf else None, inputs)  # type: ignore[arg-type]
    except pandas_body.BodyNotRead as err:
        raise TranslateError(f"applyInPandas body of {name} not analysed: {err}") from err
    output = output_of(n)
    if [c.name for c in body.output] != [c.name for c in output]:
        raise TranslateError(f"applyInPandas body of {name} returns columns {[c.name for c in body.output]},"
                             f" not the schema's {[c.name for c in output]}")
    keys = tuple(to_expr(e, ctx) for e in expressions(n.field("groupingAttributes")))
    return P.GroupedMap(to_plan(n.kids[0], ctx), keys, body, output, origin, udf.source if udf else None)


def _side_input_calls(outputs: tuple[tuple[X.Col, X.Expr], ...], ctx: Context) -> list[X.PyUdf]:
    """Calls of Python UDFs that read a collected table, in the projection's outputs."""
    calls = []
    for _, e in outputs:
        for x in X.walk(e):
            udf = ctx.udfs.get(x.name) if isinstance(x, X.PyUdf) else None
            if udf is not None and udf.side_inputs and x not in calls:
                calls.append(x)
    return calls


def _row_iter(child: P.Plan, outputs: tuple[tuple[X.Col, X.Expr], ...], calls: list[X.PyUdf], ctx: Context,
              origin: int | None) -> P.Plan:
    """A projection whose UDF loops over a collected table: the paper's RowIterPipeline."""
    if len(calls) != 1:
        raise TranslateError("several UDFs over collected tables in one projection: not analysed yet")
    call = calls[0]
    side = ctx.udfs[call.name].side_inputs
    if len(side) != 1 or side[0][1] not in ctx.collected:
        raise TranslateError(f"UDF {call.name} reads several collected tables, or one not traced: "
                             "not analysed yet")
    if not any(e == call for _, e in outputs):
        raise TranslateError(f"UDF {call.name} over a collected table inside a larger expression: "
                             "not analysed yet")
    name, event = side[0]
    return P.RowIterPipeline(child, call, ctx.collected[event], outputs, name, origin)


def _is_stack(n: Node) -> bool:
    generator = expression(n.field("generator"))
    return generator is not None and generator.cls == "Stack" and not n.field("unrequiredChildIndex")


def _stack(n: Node, ctx: Context, origin: int | None) -> P.Plan:
    """stack(n, v1, v2, ...): the values in rows of len/n columns, NULL-padded; with the input
    columns in front, each row is a projection of the input row, as in an Expand."""
    generator = expression(n.field("generator"))
    count, *values = generator.kids
    if count.cls != "Literal" or int(count.field("value")) < 1:
        raise TranslateError("stack with a row count that is not a positive literal")
    child = to_plan(n.kids[0], ctx)
    generated = tuple(c for c in (to_expr(e, ctx) for e in expressions(n.field("generatorOutput")))
                      if isinstance(c, X.Col))
    rows, width = int(count.field("value")), len(generated)
    cells = [to_expr(v, ctx) for v in values]
    if not generated or width * rows < len(cells) or bool(n.field("outer")):
        raise TranslateError("stack in a form not analysed")
    cells += [X.Lit(None, "null")] * (width * rows - len(cells))
    projections = tuple(tuple(child.output) + tuple(cells[i * width:(i + 1) * width]) for i in range(rows))
    return P.Expand(child, projections, child.output + generated, origin)


# the smallest value of each integral type: where a struct's first field is NULL, the struct
# orders first (Spark orders NULL fields first), as this value does (a tie with it is a free
# choice of the proofs, like every tie of max_by/min_by)
_SMALLEST = {"byte": -(1 << 7), "short": -(1 << 15), "int": -(1 << 31), "long": -(1 << 63)}


def _struct_extremum(e: Node) -> tuple[str, list[Node], list[Node]] | None:
    """`min(struct(f1, f2, ...)) AS c` (or max) as ("min_by", names, values), when the struct's
    first field is an integer: the row whose fields c holds is the one whose first field is the
    smallest (largest), NULLs first, ties between equal first fields broken by the next fields.
    None for anything else."""
    if e.cls != "Alias" or not e.kids or e.kids[0].cls != "AggregateExpression":
        return None
    agg = e.kids[0]
    if agg.field("filter") or agg.field("isDistinct") or not agg.kids or agg.kids[0].cls not in ("Min", "Max"):
        return None
    struct = agg.kids[0].kids[0] if agg.kids[0].kids else None
    if struct is None or struct.cls != "CreateNamedStruct" or len(struct.kids) < 2 or len(struct.kids) % 2:
        return None
    names, values = list(struct.kids[0::2]), list(struct.kids[1::2])
    first_type = spark_type(values[0].field("dataType")) if values[0].field("dataType") else None
    if values[0].cls != "AttributeReference" or first_type not in _SMALLEST:
        return None
    return ("min_by" if agg.kids[0].cls == "Min" else "max_by"), names, values


def _scan_struct_extrema(n: Node, ctx: Context) -> None:
    """Give the fields of each struct extremum, and the first two items of each sorted list, in
    the plan below `n` their columns."""
    for node in _walk(n):
        if node.key in ctx.scanned:
            continue
        ctx.scanned.add(node.key)
        if node.cls != "Aggregate":
            continue
        for e in expressions(node.field("aggregateExpressions")):
            listed = _sorted_list(e)
            if listed is not None and _expr_id(e) not in ctx.struct_fields:
                dtype = spark_type(listed[1].field("dataType"))
                ctx.struct_fields[_expr_id(e)] = {
                    i: X.Col(f"get({e.field('name')}, {i})", _field_id(_expr_id(e), i), dtype) for i in (0, 1)}
                continue
            found = _struct_extremum(e)
            if found is not None and _expr_id(e) not in ctx.struct_fields:
                _, names, values = found
                ctx.struct_fields[_expr_id(e)] = {
                    i: X.Col(f"{e.field('name')}.{name.field('value')}", _field_id(_expr_id(e), i),
                             spark_type(v.field("dataType")) if v.field("dataType") else "other")
                    for i, (name, v) in enumerate(zip(names, values))}


def _field_id(struct_id: int, ordinal: int) -> int:
    """A column id for a struct extremum's field, apart from Spark's exprIds."""
    return X.STRUCT_FIELD_IDS + struct_id * 256 + ordinal


_SORTABLE = frozenset({"byte", "short", "int", "long", "float", "double"})


def _sorted_list(e: Node) -> tuple[bool, Node] | None:
    """`sort_array(collect_list(x), asc) AS s` for a number column x: (asc, x); None otherwise."""
    if e.cls != "Alias" or not e.kids or e.kids[0].cls != "SortArray" or len(e.kids[0].kids) != 2:
        return None
    listed, order = e.kids[0].kids
    if listed.cls != "AggregateExpression" or listed.field("filter") or listed.field("isDistinct") \
            or not listed.kids or listed.kids[0].cls != "CollectList" or order.cls != "Literal":
        return None
    item = listed.kids[0].kids[0] if listed.kids[0].kids else None
    if item is None or item.cls != "AttributeReference" or not item.field("dataType") \
            or spark_type(item.field("dataType")) not in _SORTABLE:
        return None
    return str(order.field("value")).lower() == "true", item


def _sorted_list_outputs(e: Node, ctx: Context) -> tuple[tuple[X.Col, X.Expr], ...] | None:
    """The first two items of `sort_array(collect_list(x), asc)`: the max (min) of x and the
    second largest (smallest) value, counting equal values apart; collect_list skips NULLs, and
    an item past the end is NULL (get())."""
    found = _sorted_list(e)
    items = ctx.struct_fields.get(_expr_id(e))
    if found is None or items is None:
        return None
    asc, item = found
    x = to_expr(item, ctx)
    first, second = ("min", "second_min") if asc else ("max", "second_max")
    return ((items[0], X.Agg(first, x, _type_of(x))), (items[1], X.Agg(second, x, _type_of(x))))


def _struct_extremum_outputs(e: Node, ctx: Context) -> tuple[tuple[X.Col, X.Expr], ...] | None:
    """The outputs of `min(struct(f1, ...)) AS c`: each field, a column of its own, is max_by/
    min_by of that field ordered by the first field with NULL first. Ties on the first field are
    broken by the others in Spark; the proofs let either row win a tie, which covers that."""
    found = _struct_extremum(e)
    fields = ctx.struct_fields.get(_expr_id(e))
    if found is None or fields is None:
        return None
    fn, _, values = found
    args = [to_expr(v, ctx) for v in values]
    first = args[0]
    order = X.case_(((X.IsNull(first), X.Lit(_SMALLEST[first.dtype], first.dtype)),), first)
    return tuple((fields[i], X.Agg(fn, a, _type_of(a), False, by=order)) for i, a in enumerate(args))


def _pivot_firsts(n: Node) -> list[Node]:
    return [x for e in expressions(n.field("aggregateExpressions")) for x in _walk(e) if x.cls == "PivotFirst"]


def _walk(n: Node):
    yield n
    for k in n.kids:
        yield from _walk(k)


def _pivot(n: Node, ctx: Context, origin: int | None) -> P.Plan:
    """groupBy(k).pivot(p, values).agg(a) as one GroupBy with an aggregate per pivot value.

    Spark computes a(...) per (k, p) group, gathers the per-value results into an
    array (PivotFirst) and reads one array slot per output column. Slot i is the
    aggregate over the group's rows whose p is null-safe equal to value i, and NULL
    when there are none; `a(CASE WHEN p <=> value_i THEN x END)` is exactly that for
    the aggregates that skip NULLs and give NULL on no input (sum, max, min, avg,
    first...), and count needs the explicit "no rows" case.
    """
    outer = n.kids[0]
    inner = outer.kids[0]
    if inner.cls != "Aggregate":
        raise TranslateError("pivot in a form not analysed")
    below = dict(_named(e, ctx) for e in expressions(inner.field("aggregateExpressions")))
    slots: dict[int, tuple[X.Expr, X.Agg, tuple[X.Expr, ...]]] = {}
    for e in expressions(outer.field("aggregateExpressions")):
        if e.cls != "Alias" or e.kids[0].cls != "AggregateExpression" or e.kids[0].kids[0].cls != "PivotFirst":
            continue
        pivot_first = e.kids[0].kids[0]
        values = pivot_first.field("pivotColumnValues")
        if values is None:
            raise TranslateError("pivot whose values the plan does not show")
        pivot_col, value_col = (to_expr(k, ctx) for k in pivot_first.kids)
        agg = below.get(value_col) if isinstance(value_col, X.Col) else None
        if not isinstance(agg, X.Agg):
            raise TranslateError("pivot over an aggregate expression: not analysed yet")
        slots[_expr_id(e)] = (X.substitute(pivot_col, below), agg,
                              tuple(to_expr(expression(v), ctx) for v in values))
    keys = tuple(X.substitute(to_expr(k, ctx), below) for k in expressions(outer.field("groupingExpressions")))
    outputs = []
    for e in expressions(n.field("projectList")):
        if e.cls == "AttributeReference":
            col = to_expr(e, ctx)
            outputs.append((col, X.substitute(col, below)))
            continue
        item = e.kids[0] if e.cls == "Alias" else None
        if item is None or item.cls != "GetArrayItem" or item.kids[1].cls != "Literal":
            raise TranslateError("pivot in a form not analysed")
        pivot_col, agg, values = slots[_expr_id(item.kids[0])]
        value = _pivot_slot(agg, X.Cmp("<=>", pivot_col, values[int(item.kids[1].field("value"))]))
        outputs.append((X.Col(e.field("name"), _expr_id(e), agg.dtype), value))
    return P.Aggregate(to_plan(inner.kids[0], ctx), keys, tuple(outputs), origin, pivot=True)


def _pivot_slot(agg: X.Agg, chosen: X.Expr) -> X.Expr:
    none = X.Lit(None, "null")
    if agg.fn != "count":
        if agg.by is not None:
            raise TranslateError(f"a pivot of {agg.fn}: not read yet")
        return X.Agg(agg.fn, X.Case(((chosen, agg.arg),), none), agg.dtype, agg.distinct)
    rows = X.Agg("count", X.Case(((chosen, X.Lit(1, "int")),), none), "long")
    counted = X.Agg("count", X.Case(((chosen, agg.arg if agg.arg is not None else X.Lit(1, "int")),), none),
                    "long", agg.distinct)
    return X.Case(((X.Cmp(">", rows, X.Lit(0, "long")), counted),), none)


def _inline_helpers(partition: tuple[X.Expr, ...], child: P.Plan) -> tuple[X.Expr, ...]:
    """Spark partitions (and orders) by an expression, and passes it to a window function, through
    a helper column (`upper(s) AS _w0`) it adds just below the window; read the expression back
    when its inputs pass through unchanged."""
    if not isinstance(child, P.Project):
        return partition
    defined = {c: e for c, e in child.outputs if e != c}
    inlined = tuple(X.substitute(k, defined) for k in partition)
    ok = all(X.columns(k) <= set(child.output) for k in inlined)
    return inlined if ok else partition


def _window(n: Node, ctx: Context, origin: int | None) -> P.Window:
    """A Window node: its partition and order keys and, per computed column, the function and
    the frame of rows it reads (ir/plan.WindowCall)."""
    child = to_plan(n.kids[0], ctx)
    partition = tuple(to_expr(e, ctx) for e in expressions(n.field("partitionSpec")))
    order = _sort_order(n.field("orderSpec"), ctx)
    computed, calls = [], []
    for e in expressions(n.field("windowExpressions")):
        if e.cls != "Alias":
            raise TranslateError("unnamed window expression")
        call = _window_call(e.kids[0], ctx)
        computed.append(X.Col(e.field("name"), _expr_id(e), call.dtype if call else "other"))
        calls.append(call)
    keys = _inline_helpers(partition + tuple(k for k, _, _ in order), child)
    inlined_order = tuple((k, asc, nulls) for k, (_, asc, nulls) in zip(keys[len(partition):], order))
    if all(calls):  # arguments too go through helper columns (`when(...) AS _w0`)
        calls = [replace(c, args=_inline_helpers(c.args, child)) for c in calls]
    return P.Window(child, keys[:len(partition)], tuple(computed), origin, inlined_order,
                    tuple(calls) if all(calls) else ())  # type: ignore[arg-type]


# window functions whose value counts the whole partition whatever their frame says
_WHOLE_PARTITION = {"PercentRank", "CumeDist", "NTile"}
_RANKS = {"RowNumber": "int", "Rank": "int", "DenseRank": "int", "NTile": "int",
          "PercentRank": "double", "CumeDist": "double"}


def _window_call(n: Node, ctx: Context) -> P.WindowCall | None:
    """`fn(...) OVER (... frame)` as a WindowCall; None when the expression is not a
    WindowExpression with a frame the plan shows (then the window reads whole partitions)."""
    if n.cls != "WindowExpression" or len(n.kids) != 2:
        return None
    fn_node, spec = n.kids
    frame = next((k for k in spec.kids if k.cls == "SpecifiedWindowFrame"), None)
    inner = fn_node.kids[0] if fn_node.cls == "AggregateExpression" and fn_node.kids else fn_node
    args = tuple(to_expr(k, ctx) for k in inner.kids)
    name = _snake(inner.cls)
    dtype = _RANKS.get(inner.cls) or _window_type(name, args)
    lower = upper = None
    rows = True
    if frame is not None and inner.cls not in _WHOLE_PARTITION and len(frame.kids) == 2:
        lower, upper = (_frame_bound(b) for b in frame.kids)
        rows = str((frame.field("frameType") or {}).get("object", "")).endswith("RowFrame$")
    skips = inner.cls in _SKIP_NULLS or (inner.cls in {"First", "Last"} and _true(inner.field("ignoreNulls")))
    return P.WindowCall(name, args, lower, upper, rows, dtype, skips)


# aggregate functions whose value reads only the non-NULL values of their argument
_SKIP_NULLS = {"Sum", "Min", "Max", "Average", "Count", "CollectList", "CollectSet",
               "StddevSamp", "StddevPop", "VarianceSamp", "VariancePop"}


def _true(value: object) -> bool:
    return value is True or str(value).lower() == "true"


def _frame_bound(n: Node) -> int | None:
    """A frame bound as an offset from the current row (None: unbounded, or a bound whose
    direction the plan does not tell, which counts as reading the rows beyond it)."""
    if n.cls == "CurrentRow":
        return 0
    if n.cls == "Literal":
        try:
            value = float(str(n.field("value")))
        except ValueError:
            return None
        # only the side matters to the proofs; a fractional RANGE offset keeps its sign
        return int(value) if value.is_integer() else (1 if value > 0 else -1)
    return None


def _window_type(name: str, args: tuple[X.Expr, ...]) -> str:
    if name == "count":
        return "long"
    if name in ("average", "avg", "mean", "stddev", "variance"):
        return "double"
    first = _type_of(args[0]) if args else "other"
    if name == "sum" and first in INTEGRAL:
        return "long"
    return first


def _sort_order(entries: Any, ctx: Context) -> tuple[tuple[X.Expr, bool, bool], ...]:
    """SortOrder entries as (key, ascending, nulls first)."""
    order = []
    for entry in expressions(entries):
        direction = str((entry.field("direction") or {}).get("object", ""))
        nulls = str((entry.field("nullOrdering") or {}).get("object", ""))
        order.append((to_expr(entry.kids[0], ctx), direction.endswith("Ascending$"), nulls.endswith("NullsFirst$")))
    return tuple(order)


def _top_k(n: Node, ctx: Context, origin: int | None) -> P.Plan:
    local = n.kids[0]
    limit = expression(n.field("limitExpr"))
    if local.cls != "LocalLimit" or limit is None or limit.cls != "Literal":
        raise TranslateError("limit: not analysed in this form")
    sort = local.kids[0]
    if sort.cls != "Sort" or not sort.field("global"):
        # one barrier for the pair: Spark's LocalLimit below is the same limit, not a second reason
        return P.Other((to_plan(sort, ctx),), output_of(n),
                       "limit without a sort: which rows are kept depends on partitioning", origin)
    return P.TopK(to_plan(sort.kids[0], ctx), _sort_order(sort.field("order"), ctx), int(limit.field("value")),
                  origin)


def _named(e: Node, ctx: Context) -> tuple[X.Col, X.Expr]:
    if e.cls == "Alias":
        value = to_expr(e.kids[0], ctx)
        return X.Col(e.field("name"), _expr_id(e), _type_of(value)), value
    col = to_expr(e, ctx)
    if not isinstance(col, X.Col):
        raise TranslateError(f"unnamed projection {e.cls}")
    return col, col


def _with_origin(p: P.Plan, origin: int) -> P.Plan:
    from dataclasses import replace

    return replace(p, origin=origin)


def _source_name(n: Node) -> str:
    return {"LogicalRelation": "file", "LogicalRDD": "rdd", "LocalRelation": "local data",
            "Range": "range"}.get(n.cls, n.cls)


def output_of(n: Node) -> tuple[X.Col, ...]:
    """Output columns of a plan node, where the JSON tells them; () when it doesn't."""
    ctx = Context()
    if n.field("output"):
        return tuple(c for c in (to_expr(e, ctx) for e in expressions(n.field("output")))
                     if isinstance(c, X.Col))
    for name in ("projectList", "aggregateExpressions"):
        if n.field(name):
            cols = []
            for e in expressions(n.field(name)):
                if e.cls == "Alias":
                    cols.append(X.Col(e.field("name"), _expr_id(e), spark_type(e.kids[0].field("dataType"))))
                elif e.cls == "AttributeReference":
                    cols.append(to_expr(e, ctx))
            return tuple(cols)  # type: ignore[arg-type]
    if n.cls == "Join":
        return output_of(n.kids[0]) + output_of(n.kids[1])
    if n.cls == "Union" and n.kids:
        return output_of(n.kids[0])
    if n.cls == "Generate" and n.kids:
        return output_of(n.kids[0]) + tuple(
            c for c in (to_expr(e, Context()) for e in expressions(n.field("generatorOutput"))) if isinstance(c, X.Col))
    if n.cls == "Window" and n.kids:
        named = [e for e in expressions(n.field("windowExpressions")) if e.cls == "Alias"]
        return output_of(n.kids[0]) + tuple(X.Col(e.field("name"), _expr_id(e), "other") for e in named)
    if n.kids and n.cls in ("Filter", "Sort", "SubqueryAlias", "ResolvedHint", "Repartition",
                            "RepartitionByExpression", "RebalancePartitions", "Distinct", "GlobalLimit",
                            "LocalLimit", "Sample"):
        return output_of(n.kids[0])
    return ()


# the PySpark names of _DETERMINISTIC_NEVER_WRITTEN (what translation names their calls); a
# try_cast is written (Column.try_cast), as the same uninterpreted function of the same value
_NEVER_WRITTEN_NAMES = (frozenset(_snake(c) for c in _DETERMINISTIC_NEVER_WRITTEN) - {
    _snake(c) for c in _PREDICATE_FUNCTIONS}) | {_snake("ScalaUDF")}  # a JVM UDF has no PySpark code
