# %% [markdown]
# # Cannabis strains: effects and flavors as features
# Leafly's strain list: complete records only, then one indicator column per effect, per
# flavor and per type (pandas' str.get_dummies), the "None" placeholders dropped, the text
# columns dropped, leaving the rating and the indicators.

# %%
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
df0 = spark.read.parquet(f"{DATA}/cannabis")
df1 = df0.dropna(subset=["Strain", "Type", "Rating", "Effects", "Flavor", "Description"])
df1.show(5)


# %%
def dummies(df, column):
    """get_dummies(sep=','): the values seen in the column, sorted."""
    values = df.select(F.explode(F.split(column, ",")).alias("v")).distinct().collect()
    return sorted(row.v for row in values)


effects = [e for e in dummies(df1, "Effects") if e != "None"]
flavors = [f for f in dummies(df1, "Flavor") if f != "None"]
types = dummies(df1, "Type")
print(effects, flavors, types)

# %%
df16 = df1
for column, values in (("Effects", effects), ("Flavor", flavors), ("Type", types)):
    for value in values:
        df16 = df16.withColumn(value, F.array_contains(F.split(column, ","), value).cast("int"))
df17 = df16.drop("Effects", "Flavor", "Type", "Strain", "Description")
df17.show(5)

# %%
# the top-rated strains for sleep
for_sleep = df17.filter((F.col("Rating") >= 4.5) & (F.col("Sleepy") == 1))
