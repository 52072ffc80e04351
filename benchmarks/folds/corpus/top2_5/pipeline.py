# %% [markdown]
# # Players by their two best scores
# The Top2 fold (Top2_5 of the public Pusharoo benchmarks), as a PySpark user writes it:
# sort_array of collect_list (array functions). Per player, the two highest scores (the first two
# of the descending sorted list of scores); players whose best is 70 or at least 100 and whose
# second best is 80 or at least 90.

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
perfect = top.filter(((F.col("best") == 70.0) | (F.col("best") >= 100.0)) & ((F.col("second") == 80.0) | (F.col("second") >= 90.0)))
