# %% [markdown]
# # Retail data analytics: the stores' RFM
# Walmart's weekly features, sales and stores joined (full outer joins), explored by store
# type, date and department; then an RFM analysis of the stores: recency (days between the
# store's last sale and the last date of the data), frequency (weeks with sales) and
# monetary value (total sales, returns netted).

# %%
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as sf
from pyspark.sql.functions import col, datediff, lit, to_date

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
features2 = spark.read.parquet(f"{DATA}/features_data_set")
features3 = features2.withColumn("Date", to_date(col("Date"), "dd/MM/yyyy"))
features3.printSchema()
print(features3.count())

# %%
sales2 = spark.read.parquet(f"{DATA}/sales_data_set")
sales3 = sales2.withColumn("Date", to_date(col("Date"), "dd/MM/yyyy"))
print(sales3.count())

# %%
stores = spark.read.parquet(f"{DATA}/stores_data_set")
print(stores.count())

# %%
featuresSales = features3.join(sales3, on=["Store", "Date", "IsHoliday"], how="full")
print(featuresSales.count())
featuresSalesStores = featuresSales.join(stores, on=["Store"], how="full")
print(featuresSalesStores.count())

# %%
(featuresSalesStores.groupBy("Type").agg(sf.sum("Weekly_Sales").alias("Weekly_Sales_Sum"))
 .withColumn("Weekly_Sales_Sum", sf.round(col("Weekly_Sales_Sum"), 2)).sort("Type").show())
(featuresSalesStores.groupBy(["Date", "Type"]).agg(sf.sum("Weekly_Sales").alias("Weekly_Sales_Sum"))
 .withColumn("Weekly_Sales_Sum", sf.round(col("Weekly_Sales_Sum"), 2)).sort("Date", "Type").show())
(featuresSalesStores.groupBy(["Dept", "Type"]).agg(sf.sum("Weekly_Sales").alias("Weekly_Sales_Sum"))
 .withColumn("Weekly_Sales_Sum", sf.round(col("Weekly_Sales_Sum"), 2)).sort("Dept", "Type").show())

# %%
RFM0 = (featuresSalesStores
        .select("Store", "Date", "Weekly_Sales")
        .dropna("any")
        .groupby(["Store", "Date"])
        .agg(sf.sum("Weekly_Sales").alias("Weekly_Sales"))
        .withColumn("Weekly_Sales", sf.round(col("Weekly_Sales"), 2)))

# %%
# recency: the last date of the data, then each store's last date
max_date = RFM0.agg(sf.max("Date"))
max_date.show()
maxDate = max_date.collect()[0]
storesMaxDate = RFM0.groupby(["Store"]).agg(sf.max("Date"))
r = (RFM0.join(storesMaxDate, on="Store")
     .withColumn("Recency", datediff(to_date(lit(maxDate[0])), col("max(Date)"))))

# %%
f = RFM0.groupby(["Store"]).count().withColumn("Frequency", col("count"))
m = (RFM0.groupby("Store").agg(sf.sum("Weekly_Sales").alias("Monetary"))
     .withColumn("Monetary", sf.round(col("Monetary"), 2)))
RFM1 = (r.select("Store", "Recency").distinct()
        .join(f.select("Store", "Frequency"), on="Store")
        .join(m, on="Store"))
RFM1.show()

# %%
# the stores of the first district (stores 1 to 10)
district_rfm = RFM1.filter(col("Store") <= 10)
