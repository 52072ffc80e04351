# %% [markdown]
# # The latest snapshot of each key
# The SnapshotAggregator fold (SnapshotAggregator_3 of the public Pusharoo benchmarks), as a
# PySpark user writes it: row_number() == 1 over a window, descending. Per key, the row with the
# highest version (row_number over version descending, then seq); keys whose latest version is
# from 20 to 40 with a value other than 98.

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
current = latest.filter((F.col("version") >= 20) & (F.col("version") <= 40) & (F.col("value") != 98))
