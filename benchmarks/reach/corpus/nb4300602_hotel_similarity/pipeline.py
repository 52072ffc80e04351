# %% [markdown]
# # Hotels similar to hotel 21
# The distance of each hotel's feature vector from hotel 21's, with hotel 21 itself put
# first; the squared distance, computed by a Python function, ranks the hotels by
# similarity.

# %%
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import DoubleType

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
df0 = spark.read.parquet(f"{DATA}/hotel_distances")
df16 = df0.select("*")

# %%
df19 = df16.filter(F.col("hotel_id") == 21)
df22 = df16.filter(F.col("hotel_id") != 21)
df23 = df19.union(df22)
print(df23.count(), len(df23.columns))

# %%
square = F.udf(lambda distance: distance * distance, DoubleType())
df23 = df23.withColumn("similarity_distance", square(F.col("distance")))
df58 = df23.orderBy("similarity_distance")
df58.show(10)

# %%
# the hotels closest to hotel 21
most_similar = df58.filter(F.col("similarity_distance") < 0.25)
