# %% [markdown]
# # Each rider's shortest trip, when at most 60 minutes
# The DurationMin fold (DurationMin_4 of the public Pusharoo benchmarks), as a PySpark user
# writes it: row_number() == 1 over a window. Per rider, the trip with the shortest duration
# (row_number over duration, then trip, is 1); those from a station over 5, at most 60 minutes,
# with a fare at most 150.

# %%
import os

from pyspark.sql import SparkSession, Window
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
trips = spark.read.parquet(f"{DATA}/trips")
w = Window.partitionBy("grp").orderBy("duration", "seq")
shortest = trips.withColumn("rn", F.row_number().over(w)).filter(F.col("rn") == 1).drop("rn")

# %%
picked = shortest.filter((F.col("station") > 5) & (F.col("duration") <= 60) & (F.col("fare") <= 150))
