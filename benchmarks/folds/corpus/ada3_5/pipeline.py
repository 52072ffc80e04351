# %% [markdown]
# # Groups by their two lowest scores
# The Ada3 fold (Ada3_5 of the public Pusharoo benchmarks), as a PySpark user writes it: min
# (built-in aggregate). Per group, the lowest a and the lowest b; groups whose lowest a is under
# 15 or 65 and lowest b at most 30 or 55.

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
low = mins.filter(((F.col("min_a") < 15) | (F.col("min_a") == 65)) & ((F.col("min_b") <= 30) | (F.col("min_b") == 55)))
