# %% [markdown]
# # Sales above 995
# A small pipeline: a source read from parquet, a helper, a join and a late filter.

# %%
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = (SparkSession.builder.master("local[2]")
         .config("spark.ui.enabled", "false")
         .config("spark.sql.shuffle.partitions", "2")
         .getOrCreate())

# %%
if not os.path.exists("data/sales.parquet"):
    (spark.range(0, 1000)
     .select((F.col("id") % 50).alias("store"), F.col("id").alias("v"))
     .write.parquet("data/sales.parquet"))

# %%
sales = spark.read.parquet("data/sales.parquet")
stores = spark.createDataFrame([(i, f"s{i}") for i in range(50)], ["store", "name"])


# %%
def enrich(df):
    return df.withColumn("w", F.col("v") * 2)


# %%
sales.count()

# %%
big = (enrich(sales)
       .join(stores, "store")
       .filter(F.col("v") > 995))
big.show()


# %%
@F.udf("int")
def bucket(v):
    return v // 100


labeled = big.withColumn("b", bucket("v"))
