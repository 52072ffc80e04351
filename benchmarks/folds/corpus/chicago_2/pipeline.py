# %% [markdown]
# # Beats with male or female arrestees
# The Chicago fold (Chicago_2 of the public Pusharoo benchmarks), as a PySpark user writes it:
# bool_or (built-in aggregate). Per beat, whether some arrestee is M and whether some is F
# (bool_or); the beats with either.

# %%
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
arrests = spark.read.parquet(f"{DATA}/arrests")
by_beat = arrests.groupBy("grp").agg(F.bool_or(F.col("gender") == "M").alias("has_m"),
                                     F.bool_or(F.col("gender") == "F").alias("has_f"))

# %%
mixed = by_beat.filter(F.col("has_m") | F.col("has_f"))
