# %% [markdown]
# # Medical insurance charges: range per sex, smoker and region
# The lowest and highest charge of each group of insured (sex, smoker, region), written
# as "min,max" by a Python function, as the notebook's groupby-apply does.

# %%
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import StringType

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
insurance = spark.read.parquet(f"{DATA}/insurance")
insurance.describe("charges").show()

# %%
@F.udf(returnType=StringType())
def get_stats(low, high):
    return str(low) + "," + str(high)


extremes = insurance.groupBy("sex", "smoker", "region").agg(F.min("charges").alias("min_charges"),
                                                           F.max("charges").alias("max_charges"))
out = extremes.select("sex", "smoker", "region", get_stats("min_charges", "max_charges").alias("stats"))
out.show(truncate=False)

# %%
# the groups where someone was charged more than 50,000
costly_groups = out.filter(F.split("stats", ",").getItem(1).cast("double") > 50000)
