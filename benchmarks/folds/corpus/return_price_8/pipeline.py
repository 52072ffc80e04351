# %% [markdown]
# # Products by their first and last price
# The ReturnPriceAggregator fold (ReturnPriceAggregator_8 of the public Pusharoo benchmarks),
# as a PySpark user writes it: min and max of a struct (built-in aggregates). Per product, the
# price on the earliest and on the latest day (min and max of a struct of day, seq and price);
# products with a first price over 0 and at most 4 on day 38 or earlier or on day 40, and a
# last price over 0.2 and under 4.6 from day 55 or on day 53 (the peer's 100, 5 and 115, its
# prices scaled by 1/25 to these tables' 0 to 4).

# %%
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
prices = spark.read.parquet(f"{DATA}/prices")
ends = prices.groupBy("grp").agg(F.min(F.struct("day", "seq", "price")).alias("first"),
                                 F.max(F.struct("day", "seq", "price")).alias("last"))
span = ends.select("grp", F.col("first.day").alias("first_day"), F.col("first.price").alias("first_price"),
                   F.col("last.day").alias("last_day"), F.col("last.price").alias("last_price"))

# %%
moved = span.filter((F.col("first_price") > 0) & (F.col("first_price") <= 4) & ((F.col("first_day") <= 38) | (F.col("first_day") == 40))
                    & (F.col("last_price") > 0.2) & (F.col("last_price") < 4.6) & ((F.col("last_day") >= 55) | (F.col("last_day") == 53)))
