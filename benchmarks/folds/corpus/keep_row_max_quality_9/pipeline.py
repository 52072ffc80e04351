# %% [markdown]
# # The best read of each sample, when over 90
# The KeepRowWithMaxQuality fold (KeepRowWithMaxQuality_9 of the public Pusharoo benchmarks),
# as a PySpark user writes it: applyInPandas with a loop keeping the best row. Per sample, a
# Python loop over the group's rows keeps the read with the highest quality (the first of
# equals); those with more than one copy, a quality id of 99 or none, or a barcode id other than
# 200, with a barcode quality id of 10 or more, a barcode score of 1 or more, and quality over 90.

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
    return pd.DataFrame([{"grp": best.grp, "copies": best.copies, "quality_id": best.quality_id,
                          "barcode_id": best.barcode_id, "barcode_quality_id": best.barcode_quality_id,
                          "barcode_quality": best.barcode_quality, "quality": best.quality}])

# %%
best_reads = reads.groupBy("grp").applyInPandas(
    best_read, "grp long, copies long, quality_id long, barcode_id long, barcode_quality_id long, "
    "barcode_quality long, quality long")
good = best_reads.filter(((F.col("copies") > 1) | F.col("quality_id").isNull() | (F.col("quality_id") == 99)
                          | (F.col("barcode_id") != 200))
                         & (F.col("barcode_quality_id") >= 10) & (F.col("barcode_quality") >= 1)
                         & (F.col("quality") > 90))
