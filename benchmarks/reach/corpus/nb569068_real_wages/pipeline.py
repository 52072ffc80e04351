# %% [markdown]
# # Real wages since the crisis
# OECD average wages at constant 2018 PPP dollars, indexed per country on the 2007 level
# (each country's wage divided by its own 2007 wage).

# %%
import os

from pyspark.sql import SparkSession, Window
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
real_wage = spark.read.parquet(f"{DATA}/real_wage")
# the CSV reader suffixed the column pairs that differ only in case (COUNTRY / Country, ...)
real_wage = real_wage.withColumnsRenamed({"Country1": "Country", "Series3": "Series", "Time5": "Time"})
select = F.col("Series") == "In 2018 constant prices at 2018 USD PPPs"
real_wage = real_wage.filter(select).select("Country", "Time", "Value")

# %%
# normalize: each country's values divided by its 2007 value
by_country = Window.partitionBy("Country")
base_2007 = F.first(F.when(F.col("Time") == 2007, F.col("Value")), ignorenulls=True).over(by_country)
wage_index = real_wage.withColumn("Value", F.col("Value") / base_2007)
wage_index.show(5)
print((wage_index.count(), len(wage_index.columns)))

# %%
country_select = ["Greece", "United Kingdom", "United States", "France", "Germany", "Poland"]
data = wage_index.filter(F.col("Country").isin(country_select) & (F.col("Time") >= 2007))
