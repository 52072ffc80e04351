# %% [markdown]
# # Each rider's shortest trip, when between 10 and 60 minutes
# The DurationMin fold (DurationMin_1 of the public Pusharoo benchmarks), as a PySpark user
# writes it: row_number() == 1 over a window. Per rider, the trip with the shortest duration
# (row_number over duration, then trip, is 1); those longer than 10 and shorter than 60
# minutes, not 35.

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
picked = shortest.filter((F.col("duration") > 10) & (F.col("duration") != 35) & (F.col("duration") < 60))
