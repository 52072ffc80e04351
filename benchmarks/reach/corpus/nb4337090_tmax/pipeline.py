# %% [markdown]
# # Daily maximum temperatures around a city
# NOAA GHCN-Daily records from the stations near one city: the highest maximum temperature
# recorded on each day across the stations (tenths of a degree Celsius).

# %%
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
df = spark.read.parquet(f"{DATA}/ghcn_daily")
df.groupBy("Element").count().show()

# %%
df1 = df.alias("copy")
tmax = df1.filter(F.col("Element") == "TMAX").drop("ID", "Element")
tmax = tmax.orderBy("Date")

# %%
daily_max = tmax.groupBy("Date").agg(F.max("Data_Value").alias("Data_Value"))
daily_max.orderBy("Date").show(5)

# %%
# the days on which some station reached 35 degrees
hot_days = daily_max.filter(F.col("Data_Value") >= 350)
