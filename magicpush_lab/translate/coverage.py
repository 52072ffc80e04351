"""What each public method of PySpark's DataFrame, GroupedData and DataFrameNaFunctions
becomes in the IR, as data: docs/pyspark_coverage.md is generated from it
(scripts/coverage_table.py) and a test checks it names every public method of the
installed PySpark, so the table cannot silently fall behind.

An entry is the paper's operator name(s) the call becomes (`P.operator_name`),
PASS_THROUGH, INSPECTION, or the barrier's reason. Spark often adds a projection
around an operator (a join on a column name keeps the key once); such DropColumn
and RowTransform nodes are not repeated here.

>>> COVERAGE["DataFrame"]["filter"]
'Filter'
"""

from __future__ import annotations

PASS_THROUGH = "pass-through"
INSPECTION = "inspection (not part of the pipeline)"
NOT_A_STEP = "not a pipeline step"

_SET_OPS = "barrier: set operations are not analysed yet"
_SAMPLE = "barrier: which rows are drawn depends on the rows before it"
_WRITES = f"{INSPECTION}: every row is written out, so no filter goes below it in place"
_UNTRACED = "not traced: the result looks like a new source with no place in the notebook"

COVERAGE: dict[str, dict[str, str]] = {
    "DataFrame": {
        "agg": "GroupBy (no keys)",
        "alias": PASS_THROUGH,
        "approxQuantile": INSPECTION,
        "asTable": f"{NOT_A_STEP} (a table argument for table-valued functions)",
        "cache": PASS_THROUGH,
        "checkpoint": "Source: the checkpointed rows are read back; a filter goes right after the call",
        "coalesce": "Reorder",
        "colRegex": f"{NOT_A_STEP} (a Column; the select using it becomes DropColumn)",
        "collect": INSPECTION,
        "columns": INSPECTION,
        "corr": INSPECTION,
        "count": INSPECTION,
        "cov": INSPECTION,
        "createGlobalTempView": f"{NOT_A_STEP} (names the DataFrame for SQL)",
        "createOrReplaceGlobalTempView": f"{NOT_A_STEP} (names the DataFrame for SQL)",
        "createOrReplaceTempView": f"{NOT_A_STEP} (names the DataFrame for SQL)",
        "createTempView": f"{NOT_A_STEP} (names the DataFrame for SQL)",
        "crossJoin": "InnerJoin (condition TRUE)",
        "crosstab": "Pivot of a count, then RowTransform (the NULL counts filled with 0)",
        "cube": "GroupBy over UnPivot (one row per grouping set), with `.agg`",
        "describe": INSPECTION,
        "distinct": "GroupBy (every column a key)",
        "drop": "DropColumn",
        "dropDuplicates": "GroupBy (every column a key); on a subset of the columns Deduplicate (a GroupBy on "
                          "the subset keeping one arbitrary row per key: filters on the subset only)",
        "dropDuplicatesWithinWatermark": "barrier: streaming deduplication is not analysed",
        "drop_duplicates": "as dropDuplicates",
        "dropna": "Filter",
        "dtypes": INSPECTION,
        "exceptAll": _SET_OPS,
        "executionInfo": INSPECTION,
        "exists": f"{NOT_A_STEP} (a Column: an EXISTS subquery)",
        "explain": INSPECTION,
        "fillna": "RowTransform",
        "filter": "Filter",
        "first": INSPECTION,
        "foreach": INSPECTION,
        "foreachPartition": INSPECTION,
        "freqItems": "GroupBy (no keys)",
        "groupBy": "GroupedData: see its table",
        "groupby": "as groupBy",
        "groupingSets": "GroupBy over UnPivot (one row per grouping set), with `.agg`",
        "head": INSPECTION,
        "hint": PASS_THROUGH,
        "inputFiles": INSPECTION,
        "intersect": _SET_OPS,
        "intersectAll": _SET_OPS,
        "isEmpty": INSPECTION,
        "isLocal": INSPECTION,
        "isStreaming": INSPECTION,
        "join": "InnerJoin (inner, cross), LeftOuterJoin (left, leftouter, left_outer), RightOuterJoin "
                "(right, rightouter, right_outer), FullOuterJoin (full, outer, fullouter, full_outer), SemiJoin "
                "(semi, leftsemi, left_semi), AntiJoin (anti, leftanti, left_anti); on names, expressions "
                "or a list of expressions",
        "lateralJoin": "barrier: a correlated join is not analysed yet",
        "limit": "TopK after orderBy/sort; otherwise barrier: which rows are kept depends on partitioning",
        "localCheckpoint": "Source: the checkpointed rows are read back; a filter goes right after the call",
        "mapInArrow": "barrier: the function sees whole batches of rows and its body is not analysed",
        "mapInPandas": "barrier: the function sees whole batches of rows and its body is not analysed",
        "melt": "UnPivot",
        "mergeInto": f"{NOT_A_STEP} (writes a table)",
        "metadataColumn": f"{NOT_A_STEP} (a Column)",
        "na": "DataFrameNaFunctions: see its table",
        "nearestByJoin": "barrier: each row keeps its top matches among the whole other input",
        "observe": "barrier: its metrics count the rows that reach it",
        "offset": "barrier: which rows are kept depends on the order",
        "orderBy": "Reorder; TopK with a following limit",
        "pandas_api": INSPECTION,
        "persist": PASS_THROUGH,
        "plot": INSPECTION,
        "printSchema": INSPECTION,
        "randomSplit": _SAMPLE + " (each part is recorded, so the lineage is kept)",
        "rdd": "RowTransform (and a Filter for filter steps) when a DataFrame is made back with a schema "
               "(`toDF(\"a int, b string\")`, `createDataFrame(rdd, schema)`): map, filter and mapValues "
               "functions read as Python UDFs of the DataFrame's columns, checked as createDataFrame checks "
               "them; a flatMap whose elements are tuples repeating a field of the row is RowExpand (a filter "
               "on that field moves below); `reduceByKey(f)` after a map to a pair of the row's fields is a "
               "GroupBy whose aggregate is the fold of f, when Z3 proves f order-free and None-neutral; barrier "
               "when the types are inferred (column names only), for flatMapValues and for other steps that are "
               "not a function of one element (distinct, groupByKey...); "
               "a note names a black box in the user's lambda or function, with its cell and line",
        "registerTempTable": f"{NOT_A_STEP} (names the DataFrame for SQL)",
        "repartition": "Reorder",
        "repartitionById": "Reorder",
        "repartitionByRange": "Reorder",
        "replace": "RowTransform",
        "rollup": "GroupBy over UnPivot (one row per grouping set), with `.agg`",
        "sameSemantics": INSPECTION,
        "sample": _SAMPLE,
        "sampleBy": "Filter on a random value (nondeterministic: no filter is moved past it)",
        "scalar": f"{NOT_A_STEP} (a Column: a scalar subquery)",
        "schema": INSPECTION,
        "select": "RowTransform, or DropColumn when it only keeps columns; RowExpand for explode, "
                  "posexplode, explode_outer, inline; CumAggr for window functions (partition, order and "
                  "frame read); UnPivot for stack",
        "selectExpr": "as select",
        "semanticHash": INSPECTION,
        "show": INSPECTION,
        "sort": "Reorder; TopK with a following limit",
        "sortWithinPartitions": "Reorder",
        "sparkSession": INSPECTION,
        "sql_ctx": INSPECTION,
        "stat": f"{NOT_A_STEP} (DataFrameStatFunctions: crosstab, freqItems, sampleBy... as on DataFrame)",
        "storageLevel": INSPECTION,
        "subtract": _SET_OPS,
        "summary": INSPECTION,
        "tail": INSPECTION,
        "take": INSPECTION,
        "to": "RowTransform (casts to the schema)",
        "toArrow": INSPECTION,
        "toDF": "RowTransform (renames)",
        "toJSON": INSPECTION,
        "toLocalIterator": INSPECTION,
        "toPandas": INSPECTION + "; the pandas code after it is read for a filter (see \"pandas after toPandas()\")",
        "transform": "whatever the function's calls become (they are traced)",
        "transpose": "Source: Spark computes it eagerly, so the result is new data",
        "union": "Union (by position)",
        "unionAll": "Union (by position)",
        "unionByName": "Union (Spark reorders the second input's columns with a DropColumn)",
        "unpersist": PASS_THROUGH,
        "unpivot": "UnPivot",
        "where": "Filter",
        "withColumn": "RowTransform; RowExpand for explode and the like; CumAggr for window functions "
                      "(partition, order and frame read)",
        "withColumnRenamed": "RowTransform (renames)",
        "withColumns": "as withColumn",
        "withColumnsRenamed": "RowTransform (renames)",
        "withMetadata": "RowTransform",
        "withWatermark": PASS_THROUGH + " (in batch queries)",
        "write": _WRITES,
        "writeStream": _WRITES,
        "writeTo": _WRITES,
        "zip": "RowTransform or DropColumn (Spark resolves it to a projection of the shared input)",
        "zipWithIndex": "barrier: each row's index counts the rows before it",
    },
    "GroupedData": {
        "agg": "GroupBy (Column and dict forms; filters on keys with any aggregate, on max/min/count/sum/avg, "
               "bool_or/bool_and and max_by/min_by outputs as the rows no aggregate of a kept group reads; "
               "a grouped-aggregate pandas UDF whose body is sum/mean/max/min/count/len/any/all over masked "
               "series is read as those aggregates; min/max of a struct whose first field is an integer, read "
               "field by field, as max_by/min_by of each field; the first two items of "
               "sort_array(collect_list(x)) read with get(), as max/min and the second item; other bodies "
               "and collections stop a filter on their outputs); Pivot after pivot(); "
               "GroupBy over UnPivot after rollup, cube, groupingSets",
        "apply": "as applyInPandas (a function decorated with @pandas_udf is not read: barrier)",
        "applyInArrow": "barrier: the function's body is not analysed",
        "applyInPandas": "GroupedMap (the body read as a sub-plan); barrier with the reason when it cannot be read",
        "applyInPandasWithState": "not traced (streaming)",
        "avg": "GroupBy",
        "cogroup": "barrier: cogroup().applyInPandas / applyInArrow are traced with both inputs, "
                   "the function's body is not analysed",
        "count": "GroupBy",
        "max": "GroupBy",
        "mean": "GroupBy",
        "min": "GroupBy",
        "pivot": "Pivot, with `.agg` (filters on keys; on pivoted columns by aggregate: max/min, sum of a "
                 "double)",
        "sum": "GroupBy",
        "transformWithState": "not traced (streaming)",
        "transformWithStateInPandas": "not traced (streaming)",
    },
    "DataFrameNaFunctions": {
        "drop": "Filter",
        "fill": "RowTransform",
        "replace": "RowTransform",
    },
}


