# %% [markdown]
# # HM Land Registry price paid: London streets by average price
# The price-paid file has no header row, so its first sale became the column names; the
# columns are renamed, the sales ordered by date, London's sales averaged per street, and the
# streets whose average sale price lies between two and three million pounds kept.

# %%
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
df0 = spark.read.parquet(f"{DATA}/pp_complete")
print(df0.count())

# %%
names = {"{8355F008-C0A9-55C5-E053-6B04A8C0D090}": "TUID", "102000": "Price", "2003-11-25 00:00": "Date_Transfer",
         "WA5 2PG": "Postcode", "S": "Prop_Type", "N": "Old_New", "L": "Duration", "39": "PAON",
         "Unnamed: 8": "SAON", "ROTHAY DRIVE": "Street", "PENKETH": "Locality", "WARRINGTON": "Town_City",
         "WARRINGTON.1": "District", "WARRINGTON.2": "County", "A": "PPD_Cat_Type", "A.1": "Record_Status"}
sales = df0.withColumnsRenamed(names).orderBy("Date_Transfer")

# %%
london = sales.filter(F.col("Town_City") == "LONDON")
by_street = london.groupBy("Street").agg(F.mean("Price").alias("Avg_Price"))
by_street.orderBy(F.desc("Avg_Price")).show(5)

# %%
# the streets averaging two to three million pounds
expensive_streets = by_street.filter((F.col("Avg_Price") >= 2000000) & (F.col("Avg_Price") <= 3000000))
expensive_streets.show()
