# %% [markdown]
# # Merchants by the total of their large sales
# The UDAF fold (UDAF_4 of the public Pusharoo benchmarks), as a PySpark user writes it:
# grouped-aggregate pandas UDF. Per merchant, a pandas UDF sums the sales over 500; merchants
# with a total at most 500, or other than 1,000 or 1,500 (always) and under 50,000,000,000.

# %%
import os

import pandas as pd
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
sales = spark.read.parquet(f"{DATA}/sales")

@F.pandas_udf("double")
def large_total(amount: pd.Series) -> float:
    return float(amount[amount > 500].sum())

# %%
totals = sales.groupBy("grp").agg(large_total("amount").alias("total"))
big = totals.filter((F.col("total") <= 500) | (((F.col("total") != 1000) | (F.col("total") != 1500)) & (F.col("total") < 50000000000)))
