# %% [markdown]
# # CPS: working hours and earnings by gender
# Survey respondents with missing numbers set to 0, those who work some hours, a 0/1
# column for women and one for long hours (both from Python functions of the row).

# %%
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import IntegerType

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
cps = spark.read.parquet(f"{DATA}/cps_earnings")
cps.show(5)
cps = cps.fillna(0)
workers = cps.filter(F.col("hours_worked_per_week") > 0)
workers.show(5)

# %%
female = F.udf(lambda gender: {"Female": 1, "Male": 0}.get(gender), IntegerType())
workers = workers.withColumn("female", female(F.col("gender")))
print(workers.columns)
hard_worker = F.udf(lambda hours: 1 if hours > 38.8 else 0, IntegerType())
workers = workers.withColumn("person_hard_worker", hard_worker(F.col("hours_worked_per_week")))
workers.show(5)

# %%
# women who work long hours
women_long_hours = workers.filter((F.col("female") == 1) & (F.col("person_hard_worker") == 1))
