# %% [markdown]
# # COVID-19: the day each country reached 100 confirmed cases
# The daily country/province report (Kaggle's novel corona virus data set): column names
# made lower case, country names stripped by a Python function, ships and disputed regions
# left out, cases summed per country and day, and each country's first day with 100 cases
# or more (the notebook's sort and drop_duplicates, here a ranking window; its final
# reset_index only keeps pandas' row labels, which a Spark DataFrame does not have).

# %%
import os

from pyspark.sql import SparkSession, Window
from pyspark.sql import functions as F
from pyspark.sql.types import StringType

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
df0 = spark.read.parquet(f"{DATA}/covid_19_data")
df0 = df0.toDF(*[c.lower() for c in df0.columns]).withColumnRenamed("last update", "last_update")

# %%
strip_left = F.udf(lambda country: country.lstrip(), StringType())
df0 = df0.withColumn("country/region", strip_left(F.col("country/region")))
df45 = df0.filter((F.col("country/region") != "Others") & (F.col("country/region") != "Diamond Princess"))
df61 = df45
for region in ["MS Zaandam", "Kosovo", "Holy See", "Vatican City", "Timor-Leste", "East Timor", "Channel Islands",
               "Western Sahara"]:
    df61 = df61.filter(F.col("country/region") != region)

# %%
df93 = df61.groupBy("observationdate", "country/region").agg(F.sum("confirmed").alias("confirmed"))
df96 = df93.filter(F.col("confirmed") >= 100)

# %%
first_day = Window.partitionBy("country/region").orderBy("observationdate")
df98 = df96.withColumn("n", F.row_number().over(first_day)).filter(F.col("n") == 1).drop("n")
df74 = df98.orderBy("observationdate")
df74.show(10)

# %%
# the countries that reached 100 cases only in April or later
late_countries = df74.filter(F.to_date("observationdate", "MM/dd/yyyy") >= F.lit("2020-04-01").cast("date"))
