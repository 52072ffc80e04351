# %% [markdown]
# # Flight delays per route
# The BTS on-time records as read from the CSV files (all text): columns lower-cased, the
# hhmm times turned into timestamps (a day added where a time wraps past midnight), elapsed
# times recomputed, numbers cast; then the average delays and taxi times per carrier,
# origin and destination. (The notebook's round trip through a Parquet file and its timing
# against PostgreSQL are left out.)

# %%
import os

from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import BooleanType, FloatType, IntegerType

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
df = spark.read.parquet(f"{DATA}/flight_delays")
df.printSchema()

# %%
# lower-case column names, without the last (unused) column
df = df.drop("Unnamed: 27")
for column in df.columns:
    df = df.withColumnRenamed(column, column.lower())

# %% [markdown]
# The times are hhmm text: padded to four digits and put after the date, then parsed
# (`try_to_timestamp`: Spark 4 fails on a value it cannot parse, as a missing actual time of
# a cancelled flight; Spark 3 gave NULL).

# %%
def cast_floatstr_to_int(col_str: str) -> Column:
    return F.col(col_str).cast(FloatType()).cast(IntegerType())


def datediff_min(col1: str, col2: str) -> Column:
    return (F.unix_timestamp(F.col(col1)) - F.unix_timestamp(F.col(col2))) / 60


def correct_data(df: DataFrame) -> DataFrame:
    df_new = (df
              .withColumn("crs_dep_time", F.concat_ws(" ", F.col("fl_date"), F.concat(F.lpad(F.col("crs_dep_time"), 4, "0"), F.lit("00"))))
              .withColumn("dep_time", F.concat_ws(" ", F.col("fl_date"), F.concat(F.lpad(cast_floatstr_to_int("dep_time"), 4, "0"), F.lit("00"))))
              .withColumn("crs_arr_time", F.concat_ws(" ", F.col("fl_date"), F.concat(F.lpad(F.col("crs_arr_time"), 4, "0"), F.lit("00"))))
              .withColumn("arr_time", F.concat_ws(" ", F.col("fl_date"), F.concat(F.lpad(cast_floatstr_to_int("arr_time"), 4, "0"), F.lit("00"))))
              .withColumn("wheels_off", F.concat_ws(" ", F.col("fl_date"), F.concat(F.lpad(cast_floatstr_to_int("wheels_off"), 4, "0"), F.lit("00"))))
              .withColumn("wheels_on", F.concat_ws(" ", F.col("fl_date"), F.concat(F.lpad(cast_floatstr_to_int("wheels_on"), 4, "0"), F.lit("00"))))
              .withColumn("fl_date", F.col("fl_date").cast("date"))
              .withColumn("dep_delay", cast_floatstr_to_int("dep_delay"))
              .withColumn("arr_delay", cast_floatstr_to_int("arr_delay"))
              .withColumn("taxi_out", cast_floatstr_to_int("taxi_out"))
              .withColumn("taxi_in", cast_floatstr_to_int("taxi_in")))

    timestamp_cols = ["wheels_on", "wheels_off", "arr_time", "crs_arr_time", "dep_time", "crs_dep_time"]
    for col in timestamp_cols:
        df_new = df_new.withColumn(col, F.try_to_timestamp(col, F.lit("yyyy-MM-dd HHmmss")))

    # check if dates are in the other day
    df_new = (df_new
              .withColumn("dep_time", F.when(datediff_min("crs_dep_time", "dep_time") > F.abs(F.col("dep_delay")), F.col("dep_time") + F.expr("INTERVAL 1 DAY")).otherwise(F.col("dep_time")))
              .withColumn("crs_arr_time", F.when(datediff_min("crs_arr_time", "crs_dep_time") < 0, F.col("crs_arr_time") + F.expr("INTERVAL 1 DAY")).otherwise(F.col("crs_arr_time")))
              .withColumn("wheels_on", F.when(datediff_min("wheels_on", "wheels_off") < 0, F.col("wheels_on") + F.expr("INTERVAL 1 DAY")).otherwise(F.col("wheels_on")))
              .withColumn("arr_time", F.when(F.datediff(F.to_date(F.col("crs_arr_time")), F.to_date(F.col("crs_dep_time"))) > 0, F.col("arr_time") + F.expr("INTERVAL 1 DAY")).otherwise(F.col("arr_time"))))

    df_new = (df_new
              .withColumn("air_time", datediff_min("wheels_on", "wheels_off"))
              .withColumn("crs_elapsed_time", datediff_min("crs_arr_time", "crs_dep_time"))
              .withColumn("actual_elapsed_time", F.col("air_time") + F.col("taxi_out") + F.col("taxi_in"))
              .withColumn("distance", F.col("distance").cast(FloatType()))
              .withColumn("carrier_delay", F.col("carrier_delay").cast(FloatType()))
              .withColumn("weather_delay", F.col("weather_delay").cast(FloatType()))
              .withColumn("nas_delay", F.col("nas_delay").cast(FloatType()))
              .withColumn("security_delay", F.col("security_delay").cast(FloatType()))
              .withColumn("late_aircraft_delay", F.col("late_aircraft_delay").cast(FloatType()))
              .withColumn("cancelled", cast_floatstr_to_int("cancelled").cast(BooleanType()))
              .withColumn("diverted", cast_floatstr_to_int("diverted").cast(BooleanType())))

    return df_new


df = correct_data(df)
df.printSchema()

# %%
# average departure delay and taxi-out time per carrier and origin
(df.select(F.col("op_carrier"), F.col("origin"), F.col("dep_delay"), F.col("taxi_out"))
 .groupBy("op_carrier", "origin")
 .agg(F.avg("dep_delay").alias("avg_dep_delay"), F.avg("taxi_out").alias("avg_taxi_out"))
 .orderBy(F.col("avg_dep_delay").desc(), F.col("avg_taxi_out").desc())
 .show())

# %%
# average total delay, departure and arrival delays and taxi times per carrier and route
routes = (df.select(F.col("op_carrier"), F.col("origin"), F.col("dest"), F.col("crs_elapsed_time"),
                    F.col("actual_elapsed_time"), F.col("dep_delay"), F.col("taxi_out"), F.col("taxi_in"),
                    F.col("arr_delay"), F.col("cancelled"))
          .where(F.col("cancelled") == False)  # noqa: E712
          .groupBy("op_carrier", "origin", "dest")
          .agg(F.avg(F.col("actual_elapsed_time") - F.col("crs_elapsed_time")).alias("avg_total_delay"),
               F.avg("dep_delay").alias("avg_dep_delay"),
               F.avg("taxi_out").alias("avg_taxi_out"),
               F.avg("taxi_in").alias("avg_taxi_in"),
               F.avg("arr_delay").alias("avg_arr_delay"))
          .orderBy(F.col("avg_total_delay").desc()))
routes.show()

# %%
# routes out of Chicago O'Hare that arrive late on average
late_from_ord = routes.filter((F.col("origin") == "ORD") & (F.col("avg_arr_delay") > 15))
