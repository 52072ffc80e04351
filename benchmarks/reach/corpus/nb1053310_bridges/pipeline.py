# %% [markdown]
# # Bridge condition by structure kind
# National Bridge Inventory records joined with the elevation of each bridge's location:
# the mean superstructure rating of each kind of structure, for bridges above sea level.

# %%
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
bridges = spark.read.parquet(f"{DATA}/bridges")
elevations = spark.read.parquet(f"{DATA}/elevations")
bridges.printSchema()

# %%
# not culverts, built after 1900, at most 400 m long
not_culverts = bridges.filter(F.col("CULVERT_COND_062") == "N")
modern = not_culverts.filter(F.col("YEAR_BUILT_027") > 1900)
short = modern.filter(F.col("STRUCTURE_LEN_MT_049") <= 400)
short.count()

# %%
above_sea = elevations.filter(F.col("elevation") >= 0).drop("Unnamed: 0")
located = short.join(above_sea, on=["LAT_016", "LONG_017"])
located = located.dropna(subset=["STRUCTURE_KIND_043A"])
located = located.withColumn("SUPERSTRUCTURE_COND_059", F.col("SUPERSTRUCTURE_COND_059").cast("double"))

# %%
by_kind = (located.groupBy("STRUCTURE_KIND_043A")
           .agg(F.mean("SUPERSTRUCTURE_COND_059").alias("mean_superstructure_cond")))
by_kind.orderBy("STRUCTURE_KIND_043A").show()

# %%
# the kinds of structure whose superstructures are, on average, in poor shape
poor_kinds = by_kind.filter(F.col("mean_superstructure_cond") < 6)
poor_kinds.show()
