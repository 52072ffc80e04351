"""The corpus: PySpark pipelines in the shapes notebooks have, each ending in a late filter
that Spark's optimizer cannot move to the data (docs/benchmarks.md lists why per shape).

A case is data: its name, its shape, a body `(spark, tables) -> DataFrame` over the tables
of `data.py` (read from Parquet by the harness, so a rewrite can filter them at the read),
and its late filter as a Column. The original pipeline is `body(spark, t).filter(late())`.

>>> len(CASES) >= 30, len({c.name for c in CASES}) == len(CASES)
(True, True)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import pandas as pd
from pyspark.sql import Window
from pyspark.sql import functions as F
from pyspark.sql.types import DoubleType, StringType


@dataclass(frozen=True)
class Case:
    name: str
    shape: str
    body: Callable  # (spark, tables) -> DataFrame
    late: Callable  # () -> Column, the pipeline's last filter

    def original(self, spark, tables):
        return self.body(spark, tables).filter(self.late())


c = F.col


# ----------------------------------------------------------------------------- UDFs

def band(amount):
    if amount is None:
        return None
    if amount > 990:
        return "top"
    if amount > 500:
        return "high"
    return "low"


def with_tax(amount):
    if amount is None:
        return None
    return amount * 1.2


def discounted(amount, qty):
    if amount is None or qty is None:
        return None
    if qty >= 40:
        return amount * 0.9
    return amount


def qty_label(qty):
    if qty is None:
        return "unknown"
    if qty < 5:
        return "few"
    if qty < 45:
        return "some"
    return "bulk"


def store_code(store):
    if store is None:
        return None
    return store.upper()


def pandas_scaled(amount: pd.Series) -> pd.Series:
    return amount * 2


def pandas_margin(amount: pd.Series) -> pd.Series:
    return amount - 900


def top_three(pdf: pd.DataFrame) -> pd.DataFrame:
    return pdf.sort_values("amount", ascending=False).head(3)


def flag_big(pdf: pd.DataFrame) -> pd.DataFrame:
    pdf = pdf[pdf["qty"] > 0]
    return pdf.assign(big=pdf["amount"] > 995)


# ----------------------------------------------------------------------------- bodies

def udf_band(spark, t):
    return t["sales"].withColumn("band", F.udf(band, StringType())(c("amount")))


def udf_tax(spark, t):
    return t["sales"].withColumn("gross", F.udf(with_tax, DoubleType())(c("amount")))


def udf_discount(spark, t):
    return t["sales"].withColumn("net", F.udf(discounted, DoubleType())(c("amount"), c("qty")))


def udf_qty(spark, t):
    return t["sales"].withColumn("size_label", F.udf(qty_label, StringType())(c("qty")))


def udf_then_join(spark, t):
    s = t["sales"].withColumn("gross", F.udf(with_tax, DoubleType())(c("amount")))
    return s.join(t["stores"], "store")


def pandas_scale(spark, t):
    return t["sales"].withColumn("doubled", F.pandas_udf(pandas_scaled, DoubleType())(c("amount")))


def pandas_margin_body(spark, t):
    return t["sales"].withColumn("margin", F.pandas_udf(pandas_margin, DoubleType())(c("amount")))


def when_tier(spark, t):
    return t["sales"].withColumn(
        "tier", F.when(c("amount") > 990, "gold").when(c("amount") > 600, "silver").otherwise("bronze"))


def when_bucket(spark, t):
    return t["sales"].withColumn(
        "bucket", F.when(c("qty") < 2, 1).when(c("qty") < 10, 2).when(c("qty") < 30, 3).otherwise(4))


def agg_max(spark, t):
    return t["sales"].groupBy("store").agg(F.max("amount").alias("top"))


def agg_min(spark, t):
    return t["sales"].groupBy("customer_id").agg(F.min("amount").alias("low"))


def agg_key_and_max(spark, t):
    return t["sales"].groupBy("store", "region").agg(F.max("amount").alias("top"))


def agg_conditional(spark, t):
    return t["sales"].groupBy("store").agg(
        F.max(F.when(c("region") == "north", c("amount"))).alias("north_top"))


def agg_global_max_day(spark, t):
    return t["sales"].groupBy("day").agg(F.max("qty").alias("max_qty"))


def explode_items(spark, t):
    return t["sales"].select("id", "store", "amount", F.explode("items").alias("item"))


def explode_outer_items(spark, t):
    return t["sales"].select("id", "amount", F.explode_outer("items").alias("item"))


def pivot_regions(spark, t):
    return t["sales"].groupBy("store").pivot("region", ["north", "south", "east", "west"]).agg(F.sum("qty"))


def unpivot_measures(spark, t):
    return t["sales"].select("id", "store", "amount", c("qty").cast("double").alias("qtyd")).unpivot(
        ["id", "store"], ["amount", "qtyd"], "measure", "value")


def window_expr(spark, t):
    w = Window.partitionBy(F.upper(c("store")))
    return t["sales"].withColumn("store_total", F.sum("qty").over(w))


def window_alias(spark, t):
    s = t["sales"].withColumn("shop", c("store"))
    return s.withColumn("shop_rows", F.count("*").over(Window.partitionBy("shop")))


def topk_amount(spark, t):
    return t["sales"].orderBy(c("amount").desc()).limit(5000)


def topk_amount_total(spark, t):
    return t["sales"].orderBy(c("amount").desc(), c("id")).limit(5000)


def topk_day(spark, t):
    return t["sales"].orderBy(c("day").desc()).limit(20000)


def left_join_both(spark, t):
    return t["sales"].join(t["stores"], "store", "left")


def left_join_customers(spark, t):
    return t["sales"].join(t["customers"], "customer_id", "left")


def full_join_key(spark, t):
    s = t["sales"].select("store", "amount")
    st = t["stores"].select("store", "size")
    return s.join(st, s["store"] == st["store"], "full").select(
        F.coalesce(s["store"], st["store"]).alias("k"), "amount", "size")


def full_join_left_col(spark, t):
    s = t["sales"].select("store", "amount")
    st = t["stores"].select(c("store").alias("st"), "size")
    return s.join(st, s["store"] == st["st"], "full")


def apply_key(spark, t):
    return t["sales"].select("store", "amount").groupBy("store").applyInPandas(
        top_three, "store string, amount double")


def apply_flag(spark, t):
    return t["sales"].select("store", "qty", "amount").groupBy("store").applyInPandas(
        flag_big, "store string, qty int, amount double, big boolean")


def rdd_dimension(spark, t):
    st = t["stores"].rdd.map(lambda r: (r.store, r.size * 2)).toDF(["store", "capacity"])
    s = t["sales"].withColumn("gross", F.udf(with_tax, DoubleType())(c("amount")))
    return s.join(st, "store")


def expr_join_key(spark, t):
    st = t["stores"].select("store_no", "size")
    s = t["sales"].withColumn("no", F.regexp_extract("store", "[0-9]+", 0).cast("int"))
    return s.join(st, s["no"] == st["store_no"] + 1)


def expr_join_qty(spark, t):
    k = t["stores"].select(c("store_no").alias("k"), "manager")
    return t["sales"].join(k, t["sales"]["qty"] + 1 == k["k"])


def year_sargable(spark, t):
    return t["sales"].withColumn("yr", F.year("day"))


def pandas_api_year(spark, t):
    """The pandas API on Spark over the sales read: each step adds its row-order column
    (monotonically_increasing_id()); the late filter reads the frame's Spark form."""
    psdf = t["sales"].pandas_api(index_col="id")
    psdf["yr"] = psdf["day"].dt.year
    psdf["score"] = psdf["qty"] * 10 + 7
    return psdf.spark.frame(index_col="id")


