# %% [markdown]
# # Crunchbase organizations by category and region
# An export of organizations founded by women: duplicates by name removed, rows without a
# gender group, category or region dropped, one category per organization taken from its
# category groups by a Python function (the first match in a fixed order), the categories
# stacked one after another together with lists exported earlier, and the organizations of
# five headquarters regions kept.

# %%
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import StringType

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
df1 = spark.read.parquet(f"{DATA}/organizations")
df2 = df1.drop("Unnamed: 0", "Organization Name URL")
df3 = df2.dropDuplicates(["Organization Name"])
df6 = df3.filter(F.col("Group Gender").isNotNull())
df16 = df6.filter(F.col("Category Groups").isNotNull())
df19 = df16.filter(F.col("Headquarters Regions").isNotNull())

# %%
ORDER = ["Finance", "Biotechnology", "Health Care", "E-Commerce", "Software", "Internet", "Information Technology",
         "Education", "Security", "Education", "Real Estate", "Tourism", "Artificial Intelligence", "Food",
         "Advertising", "Fashion", "Data", "Robotics", "Gaming", "Sports", "Entertainment", "Insurance"]


@F.udf(returnType=StringType())
def category(groups):
    for name in ORDER:
        if name in groups:
            return name
    return "Unknown"


df19 = df19.withColumn("Categories", category(F.col("Category Groups")))
df19.groupBy("Categories").count().orderBy(F.desc("count")).show()

# %%
software = spark.read.parquet(f"{DATA}/software_organizations")
ecommerce = spark.read.parquet(f"{DATA}/ecommerce_organizations")
entertainment = spark.read.parquet(f"{DATA}/entertainment_organizations")
df243 = df19.filter(F.col("Categories") == "Finance").unionByName(software).unionByName(ecommerce)
for name in ["Health Care", "Internet", "Biotechnology", "Artificial Intelligence", "Information Technology",
             "Education", "Advertising", "Data", "Food", "Real Estate", "Security"]:
    df243 = df243.unionByName(df19.filter(F.col("Categories") == name))
df243 = df243.unionByName(entertainment)
for name in ["Gaming", "Robotics", "Fashion", "Sports", "Tourism", "Insurance"]:
    df243 = df243.unionByName(df19.filter(F.col("Categories") == name))

# %%
boston = spark.read.parquet(f"{DATA}/boston_organizations")
region = F.col("Headquarters Regions")
df249 = df243.filter(region == "European Union (EU)").unionByName(
    df243.filter(region == "San Francisco Bay Area, West Coast, Western US"))
df252 = df249.unionByName(boston)
df256 = df252.unionByName(df243.filter(region == "Greater New York Area, East Coast, Northeastern US"))
df174 = df256.unionByName(df243.filter(region == "Greater Los Angeles Area, West Coast, Western US"))
df174.groupBy("Headquarters Regions").count().show(truncate=False)

# %%
# the AI companies
ai_companies = df174.filter(F.col("Categories") == "Artificial Intelligence")
