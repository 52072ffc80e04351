# %% [markdown]
# # Search interest over time, four search terms together
# Four search-interest exports (one per search term: a date and a daily search
# frequency), their blank lines removed, stacked, sorted by date, and summed per date.

# %%
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
df0 = spark.read.parquet(f"{DATA}/searches_0")
df6 = df0.filter(F.col("date").isNull() == False)  # noqa: E712
df7 = spark.read.parquet(f"{DATA}/searches_7")
df13 = df7.filter(F.col("date").isNull() == False)  # noqa: E712
df14 = spark.read.parquet(f"{DATA}/searches_14")
df20 = df14.filter(F.col("date").isNull() == False)  # noqa: E712
df21 = spark.read.parquet(f"{DATA}/searches_21")
df27 = df21.filter(F.col("date").isNull() == False)  # noqa: E712

# %%
df28 = df6.unionByName(df13)
df29 = df28.unionByName(df20)
df30 = df29.unionByName(df27)
df31 = df30.orderBy("date")
df34 = df31.groupBy("date").agg(F.sum("SearchFrequency").alias("SearchFrequency"))
df34.orderBy("date").show(5)

# %%
# since the pandemic began
since_pandemic = df34.filter(F.col("date") >= "2020-03-01")
