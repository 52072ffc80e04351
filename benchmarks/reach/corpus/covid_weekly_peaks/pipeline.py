# %% [markdown]
# # COVID-19: the ten countries with the highest daily case count in the last week of March 2021
# Our World in Data's COVID-19 table: the countries' rows of that week (the OWID aggregates
# such as continents left out), each country's highest daily count of new cases, the ten
# highest, and the days on which those counts were reported.

# %%
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
df = spark.read.parquet(f"{DATA}/owid_covid_data")
data = (df.select(F.col("location"), "new_cases", "date")
        .where(F.col("date").between("2021-03-24", "2021-03-31") & ~F.col("iso_code").like("OWID%")))

# %%
max_value = (data.groupBy("location").agg(F.max("new_cases").alias("max_cases"))
             .sort(F.col("max_cases").desc()).limit(10))
result = (data.alias("a").join(max_value.alias("b"), F.col("a.new_cases") == F.col("b.max_cases"), "inner")
          .select("date", F.col("a.location"), "max_cases").sort(F.col("max_cases").desc()))
result.show()

# %%
# the peaks of at least 50,000 new cases in a day
big_peaks = result.filter(F.col("max_cases") >= 50000)
