# %% [markdown]
# # Sensors by their lowest and highest reading
# The UserDefinedAggregationFunctionTest fold (UserDefinedAggregationFunctionTest_4 of the
# public Pusharoo benchmarks), as a PySpark user writes it: SQL text (spark.sql over a temporary
# view). Per sensor, the lowest and the highest reading, in a SQL query over a temporary view;
# sensors whose lowest is 1, 2 or 3 and whose highest is 58, 59 or 60.

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
edges = ranges.filter(F.col("lo").isin(1, 2, 3) & F.col("hi").isin(58, 59, 60))
