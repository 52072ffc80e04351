# %% [markdown]
# # Weekly sales per product, long form for forecasting
# The UCI "Sales Transactions Weekly" table (a row per product, a column per week plus
# normalized copies): the product and raw week columns kept, melted to one row per product
# and week, codes turned into numbers, sorted; the last weeks held out as a test set.

# %%
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
data = spark.read.parquet(f"{DATA}/sales_transactions_weekly")
data = data.select(*[c for c in data.columns if c.startswith("Product") or c.startswith("W")])
print(len(data.columns))

# %%
melt = data.unpivot("Product_Code", [c for c in data.columns if c != "Product_Code"], "Week", "Sales")
melt = melt.withColumn("Product_Code", F.regexp_extract("Product_Code", r"(\d+)", 1).cast("int"))
melt = melt.withColumn("Week", F.regexp_extract("Week", r"(\d+)", 1).cast("int"))
melt = melt.orderBy("Week", "Product_Code")

# %%
test = melt.filter(F.col("Week") > 40)
print(test.count())

# %%
# the held-out weeks in which a product sold more than 30 units
test_busy = test.filter(F.col("Sales") > 30)
