# %% [markdown]
# # Customers with a visit on the 29th
# The 20Nov fold (20Nov_3 of the public Pusharoo benchmarks), as a PySpark user writes it: max
# of a when (built-in aggregate). Per customer, 1 when a visit fell on the 29th, else 0; the
# customers whose flag is at least 1.

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
odd = flags.filter(F.col("on_29th") >= 1)
