# %% [markdown]
# # Life expectancy: the countries at the bottom, then and now
# The World Bank indicator (one column per year): the twenty countries with the lowest life
# expectancy in 2016 and the twenty lowest in 1960, stacked, each country once.

# %%
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
life = spark.read.parquet(f"{DATA}/life_expectancy")
years = [str(year) for year in range(1960, 2017)]

# %%
# sort_values puts missing values last
lowest_2016 = life.orderBy(F.asc_nulls_last("2016")).limit(20)
print(lowest_2016.columns)
lowest_1960 = life.orderBy(F.asc_nulls_last("1960")).limit(20)

# %%
bottom = lowest_1960.unionByName(lowest_2016)
bottom = bottom.dropDuplicates(["Country Name", "Country Code"] + years)
bottom.select("Country Name", "1960", "2016").show(40)

# %%
# the countries of either list still under 55 years in 2016
still_low = bottom.filter(F.col("2016") < 55)
