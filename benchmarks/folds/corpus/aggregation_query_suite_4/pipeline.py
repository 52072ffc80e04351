# %% [markdown]
# # The latest code-50 sale of each store
# The AggregationQuerySuite fold (AggregationQuerySuite_4 of the public Pusharoo benchmarks), as
# a PySpark user writes it: max_by over a when (built-in aggregate). Per store, the code,
# quantity and price of the latest row (by seq) with code 50 (max_by over when(code = 50, seq));
# stores where that code is under 22 or 51 and over (never: it is 50), the quantity at least 22
# and the price at most 44.

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
deals = picked.filter(((F.col("code") < 22) | (F.col("code") >= 51)) & (F.col("qty") >= 22) & (F.col("price") <= 44))
