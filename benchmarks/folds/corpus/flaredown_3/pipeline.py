# %% [markdown]
# # Users who track a condition or no symptom
# The Flaredown1 fold (Flaredown1_3 of the public Pusharoo benchmarks), as a PySpark user writes
# it: grouped-aggregate pandas UDF. Per user, pandas UDFs saying whether any check-in tracks
# type 0 (condition) and whether any tracks type 1 (symptom); the users who track a condition or
# no symptom.

# %%
import os

import pandas as pd
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
checkins = spark.read.parquet(f"{DATA}/checkins")

@F.pandas_udf("boolean")
def tracks_condition(kind: pd.Series) -> bool:
    return bool((kind == 0).any())

@F.pandas_udf("boolean")
def tracks_symptom(kind: pd.Series) -> bool:
    return bool((kind == 1).any())

# %%
users = checkins.groupBy("grp").agg(tracks_condition("trackable_type").alias("condition"),
                                    tracks_symptom("trackable_type").alias("symptom"))
tracked = users.filter(F.col("condition") | ~F.col("symptom"))
