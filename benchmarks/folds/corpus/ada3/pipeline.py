# %% [markdown]
# # Groups whose two lowest scores are both under 50
# The Ada3 fold (Ada3_1 of the public Pusharoo benchmarks), as a PySpark user writes it: min
# (built-in aggregate). Per group, the lowest a and the lowest b; groups where both are under
# 50.

# %%
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
scores = spark.read.parquet(f"{DATA}/scores")
mins = scores.groupBy("grp").agg(F.min("a").alias("min_a"), F.min("b").alias("min_b"))

# %%
low = mins.filter((F.col("min_a") < 50) & (F.col("min_b") < 50))
