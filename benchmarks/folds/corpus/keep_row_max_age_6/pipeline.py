# %% [markdown]
# # The oldest member of each household, when over 21
# The KeepRowWithMaxAge fold (KeepRowWithMaxAge_6 of the public Pusharoo benchmarks), as a
# PySpark user writes it: row_number() == 1 over a window, descending. Per household, the member
# with the highest age (row_number over age descending, then seq); those with seq 24 or more or
# a requisite other than Laugh, aged over 21.

# %%
import os

from pyspark.sql import SparkSession, Window
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
members = spark.read.parquet(f"{DATA}/members")
w = Window.partitionBy("grp").orderBy(F.col("age").desc(), "seq")
oldest = members.withColumn("rn", F.row_number().over(w)).filter(F.col("rn") == 1).drop("rn")

# %%
adults = oldest.filter(((F.col("seq") >= 24) | (F.col("requisite") != "Laugh")) & (F.col("age") > 21))