def installed_classes() -> dict[str, type]:
    """The installed PySpark's classes the table describes, by table name."""
    from pyspark.sql.classic.dataframe import DataFrame
    from pyspark.sql.dataframe import DataFrameNaFunctions
    from pyspark.sql.group import GroupedData

    return {"DataFrame": DataFrame, "GroupedData": GroupedData, "DataFrameNaFunctions": DataFrameNaFunctions}


def public_names(cls: type) -> list[str]:
    """Public attributes of a class: methods and properties alike (`na`, `rdd`, `write`).

    >>> public_names(type("T", (), {"a": 1, "_b": 2}))
    ['a']
    """
    return sorted(n for n in dir(cls) if not n.startswith("_"))


def missing(classes: dict[str, type] | None = None) -> dict[str, list[str]]:
    """Public names of the installed classes that the table does not describe."""
    classes = classes or installed_classes()
    out = {name: [m for m in public_names(cls) if m not in COVERAGE.get(name, {})] for name, cls in classes.items()}
    return {k: v for k, v in out.items() if v}


def markdown() -> str:
    """docs/pyspark_coverage.md."""
    lines = [
        "# PySpark coverage",
        "",
        "What each public method of `DataFrame`, `GroupedData` and `DataFrameNaFunctions` becomes in",
        "the pipeline's IR: the paper's operator name, *pass-through* (no node), *inspection* (recorded",
        "apart, never a pipeline step), or a barrier with its reason (nothing is pushed through a",
        "barrier). Generated by `python scripts/coverage_table.py --write` from",
        "`magicpush_lab/translate/coverage.py`; tests/test_api_families.py runs one case per family.",
        "",
    ]
    for cls, entries in COVERAGE.items():
        lines += [f"## {cls}", "", "| method | becomes |", "|---|---|"]
        lines += [f"| `{m}` | {text.replace('|', '/')} |" for m, text in sorted(entries.items())]
        lines.append("")
    return "\n".join(lines + PANDAS_LINES)


