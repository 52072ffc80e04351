# %% [markdown]
# # NYC yellow taxi: tipping by zone and time of day
# Trip records cleaned (durations from the timestamps, impossible trips removed), labelled
# with a time-of-day band, joined to the pickup zone, and compared with the average tip of
# trips from the same zone in the same band.

# %%
import os

from pyspark.sql import SparkSession, Window
from pyspark.sql import functions as F
from pyspark.sql.types import StringType

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
trips = spark.read.parquet(f"{DATA}/yellow_tripdata")
zones = spark.read.parquet(f"{DATA}/taxi_zone_lookup")
trips.printSchema()

# %%
trips = (trips
         .withColumn("duration_min", (F.unix_timestamp("tpep_dropoff_datetime")
                                      - F.unix_timestamp("tpep_pickup_datetime")) / 60)
         .withColumn("pickup_hour", F.hour("tpep_pickup_datetime"))
         .withColumn("tip_pct", F.when(F.col("fare_amount") > 0,
                                       F.col("tip_amount") / F.col("fare_amount") * 100)))
clean = trips.filter((F.col("trip_distance") > 0) & F.col("duration_min").between(1, 180)
                     & (F.col("passenger_count") > 0))
print(trips.count(), clean.count())

# %%
@F.udf(returnType=StringType())
def time_of_day(hour):
    if hour is None:
        return None
    if 6 <= hour < 10:
        return "morning rush"
    if 16 <= hour < 20:
        return "evening rush"
    if hour >= 22 or hour < 5:
        return "night"
    return "day"


clean = clean.withColumn("time_of_day", time_of_day(F.col("pickup_hour")))

# %%
pickup_zones = zones.select(F.col("LocationID").alias("PULocationID"), F.col("Borough").alias("pickup_borough"),
                            F.col("Zone").alias("pickup_zone"))
enriched = clean.join(pickup_zones, on="PULocationID", how="left")

# %%
same_zone_and_band = Window.partitionBy("PULocationID", "time_of_day")
enriched = (enriched.withColumn("zone_avg_tip_pct", F.avg("tip_pct").over(same_zone_and_band))
            .withColumn("tip_vs_zone", F.col("tip_pct") - F.col("zone_avg_tip_pct")))
enriched.groupBy("time_of_day").agg(F.avg("tip_pct")).show()

# %%
# night trips from Queens (the airports)
queens_nights = enriched.filter((F.col("time_of_day") == "night") & (F.col("pickup_borough") == "Queens"))
