# %% [markdown]
# # COVID-19 and unemployment claims by U.S. state
# Daily state testing counts merged with weekly initial unemployment claims, the dates of
# each state's emergency declaration and stay-at-home order, and its population: claims
# filed since each order (a pandas function per state), death and test rates, a label for a
# death rate of 1% or more.

# %%
import os

import pandas as pd
from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import StringType

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
df = spark.read.parquet(f"{DATA}/combined")
df = df.withColumn("text", F.concat(F.col("state"), F.lit("\nPositive: "), F.col("positive").cast("string"),
                                    F.lit(", Deaths: "), F.col("death").cast("string"),
                                    F.lit(", Negative: "), F.col("negative").cast("string"),
                                    F.lit(", Total Tested: "), F.col("total").cast("string")))
for territory in ["GU", "PR", "AS", "MP", "PRI", "VIR", "VI"]:
    df = df.filter(F.col("state") != territory)

# %%
def calculate_num_claims_since_emergency_declaration(x: pd.DataFrame) -> pd.DataFrame:
    declaration_date = x["Emergency Declaration Date"].values[0]
    return pd.DataFrame({"state": [x["state"].iloc[0]],
                         "iclaims_since_emergency": [x[x.date >= declaration_date].number_of_iclaims.sum()]})


iclaims_since_emergency_by_state = df.groupBy("state").applyInPandas(
    calculate_num_claims_since_emergency_declaration, schema="state string, iclaims_since_emergency double")
df = df.join(iclaims_since_emergency_by_state, on="state", how="left")

# %%
def calculate_num_claims_since_stayathome_order(x: pd.DataFrame) -> pd.DataFrame:
    stayathome_date = x["Stay At Home Order Date"].values[0]
    return pd.DataFrame({"state": [x["state"].iloc[0]],
                         "iclaims_since_stayathome": [x[x.date >= stayathome_date].number_of_iclaims.sum()]})


iclaims_since_stayathome_by_state = df.groupBy("state").applyInPandas(
    calculate_num_claims_since_stayathome_order, schema="state string, iclaims_since_stayathome double")
df = df.join(iclaims_since_stayathome_by_state, on="state", how="left")

# %%
df = df.orderBy("date")
df = df.filter(F.col("date") >= "2020-01-30")
df = df.filter(F.col("death").isNotNull())
df = df.filter(F.col("positive").isNotNull())

# %%
death_label = F.udf(lambda pct: "1%+ death rate" if pct >= 1 else "below 1% death rate", StringType())
df = (df.withColumn("pct_death_over_positive", 100 * (F.col("death") / F.col("positive")))
      .withColumn("death_rate", F.col("death") / F.col("positive"))
      .withColumn("high_pct_death", death_label(F.col("pct_death_over_positive")))
      .withColumn("pct_positive_out_of_total_tested", 100 * (F.col("positive") / F.col("total")))
      .withColumn("positive_over_pop", (F.col("positive") / F.col("POPESTIMATE2019")) * 100)
      .withColumn("positive_per_100k", (F.col("positive_over_pop") / 100) * 100000)
      .withColumn("pct_pop_tested", (F.col("total") / F.col("POPESTIMATE2019")) * 100))
df.groupBy("high_pct_death").count().show()

# %%
# the state-days with a death rate of 1% or more
deadly_days = df.filter(F.col("high_pct_death") == "1%+ death rate")