def arith_sargable(spark, t):
    return t["sales"].withColumn("shifted", c("amount") + 1)


def code_udf_store(spark, t):
    return t["sales"].withColumn("code", F.udf(store_code, StringType())(c("store")))


# ----------------------------------------------------------------------------- real-notebook shapes
# The five shapes of the real-notebooks issue: a DataFrame shared by branches that meet again,
# a late filter written one condition at a time, dropna(thresh=...), a UDF with many branches
# (the budget's heaviest search), and ten filters stopped by one step.

def shared_branches(spark, t):
    base = t["sales"].withColumn("gross", F.udf(with_tax, DoubleType())(c("amount")))
    north, south = base.filter(c("region") == "north"), base.filter(c("region") == "south")
    return north.unionByName(south)


def analyst_chain(spark, t):
    joined = t["sales"].join(t["stores"], "store")
    flagged = joined.withColumn("band", F.udf(band, StringType())(c("amount")))
    return flagged.filter(c("size") > 100).filter(c("day") >= F.lit("2023-01-01").cast("date"))


def dropna_thresh(spark, t):
    net = t["sales"].withColumn("net", F.when(c("qty") > 0, c("amount")))
    return net.dropna(thresh=9).withColumn("label", F.udf(qty_label, StringType())(c("qty")))


def price_band(amount):
    if amount is None:
        return None
    if amount > 950:
        return "b0"
    elif amount > 900:
        return "b1"
    elif amount > 850:
        return "b2"
    elif amount > 800:
        return "b3"
    elif amount > 750:
        return "b4"
    elif amount > 700:
        return "b5"
    elif amount > 650:
        return "b6"
    elif amount > 600:
        return "b7"
    elif amount > 500:
        return "b8"
    elif amount > 400:
        return "b9"
    elif amount > 300:
        return "b10"
    elif amount > 200:
        return "b11"
    return "low"


def many_branches(spark, t):
    return t["sales"].withColumn("pb", F.udf(price_band, StringType())(c("amount")))


def ten_filters(spark, t):
    df = t["sales"].withColumn("r", F.rand(5) * 10)
    for i in range(9):
        df = df.filter(c("r") > i / 2)
    return df


