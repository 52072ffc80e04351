# %% [markdown]
# # Fast-food prices and the racial make-up of the neighbourhood
# Restaurants with all three prices and the zip code's shares of black and of poor residents;
# the missing staff figures imputed with the chain's median, the missing county figures
# with the county's median (the notebook's pandas function, run per group).

# %%
import os

import pandas as pd
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
food = spark.read.parquet(f"{DATA}/discrim")
food = food.filter(F.col("psoda").isNotNull() & F.col("pfries").isNotNull() & F.col("pentree").isNotNull())
# drop the rows without prppov and prpblck, our targets of interest
food = food.filter(F.col("prppov").isNotNull() & F.col("prpblck").isNotNull())
print(food.count())

# %%
def impute_medians(df, cols=()):
    for col in cols:
        mval = df[col].median()
        df.loc[df[col].isnull(), col] = mval
    return df


food = food.groupBy("chain").applyInPandas(
    lambda df: impute_medians(df, cols=["wagest", "nmgrs", "nregs", "emp"]), schema=food.schema)
# for density and crmrte, the median of the county
food = food.groupBy("county").applyInPandas(
    lambda df: impute_medians(df, cols=["density", "crmrte"]), schema=food.schema)
food.groupBy("chain").agg(F.mean("wagest"), F.mean("psoda")).show()

# %%
# restaurants in zip codes where most residents are black
black_majority = food.filter(F.col("prpblck") > 0.5)
