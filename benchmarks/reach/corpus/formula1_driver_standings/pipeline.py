# %% [markdown]
# # Formula 1: race results and driver standings
# The processed Ergast tables (drivers, constructors, circuits, races, results) joined into
# race results; the seasons touched by one incremental results file found by a collect;
# the drivers' points and wins per season over those seasons, and the drivers ranked within
# each season. The two notebooks of the project (race results, then driver standings) run
# here one after the other, without the Delta writes between them.

# %%
import os

from pyspark.sql import SparkSession, Window
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")
v_file_date = "2021-03-21"

# %%
drivers_df = (spark.read.parquet(f"{DATA}/drivers").withColumnRenamed("number", "driver_number")
              .withColumnRenamed("name", "driver_name").withColumnRenamed("nationality", "driver_nationality"))
constructors_df = spark.read.parquet(f"{DATA}/constructors").withColumnRenamed("name", "team")
circuits_df = spark.read.parquet(f"{DATA}/circuits").withColumnRenamed("location", "circuit_location")
races_df = (spark.read.parquet(f"{DATA}/races").withColumnRenamed("name", "race_name")
            .withColumnRenamed("race_timestamp", "race_date"))
results_df = (spark.read.parquet(f"{DATA}/results").withColumnRenamed("time", "race_time")
              .withColumnRenamed("race_id", "result_race_id").withColumnRenamed("file_date", "result_file_date"))

# %%
race_circuits_df = (races_df.join(circuits_df, races_df.circuit_id == circuits_df.circuit_id, "inner")
                    .select(races_df.race_id, races_df.race_year, races_df.race_name, races_df.race_date,
                            circuits_df.circuit_location))
race_results_df = (results_df.join(race_circuits_df, results_df.result_race_id == race_circuits_df.race_id)
                   .join(drivers_df, results_df.driver_id == drivers_df.driver_id)
                   .join(constructors_df, results_df.constructor_id == constructors_df.constructor_id))
race_results = (race_results_df.select("race_id", "race_year", "race_name", "race_date", "circuit_location",
                                       "driver_name", "driver_number", "driver_nationality", "team", "grid",
                                       "fastest_lap", "race_time", "points", "position", "result_file_date")
                .withColumnRenamed("result_file_date", "file_date"))
race_results.show(10)

# %%
# the seasons to recompute: those of the races in this file
race_results_list = race_results.filter(f"file_date = '{v_file_date}'").select("race_year").distinct().collect()
race_year_list = [row.race_year for row in race_results_list]
season_results = race_results.filter(F.col("race_year").isin(race_year_list))

# %%
driver_standings_df = (season_results.groupBy("race_year", "driver_name", "driver_nationality")
                       .agg(F.sum("points").alias("total_points"),
                            F.count(F.when(F.col("position") == 1, True)).alias("wins")))
driver_rank_spec = Window.partitionBy("race_year").orderBy(F.desc("total_points"), F.desc("wins"))
final_df = driver_standings_df.withColumn("rank", F.rank().over(driver_rank_spec))
final_df.groupBy("race_year").count().orderBy(F.desc("race_year")).show()

# %%
# the 2020 podium of the championship
podium_2020 = final_df.filter((F.col("race_year") == 2020) & (F.col("rank") <= 3))
