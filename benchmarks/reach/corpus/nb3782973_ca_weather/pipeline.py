# %% [markdown]
# # California weather stations: November precipitation and wind, 1990-2015
# Daily NOAA GSOD summaries of California stations (the subset the notebook saved after
# its own preprocessing of the raw yearly files): monthly means per station, the
# Novembers of 1990-2015, one column per station and measure, and only the stations with a
# value every November (the notebook's dropna over columns).

# %%
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
df_subsetted = spark.read.parquet(f"{DATA}/ca_1981_2015_subsetted")
df_subsetted.select("STN", "YEARMODA", "TEMP", "DEWP", "VISIB", "WDSP", "GUST", "MAX", "MIN", "PRCP").show(10)

# %%
# resample("M") per station: the month's mean, labelled by the month's last day
df_monthly = (df_subsetted.groupBy("STN", F.last_day("YEARMODA").alias("YEARMODA"))
              .agg(F.mean("PRCP").alias("PRCP"), F.mean("MXSPD").alias("MXSPD"), F.mean("WDSP").alias("WDSP")))
df_novembers = df_monthly.filter(F.month("YEARMODA") == 11)
dff = df_novembers.filter(F.year("YEARMODA").between(1990, 2015))

# %%
all_data = dff.groupBy("YEARMODA").pivot("STN").agg(F.first("PRCP").alias("PRCP"), F.first("MXSPD").alias("MXSPD"),
                                                     F.first("WDSP").alias("WDSP"))
rows = all_data.count()
non_null = all_data.select([F.count(F.col(f"`{c}`")).alias(c) for c in all_data.columns]).first()
all_data = all_data.select([F.col(f"`{c}`") for c in all_data.columns if non_null[c] == rows])
print(len(all_data.columns), "columns kept")

# %%
# the Novembers since 2005
recent = all_data.filter(F.year("YEARMODA") >= 2005)
