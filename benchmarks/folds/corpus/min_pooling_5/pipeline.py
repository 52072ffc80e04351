# %% [markdown]
# # Cells whose complete readings pool to the given minima, or have none
# The MinPooling fold (MinPooling_5 of the public Pusharoo benchmarks), as a PySpark user writes
# it: min of a when (built-in aggregates). Per cell, the minimum of each of three channels over
# the readings where all three are present; cells whose c0 minimum is 6, c1 minimum at least 6
# and c2 minimum under 29, each also kept when NULL (a cell without a complete reading).

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
matched = pooled.filter((F.col("min_c0").isNull() | (F.col("min_c0") == 6)) & (F.col("min_c1").isNull() | (F.col("min_c1") >= 6))
                         & (F.col("min_c2").isNull() | (F.col("min_c2") < 29)))
