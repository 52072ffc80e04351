# %% [markdown]
# # The latest code-50 sale of each store
# The AggregationQuerySuite fold (AggregationQuerySuite_5 of the public Pusharoo benchmarks), as
# a PySpark user writes it: max_by over a when (built-in aggregate). Per store, the code,
# quantity and price of the latest row (by seq) with code 50 (max_by over when(code = 50, seq));
# stores where that quantity is in (22, 50] and that price from 44 to under 60.

# %%
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
sales = spark.read.parquet(f"{DATA}/sales")
latest = F.when(F.col("code") == 50, F.col("seq"))
picked = sales.groupBy("grp").agg(F.max_by("code", latest).alias("code"), F.max_by("qty", latest).alias("qty"),
                                 F.max_by("price", latest).alias("price"))

# %%
deals = picked.filter((F.col("qty") > 22) & (F.col("qty") <= 50) & (F.col("price") >= 44) & (F.col("price") < 60))
