# %% [markdown]
# # San Francisco eviction notices: the main reasons by year
# Column names made snake case, the year of each notice taken by a Python function, the
# nineteen reason flags melted into one reason column, the notices counted per reason and
# year, and the three most common reasons pivoted into one column each.

# %%
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import IntegerType

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
data = spark.read.parquet(f"{DATA}/eviction_notices")
data = data.toDF(*[c.lower().replace(" ", "_") for c in data.columns])

# %%
to_drop = ["constraints_date", "address", "city", "state", "eviction_notice_source_zipcode", "supervisor_district",
           "neighborhoods_-_analysis_boundaries", "location"]
subset = data.drop(*to_drop)
notice_year = F.udf(lambda file_date: file_date.year, IntegerType())
subset = subset.withColumn("year", notice_year(F.col("file_date")))
subset = subset.filter(F.year("file_date") < 2019)

# %%
reasons = ["non_payment", "breach", "nuisance", "illegal_use", "failure_to_sign_renewal", "access_denial",
           "unapproved_subtenant", "owner_move_in", "demolition", "capital_improvement", "substantial_rehab",
           "ellis_act_withdrawal", "condo_conversion", "roommate_same_unit", "other_cause", "late_payments",
           "lead_remediation", "development", "good_samaritan_ends"]
melted = subset.unpivot(["eviction_id", "year"], reasons, "eviction_reason", "status")
filtered = melted.filter(F.col("status") == True)  # noqa: E712

# %%
grouped = (filtered.groupBy("eviction_reason", "year").agg(F.count("eviction_id").alias("eviction_id"))
           .orderBy("eviction_reason", "year"))
top3 = grouped.filter(F.col("eviction_reason").isin(["owner_move_in", "breach", "nuisance"]))
top3_pivoted = top3.groupBy("year").pivot("eviction_reason", ["breach", "nuisance", "owner_move_in"]).agg(
    F.first("eviction_id"))
top3_pivoted.orderBy("year").show()

# %%
# the years when owners moving in evicted more tenants than breaches of the lease
owner_years = top3_pivoted.filter(F.col("owner_move_in") > F.col("breach"))
