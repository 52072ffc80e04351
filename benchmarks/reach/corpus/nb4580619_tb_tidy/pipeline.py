# %% [markdown]
# # WHO tuberculosis cases in tidy form
# The wide table melted to one row per country, year and sex-and-age band, the band's code
# split by a regular expression into sex and age bounds, the age label joined from the
# bounds; incomplete rows dropped, sorted.

# %%
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
df21 = spark.read.parquet(f"{DATA}/tb")
df22 = df21.melt(["country", "year"], ["m5564", "m2534", "mu", "m65", "m4554", "m1524", "m3544", "f014", "m014"],
                 "sex_and_age", "cases")

# %%
pattern = r"(\D)(\d+)(\d{2})"
parts = F.regexp_extract("sex_and_age", pattern, 0) != ""
df30 = df22.select("*", *[F.when(parts, F.regexp_extract("sex_and_age", pattern, i)).alias(name)
                          for i, name in ((1, "sex"), (2, "age_lower"), (3, "age_upper"))])
df30 = df30.withColumn("age", F.concat(F.col("age_lower"), F.lit("-"), F.col("age_upper")))

# %%
df31 = df30.drop("sex_and_age", "age_lower", "age_upper")
df32 = df31.dropna(subset=["country", "year", "cases", "sex", "age"])
df33 = df32.orderBy("country", "year", "sex", "age")
df33.show(5)

# %%
# young adults (15-24) since 2000
young_adults = df33.filter((F.col("age") == "15-24") & (F.col("year") >= 2000))
