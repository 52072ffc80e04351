# %% [markdown]
# # Titanic: survival on deck C by sex
# The share of C-deck passengers who survived, per sex, computed by a pandas function per group.

# %%
import os

import pandas as pd
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
titanic = spark.read.parquet(f"{DATA}/titanic")
titanic.show(3)

# %%
def c_deck_survival(df_in: pd.DataFrame) -> pd.DataFrame:
    c_passengers = df_in["cabin"].str.startswith("C").fillna(False)
    print(df_in.loc[c_passengers, "survived"])
    return pd.DataFrame({"sex": [df_in["sex"].iloc[0]],
                         "c_deck_survival": [df_in.loc[c_passengers, "survived"].mean()]})


out = titanic.groupBy("sex").applyInPandas(c_deck_survival, schema="sex string, c_deck_survival double")
out.show()

# %%
# the sexes of whom fewer than half survived on deck C
c_deck_worse = out.filter(F.col("c_deck_survival") < 0.5)
