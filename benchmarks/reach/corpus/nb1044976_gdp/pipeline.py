# %% [markdown]
# # GDP per capita of the OECD countries, relative to 2000
# The World Bank's GDP per capita sheet (one column per year) and its country groups: the OECD
# members' series from 1990 on, in long form, each country's values expressed as the percent
# change from its own value in 2000.

# %%
import os

from pyspark.sql import SparkSession, Window
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
df_gdppp = spark.read.parquet(f"{DATA}/gdp_per_capita")
df_groups = spark.read.parquet(f"{DATA}/country_groups")
df_groups.groupBy("CountryCode").count().orderBy(F.desc("count")).show(5)

# %%
oecd_countries = [row.CountryCode for row in
                  df_groups.filter(F.col("GroupCode") == "OED").select("CountryCode").collect()]
print(oecd_countries)
print(df_gdppp.columns)
df_oecd_wide = df_gdppp.filter(F.col("Country Code").isin(oecd_countries))

# %%
years = [c for c in df_oecd_wide.columns if c.isdigit()]
df_oecd = df_oecd_wide.unpivot(["Country Name", "Country Code"], years, "year", "GDPPC")
df_oecd = df_oecd.withColumn("year", F.col("year").cast("int"))
df_oecd = df_oecd.filter(F.col("year") >= 1990)

# %%
# normalize_to_2000: each country's value in 2000 is 0, the others the percent change from it
country = Window.partitionBy("Country Name")
ref = F.first(F.when(F.col("year") == 2000, F.col("GDPPC")), ignorenulls=True).over(country)
df_oecd_normalized = df_oecd.withColumn("GDPPC", F.col("GDPPC") / ref * 100 - 100)
df_oecd_normalized = df_oecd_normalized.filter(F.col("year") >= 2000)
df_oecd_normalized.show(5)

# %%
# the years in which a member's GDP per capita stood at least half again above its 2000 level
grown_half = df_oecd_normalized.filter(F.col("GDPPC") >= 50)
