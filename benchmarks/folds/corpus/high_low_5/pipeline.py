# %% [markdown]
# # The latest in-band tick of each instrument, or none
# The HighLowAggregator fold (HighLowAggregator_5 of the public Pusharoo benchmarks), as a
# PySpark user writes it: max_by over a when (built-in aggregate). Per instrument, the volume
# and price of the latest tick (by seq) whose price lies strictly inside its band (low, low +
# width); instruments where that volume is at most 99 and at least 10, and that price at least
# 99 or at most 10, each part also passing when the value is NULL (no tick in band).

# %%
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
ticks = spark.read.parquet(f"{DATA}/ticks")
in_band = (F.col("price") > F.col("low")) & (F.col("price") < F.col("low") + F.col("width"))
latest = F.when(in_band, F.col("seq"))
last_in_band = ticks.groupBy("grp").agg(F.max_by("volume", latest).alias("volume"), F.max_by("price", latest).alias("price"))

# %%
flagged = last_in_band.filter((F.col("volume").isNull() | (F.col("volume") <= 99)) & (F.col("volume").isNull() | (F.col("volume") >= 10))
                               & (F.col("price").isNull() | (F.col("price") >= 99) | F.col("price").isNull() | (F.col("price") <= 10)))
