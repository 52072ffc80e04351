# %% [markdown]
# # Accounts with small or large banded totals
# The SparkDataFrameUDFApp fold (SparkDataFrameUDFApp_6 of the public Pusharoo benchmarks), as a
# PySpark user writes it: Python UDF per row, then sum. Per account, a Python UDF gives each
# row's amount when its level is in a band (5 to 10, and 4 to 9), else 0, summed; accounts with
# the first total under 10 or 25 and over, and the second at most 5 or over 100, not 25.

# %%
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
ledger = spark.read.parquet(f"{DATA}/ledger")

@F.udf("long")
def in_band(amount, level, low, high):
    return amount if low <= level <= high else 0

# %%
banded = ledger.withColumn("a", in_band("amount", "level", F.lit(5), F.lit(10))).withColumn("b", in_band("amount", "level", F.lit(4), F.lit(9)))
totals = banded.groupBy("grp").agg(F.sum("a").alias("a"), F.sum("b").alias("b"))
strong = totals.filter(((F.col("a") < 10) | (F.col("a") >= 25)) & ((F.col("b") <= 5) | (F.col("b") > 100)) & (F.col("b") != 25))
