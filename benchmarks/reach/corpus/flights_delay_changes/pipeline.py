# %% [markdown]
# # Flight delays: carriers whose delays jump from one ten-day window to the next
# A course lab on US domestic flights (the parsed flights table): the total delay (departure
# plus arrival) of each carrier over sliding ten-day windows, compared with the carrier's
# previous window; the windows whose total changed by more than 30%.

# %%
import os

from pyspark.sql import SparkSession, Window
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
flights_df = spark.read.parquet(f"{DATA}/flights")
flights_df.cache()
flights_df.printSchema()

# %%
grouped_df = (flights_df
              .groupBy(F.col("carrier"), F.window(F.col("flight_date"), "10 days", "1 day").alias("date_window"))
              .agg(F.sum(F.col("dep_delay") + F.col("arr_delay")).alias("total_delay")))
structured_df = grouped_df.select(F.col("carrier"), F.col("date_window.start").alias("start_range"),
                                  F.col("date_window.end").alias("end_range"), F.col("total_delay"))

# %%
sliding_range_window = Window.partitionBy(F.col("carrier")).orderBy(F.col("start_range"))
# the lab divides with `/`; Spark 4 raises on a zero divisor, so try_divide gives the NULL Spark 3 gave
change_df = (structured_df
             .withColumn("last_window_delay", F.lag(F.col("total_delay")).over(sliding_range_window))
             .withColumn("change_percent",
                         F.abs(F.lit(1.0) - F.try_divide(F.col("total_delay"), F.col("last_window_delay")))))
change_df.orderBy("carrier", "start_range").show(5)

# %%
# significant changes in the windows starting from mid-January on
significant_changes_df = change_df.where((F.col("change_percent") > F.lit(0.3))
                                         & (F.col("start_range") >= "2019-01-15"))
