# %% [markdown]
# # A/B test of an app's recommendation slot: click-through rate per test arm
# The exposure log joined (left) with the click log on the transaction, each exposure marked
# clicked or not (是否被点击), counted per test arm in a pivot table, and the click-through
# rate (点击率) computed and written as a percentage.

# %%
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import IntegerType, StringType

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
df0 = spark.read.parquet(f"{DATA}/ab_exposure_log")
df1 = spark.read.parquet(f"{DATA}/ab_click_log")
clicks = df1.select("transaction_id", F.col("log_date").alias("click_date"))
df2 = df0.join(clicks, on="transaction_id", how="left")
df5 = df2.select("transaction_id", "log_date", "click_date", "test_case", "user_id")

# %%
was_clicked = F.udf(lambda click_date: 1 if click_date is not None else 0, IntegerType())
df5 = df5.withColumn("是否被点击", was_clicked(F.col("click_date")))
df8 = df5.select("transaction_id", "log_date", "test_case", "user_id", "是否被点击")
df9 = df8.groupBy("test_case").pivot("是否被点击", [0, 1]).agg(F.count("user_id"))
print(df9.dtypes)

# %%
ctr = F.udf(lambda clicked, shown: None if clicked is None or shown is None else clicked / (clicked + shown))
as_percent = F.udf(lambda rate: None if rate is None else format(float(rate), ".2%"), StringType())
df9 = df9.withColumn("点击率", ctr(F.col("1"), F.col("0")))
df9 = df9.withColumn("点击率", as_percent(F.col("点击率")))
df9.show()

# %%
# the arms with at least 100 clicks, enough to compare
enough_clicks = df9.filter(F.col("1") >= 100)
