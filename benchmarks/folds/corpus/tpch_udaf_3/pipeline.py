# %% [markdown]
# # Customers by their number of urgent orders
# The TPCHUDAF fold (TPCHUDAF_3 of the public Pusharoo benchmarks), as a PySpark user writes it:
# count of a when (built-in aggregate). Per customer, the number of orders of priority 1-URGENT
# or 2-HIGH; customers whose count is not negative (every customer).

# %%
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
orders = spark.read.parquet(f"{DATA}/orders")
urgent = orders.groupBy("grp").agg(F.count(F.when(F.col("priority").isin("1-URGENT", "2-HIGH"), 1)).alias("urgent"))

# %%
odd = urgent.filter(~(F.col("urgent") < 0))