CASES: list[Case] = [
    Case("udf_band", "Python UDF output", udf_band, lambda: c("band") == "top"),
    Case("udf_tax", "Python UDF output", udf_tax, lambda: c("gross") > 1194.0),
    Case("udf_discount", "Python UDF output (two columns)", udf_discount, lambda: c("net") > 990.0),
    Case("udf_qty_label", "Python UDF output", udf_qty, lambda: c("size_label") == "few"),
    Case("udf_store_code", "Python UDF output", code_udf_store, lambda: c("code") == "S42"),
    Case("udf_then_join", "Python UDF output, inner join", udf_then_join,
         lambda: (c("gross") > 1194.0) & (c("size") > 100)),
    Case("pandas_scale", "pandas UDF output", pandas_scale, lambda: c("doubled") > 1990.0),
    Case("pandas_margin", "pandas UDF output", pandas_margin_body, lambda: c("margin") > 95.0),
    Case("when_tier", "when-chain", when_tier, lambda: c("tier") == "gold"),
    Case("when_bucket", "when-chain", when_bucket, lambda: c("bucket") == 1),
    Case("agg_max", "aggregate output (max)", agg_max, lambda: c("top") > 999.9),
    Case("agg_min", "aggregate output (min)", agg_min, lambda: c("low") < 0.5),
    Case("agg_key_and_max", "aggregate output and key", agg_key_and_max,
         lambda: (c("region") == "north") & (c("top") > 999.0)),
    Case("agg_conditional", "aggregate output (conditional max)", agg_conditional,
         lambda: c("north_top") > 999.5),
    Case("agg_max_qty_day", "aggregate output (max)", agg_global_max_day, lambda: c("max_qty") >= 49),
    Case("explode_item", "explode", explode_items, lambda: (c("item") == 7) & (c("amount") > 900)),
    Case("explode_outer_item", "explode_outer", explode_outer_items, lambda: c("item") > 18),
    Case("pivot_key", "pivot", pivot_regions, lambda: c("store") == "s7"),
    Case("unpivot_value", "unpivot", unpivot_measures, lambda: c("value") > 999.0),
    Case("unpivot_key", "unpivot", unpivot_measures, lambda: c("store") == "s9"),
    Case("window_expr", "window over an expression", window_expr, lambda: c("store") == "s3"),
    Case("window_alias", "window over an alias", window_alias, lambda: c("shop") == "s5"),
    Case("topk_amount", "orderBy + limit", topk_amount, lambda: c("amount") > 999.0),
    # the same with a total order: topk_amount keeps any 74 of the 105 rows tied at its cut-off
    # (at 10M rows), so its output is not determined, rewritten or not
    Case("topk_amount_total", "orderBy + limit", topk_amount_total, lambda: c("amount") > 999.0),
    Case("topk_day", "orderBy + limit", topk_day, lambda: c("day") >= F.lit("2023-12-31").cast("date")),
    Case("left_join_both", "left outer join", left_join_both,
         lambda: (c("amount") > 990.0) & (c("size") > 150)),
    Case("left_join_or", "left outer join, disjunction", left_join_customers,
         lambda: (c("amount") > 999.0) | ((c("amount") > 998.0) & (c("age") > 80))),
    Case("full_join_key", "full outer join, coalesced key", full_join_key, lambda: c("k") == "s11"),
    Case("full_join_left_col", "full outer join", full_join_left_col, lambda: c("amount") > 999.0),
    Case("apply_key", "applyInPandas", apply_key, lambda: c("store") == "s13"),
    Case("apply_flag", "applyInPandas", apply_flag, lambda: c("big")),
    Case("rdd_dimension", "RDD round trip", rdd_dimension, lambda: c("gross") > 1194.0),
    Case("expr_join_key", "expression join key", expr_join_key, lambda: c("store_no") == 41),
    Case("expr_join_qty", "expression join key", expr_join_qty, lambda: c("k") == 3),
    Case("year_eq", "non-sargable (year)", year_sargable, lambda: c("yr") == 2023),
    Case("arith_shift", "non-sargable (arithmetic)", arith_sargable, lambda: c("shifted") > 1000.0),
    Case("pandas_api_year", "the pandas API on Spark (row-order column)", pandas_api_year,
         lambda: (c("yr") == 2023) & (c("score") > 400)),
    Case("shared_branches", "one read feeding two branches that meet", shared_branches,
         lambda: c("gross") > 1194.0),
    Case("analyst_chain", "late filter written one condition at a time", analyst_chain,
         lambda: c("amount") > 990.0),
    Case("dropna_thresh", "dropna(thresh=...)", dropna_thresh, lambda: c("label") == "few"),
    Case("many_branches", "UDF with 13 branches", many_branches, lambda: c("pb").isin("b0", "b5")),
    Case("ten_filters", "filters on a random column", ten_filters, lambda: c("r") > 4.5),
]

BY_NAME = {case.name: case for case in CASES}
