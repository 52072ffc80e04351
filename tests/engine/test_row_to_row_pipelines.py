"""ROW-TO-ROW pushdowns on real Spark plans: what must push, what must not, and equal outputs.

Each case is data: a pipeline body, a late filter and what the engine must
conclude. Every case that pushes also runs the original and the rewritten
pipeline on the same rows (NULLs, duplicates, negatives included) and
compares the output bags.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Callable

import pytest
from pyspark.sql import Window
from pyspark.sql import functions as F
from pyspark.sql.types import IntegerType, StringType

from magicpush_lab.verify.verdict import EQUIVALENT, SUPERSET

from .harness import SessionUdf as session_udf
from .harness import bag, check_pushdown, run_engine, udf_record

SESSIONS = ("classic", "connect")
# what the Connect reader does not read yet (tests/engine/conftest.py: expected to fail there)
CONNECT_GAPS = {
    "a transform that does not matter to the filter: pushed unchanged (the paper's Listing 5)":
        'replace() is not read on Spark Connect yet',
    'a transform that matters to the filter: pushed through the transform, not unchanged':
        'replace() is not read on Spark Connect yet',
    "get() of a sorted array is deterministic: a filter on another column moves past it":
        'array() is not read on Spark Connect yet',
    "split and array functions in the projection are deterministic: a filter on another column moves":
        'split() is not read on Spark Connect yet',
    "explode of a split string: the element test reaches the source with split written in it":
        'split() is not read on Spark Connect yet',
    "a conjunct on an array function's output stays behind, the one on a plain column moves":
        'array_join() is not read on Spark Connect yet',
    "timestamp minus an interval is deterministic: the filter on another column moves past it":
        'make_dt_interval() (a decimal literal) is not read on Spark Connect yet',
    "a gap between a timestamp and one an interval earlier: its conjunct stays, the other moves":
        'unix_timestamp() of a timestamp is not read on Spark Connect yet',
}


# ----------------------------------------------------------------------------- UDFs used by the cases

def bonus(v):
    if v is None:
        return None
    if v > 500:
        return v + 5
    return v


def shift(v):
    return v + 200 if v < 500 else v


REGIONS = {"a": "north", "b": "south"}


def region(store):
    return REGIONS[store] if store in REGIONS else store  # a lookup, other values as they are


def region_or_lower(store):
    if store is None:
        return None
    return REGIONS[store] if store in REGIONS else store.lower()  # "NORTH" gives "north" too


def with_constants(record, **constants):
    """The record with the notebook constants in front of the function, as the tracer writes them."""
    from dataclasses import replace

    return replace(record, source="".join(f"{k} = {v!r}\n" for k, v in constants.items()) + record.source)


def unknown_if_nan(store):
    return "Unknown" if store == float("nan") else store  # NaN equals nothing: the identity


def low_if_below_nan(amount):
    return "low" if amount < float("nan") else "high"  # never true, but a NULL amount raises


def plus_one(v):
    return v + 1


def tier(v):
    if v is None:
        return 0
    elif v < 10:
        return 1
    elif v < 100:
        return 2
    return 3


def store_rank(s):
    if s is None:
        return 0
    return 2 if s >= "b" else 1


def category(s):
    if s is None:
        return "Unknown"
    if "q" in s:
        return "Finance"
    elif "b" in s:
        return "Software"
    elif "c" in s:
        return "Data"
    elif "d" in s:
        return "Group0"
    elif "e" in s:
        return "Group1"
    elif "f" in s:
        return "Group2"
    elif "g" in s:
        return "Group3"
    elif "h" in s:
        return "Group4"
    elif "i" in s:
        return "Group5"
    elif "j" in s:
        return "Group6"
    elif "k" in s:
        return "Group7"
    elif "l" in s:
        return "Group8"
    elif "m" in s:
        return "Group9"
    elif "n" in s:
        return "Group10"
    return "Other"


def low_amount(a):
    if a is None:
        return None
    return 1 if a > 5.0 else 0


def either(v, region):
    if region is None:
        return 1 if v is not None and v > 1 else 0
    return 1 if len(region) > 4 else 0


LOOKUP = {1: 10}


def uses_global(v):
    return LOOKUP.get(v, 0)


INC = lambda v: v + 1 if v is not None else None  # noqa: E731 - lambdas are the point here
DEC = lambda v: v - 1 if v is not None else None  # noqa: E731

# Arrow-optimised, as a UDF defined in a running Spark 4 session is; one defined before the
# session exists is pickled and converts its result differently (the "pickled" cases below)
UDFS = {
    "lambda_inc": (session_udf(INC, IntegerType(), useArrow=True), udf_record("<lambda>", INC)),
    "lambda_dec": (session_udf(DEC, IntegerType(), useArrow=True), udf_record("<lambda>", DEC)),
    "bonus": (session_udf(bonus, IntegerType(), useArrow=True), udf_record("bonus", bonus)),
    "shift": (session_udf(shift, IntegerType(), useArrow=True), udf_record("shift", shift)),
    "plus_one": (session_udf(plus_one, IntegerType(), useArrow=True), udf_record("plus_one", plus_one)),
    "tier": (session_udf(tier, IntegerType(), useArrow=True), udf_record("tier", tier)),
    "uses_global": (session_udf(uses_global, IntegerType(), useArrow=True), udf_record("uses_global", uses_global)),
    "store_rank": (session_udf(store_rank, IntegerType(), useArrow=True), udf_record("store_rank", store_rank)),
    "either": (session_udf(either, IntegerType(), useArrow=True), udf_record("either", either)),
    "low_amount": (session_udf(low_amount, IntegerType(), useArrow=True), udf_record("low_amount", low_amount)),
    "category": (session_udf(category, StringType(), useArrow=True), udf_record("category", category, return_type="string")),
    "region": (session_udf(region, StringType(), useArrow=True), with_constants(udf_record(
        "region", region, return_type="string"), REGIONS=REGIONS)),
    "region_or_lower": (session_udf(region_or_lower, StringType(), useArrow=True), with_constants(udf_record(
        "region_or_lower", region_or_lower, return_type="string"), REGIONS=REGIONS)),
    "unknown_if_nan": (session_udf(unknown_if_nan, StringType(), useArrow=True),
                       udf_record("unknown_if_nan", unknown_if_nan, return_type="string")),
    "low_if_below_nan": (session_udf(low_if_below_nan, StringType(), useArrow=True),
                         udf_record("low_if_below_nan", low_if_below_nan, return_type="string")),
    "noisy": (session_udf(bonus, IntegerType(), useArrow=True).asNondeterministic(), udf_record("bonus", bonus, deterministic=False)),
    "bonus_pickled": (session_udf(bonus, IntegerType(), useArrow=False), udf_record("bonus", bonus)),
}


def udf(name: str):
    return UDFS[name][0]


def by_store():
    return Window.partitionBy("store").orderBy(F.col("v").desc(), "amount")


def by_upper_store():
    return Window.partitionBy(F.upper(F.col("store"))).orderBy(F.col("v").desc(), "amount")


# ----------------------------------------------------------------------------- data

def sales_rows(seed: int = 7) -> list[tuple]:
    rnd = random.Random(seed)
    rows = [(None, "a", 1.5), (0, None, 0.0), (-3, "b", -2.0), (1000, "c", 10.0), (1000, "c", 10.0),
            (996, "a", None), (995, "b", 3.0), (1, "a", 2.0), (1, "b", 2.5), (401, "c", 4.0), (400, "a", 5.0), (600, "b", 6.0)]
    rows += [(rnd.choice([None, rnd.randint(-50, 1200)]), rnd.choice(["a", "b", "c", None]),
              rnd.choice([None, round(rnd.uniform(-10, 10), 2)])) for _ in range(200)]
    return rows


SALES_SCHEMA = "v int, store string, amount double"
STORES_SCHEMA = "store string, region string"
STORES_ROWS = [("a", "north"), ("b", "south"), ("c", "north"), (None, "east"), ("d", None)]
BASKETS_SCHEMA = "v int, items array<int>"
BASKETS_ROWS = [(1, [1, 2, 3]), (4, [5, None]), (5, []), (6, None), (None, [7]), (7, [2, 2]), (4, [5, None])]


# ----------------------------------------------------------------------------- cases

@dataclass(frozen=True)
class Case:
    title: str
    body: Callable  # (list of source DataFrames) -> DataFrame before the late filter
    late: Callable  # () -> Column
    expect: str | None  # EQUIVALENT, SUPERSET, or None when nothing may be pushed
    predicates: tuple[str, ...] | None = None  # expected predicates, per source reached
    udfs: tuple[str, ...] = ()
    tables: tuple[str, ...] = ("sales",)
    hides_errors: bool | None = None


CASES = [
    Case("filter on a UDF output pushes as the equivalent source predicate",
         lambda s: s[0].withColumn("score", udf("bonus")(F.col("v"))),
         lambda: F.col("score") > 1000, EQUIVALENT, ("v > 995",), ("bonus",), hides_errors=False),
    Case("a dict lookup with a fallback: the constant as the keys that map to it and itself",
         lambda s: s[0].withColumn("region", udf("region")(F.col("store"))),
         lambda: F.col("region") == "north", EQUIVALENT, ("store IN ('a', 'north')",), ("region",)),
    Case("a lookup whose fallback lowers the case: 'NORTH' maps there too, so the guess from its constants is refused",
         lambda s: s[0].withColumn("region", udf("region_or_lower")(F.col("store"))),
         lambda: F.col("region") == "north", SUPERSET, ("store IS NOT NULL",), ("region_or_lower",)),
    Case("x == float('nan') is False for every value: the UDF is the identity and the filter pushes",
         lambda s: s[0].withColumn("level", udf("unknown_if_nan")(F.col("store"))),
         lambda: F.col("level") == "a", EQUIVALENT, ("store = 'a'",), ("unknown_if_nan",)),
    Case("x < float('nan') is not read (it raises on None, is False otherwise): nothing is pushed",
         lambda s: s[0].withColumn("band", udf("low_if_below_nan")(F.col("amount"))),
         lambda: F.col("band") == "high", None, udfs=("low_if_below_nan",)),
    Case("the same UDF pickled: v + 5 wraps past 2**31 - 1 instead of raising, so only v IS NOT NULL is pushed",
         lambda s: s[0].withColumn("score", udf("bonus_pickled")(F.col("v"))),
         lambda: F.col("score") > 1000, SUPERSET, ("v IS NOT NULL",), ("bonus_pickled",)),
    Case("UDF branch: the pushed predicate keeps the rows the branch lifts over the bound",
         lambda s: s[0].filter(F.col("v").isNotNull()).withColumn("score", udf("shift")(F.col("v"))),
         lambda: F.col("score") > 600, EQUIVALENT, ("(v < 500 AND v > 400) OR v > 600",), ("shift",)),
    # the flag is decided per operator, so it does not yet see the isNotNull filter below
    Case("UDF that raises on None: pushed, and flagged as able to hide an error",
         lambda s: s[0].filter(F.col("v").isNotNull()).withColumn("w", udf("plus_one")(F.col("v"))),
         lambda: F.col("w") > 5, EQUIVALENT, ("v > 4",), ("plus_one",), hides_errors=True),
    Case("elif chain compared with a literal pushes the branch conditions",
         lambda s: s[0].withColumn("t", udf("tier")(F.col("v"))),
         lambda: F.col("t") == 2, EQUIVALENT, None, ("tier",)),
    Case("string comparison inside a UDF becomes a string range on the source",
         lambda s: s[0].withColumn("rank", udf("store_rank")(F.col("store"))),
         lambda: F.col("rank") == 2, EQUIVALENT, ("store >= 'b'",), ("store_rank",)),
    Case("14-branch UDF on substrings, filter on two of its results (the paper's Listing 6 shape)",
         lambda s: s[0].withColumn("cat", udf("category")(F.col("store"))),
         lambda: F.col("cat").isin("Software", "Data"), EQUIVALENT, None, ("category",)),
    Case("IS NULL on a UDF output that is NULL exactly for NULL input",
         lambda s: s[0].withColumn("score", udf("bonus")(F.col("v"))),
         lambda: F.col("score").isNull(), EQUIVALENT, ("v IS NULL",), ("bonus",)),
    Case("negated filter on a UDF output keeps three-valued logic",
         lambda s: s[0].withColumn("score", udf("bonus")(F.col("v"))),
         lambda: ~(F.col("score") > 1000), EQUIVALENT, None, ("bonus",)),
    Case("UDF over a double that may be NaN: Python's NaN takes the else branch, so NaN rows stay (superset)",
         lambda s: s[0].withColumn("low", udf("low_amount")(F.col("amount"))),
         lambda: F.col("low") == 0, SUPERSET, ("amount <= 5.0 OR isnan((amount - amount))",), ("low_amount",),
         tables=("sales_with_nan",)),
    Case("the same UDF over a double, filter its NaN branch cannot reach: still kept for NaN rows",
         lambda s: s[0].withColumn("low", udf("low_amount")(F.col("amount"))),
         lambda: F.col("low") == 1, SUPERSET, ("amount > 5.0 OR isnan((amount - amount))",), ("low_amount",),
         tables=("sales_with_nan",)),
    Case("nondeterministic UDF: nothing is pushed",
         lambda s: s[0].withColumn("score", udf("noisy")(F.col("v"))),
         lambda: F.col("score") > 1000, None, None, ("noisy",)),
    Case("two different lambda UDFs share Spark's name <lambda>: neither body is trusted, nothing pushed",
         lambda s: s[0].withColumn("x", udf("lambda_inc")(F.col("v"))).withColumn("y", udf("lambda_dec")(F.col("v"))),
         lambda: F.col("x") > 900, None, None, ("lambda_inc", "lambda_dec")),
    Case("UDF reading a global it captured: a black box, nothing is pushed",
         lambda s: s[0].withColumn("x", udf("uses_global")(F.col("v"))),
         lambda: F.col("x") > 3, None, None, ("uses_global",)),
    Case("black-box UDF and a plain conjunct: only the plain conjunct is pushed, as a superset",
         lambda s: s[0].withColumn("x", udf("uses_global")(F.col("v"))),
         lambda: (F.col("x") > 3) & (F.col("store") == "a"), SUPERSET, ("store = 'a'",), ("uses_global",)),
    Case("column expression without UDF: F rewritten through the projection",
         lambda s: s[0].withColumn("total", F.col("v") * 2 + F.col("amount")),
         lambda: F.col("total") > 100, EQUIVALENT, None),
    Case("a column the filter does not read may be NaN (a literal the model lacks): the filter still moves",
         lambda s: s[0].withColumn("ratio", F.when(F.col("amount") == 0, F.lit(float("nan")))
                                   .otherwise(F.col("v") / F.col("amount"))),
         lambda: F.col("v") > 900, EQUIVALENT, ("v > 900",)),
    Case("the filter reads that NaN column: nothing moves, since the model has no NaN to prove it with",
         lambda s: s[0].withColumn("ratio", F.when(F.col("amount") == 0, F.lit(float("nan")))
                                   .otherwise(F.col("v") / F.col("amount"))),
         lambda: F.col("ratio") > 100, None, None),
    Case("the unread NaN cast to an integer raises where NULL would not: nothing moves",
         lambda s: s[0].withColumn("ratio", F.when(F.col("amount") == 0, F.lit(float("nan")))
                                   .otherwise(F.col("amount")).cast("int")),
         lambda: F.col("v") > 900, None, None),
    Case("an infinity behind a literal false is never computed: the filter on that column moves",
         lambda s: s[0].withColumn("twice", F.when(F.lit(False), F.lit(float("inf"))).otherwise(F.col("v") * 2.0)),
         lambda: F.col("twice") > 1000, EQUIVALENT, None),
    Case("an integer branch beside a double one: Spark casts the integer, and the filter moves through both",
         lambda s: s[0].withColumn("capped", F.when(F.col("v") > 500, F.lit(500)).otherwise(F.col("amount"))),
         lambda: F.col("capped") > 5, EQUIVALENT, None),
    Case("the same beside a random double: nothing moves",
         lambda s: s[0].withColumn("capped", F.when(F.col("v") > 500, F.lit(500)).otherwise(F.rand(1))),
         lambda: F.col("capped") > 0.5, None, None),
    Case("coalesce of an integer and a double column: the first present value, as a double, filtered at the source",
         lambda s: s[0].withColumn("either", F.coalesce(F.col("v"), F.col("amount"))),
         lambda: F.col("either") > 900, EQUIVALENT, None),
    Case("a transform that does not matter to the filter: pushed unchanged (the paper's Listing 5)",
         lambda s: s[0].replace("c", "a", subset=["store"]),
         lambda: F.col("store") != "b", EQUIVALENT, ("NOT store = 'b'",)),
    Case("a transform that matters to the filter: pushed through the transform, not unchanged",
         lambda s: s[0].replace("c", "a", subset=["store"]),
         lambda: F.col("store") != "a", EQUIVALENT, None),
    Case("fillna then a filter the fill value fails: pushed unchanged",
         lambda s: s[0].fillna(0, subset=["v"]),
         lambda: F.col("v") > 5, EQUIVALENT, ("v > 5",)),
    Case("fillna then a filter the fill value passes: the NULL rows must stay",
         lambda s: s[0].fillna(0, subset=["v"]),
         lambda: F.col("v") < 5, EQUIVALENT, None),
    Case("dropna in the middle of the pipeline does not stop the late filter",
         lambda s: s[0].dropna(subset=["store"]).withColumn("score", udf("bonus")(F.col("v"))),
         lambda: F.col("score") > 1000, EQUIVALENT, ("v > 995",), ("bonus",)),
    Case("rename and drop: the predicate follows the column back to its source name",
         lambda s: s[0].withColumnRenamed("v", "w").drop("store"),
         lambda: F.col("w") >= 996, EQUIVALENT, ("v >= 996",)),
    Case("rand() in the projection blocks even a filter on a plain column",
         lambda s: s[0].withColumn("r", F.rand(3)),
         lambda: F.col("v") > 10, None, None),
    Case("split and array functions in the projection are deterministic: a filter on another column moves",
         lambda s: s[0].withColumn("parts", F.split(F.coalesce(F.col("store"), F.lit("")), "b"))
                       .withColumn("n", F.size(F.array_distinct(F.col("parts"))))
                       .withColumn("joined", F.array_join(F.col("parts"), "-")),
         lambda: F.col("v") > 10, EQUIVALENT, ("v > 10",)),
    Case("get() of a sorted array is deterministic: a filter on another column moves past it",
         lambda s: s[0].withColumn("first", F.get(F.sort_array(F.array(F.col("amount"), F.lit(2.0)), asc=False), 0)),
         lambda: F.col("v") > 10, EQUIVALENT, ("v > 10",)),
    Case("shuffle() of the split parts is nondeterministic: it blocks a filter on another column",
         lambda s: s[0].withColumn("parts", F.shuffle(F.split(F.coalesce(F.col("store"), F.lit("")), "b"))),
         lambda: F.col("v") > 10, None, None),
    Case("a conjunct on an array function's output stays behind, the one on a plain column moves",
         lambda s: s[0].withColumn("joined", F.array_join(F.split(F.coalesce(F.col("store"), F.lit("")), "b"), "-")),
         lambda: (F.col("joined") == "a") & (F.col("v") > 10), SUPERSET, ("v > 10",)),
    Case("a filter only on an array function's output: nothing a suggestion could write",
         lambda s: s[0].withColumn("joined", F.array_join(F.split(F.coalesce(F.col("store"), F.lit("")), "b"), "-")),
         lambda: F.col("joined") == "a", None, None),
    Case("timestamp minus an interval is deterministic: the filter on another column moves past it",
         lambda s: s[0].withColumn("t", F.timestamp_seconds(F.col("v")))
                       .withColumn("earlier", F.col("t") - F.make_dt_interval(mins=F.lit(5))),
         lambda: F.col("amount") > 3.0, EQUIVALENT, ("amount > 3.0",)),
    Case("a gap between a timestamp and one an interval earlier: its conjunct stays, the other moves",
         lambda s: s[0].withColumn("t", F.timestamp_seconds(F.col("v")))
                       .withColumn("earlier", F.col("t") - F.make_dt_interval(mins=F.lit(5)))
                       .withColumn("gap", (F.unix_timestamp("t") - F.unix_timestamp("earlier")) / 60),
         lambda: (F.col("gap") > 3) & (F.col("amount") > 3.0), SUPERSET, ("amount > 3.0",)),
    Case("sort and repartition do not stop a filter on a UDF output",
         lambda s: s[0].withColumn("score", udf("bonus")(F.col("v"))).orderBy("store").repartition(3),
         lambda: F.col("score") > 1000, EQUIVALENT, ("v > 995",), ("bonus",)),
    # orderBy + limit: the TOPK category
    Case("top-k by v descending, filter v > c: prefix-closed, moves below the limit for any k",
         lambda s: s[0].orderBy(F.col("v").desc(), "store", "amount").limit(50),
         lambda: F.col("v") > 900, EQUIVALENT, ("v > 900",)),
    Case("top-3 ascending, filter v > 2 (the paper's Listing 2): nothing is pushed",
         lambda s: s[0].orderBy("v", "store", "amount").limit(3),
         lambda: F.col("v") > 2, None, None),
    Case("top-k, filter on a column outside the sort order: nothing is pushed",
         lambda s: s[0].orderBy(F.col("v").desc(), "store", "amount").limit(50),
         lambda: F.col("store") == "a", None, None),
    Case("limit without a sort: nothing is pushed",
         lambda s: s[0].limit(50),
         lambda: F.col("v") > 900, None, None),
    Case("limit after a sort stops a filter on a UDF output whose form is not prefix-closed",
         lambda s: s[0].withColumn("score", udf("bonus")(F.col("v"))).orderBy("v").limit(50),
         lambda: F.col("score") > 1000, None, None, ("bonus",)),
    Case("sample is a barrier: nothing is pushed",
         lambda s: s[0].sample(0.5, seed=3),
         lambda: F.col("v") > 100, None, None),
    Case("union: every input gets the filter under its own column names, late filter kept",
         lambda s: s[0].select("v", "store").union(s[1].select(F.length("region").alias("n"), "store")),
         lambda: F.col("v") > 4, SUPERSET, ("v > 4", "length(region) > 4"), tables=("sales", "stores")),
    # GroupBy: the AGGREGATE category
    Case("filter on the group key goes below the groupBy",
         lambda s: s[0].groupBy("store").agg(F.count("*").alias("n"), F.max("v").alias("mx")),
         lambda: F.col("store") == "a", EQUIVALENT, ("store = 'a'",)),
    Case("max(v) > c becomes v > c when max is the only aggregate",
         lambda s: s[0].groupBy("store").agg(F.max("v").alias("mx")),
         lambda: F.col("mx") > 900, EQUIVALENT, ("v > 900",)),
    Case("max(v) > c next to count(*): removing rows would change the count, nothing is pushed",
         lambda s: s[0].groupBy("store").agg(F.max("v").alias("mx"), F.count("*").alias("n")),
         lambda: F.col("mx") > 900, None, None),
    Case("min(v) > c is not v > c: nothing is pushed",
         lambda s: s[0].groupBy("store").agg(F.min("v").alias("mn")),
         lambda: F.col("mn") > 900, None, None),
    Case("sum(amount) > c is not amount > c (the paper's Listing 1): nothing is pushed",
         lambda s: s[0].groupBy("store").agg(F.sum("amount").alias("total")),
         lambda: F.col("total") > 5, None, None),
    Case("conditional max pushes its condition and the bound",
         lambda s: s[0].groupBy("store").agg(F.max(F.when(F.col("amount") > 0, F.col("v"))).alias("mx")),
         lambda: F.col("mx") > 900, EQUIVALENT, ("amount > 0.0 AND v > 900",)),
    Case("max with a NULL fallback (the paper's Fig. 1(4)): the fallback is pushed with it",
         lambda s: s[0].groupBy("store").agg(F.max(F.coalesce(F.col("amount"), F.col("v") * 2.0)).alias("mx")),
         lambda: F.col("mx") > 8, EQUIVALENT, None),
    Case("key and aggregate conjuncts together",
         lambda s: s[0].groupBy("store").agg(F.max("v").alias("mx")),
         lambda: (F.col("store") == "a") & (F.col("mx") > 900), EQUIVALENT, ("store = 'a' AND v > 900",)),
    Case("global aggregate: a row even for no input, nothing is pushed",
         lambda s: s[0].agg(F.max("v").alias("mx")),
         lambda: F.col("mx") > 900, None, None),
    Case("count only: no per-row form of the filter, nothing is pushed",
         lambda s: s[0].groupBy("store").agg(F.count("*").alias("n")),
         lambda: F.col("n") > 50, None, None),
    # explode: the ROW-EXPAND category
    Case("explode, filter on a column of the exploded row: moves below the explode",
         lambda s: s[0].withColumn("item", F.explode("items")),
         lambda: F.col("v") > 3, EQUIVALENT, ("v > 3",), tables=("baskets",)),
    Case("explode_outer, filter on a column of the exploded row: moves below it",
         lambda s: s[0].withColumn("item", F.explode_outer("items")),
         lambda: F.col("v") > 3, EQUIVALENT, ("v > 3",), tables=("baskets",)),
    Case("explode, filter on the exploded element: rows with some element that passes, late filter kept",
         lambda s: s[0].withColumn("item", F.explode("items")),
         lambda: F.col("item") > 2, SUPERSET, ("exists(items, x -> x > 2)",), tables=("baskets",)),
    Case("explode, filter on the element and the row: the row's column stays outside the element test",
         lambda s: s[0].withColumn("item", F.explode("items")),
         lambda: (F.col("item") > 2) & (F.col("v") > 3), SUPERSET, ("v > 3 AND exists(items, x -> x > 2)",),
         tables=("baskets",)),
    Case("explode of a renamed array: the element test follows the array back to its source",
         lambda s: s[0].select("v", F.col("items").alias("its")).withColumn("item", F.explode("its")),
         lambda: F.col("item") == 5, SUPERSET, ("exists(items, x -> x = 5)",), tables=("baskets",)),
    Case("explode of a split string: the element test reaches the source with split written in it",
         lambda s: s[0].withColumn("parts", F.split(F.coalesce(F.col("store"), F.lit("")), "b"))
                       .withColumn("part", F.explode("parts")),
         lambda: F.col("part") == "a", SUPERSET, ("exists(split(coalesce(store, ''), 'b', -1), x -> x = 'a')",)),
    Case("explode of the split parts shuffled: nondeterministic, the element test must not move",
         lambda s: s[0].withColumn("parts", F.shuffle(F.split(F.coalesce(F.col("store"), F.lit("")), "b")))
                       .withColumn("part", F.explode("parts")),
         lambda: F.col("part") == "a", None, None),
    Case("explode_outer, filter the NULL element fails: rows with some passing element",
         lambda s: s[0].withColumn("item", F.explode_outer("items")),
         lambda: F.col("item") > 2, SUPERSET, ("exists(items, x -> x > 2)",), tables=("baskets",)),
    Case("explode_outer, IS NULL on the element: empty arrays make NULL rows, nothing pushed",
         lambda s: s[0].withColumn("item", F.explode_outer("items")),
         lambda: F.col("item").isNull(), None, None, tables=("baskets",)),
    Case("posexplode, filter on the element and the position: nothing pushed",
         lambda s: s[0].select("v", F.posexplode("items")),
         lambda: (F.col("col") > 2) & (F.col("pos") == 0), None, None, tables=("baskets",)),
    Case("posexplode, filter on the position: must not be pushed",
         lambda s: s[0].select("v", F.posexplode("items")),
         lambda: F.col("pos") == 0, None, None, tables=("baskets",)),
    # window functions: partition-constant filters, and prefixes of the order below a running sum
    Case("window partitioned by store, filter on store: moves below the window",
         lambda s: s[0].withColumn("rn", F.row_number().over(by_store())),
         lambda: F.col("store") == "a", EQUIVALENT, ("store = 'a'",)),
    Case("filter on row_number(): must not be pushed",
         lambda s: s[0].withColumn("rn", F.row_number().over(by_store())),
         lambda: F.col("rn") <= 3, None, None),
    # a running sum reads the rows before: a filter keeping the top of each partition's order
    # (tests/engine/test_window_pipelines.py has the cases per window function)
    Case("running sum ordered by v desc, filter keeping the top of the order: moves below the window",
         lambda s: s[0].withColumn("running", F.sum("amount").over(by_store())),
         lambda: F.col("v") > 900, EQUIVALENT, ("v > 900",)),
    Case("running sum ordered by v desc, filter keeping the bottom of the order: must not be pushed",
         lambda s: s[0].withColumn("running", F.sum("amount").over(by_store())),
         lambda: F.col("v") < 100, None, None),
    Case("window partitioned by an expression, filter on that expression: moves below the window",
         lambda s: s[0].withColumn("rn", F.row_number().over(by_upper_store())),
         lambda: F.upper(F.col("store")) == "A", EQUIVALENT, ("upper(store) = 'A'",)),
    Case("window partitioned by an expression, equality on its column: the expression's value (superset)",
         lambda s: s[0].withColumn("rn", F.row_number().over(by_upper_store())),
         lambda: F.col("store") == "a", SUPERSET, ("upper(store) <=> upper('a')",)),
    Case("window partitioned by an expression, a range on its column that may split a partition: must not",
         lambda s: s[0].withColumn("rn", F.row_number().over(by_upper_store())),
         lambda: F.col("store") < "b", None, None),
    # outer joins: the LEFTOUTERJ category
    Case("left join, filter on the preserved side: equivalent pushdown to it",
         lambda s: s[0].join(s[1], "store", "left"),
         lambda: F.col("v") > 900, EQUIVALENT, ("v > 900",), tables=("sales", "stores")),
    Case("left join, null-rejecting filter on the joined side: pushed there, late filter kept",
         lambda s: s[0].join(s[1], "store", "left"),
         lambda: F.col("region") == "north", SUPERSET, ("region = 'north'",), tables=("sales", "stores")),
    Case("left join, IS NULL on the joined side: must not be pushed there",
         lambda s: s[0].join(s[1], "store", "left"),
         lambda: F.col("region").isNull(), None, None, tables=("sales", "stores")),
    Case("left join, disjunction across the inputs: nothing is pushed",
         lambda s: s[0].join(s[1], "store", "left"),
         lambda: (F.col("v") > 900) | (F.col("region") == "north"), None, None, tables=("sales", "stores")),
    Case("right join, filter on the preserved (right) side: equivalent pushdown to it",
         lambda s: s[0].join(s[1], "store", "right"),
         lambda: F.col("region") == "north", EQUIVALENT, ("region = 'north'",), tables=("sales", "stores")),
    Case("left join, filters on both inputs: each pushed, late filter kept (the paper's Listing 3, line 7)",
         lambda s: s[0].join(s[1], "store", "left"),
         lambda: (F.col("v") > 900) & (F.col("region") == "north"), SUPERSET, ("v > 900", "region = 'north'"),
         tables=("sales", "stores")),
    Case("left join, UDF filter that reads both inputs through a null test: nothing (Listing 3, line 8)",
         lambda s: s[0].join(s[1], "store", "left"),
         lambda: udf("either")(F.col("v"), F.col("region")) == 1, None, None, ("either",),
         tables=("sales", "stores")),
    Case("inner join, filter on one side: equivalent pushdown to that side",
         lambda s: s[0].join(s[1], "store"),
         lambda: F.col("v") > 900, EQUIVALENT, ("v > 900",), tables=("sales", "stores")),
    Case("inner join, filter on both sides: each side gets its part, late filter kept",
         lambda s: s[0].join(s[1], "store"),
         lambda: (F.col("v") > 900) & (F.col("region") == "north"), SUPERSET, ("v > 900", "region = 'north'"),
         tables=("sales", "stores")),
    Case("inner join, filter spanning both sides: nothing to push",
         lambda s: s[0].join(s[1], "store"),
         lambda: F.col("v") > F.length(F.col("region")), None, None, tables=("sales", "stores")),
]


def _sources(spark, case: Case):
    data = {"sales": (sales_rows(), SALES_SCHEMA), "stores": (STORES_ROWS, STORES_SCHEMA),
            "baskets": (BASKETS_ROWS, BASKETS_SCHEMA),
            "sales_with_nan": (sales_rows() + [(7, "a", float("nan")), (8, "b", float("nan"))], SALES_SCHEMA)}
    return [spark.createDataFrame(*data[t]) for t in case.tables]


@pytest.mark.parametrize("case", CASES, ids=[c.title for c in CASES])
def test_pushdown_case(spark, case: Case):
    sources = _sources(spark, case)
    original = case.body(sources).filter(case.late())
    walk = run_engine(sources, original, [UDFS[u][1] for u in case.udfs])
    check_pushdown(walk, sources, case.body, case.late, case.expect, case.predicates, case.hides_errors)
    if case.expect is not None:
        assert len(bag(original)) > 0, "the case's data should keep some rows, or the comparison proves little"
