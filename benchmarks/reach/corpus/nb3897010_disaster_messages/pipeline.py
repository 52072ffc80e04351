# %% [markdown]
# # Disaster response messages: one column per category
# Messages joined to their categories, the `;`-separated category text split into 36 named
# columns (values like `water-1`), the original text column dropped.

# %%
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
messages = spark.read.parquet(f"{DATA}/disaster_messages")
categories = spark.read.parquet(f"{DATA}/disaster_categories")
df = messages.join(categories, on="id", how="left")

# %%
category_names = ["related", "request", "offer", "aid_related", "medical_help", "medical_products",
                  "search_and_rescue", "security", "military", "child_alone", "water", "food", "shelter", "clothing",
                  "money", "missing_people", "refugees", "death", "other_aid", "infrastructure_related", "transport",
                  "buildings", "electricity", "tools", "hospitals", "shops", "aid_centers", "other_infrastructure",
                  "weather_related", "floods", "storm", "fire", "earthquake", "cold", "other_weather", "direct_report"]
split = F.split(F.col("categories"), ";")
df = df.select("*", *[split.getItem(i).alias(name) for i, name in enumerate(category_names)])
df = df.drop("categories")
df.select("id", "genre", "related", "water", "food").show(5)

# %%
# people asking for water themselves
water_requests = df.filter((F.col("water") == "water-1") & (F.col("genre") == "direct"))
