# %% [markdown]
# # Orders partitioned by region
# The orders are written as Parquet partitioned by `region`. Python UDFs name each region's
# zone and score each order; a late filter keeps one zone's big earners. A filter on `region`
# at the read is a partition filter: Spark lists only the matching directories. The session's
# master comes from NOTEBOOK_MASTER when it is set (a cluster), else a local one.

# %%
import os
import random

from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import IntegerType, StringType

spark = (SparkSession.builder.master(os.environ.get("NOTEBOOK_MASTER", "local[2]")).appName("partitioned-orders")
         .config("spark.ui.enabled", "false")
         .config("spark.sql.shuffle.partitions", "2")
         .getOrCreate())

# %%
path = os.path.abspath("data/orders_by_region.parquet")
if not os.path.exists(path):
    (spark.range(4000)
     .select(F.col("id").alias("order_id"),
             (F.col("id") % 8).cast("int").alias("region"),
             (F.col("id") * 7919 % 1000).cast("int").alias("amount"))
     .write.partitionBy("region").parquet(path))

# %%
orders = spark.read.parquet(path)


# %%
@F.udf(StringType())
def zone(region):
    """The zone a region lies in."""
    if region is None:
        return None
    if region >= 6:
        return "east"
    if region >= 3:
        return "centre"
    return "west"


@F.udf(IntegerType())
def loyalty_points(amount):
    """Points for one order: big orders earn a flat bonus."""
    if amount is None:
        return None
    if amount > 500:
        return amount + 50
    return amount // 10


scored = orders.withColumn("zone", zone(F.col("region"))).withColumn("points", loyalty_points(F.col("amount")))

# %%
east_big = scored.filter((F.col("zone") == "east") & (F.col("points") > 1000))
print(f"{east_big.count()} big earners in the east")

# %%
# a neighbour that must stay where it is: the UDF draws a random number
jitter = F.udf(lambda r: r + random.randint(0, 1), IntegerType()).asNondeterministic()
shaken = orders.withColumn("shaken", jitter(F.col("region"))).filter(F.col("shaken") == 7)
print(f"{shaken.count()} shaken orders")
