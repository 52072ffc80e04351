# %% [markdown]
# # Accounts with three payments and a total outside a band
# The MyAvg fold (MyAvg_5 of the public Pusharoo benchmarks), as a PySpark user writes it: sum
# and count (built-in aggregates). Per account, the sum and the count of its non-NULL payments;
# accounts with a total under 150 or at least 200, and more than 2 but at most 3 payments, not
# 2.5 (the peer's thresholds scaled as in MyAvg_1: totals by 1,000 and counts by 1,000,000, so
# its 2,500,000 payments become 2.5, which no count equals).

# %%
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
payments = spark.read.parquet(f"{DATA}/payments")
totals = payments.groupBy("grp").agg(F.sum("amount").alias("total"), F.count("amount").alias("paid"))

# %%
busy = totals.filter(((F.col("total") < 150) | (F.col("total") >= 200))
                     & (F.col("paid") > 2) & (F.col("paid") != 2.5) & (F.col("paid") <= 3))
