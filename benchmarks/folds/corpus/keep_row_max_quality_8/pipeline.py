# %% [markdown]
# # The best read of each sample, when of quality 90 or more
# The KeepRowWithMaxQuality fold (KeepRowWithMaxQuality_8 of the public Pusharoo benchmarks),
# as a PySpark user writes it: applyInPandas with a loop keeping the best row. Per sample, a
# Python loop over the group's rows keeps the read with the highest quality (the first of
# equals); those with one copy or more or a barcode id other than 200, a barcode quality id over
# 10, a barcode score over 1, and quality 90 or more.

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
    return pd.DataFrame([{"grp": best.grp, "copies": best.copies, "barcode_id": best.barcode_id,
                          "barcode_quality_id": best.barcode_quality_id,
                          "barcode_quality": best.barcode_quality, "quality": best.quality}])

# %%
best_reads = reads.groupBy("grp").applyInPandas(
    best_read, "grp long, copies long, barcode_id long, barcode_quality_id long, barcode_quality long, "
    "quality long")
good = best_reads.filter(((F.col("copies") >= 1) | (F.col("barcode_id") != 200))
                         & (F.col("barcode_quality_id") > 10) & (F.col("barcode_quality") > 1)
                         & (F.col("quality") >= 90))
