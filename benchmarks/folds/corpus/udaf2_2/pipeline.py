# %% [markdown]
# # Customers by a conditional total
# The UDAF2 fold (UDAF2_2 of the public Pusharoo benchmarks), as a PySpark user writes it: SQL
# expression string in agg (F.expr). Per customer, the sum of amounts over 400 when the channel
# is NULL, or over 1,000 when the channel is 0, 1 or 2, written as a SQL CASE in F.expr;
# customers with a total over 400, not 500, up to 50,000,000,000.

# %%
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
purchases = spark.read.parquet(f"{DATA}/purchases")
totals = purchases.groupBy("grp").agg(F.expr(
    "sum(CASE WHEN channel IS NULL AND amount > 400 THEN amount "
    "WHEN channel IN (0, 1, 2) AND amount > 1000 THEN amount ELSE 0 END)").alias("total"))

# %%
large = totals.filter((F.col("total") > 400) & (F.col("total") != 500) & (F.col("total") <= 50000000000))
