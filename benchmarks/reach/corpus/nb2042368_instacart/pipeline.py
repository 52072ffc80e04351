# %% [markdown]
# # Instacart: each user's latest basket as a product list
# The orders of the "train" evaluation set joined with their products, each user's products
# concatenated into the space-separated list the competition's submission format wants.

# %%
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import StringType

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
orders = spark.read.parquet(f"{DATA}/orders")
train = spark.read.parquet(f"{DATA}/order_products__train")

# %%
otrain = orders.filter(F.col("eval_set") == "train")
print(otrain.columns)
print(train.columns)
Alltrain = otrain.join(train, on="order_id")
print(Alltrain.columns)
ytrain = Alltrain.select("user_id", F.col("product_id").alias("product_id_latest_train"), "add_to_cart_order")

# %%
@F.udf(returnType=StringType())
def products_concat(products):
    out = ""
    for product in products:
        if product > 0:
            out = out + str(int(product)) + " "
    if out != "":
        return out.rstrip()
    else:
        return "None"


# the products in the order they went into the cart
in_cart_order = F.sort_array(F.collect_list(F.struct("add_to_cart_order", "product_id_latest_train")))
train_order = (ytrain.groupBy("user_id")
               .agg(in_cart_order.getField("product_id_latest_train").alias("products"))
               .withColumn("products", products_concat(F.col("products"))))
train_order.show(5, truncate=False)

# %%
# the users whose latest basket held at least ten products
big_baskets = train_order.filter(F.size(F.split(F.col("products"), " ")) >= 10)
