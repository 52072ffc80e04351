# %% [markdown]
# # Campaigns by capped attribution points
# The PointAttributionScalaUdaf fold (PointAttributionScalaUdaf_4 of the public Pusharoo
# benchmarks), as a PySpark user writes it: sum of a when capping each value (built-in
# aggregate). Per campaign, the sum of each touch's points capped at 3 (0 when there are none);
# campaigns with a total at most -10 other than -77, or over 50 other than 100.

# %%
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
touches = spark.read.parquet(f"{DATA}/touches")
capped = F.when(F.col("points") < 3, F.col("points")).when(F.col("points") >= 3, 3)
attributed = touches.groupBy("grp").agg(F.coalesce(F.sum(capped), F.lit(0)).alias("points"))

# %%
credited = attributed.filter(((F.col("points") <= -10) & (F.col("points") != -77)) | ((F.col("points") != 100) & (F.col("points") > 50)))
