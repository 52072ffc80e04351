# %% [markdown]
# # NYC subway turnstiles: entries and exits per interval
# The turnstile counters are cumulative; the riders of each interval are the difference from
# the unit's previous reading (pandas' groupby('UNIT').apply(entries - entries.shift(1))),
# written as a lag over each unit's readings in time order.

# %%
import os

from pyspark.sql import SparkSession, Window
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
ridership_df = spark.read.parquet(f"{DATA}/turnstile")
ridership_df.show(5)

# %%
unit_readings = Window.partitionBy("UNIT").orderBy("DATEn", "TIMEn", "ENTRIESn")
hourly = ridership_df.select(
    "UNIT", "DATEn", "TIMEn",
    (F.col("ENTRIESn") - F.lag("ENTRIESn", 1).over(unit_readings)).alias("ENTRIESn_hourly"),
    (F.col("EXITSn") - F.lag("EXITSn", 1).over(unit_readings)).alias("EXITSn_hourly"))
hourly.show(5)

# %%
# busy evening intervals: more than 500 entries in a reading from 4 pm on
evening_rush = hourly.filter((F.col("ENTRIESn_hourly") > 500) & (F.col("TIMEn") >= "16:00:00"))
