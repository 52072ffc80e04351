# %% [markdown]
# # Users who bought
# The Jdata fold (Jdata_2 of the public Pusharoo benchmarks), as a PySpark user writes it: max
# of a when (built-in aggregate). Per user, 1 when some action is a purchase (type 4), else 0
# (max of a when); users whose flag is above 0.

# %%
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
actions = spark.read.parquet(f"{DATA}/actions")
per_user = actions.groupBy("grp").agg(F.max(F.when(F.col("type") == 4, 1).otherwise(0)).alias("bought"))

# %%
buyers = per_user.filter(F.col("bought") > 0)
