# %% [markdown]
# # Customers flagged for the 29th
# The 20Nov fold (20Nov_4 of the public Pusharoo benchmarks), as a PySpark user writes it: max
# of a when (built-in aggregate). Per customer, 1 when a visit fell on the 29th, else 0; flags
# of at least 1 other than 14, or above 19 (the flag is 0 or 1, so the customers with a visit on
# the 29th).

# %%
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
visits = spark.read.parquet(f"{DATA}/visits")
flags = visits.groupBy("grp").agg(F.max(F.when(F.col("day") == 29, 1).otherwise(0)).alias("on_29th"))

# %%
odd = flags.filter(((F.col("on_29th") >= 1) & (F.col("on_29th") != 14)) | (F.col("on_29th") > 19))
