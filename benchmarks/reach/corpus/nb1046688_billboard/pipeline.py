# %% [markdown]
# # Billboard Hot 100, 2000: weekly ranks of the top tracks
# The chart file has one row per track and one column per week since it entered the
# chart; it is melted into (track, week, rank) rows, the week number taken from the column
# name, the track length turned into minutes by a Python function, and the ranks pivoted
# into one column per top track, one row per week.

# %%
import os
from datetime import datetime

from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import IntegerType

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
billboard_raw_df = spark.read.parquet(f"{DATA}/billboard")
billboard_raw_df = billboard_raw_df.toDF(*[c.replace(".", "_") for c in billboard_raw_df.columns])
id_vars = billboard_raw_df.columns[:7]

top_tracks = ["(Hot S**t) Country Grammar", "Absolutely (Story Of A Girl)", "Amazed", "Back Here", "Bent", "Breathe",
              "Bring It All To Me", "Case Of The Ex (Whatcha Gonna Do)", "Everything You Want", "Get It On.. Tonite",
              "He Loves U Not", "He Wasn't Man Enough", "Higher", "I Knew I Loved You", "I Try", "I Wanna Know",
              "Independent Women Part I", "Jumpin' Jumpin'", "Kryptonite", "Meet Virginia", "Most Girls",
              "My Love Is Your Love", "Say My Name", "Sexual (Li Da Di)", "That's The Way It Is", "There U Go",
              "Thong Song", "Try Again", "With Arms Wide Open", "You Sang To Me"]

# %%
week_columns = [c for c in billboard_raw_df.columns if c not in id_vars]
billboard_melted_df = billboard_raw_df.unpivot(id_vars, week_columns, "week", "rank")
billboard_melted_df = billboard_melted_df.withColumn("week", F.regexp_extract("week", r"x(\d+)", 1))

to_minutes = F.udf(lambda time: (lambda t: t.hour * 60 + t.minute)(datetime.strptime(time, "%H:%M")),
                   IntegerType())
billboard_melted_df = billboard_melted_df.withColumn("time", to_minutes(F.col("time")))
billboard_melted_df = billboard_melted_df.withColumn("week", F.col("week").cast("int"))

# %%
billboard_track_week_pivoted = billboard_melted_df.groupBy("week").pivot("track", top_tracks).avg("rank")
ax = billboard_track_week_pivoted.orderBy("week")
ax.show(5)

# %%
# the weeks when "Breathe" was in the top ten
breathe_top10 = billboard_track_week_pivoted.filter(F.col("Breathe") <= 10)
