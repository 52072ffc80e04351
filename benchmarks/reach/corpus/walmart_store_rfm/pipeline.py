# %% [markdown]
# # Retail data analytics: an RFM table of the stores
# Kaggle's "Retail Data Analytics" (45 Walmart-like stores): the store features, the weekly
# department sales and the store list, full-joined; then per store its recency (days from
# its last week with sales to the last week in the data), frequency (weeks with sales) and
# monetary value (total sales).

# %%
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
features = spark.read.parquet(f"{DATA}/features")
sales = spark.read.parquet(f"{DATA}/sales")
stores = spark.read.parquet(f"{DATA}/stores")
features3 = features.withColumn("Date", F.to_date(F.col("Date"), "dd/MM/yyyy"))
sales3 = sales.withColumn("Date", F.to_date(F.col("Date"), "dd/MM/yyyy"))
print(features3.count(), sales3.count(), stores.count())

# %%
featuresSales = features3.join(sales3, on=["Store", "Date", "IsHoliday"], how="full")
featuresSalesStores = featuresSales.join(stores, on=["Store"], how="full")
featuresSalesStores.describe("Weekly_Sales", "Temperature").show()

# %%
RFM0 = (featuresSalesStores
        .select("Store", "Date", "Weekly_Sales")
        .dropna("any")
        .groupBy("Store", "Date")
        .agg(F.sum("Weekly_Sales").alias("Weekly_Sales"))
        .withColumn("Weekly_Sales", F.round(F.col("Weekly_Sales"), 2)))

# %%
# recency: the last date in the data, then each store's last date
maxDate = RFM0.agg(F.max("Date")).collect()[0]
storesMaxDate = RFM0.groupBy("Store").agg(F.max("Date"))
r = (RFM0.join(storesMaxDate, on="Store")
     .withColumn("Recency", F.datediff(F.to_date(F.lit(maxDate[0])), F.col("max(Date)"))))
f = RFM0.groupBy("Store").count().withColumn("Frequency", F.col("count"))
m = (RFM0.groupBy("Store").agg(F.sum("Weekly_Sales").alias("Monetary"))
     .withColumn("Monetary", F.round(F.col("Monetary"), 2)))

# %%
RFM1 = (r.select("Store", "Recency").distinct()
        .join(f.select("Store", "Frequency"), on="Store")
        .join(m, on="Store"))
RFM1.orderBy("Store").show()

# %%
# the pilot region's stores (1-10) that stopped selling before the last week
lapsed_pilot_stores = RFM1.filter((F.col("Store") <= 10) & (F.col("Recency") > 0))
