# %% [markdown]
# # Local businesses located by postcode
# A register of businesses with their postcodes, joined (left) with a postcode lookup of
# coordinates and districts, one lookup row kept per postcode.

# %%
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
df0 = spark.read.parquet(f"{DATA}/businesses")
df2 = spark.read.parquet(f"{DATA}/postcodes")
df2 = df2.dropDuplicates(["postcode"])

# %%
df4 = df0.join(df2, df0["Postcode"] == df2["postcode"], how="left")
df4 = df4.drop(df2["postcode"])
df4 = df4.withColumnRenamed("Business Category", "business_category")
df4.groupBy("district").count().orderBy(F.desc("count")).show(5)

# %%
# the restaurants of Camden
camden_restaurants = df4.filter((F.col("business_category") == "Restaurant") & (F.col("district") == "Camden"))
