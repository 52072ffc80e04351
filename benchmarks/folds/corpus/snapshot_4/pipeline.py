# %% [markdown]
# # The latest snapshot of each key
# The SnapshotAggregator fold (SnapshotAggregator_4 of the public Pusharoo benchmarks), as a
# PySpark user writes it: row_number() == 1 over a window, descending. Per key, the row with the
# highest version (row_number over version descending, then seq); keys whose latest version is
# in (10, 40] other than 15, with a value.

# %%
import os

from pyspark.sql import SparkSession, Window
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
snapshots = spark.read.parquet(f"{DATA}/snapshots")
w = Window.partitionBy("grp").orderBy(F.col("version").desc(), "seq")
latest = snapshots.withColumn("rn", F.row_number().over(w)).filter(F.col("rn") == 1).drop("rn")

# %%
current = latest.filter((F.col("version") > 10) & (F.col("version") != 15) & (F.col("version") <= 40)
                         & F.col("value").isNotNull())
