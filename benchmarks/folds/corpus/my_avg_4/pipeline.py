# %% [markdown]
# # Accounts with a total from 140 to 200
# The MyAvg fold (MyAvg_4 of the public Pusharoo benchmarks), as a PySpark user writes it: sum
# and count (built-in aggregates). Per account, the sum and the count of its non-NULL payments;
# accounts with a total over 140 and at most 200 other than 175, and at least 2 payments but
# not 2.5 (the peer's thresholds scaled as in MyAvg_1: totals by 1,000 and counts by 1,000,000,
# so its 2,500,000 payments become 2.5, which no count equals).

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
busy = totals.filter((F.col("total") > 140) & (F.col("total") != 175) & (F.col("total") <= 200)
                     & (F.col("paid") >= 2) & (F.col("paid") != 2.5))
