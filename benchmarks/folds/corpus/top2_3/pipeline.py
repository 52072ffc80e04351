# %% [markdown]
# # Players whose second best score is 100
# The Top2 fold (Top2_3 of the public Pusharoo benchmarks), as a PySpark user writes it:
# sort_array of collect_list (array functions). Per player, the two highest scores (the first two
# of the descending sorted list of scores); players whose best is at least 90 but not 95 and whose
# second best is 100.

# %%
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
scores = spark.read.parquet(f"{DATA}/scores")
ranked = scores.groupBy("grp").agg(F.sort_array(F.collect_list("score"), asc=False).alias("s"))
top = ranked.select("grp", F.get("s", 0).alias("best"), F.get("s", 1).alias("second"))

# %%
perfect = top.filter((F.col("best") >= 90.0) & (F.col("best") != 95.0) & (F.col("second") == 100.0))
