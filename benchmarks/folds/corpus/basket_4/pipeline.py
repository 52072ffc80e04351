# %% [markdown]
# # Households that bought a listed product
# The Basket fold (Basket_4 of the public Pusharoo benchmarks), as a PySpark user writes it:
# collect_set and array_intersect (higher-order functions). Per household, how many of four
# listed products its baskets hold (size of the intersection of collect_set with the list); the
# households with from 1 to 9 (at most 4 are listed).

# %%
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
tx = spark.read.parquet(f"{DATA}/transactions")
PRODUCTS = ["0", "1", "2", "3"]
baskets = tx.groupBy("grp").agg(F.collect_set("product_id").alias("products"))
labelled = baskets.withColumn("label", F.size(F.array_intersect("products", F.array(*[F.lit(p) for p in PRODUCTS]))))
labelled.show(5)

# %%
labels = labelled.select("grp", "label")
hits = labels.filter((F.col("label") > 0) & (F.col("label") < 10))
