# %% [markdown]
# # Users who track a condition or a symptom
# The Flaredown1 fold (Flaredown1_1 of the public Pusharoo benchmarks), as a PySpark user
# writes it: grouped-aggregate pandas UDF. Per user, a pandas UDF saying whether any check-in
# tracks type 0 (condition) or 1 (symptom); the users for whom it does.

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
def tracks_condition_or_symptom(kind: pd.Series) -> bool:
    return bool(kind.isin([0, 1]).any())

# %%
users = checkins.groupBy("grp").agg(tracks_condition_or_symptom("trackable_type").alias("tracks"))
tracked = users.filter(F.col("tracks"))
