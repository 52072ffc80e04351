# %% [markdown]
# # Wikidata: which languages label each property
# Label edits deduplicated, in order, then pivoted to one row per property and one 0/1
# column per language.

# %%
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
labels = spark.read.parquet(f"{DATA}/property_labels")
labels = labels.dropDuplicates(["timestamp", "property", "language"])
labels = labels.orderBy("property", "timestamp")
labels = labels.filter(F.col("language").isNotNull())
labels = labels.withColumn("rating", F.lit(1))

# %%
coverage = labels.groupBy("property").pivot("language").agg(F.first("rating"))
print(coverage.columns)
coverage.show(5)
coverage = coverage.fillna(0)

# %%
# properties labelled in German but not in French
german_not_french = coverage.filter((F.col("de") == 1) & (F.col("fr") == 0))
