# %% [markdown]
# # Accounts by total and number of payments
# The MyAvg fold (MyAvg_2 of the public Pusharoo benchmarks), as a PySpark user writes it: sum
# and count (built-in aggregates). Per account, the sum and the count of its non-NULL payments;
# accounts with a total of at least 2,500 but not 5,000 and at least one but under 25 payments
# (the peer's thresholds scaled to these tables as in MyAvg_1).

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
busy = totals.filter((F.col("total") >= 2500) & (F.col("total") != 5000) & (F.col("paid") != 0) & (F.col("paid") < 25))
