# %% [markdown]
# # Sessionizing web events
# Each user's events ordered by time; a new session starts at the user's first event and
# after a gap of more than 30 minutes; the session number is the running count of session
# starts.

# %%
import os

from pyspark.sql import SparkSession, Window
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
df = spark.read.parquet(f"{DATA}/web_events")
df.show()
df = df.withColumn("event_time", F.to_timestamp(F.col("event_time")))

# %%
window_spec = Window.partitionBy("user_id").orderBy("event_time")
df_with_lag = df.withColumn("previous_event_time", F.lag(F.col("event_time"), 1).over(window_spec))
df_gap = df_with_lag.withColumn("gap_minutes", (F.unix_timestamp(F.col("event_time"))
                                                - F.unix_timestamp(F.col("previous_event_time"))) / 60)
df_flagged = df_gap.withColumn("session_break",
                               F.when(F.col("gap_minutes").isNull() | (F.col("gap_minutes") > 30), 1).otherwise(0))
df_flagged.show()

# %%
window_session = Window.partitionBy("user_id").orderBy("event_time").rowsBetween(Window.unboundedPreceding, 0)
df_sessionized = df_flagged.withColumn("session_id", F.sum("session_break").over(window_session))
events = df_sessionized.select("user_id", "event_time", "page", "session_id")
events.orderBy("user_id", "event_time").show(truncate=False)

# %%
# the checkouts, with the session each happened in
checkouts = events.filter(F.col("page") == "/checkout")
