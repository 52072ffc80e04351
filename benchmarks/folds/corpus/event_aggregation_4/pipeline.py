# %% [markdown]
# # Devices whose readings spread to 5 and above 10
# The EventAggregationUdf fold (EventAggregationUdf_4 of the public Pusharoo benchmarks), as a
# PySpark user writes it: count of a when, min and max (built-in aggregates). Per device, the
# count of type-1 and type-2 events and the lowest and highest value; devices whose lowest value
# is at most 5 and highest over 10 (the counts' conditions, at least 0, always hold).

# %%
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
events = spark.read.parquet(f"{DATA}/events")
stats = events.groupBy("grp").agg(F.count(F.when(F.col("type") == 1, 1)).alias("ones"),
                                  F.count(F.when(F.col("type") == 2, 1)).alias("twos"),
                                  F.min("value").alias("low"), F.max("value").alias("high"))

# %%
spread = stats.filter((F.col("ones") >= 0) & (F.col("twos") >= 0) & (F.col("low") <= 5) & (F.col("high") > 10))
