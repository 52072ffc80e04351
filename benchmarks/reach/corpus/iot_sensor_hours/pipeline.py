# %% [markdown]
# # IoT sensor readings: temperature by location and hour
# Temperature and humidity readings of sensors on the floors of two buildings: counts in
# and out of the comfortable range, averages per location, the hour of each reading, the
# average per hour, sensors ranked by average temperature, a pivot of location by hour,
# melted back into (location, hour) rows with `stack`, and the hottest of them.

# %%
import os

from pyspark.sql import SparkSession, Window
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
df = spark.read.parquet(f"{DATA}/sensor_data")
df.createOrReplaceTempView("sensor_readings")
df.show(5)
print(f"Total records: {df.count()}")
df.select("location").distinct().show()

# %%
out_of_range_df = df.filter((F.col("temperature") < 18) | (F.col("temperature") > 30))
in_range_df = df.filter((F.col("temperature") >= 18) & (F.col("temperature") <= 30))
print(f"Out-of-range count: {out_of_range_df.count()}")
print(f"In-range count: {in_range_df.count()}")
agg_df = (df.groupBy("location").agg(F.avg("temperature").alias("avg_temperature"),
                                     F.avg("humidity").alias("avg_humidity"))
          .orderBy(F.desc("avg_temperature")))
agg_df.show()

# %%
df = df.withColumn("timestamp", F.to_timestamp("timestamp"))
df = df.withColumn("hour_of_day", F.hour("timestamp"))
df.createOrReplaceTempView("sensor_readings")
hourly_avg_df = df.groupBy("hour_of_day").agg(F.avg("temperature").alias("avg_temp")).orderBy("hour_of_day")
hourly_avg_df.show()

# %%
sensor_avg_df = df.groupBy("sensor_id").agg(F.avg("temperature").alias("avg_temp"))
ranked_df = sensor_avg_df.withColumn("rank_temp", F.dense_rank().over(Window.orderBy(F.desc("avg_temp"))))
ranked_df.orderBy("rank_temp").show(5)

# %%
pivot_df = df.groupBy("location").pivot("hour_of_day").agg(F.avg("temperature"))
pivot_df.show()
melted = pivot_df.selectExpr("location", "stack(24, " + ",".join([f"'{i}', `{i}`" for i in range(24)])
                             + ") as (hour, avg_temp)")
hottest = melted.orderBy(F.desc("avg_temp")).limit(1)
hottest.show()

# %%
# the location-hours averaging above 28 degrees
hot_hours = melted.filter(F.col("avg_temp") > 28)
