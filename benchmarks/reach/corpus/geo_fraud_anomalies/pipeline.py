# %% [markdown]
# # Geo-spatial fraud: impossible journeys
# Card transactions ordered per customer: the distance (haversine, a Python UDF) and the
# minutes since the customer's previous transaction; a transaction more than 1,000 km from
# the previous one within 30 minutes is a spatial anomaly. Then the fraud hotspot queries.

# %%
import math
import os

from pyspark.sql import SparkSession, Window
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
@F.udf("double")
def haversine(lat1, lon1, lat2, lon2):
    if None in (lat1, lon1, lat2, lon2):
        return None
    radius = 6371.0
    phi1, phi2 = math.radians(lat1), math.radians(lat2)
    dphi = math.radians(lat2 - lat1)
    dlambda = math.radians(lon2 - lon1)
    a = math.sin(dphi / 2) ** 2 + math.cos(phi1) * math.cos(phi2) * math.sin(dlambda / 2) ** 2
    return 2 * radius * math.asin(math.sqrt(a))


df = spark.read.parquet(f"{DATA}/transactions")

# %%
window = Window.partitionBy("UserID").orderBy("Timestamp")
df = (df.withColumn("PrevLat", F.lag("Latitude").over(window))
      .withColumn("PrevLon", F.lag("Longitude").over(window))
      .withColumn("PrevTime", F.lag("Timestamp").over(window)))
df = df.withColumn("DistanceKM", haversine("Latitude", "Longitude", "PrevLat", "PrevLon"))
df = df.withColumn("MinutesSincePrev", (F.col("Timestamp").cast("long") - F.col("PrevTime").cast("long")) / 60)
df = df.withColumn("SpatialAnomaly", (F.col("DistanceKM") > 1000) & (F.col("MinutesSincePrev") < 30))
df.createOrReplaceTempView("transactions")
print("Spatial anomaly feature added")

# %%
# top cities by fraud count, fraud rate by city
spark.sql("""SELECT City, COUNT(*) AS FraudCount FROM transactions WHERE IsFraud = 1
             GROUP BY City ORDER BY FraudCount DESC LIMIT 5""").show()
spark.sql("""SELECT City, COUNT(*) AS TotalTransactions,
                    SUM(CASE WHEN IsFraud = 1 THEN 1 ELSE 0 END) AS FraudTransactions,
                    SUM(CASE WHEN IsFraud = 1 THEN 1 ELSE 0 END) * 100.0 / COUNT(*) AS FraudRatePercent
             FROM transactions GROUP BY City ORDER BY FraudRatePercent DESC LIMIT 5""").show()

# %%
# impossible journeys that are not labelled as fraud: the cases to review
to_review = df.filter(F.col("SpatialAnomaly") & (F.col("IsFraud") == 0))
