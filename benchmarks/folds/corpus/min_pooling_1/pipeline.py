# %% [markdown]
# # Cells whose complete readings pool under 10
# The MinPooling fold (MinPooling_1 of the public Pusharoo benchmarks), as a PySpark user writes
# it: min of a when (built-in aggregates). Per cell, the minimum of each of three channels over
# the readings where all three are present; cells with every channel minimum under 10.

# %%
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
readings = spark.read.parquet(f"{DATA}/readings")
complete = F.col("c0").isNotNull() & F.col("c1").isNotNull() & F.col("c2").isNotNull()
pooled = readings.groupBy("grp").agg(*[F.min(F.when(complete, F.col(c))).alias(f"min_{c}") for c in ("c0", "c1", "c2")])

# %%
matched = pooled.filter((F.col("min_c0") < 10) & (F.col("min_c1") < 10) & (F.col("min_c2") < 10))
