# %% [markdown]
# # US permanent labor certifications for South Korean citizens
# The Department of Labor's PERM decisions: applications of South Korean citizens with a
# yearly wage offer, a few columns kept, the employer's state written out in full by a
# Python function (two-letter codes and full names both occur in the data), complete rows.

# %%
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import StringType

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
df0 = spark.read.parquet(f"{DATA}/us_perm_visas")
df4 = df0.filter(F.col("COUNTRY_OF_CITIZENSHIP") == "SOUTH KOREA")
df10 = df4.filter(F.col("WAGE_OFFER_UNIT_OF_PAY_9089") == "Year")
df13 = df10.select("CASE_STATUS", "DECISION_ELAPSED_DAYS", "EMPLOYER_POSTAL_CODE", "EMPLOYER_STATE",
                   "EMPLOYER_NUM_EMPLOYEES", "WAGE_OFFER_FROM_9089", "COUNTRY_OF_CITIZENSHIP", "CLASS_OF_ADMISSION",
                   "FOREIGN_WORKER_INFO_EDUCATION", "CASE_RECEIVED_DATE_MONTH")

# %%
STATES = {
    "AL": "ALABAMA", "AK": "ALASKA", "AZ": "ARIZONA", "AR": "ARKANSAS", "CA": "CALIFORNIA",
    "CO": "COLORADO", "CT": "CONNECTICUT", "DE": "DELAWARE", "FL": "FLORIDA", "GA": "GEORGIA",
    "HI": "HAWAII", "ID": "IDAHO", "IL": "ILLINOIS", "IN": "INDIANA", "IA": "IOWA",
    "KS": "KANSAS", "KY": "KENTUCKY", "LA": "LOUISIANA", "ME": "MAINE", "MD": "MARYLAND",
    "MA": "MASSACHUSETTS", "MI": "MICHIGAN", "MN": "MINNESOTA", "MS": "MISSISSIPPI", "MO": "MISSOURI",
    "MT": "MONTANA", "NE": "NEBRASKA", "NV": "NEVADA", "NH": "NEW HAMPSHIRE", "NJ": "NEW JERSEY",
    "NM": "NEW MEXICO", "NY": "NEW YORK", "NC": "NORTH CAROLINA", "ND": "NORTH DAKOTA", "OH": "OHIO",
    "OK": "OKLAHOMA", "OR": "OREGON", "PA": "PENNSYLVANIA", "RI": "RHODE ISLAND", "SC": "SOUTH CAROLINA",
    "SD": "SOUTH DAKOTA", "TN": "TENNESSEE", "TX": "TEXAS", "UT": "UTAH", "VT": "VERMONT",
    "VA": "VIRGINIA", "WA": "WASHINGTON", "WV": "WEST VIRGINIA", "WI": "WISCONSIN", "WY": "WYOMING",
}


@F.udf(returnType=StringType())
def full_state(state):
    return STATES[state] if state in STATES else state


df13 = df13.withColumn("EMPLOYER_STATES", full_state(F.col("EMPLOYER_STATE")))
df18 = df13.dropna(subset=df13.columns)
df53 = df18.drop("CASE_STATUS")
df53.groupBy("EMPLOYER_STATES").count().orderBy(F.desc("count")).show(5)

# %%
# offers in California of at least $100,000 a year
ca_high_wage = df53.filter((F.col("EMPLOYER_STATES") == "CALIFORNIA") & (F.col("WAGE_OFFER_FROM_9089") >= 100000))
