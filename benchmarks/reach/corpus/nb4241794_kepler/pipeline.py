# %% [markdown]
# # Kepler objects of interest: confirmed planets and false positives
# The cumulative KOI table without the rows missing a feature, without the false-positive
# flags and the error columns, limited to the two dispositions a classifier learns from.

# %%
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
df0 = spark.read.parquet(f"{DATA}/cumulative")
df0.groupBy("koi_disposition").count().show()

# %%
features = ["koi_disposition", "koi_fpflag_nt", "koi_fpflag_ss", "koi_fpflag_co", "koi_fpflag_ec", "koi_period",
            "koi_period_err1", "koi_period_err2", "koi_time0bk", "koi_time0bk_err1", "koi_time0bk_err2", "koi_impact",
            "koi_impact_err1", "koi_impact_err2", "koi_duration", "koi_duration_err1", "koi_duration_err2",
            "koi_depth", "koi_depth_err1", "koi_depth_err2", "koi_prad", "koi_prad_err1", "koi_prad_err2", "koi_teq",
            "koi_insol", "koi_insol_err1", "koi_insol_err2", "koi_model_snr", "koi_tce_plnt_num", "koi_steff",
            "koi_steff_err1", "koi_steff_err2", "koi_slogg", "koi_slogg_err1", "koi_slogg_err2", "koi_srad",
            "koi_srad_err1", "koi_srad_err2", "ra", "dec", "koi_kepmag"]
df1 = df0.dropna(subset=features)
df2 = df1.dropna(subset=features)
df3 = df2.drop("koi_fpflag_nt", "koi_fpflag_ss", "koi_fpflag_co", "koi_fpflag_ec")
df4 = df3.drop(*[c for c in features if c.endswith(("_err1", "_err2"))], "koi_tce_plnt_num")
df12 = df4.filter((F.col("koi_disposition") == "CONFIRMED") | (F.col("koi_disposition") == "FALSE POSITIVE"))
print(df12.count())

# %%
# confirmed planets of about the Earth's size in a temperate orbit
earth_like = df12.filter((F.col("koi_disposition") == "CONFIRMED") & (F.col("koi_prad") < 2)
                         & F.col("koi_teq").between(180, 320))
