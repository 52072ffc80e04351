# %% [markdown]
# # Samples whose best read has a negative quality
# The KeepRowWithMaxQuality fold (KeepRowWithMaxQuality_1 of the public Pusharoo benchmarks),
# as a PySpark user writes it: applyInPandas with a loop keeping the best row. Per sample, a
# Python loop over the group's rows keeps the read with the highest quality (the first of
# equals); those whose quality is negative (the unscored code -1).

# %%
import os

import pandas as pd
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
reads = spark.read.parquet(f"{DATA}/reads")

def best_read(pdf: pd.DataFrame) -> pd.DataFrame:
    best = None
    for row in pdf.sort_values("seq").itertuples():
        if best is None or row.quality > best.quality:
            best = row
    return pd.DataFrame([{"grp": best.grp, "copies": best.copies, "quality": best.quality}])

# %%
best_reads = reads.groupBy("grp").applyInPandas(best_read, "grp long, copies long, quality long")
good = best_reads.filter(F.col("quality") < 0)
