# %% [markdown]
# # CDNOW: how long customers stay
# Each customer's life cycle, from the month of the first purchase to the month of the last
# (a pandas function of the months, per customer), and how many customers have each life
# cycle.

# %%
import os

import pandas as pd
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
cd_now = spark.read.parquet(f"{DATA}/cdnow")
cd_now = cd_now.withColumn("date", F.to_date(F.col("date").cast("string"), "yyyyMMdd"))
cd_now = cd_now.withColumn("month", F.trunc("date", "month"))

# %%
@F.pandas_udf("int")
def life_cycle(month: pd.Series) -> int:
    return (month.max() - month.min()).days


per_user = cd_now.select("user", "month").groupBy("user").agg(life_cycle("month").alias("life_cycle_days"))
out = per_user.groupBy("life_cycle_days").agg(F.count("user").alias("users"))
out.orderBy("life_cycle_days").show()

# %%
# customers who stayed at least a year
loyal = out.filter(F.col("life_cycle_days") >= 365)
