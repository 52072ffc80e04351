# %% [markdown]
# # Cumulative COVID-19 cases in the U.S.
# A day-by-day export of cumulative case counts (counts written with thousands separators),
# cleaned into a numeric series with the row's position kept as its index.

# %%
import os

from pyspark.sql import SparkSession, Window
from pyspark.sql import functions as F
from pyspark.sql.types import StringType

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
raw = spark.read.parquet(f"{DATA}/covid_cases")
print(raw.columns)

# %%
cases = (raw.withColumnRenamed("Cumulative cases of COVID-19 in the U.S. from January 22 to May 8, 2020, by day", "Date")
         .withColumnRenamed("Unnamed: 1", "Cumulative_Cases"))
# reset_index(): number the rows in the order of the export
cases = cases.withColumn("index", F.row_number().over(Window.orderBy(F.monotonically_increasing_id())) - 1)
cases = cases.dropna(subset=["Cumulative_Cases"])

# %%
strip_commas = F.udf(lambda value: str(value).replace(",", ""), StringType())
cases = cases.withColumn("Cumulative_Cases", strip_commas(F.col("Cumulative_Cases")).cast("int"))
cases.show(5)

# %%
# the days past a hundred thousand cases
past_100k = cases.filter(F.col("Cumulative_Cases") >= 100000)