# pandas code is not a method table: what translate/pandas_tail.py and pushdown/pandas_tail.py read
PANDAS_LINES = [
    "## pandas after toPandas()",
    "",
    "`pdf = df.toPandas()` followed, in the same cell or later ones, by pandas code that filters",
    "`pdf` (or `top = df.toPandas().query(...)` in one statement): the statements from `pdf` to its first filter are read as a sub-pipeline over `df`'s",
    "columns, and the filter's Spark counterpart is pushed into `df`'s pipeline (or, where it cannot",
    "pass `df`'s own steps, put right before the call: `df.filter(G).toPandas()`); the pandas filter",
    "stays (docs/semantics.md, \"pandas after toPandas()\").",
    "",
    "| pandas | becomes |",
    "|---|---|",
    "| `pdf[mask]`, `pdf.loc[mask]`, `pdf.loc[mask, cols]`, `pdf.query(\"...\")` (names, literals, comparisons, "
    "`and`/`or`/`not`, arithmetic) | Filter |",
    "| `pdf.dropna(subset=...)` | Filter |",
    "| `s.isin([...])` of literal numbers or strings (`~` too: a missing value is not in the list) | "
    "IN, False where missing |",
    "| `s.fillna(v)` with a literal `v` (None and NaN alike) | coalesce |",
    "| `pdf[\"c\"] = ...`, `pdf.assign(...)`, `pdf.loc[mask, \"c\"] = ...`, `pdf[cols]`, `drop(columns=...)`, "
    "`rename(columns=...)`, `copy()`, `reset_index(drop=True)` | RowTransform, "
    "DropColumn (before the filter) |",
    "| `sort_values` | Reorder (before the filter) |",
    "| anything after the filter | not read: it sees the same rows |",
    "| `head`, aggregates, `groupby`, `len(pdf)` before the filter | barrier: an output row depends on other rows |",
    "| `pdf.head()`, `print(pdf)`, a second frame made from `pdf` before the filter | barrier: it sees every collected "
    "row |",
    "| `query` with `@variable`, `in`, backticks; `merge`, `.str` methods; `isin` of a computed list or one "
    "holding None; `fillna` of a computed value; `ffill`/`bfill` | barrier: not read yet (or, for a fill from "
    "other rows, an output row depends on other rows) |",
    "| a double computed in the pandas code (`pdf.a * 1.5`) | barrier: Spark makes NaN where pandas sees a missing "
    "value |",
    "| integer arithmetic that may overflow however its columns are bounded | barrier |",
    "| a timestamp, decimal or float (32-bit) column read by the code | barrier: its pandas form is not modelled |",
    "",
    "## The pandas API on Spark (pyspark.pandas)",
    "",
    "A pandas-on-Spark frame is traced through the Spark calls it makes; each time it is built it",
    "adds a row-order column (`__natural_order__ = monotonically_increasing_id()`).",
    "",
    "| pandas-on-Spark code | becomes |",
    "|---|---|",
    "| `ps.read_parquet(p, index_col=...)` (any `ps.read_*` with `index_col=`) | Source; its row-order column, "
    "read by no step, is left out (translate/pandas_on_spark.py) |",
    "| `psdf[\"c\"] = <expression of columns>` | RowTransform |",
    "| `psdf[mask]`, `psdf.loc[mask]`, masks joined with `&` | Filter (the mask's NULL guards dropped: same rows) |",
    "| a proved filter | `ps.read_*(...).spark.apply(lambda sdf: sdf.filter(G), index_col=...)` right after the "
    "read, which Spark hands to the file scan; the mask stays (superset) |",
    "| a read without `index_col=` (the default index numbers the rows) | barrier: a filter below it would renumber "
    "them |",
    "| `shift()` (tested; other steps that read the row order make the same plan shape: a window over it, "
    "aligned to the frame by its own full outer join) | not rewritten: the window needs every row, and both reads "
    "are inside the pandas-on-Spark calls |",
    "| a read with `columns=` or `pandas_metadata=`, or one run in a loop or a function | not rewritten: the note "
    "says why |",
    "",
    "On a Spark Connect session the same holds: the Connect reader takes the quoted names, the",
    "aliases inside masks and `monotonically_increasing_id()` that pandas-on-Spark plans hold.",
    "",
]
