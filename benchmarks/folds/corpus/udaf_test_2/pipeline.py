# %% [markdown]
# # Sensors by their lowest and highest reading
# The UserDefinedAggregationFunctionTest fold (UserDefinedAggregationFunctionTest_2 of the
# public Pusharoo benchmarks), as a PySpark user writes it: SQL text (spark.sql over a temporary
# view). Per sensor, the lowest and the highest reading, in a SQL query over a temporary view;
# sensors whose lowest is at most 3 and whose highest is at least 58.

# %%
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
readings = spark.read.parquet(f"{DATA}/readings")
readings.createOrReplaceTempView("readings")
ranges = spark.sql("SELECT grp, min(x) AS lo, max(x) AS hi FROM readings GROUP BY grp")

# %%
edges = ranges.filter((F.col("lo") <= 3) & (F.col("hi") >= 58))
