# %% [markdown]
# # Users whose valid ranges cover 0
# The RoaringBitmapUDAF fold (RoaringBitmapUDAF_2 of the public Pusharoo benchmarks), as a
# PySpark user writes it: bool_or over ranges (built-in aggregates). Per user, whether some
# valid range [lo, hi] (0 <= lo <= hi) covers 0, 1 and 2, as 0/1 flags; users covering 0 whose
# flag for 1 is 0 or 1 and flag for 2 at least 0.

# %%
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
ranges = spark.read.parquet(f"{DATA}/ranges")
valid = (F.col("lo") >= 0) & (F.col("lo") <= F.col("hi"))
covers = ranges.groupBy("grp").agg(*[F.bool_or(valid & (F.col("lo") <= v) & (F.col("hi") >= v)).alias(f"has_{v}") for v in (0, 1, 2)])

# %%
flag = {v: F.col(f"has_{v}").cast("int") for v in (0, 1, 2)}
full = covers.filter((flag[0] >= 1) & flag[1].isin(0, 1) & (flag[2] >= 0))
