# %% [markdown]
# # Restaurant tips: the best tippers among smokers and non-smokers
# The classic tips data set: the tip as a share of the bill, then the five largest shares in
# each smoker group (pandas' groupby().apply(top)), written as a ranking window.

# %%
import os

from pyspark.sql import SparkSession, Window
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
tips = spark.read.parquet(f"{DATA}/tips")
tips = tips.withColumn("tip_pct", F.col("tip") / F.col("total_bill"))
tips.describe("tip_pct").show()

# %%
# top(df, n=5, column="tip_pct") per smoker group; ties broken by the rest of the row so the
# five are always the same
by_share = Window.partitionBy("smoker").orderBy(F.desc("tip_pct"), F.desc("total_bill"), F.desc("tip"),
                                               "sex", "day", "time", "size")
top_tippers = (tips.withColumn("rank", F.row_number().over(by_share))
               .filter(F.col("rank") <= 5)
               .drop("rank"))
top_tippers.orderBy("smoker", "tip_pct").show()

# %%
# of those, the ones who left more than a quarter of the bill
generous = top_tippers.filter(F.col("tip_pct") > 0.25)
