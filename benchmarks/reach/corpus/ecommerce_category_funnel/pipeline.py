# %% [markdown]
# # E-commerce funnel: view, cart, purchase by category
# Kaggle's cosmetics shop clickstream (one row per event): sessions with a user, the funnel
# events, the share of sessions reaching each stage; per product category the sessions that
# viewed, carted and bought, the stage-to-stage conversion, and the average purchase price,
# collected into pandas to study price against conversion.

# %%
import os

from pyspark.sql import SparkSession
from pyspark.sql.functions import array_contains, avg, col, collect_set, countDistinct, lit, to_timestamp, when
from pyspark.sql.types import FloatType

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
df = spark.read.parquet(f"{DATA}/events")
df = df.withColumn("event_time", to_timestamp("event_time"))
df = df.dropna(subset=["user_id", "user_session"])
funnel_df = df.filter(col("event_type").isin(["view", "cart", "purchase"]))

# %%
session_events = funnel_df.groupBy("user_session").agg(collect_set("event_type").alias("events"))
view_sessions = session_events.filter(array_contains(col("events"), "view")).count()
cart_sessions = session_events.filter(array_contains(col("events"), "cart")).count()
purchase_sessions = session_events.filter(array_contains(col("events"), "purchase")).count()
print(f"View -> Cart: {100 * (1 - cart_sessions / view_sessions):.2f}% dropped")
print(f"Cart -> Purchase: {100 * (1 - purchase_sessions / cart_sessions):.2f}% dropped")

# %%
cat_stats = (funnel_df
             .filter(col("category_code").isNotNull() & (col("category_code") != "NULL"))
             .groupBy("category_code")
             .pivot("event_type", ["view", "cart", "purchase"])
             .agg(countDistinct("user_session"))
             .fillna(0)
             .withColumn("view_to_cart", when(col("view") > 0, col("cart") / col("view")).otherwise(lit(0)))
             .withColumn("cart_to_purchase", when(col("cart") > 0, col("purchase") / col("cart")).otherwise(lit(0)))
             .withColumn("view_to_purchase", when(col("view") > 0, col("purchase") / col("view")).otherwise(lit(0))))
cat_stats.orderBy(col("view_to_cart").desc()).show(10, truncate=False)

# %%
df = df.withColumn("price", col("price").cast(FloatType()))
cat_price = (df.filter(col("event_type") == "purchase")
             .groupBy("category_code")
             .agg(avg("price").alias("avg_price")))
cat_corr = cat_stats.join(cat_price, "category_code", "left")
cat_corr_pd = cat_corr.toPandas()
print("Correlation avg_price vs view_to_cart:", cat_corr_pd["avg_price"].corr(cat_corr_pd["view_to_cart"]))

# %%
# the appliance categories that turn at least 5% of viewing sessions into a purchase
appliances = cat_corr_pd[cat_corr_pd["category_code"].str.startswith("appliances")
                         & (cat_corr_pd["view_to_purchase"] >= 0.05)]
