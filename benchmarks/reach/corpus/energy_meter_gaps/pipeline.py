# %% [markdown]
# # Energy meters: every 15-minute interval, with the hourly average
# Meter readings (meter, interval start, energy in Wh) completed into a grid of every
# 15-minute interval between the first and the last reading for every meter (a range
# cross-joined with the meters, left-joined to the readings, missing energy taken as 0), a
# flag for the intervals without energy, and each interval's hourly average joined back.
# `unix_timestamp` and `timestamp_seconds` stand for the notebook's casts between
# timestamps and seconds. The hour key is the notebook's date format "yyyy mm dd hh"
# (minutes, not months, and a 12-hour clock), kept as it is.

# %%
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
df = spark.read.parquet(f"{DATA}/meter_data")
df = df.withColumn("timestamp", F.col("interval_date_time").cast("timestamp"))

# %%
mi, ma = df.select(F.unix_timestamp(F.min("timestamp")), F.unix_timestamp(F.max("timestamp"))).first()
st = 15 * 60  # 15 minute interval
meter_ids = df.select("meter_id").distinct()
ref = spark.range((mi // st) * st, (ma // st + 1) * st, st).select(F.timestamp_seconds("id").alias("timestamp_ref"))
ref_mids = ref.crossJoin(meter_ids).withColumnRenamed("meter_id", "meter_id_ref")

# %%
join_res = (ref_mids.join(df, (ref_mids.timestamp_ref == df.timestamp) & (ref_mids.meter_id_ref == df.meter_id), "left")
            .drop("meter_id").drop("timestamp")
            .withColumn("energy_wh", F.coalesce("energy_wh", F.lit(0.0))))
df_flag = join_res.withColumn("flag", F.when(F.col("energy_wh") == 0.0, 0).otherwise(1))

# %%
hr_res = (df_flag.select("meter_id_ref", F.date_format("timestamp_ref", "yyyy mm dd hh").alias("hr_date"), "energy_wh")
          .groupBy("meter_id_ref", "hr_date").agg(F.mean("energy_wh").alias("avg_hr_energy"))
          .withColumnRenamed("meter_id_ref", "meter_id"))
result = df_flag.join(hr_res, (df_flag.meter_id_ref == hr_res.meter_id)
                      & (F.date_format("timestamp_ref", "yyyy mm dd hh") == hr_res.hr_date), "inner").drop(hr_res.meter_id)
result = (result.select("meter_id_ref", "timestamp_ref", "energy_wh", "flag", "avg_hr_energy")
          .withColumnRenamed("meter_id_ref", "meter_id").withColumnRenamed("timestamp_ref", "timestamp"))
result.orderBy("meter_id", "timestamp").show(20, truncate=False)

# %%
# the intervals without energy
no_energy = result.filter(F.col("flag") == 0)
