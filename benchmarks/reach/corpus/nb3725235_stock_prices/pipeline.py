# %% [markdown]
# # One stock, five years of daily prices
# Five yearly downloads of the same stock, dates parsed, stacked into one price history.

# %%
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
prices_2013 = spark.read.parquet(f"{DATA}/prices_2013")
prices_2014 = spark.read.parquet(f"{DATA}/prices_2014")
prices_2015 = spark.read.parquet(f"{DATA}/prices_2015")
prices_2016 = spark.read.parquet(f"{DATA}/prices_2016")
prices_2017 = spark.read.parquet(f"{DATA}/prices_2017")

# %%
prices_2013 = prices_2013.withColumn("Date", F.to_timestamp("Date"))
prices_2014 = prices_2014.withColumn("Date", F.to_timestamp("Date"))
prices_2015 = prices_2015.withColumn("Date", F.to_timestamp("Date"))
prices_2016 = prices_2016.withColumn("Date", F.to_timestamp("Date"))
prices_2017 = prices_2017.withColumn("Date", F.to_timestamp("Date"))
prices = prices_2013.union(prices_2014).union(prices_2015).union(prices_2016).union(prices_2017)
prices.show()

# %%
# the days the stock closed above its open, since July 2016
up_days = prices.filter((F.col("Date") >= "2016-07-01") & (F.col("Close") > F.col("Open")))
