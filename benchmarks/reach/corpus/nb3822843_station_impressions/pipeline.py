# %% [markdown]
# # Subway stations: advertising slots by traffic density
# Per day, the fifty stations with the most impressions, each station's share of those
# fifty's impressions, and the slots (out of 150) it would get.

# %%
import os

from pyspark.sql import SparkSession, Window
from pyspark.sql import functions as F
from pyspark.sql.types import IntegerType

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
df = spark.read.parquet(f"{DATA}/station_impressions")

# %%
# per day, the 50 stations with the most impressions
by_impressions = Window.partitionBy("DAY").orderBy(F.desc("IMPRESSIONS"))
top50 = (df.select("DAY", "IMPRESSIONS", "STATION")
         .withColumn("rank", F.row_number().over(by_impressions))
         .filter(F.col("rank") <= 50)
         .drop("rank"))
total_traffic = top50.groupBy("DAY").agg(F.sum("IMPRESSIONS").alias("IMPRESSIONS"))

# %%
top50 = (top50.withColumnRenamed("IMPRESSIONS", "IMPRESSIONS_station")
         .join(total_traffic.withColumnRenamed("IMPRESSIONS", "IMPRESSIONS_total"), on="DAY"))
top50 = top50.filter(F.col("IMPRESSIONS_station") > 85007)
top50 = top50.withColumn("density_score", F.col("IMPRESSIONS_station") / F.col("IMPRESSIONS_total"))
slots = F.udf(lambda val: round(val * 150), IntegerType())
top50 = top50.withColumn("slots", slots(F.col("density_score")))

# %%
day12 = top50.filter(F.col("DAY") == 12)
print(day12.count(), len(day12.columns))
