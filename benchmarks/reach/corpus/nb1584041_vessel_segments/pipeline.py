# %% [markdown]
# # AIS vessel transits: each vessel's three longest segments
# Transit segments of ships off the U.S. east coast merged with the vessel information;
# per vessel, its three longest segments (the notebook's `top` function per group, here a
# ranking window).

# %%
import os

from pyspark.sql import SparkSession, Window
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
segments = spark.read.parquet(f"{DATA}/transit_segments")
vessels = spark.read.parquet(f"{DATA}/vessel_information")

# %%
segments_merged = vessels.join(segments, on="mmsi")
print(segments_merged.columns)

# %%
longest_first = Window.partitionBy("mmsi").orderBy(F.desc("seg_length"))
top3segments = (segments_merged.withColumn("rank", F.row_number().over(longest_first))
                .filter(F.col("rank") <= 3)
                .select("mmsi", "names", "seg_length"))
top3segments.show(9)

# %%
# the long passages among them
long_passages = top3segments.filter(F.col("seg_length") >= 50)
