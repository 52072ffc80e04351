# %% [markdown]
# # Cells with one channel minimum in range
# The MinPooling fold (MinPooling_7 of the public Pusharoo benchmarks), as a PySpark user writes
# it: min of a when (built-in aggregates). Per cell, the minimum of each of three channels over
# the readings where all three are present; cells with a c0 minimum at most 19 outside 1 to 5,
# or a c1 minimum under 20 outside 12 and under 6, or a c2 minimum under 50 outside 0 to 6.

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
matched = pooled.filter((~((F.col("min_c0") > 0) & (F.col("min_c0") < 6)) & (F.col("min_c0") <= 19))
                         | (~((F.col("min_c1") == 12) | (F.col("min_c1") < 6)) & (F.col("min_c1") < 20))
                         | (~((F.col("min_c2") >= 0) & (F.col("min_c2") <= 6)) & (F.col("min_c2") < 50)))
