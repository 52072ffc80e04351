# %% [markdown]
# # Group-wise normalisation with groupby-apply
# The handbook example of `groupby().apply()`: within each key, `data1` is divided by the
# sum of `data2` over the key's rows, by a pandas function applied per group.

# %%
import os

import pandas as pd
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
df = spark.read.parquet(f"{DATA}/df")
df.show(6)

# %%
def norm_by_data2(x: pd.DataFrame) -> pd.DataFrame:
    x = x.copy()
    x["data1"] = x["data1"] / x["data2"].sum()
    return x


out = df.groupBy("key").applyInPandas(norm_by_data2, schema="key string, data1 double, data2 long")
out.show(6)

# %%
# the rows carrying more than a tenth of their key's total
heavy = out.filter(F.col("data1") > 0.1)
