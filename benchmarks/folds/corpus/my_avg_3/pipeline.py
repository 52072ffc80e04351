# %% [markdown]
# # Accounts with a payment
# The MyAvg fold (MyAvg_3 of the public Pusharoo benchmarks), as a PySpark user writes it: sum
# and count (built-in aggregates). Per account, the sum and the count of its non-NULL payments;
# accounts with a total over 150 and under 200 other than 175 (the peer's thresholds scaled as
# in MyAvg_1), or at least one payment.

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
busy = totals.filter(((F.col("total") > 150) & (F.col("total") != 175) & (F.col("total") < 200)) | (F.col("paid") > 0))
