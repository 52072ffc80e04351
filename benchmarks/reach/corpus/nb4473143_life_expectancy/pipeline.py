# %% [markdown]
# # Life expectancy and income level, 2015
# Country indicators by year: life expectancy, GDP per capita and two more columns,
# renamed; the income level cleaned by Python functions (an "Unknown" level is taken as
# missing), coded as a number, and the 2015 rows made into a numeric table, missing values 0.

# %%
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import StringType

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
df0 = spark.read.parquet(f"{DATA}/life_expectancy")
df0 = df0.withColumnsRenamed({"Life expectancy at birth (years)  Both sexes": "LE_both",
                              "Life expectancy at birth (years)  Male": "LE_male",
                              "Life expectancy at birth (years)  Female": "LE_female",
                              "GDP per Capita": "GDP", "Surface area (sq. km)": "Health_expenditure",
                              "Population, total": "RnD"})
df0.filter((F.col("Country") == "South Sudan") & (F.col("Year") <= 2010)).show()

# %%
unknown_if_nan = F.udf(lambda level: "Unknown" if level == float("nan") else level, StringType())
df0 = df0.withColumn("Income Level", unknown_if_nan(F.col("Income Level")))
df0 = df0.dropna(subset=["Income Level"])
nan_if_unknown = F.udf(lambda level: None if level == "Unknown" else level, StringType())
df0 = df0.withColumn("Income Level", nan_if_unknown(F.col("Income Level")))

# %%
codes = {"H": 0, "L": 1, "LM": 2, "UM": 3}
code_level = F.udf(lambda level: str(codes[level]) if level in codes else level, StringType())
df48 = df0.filter(F.col("Year") == 2015).drop("Country", "Year", "LE_male", "LE_female")
df48 = df48.withColumn("Income Level", code_level(F.col("Income Level")).cast("double"))
df48 = df48.na.fill(0)
df48.show(5)

# %%
# high-income countries living to 80 on average
long_lived_rich = df48.filter((F.col("Income Level") == 0) & (F.col("LE_both") >= 80))
