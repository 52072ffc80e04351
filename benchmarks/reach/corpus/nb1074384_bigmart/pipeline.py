# %% [markdown]
# # BigMart sales: imputing the item and store columns
# Train and test sets stacked, then the usual imputations: an item's mean weight where the
# weight is missing, the most frequent size of the store type where the store size is
# missing, an item's mean visibility where the visibility is 0; fat content labels unified;
# the item category taken from the item id.

# %%
import os

from pyspark.sql import SparkSession, Window
from pyspark.sql import functions as F
from pyspark.sql.types import StringType

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
bundas_training = spark.read.parquet(f"{DATA}/bundas_train")
bundas_testing = spark.read.parquet(f"{DATA}/bundas_test")
data = bundas_training.unionByName(bundas_testing, allowMissingColumns=True)

# %%
item_avg_weight = data.groupBy("Item_ID").agg(F.mean("Weight").alias("item_avg_weight"))
data = (data.join(item_avg_weight, on="Item_ID", how="left")
        .withColumn("Weight", F.coalesce(F.col("Weight"), F.col("item_avg_weight")))
        .drop("item_avg_weight"))

# %%
# the mode of Store_Size per Store_Type (ties: the first size in alphabetical order)
size_counts = data.dropna(subset=["Store_Size"]).groupBy("Store_Type", "Store_Size").count()
most_frequent = Window.partitionBy("Store_Type").orderBy(F.desc("count"), F.col("Store_Size"))
store_size_mode = (size_counts.withColumn("rank", F.row_number().over(most_frequent))
                   .filter(F.col("rank") == 1)
                   .select("Store_Type", F.col("Store_Size").alias("size_mode")))
data = (data.join(store_size_mode, on="Store_Type", how="left")
        .withColumn("Store_Size", F.coalesce(F.col("Store_Size"), F.col("size_mode")))
        .drop("size_mode"))

# %%
visibility_item_avg = data.groupBy("Item_ID").agg(F.mean("Visibility").alias("visibility_avg"))
data = (data.join(visibility_item_avg, on="Item_ID", how="left")
        .withColumn("Visibility", F.when(F.col("Visibility") == 0, F.col("visibility_avg"))
                    .otherwise(F.col("Visibility")))
        .drop("visibility_avg"))

# %%
data = data.replace(["reg", "low fat", "LF"], ["Regular", "Low Fat", "Low Fat"], subset=["FatContent"])
item_category = F.udf(lambda item_id: item_id[0:2], StringType())
data = data.withColumn("Item_Category", item_category(F.col("Item_ID")))
print(data.columns)

# %%
# the drinks
drinks = data.filter(F.col("Item_Category") == "DR")
