# %% [markdown]
# # COVID-19 hospital capacity: ventilators per hospital
# Ventilators per state (by state name), hospital beds summed per state from the hospital
# profiles, state populations: ventilators per bed and per capita for each state, then each
# hospital's estimated ventilators as its beds times its state's ventilators per bed.

# %%
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import DoubleType, StringType

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
us_state_abbrev = {
    "Alabama": "AL", "Alaska": "AK", "Arizona": "AZ", "Arkansas": "AR",
    "California": "CA", "Colorado": "CO", "Connecticut": "CT", "Delaware": "DE",
    "District of Columbia": "DC", "Florida": "FL", "Georgia": "GA", "Hawaii": "HI",
    "Idaho": "ID", "Illinois": "IL", "Indiana": "IN", "Iowa": "IA",
    "Kansas": "KS", "Kentucky": "KY", "Louisiana": "LA", "Maine": "ME",
    "Maryland": "MD", "Massachusetts": "MA", "Michigan": "MI", "Minnesota": "MN",
    "Mississippi": "MS", "Missouri": "MO", "Montana": "MT", "Nebraska": "NE",
    "Nevada": "NV", "New Hampshire": "NH", "New Jersey": "NJ", "New Mexico": "NM",
    "New York": "NY", "North Carolina": "NC", "North Dakota": "ND", "Northern Mariana Islands": "MP",
    "Ohio": "OH", "Oklahoma": "OK", "Oregon": "OR", "Palau": "PW",
    "Pennsylvania": "PA", "Puerto Rico": "PR", "Rhode Island": "RI", "South Carolina": "SC",
    "South Dakota": "SD", "Tennessee": "TN", "Texas": "TX", "Utah": "UT",
    "Vermont": "VT", "Virgin Islands": "VI", "Virginia": "VA", "Washington": "WA",
    "West Virginia": "WV", "Wisconsin": "WI", "Wyoming": "WY", "Guam": "GM",
}
to_abbrev = F.udf(lambda state: us_state_abbrev[state], StringType())

ventilatorsPerState = spark.read.parquet(f"{DATA}/ventilators")
ventilatorsPerState = ventilatorsPerState.withColumn("State", to_abbrev(F.col("State")))
hospitalProfiles = spark.read.parquet(f"{DATA}/hospital_beds")
bedsPerState = hospitalProfiles.groupBy("State").agg(F.sum("Beds").alias("Beds"))
hospitalResources = ventilatorsPerState.join(bedsPerState, on="State", how="left")

# %%
ratio = F.udf(lambda a, b: a / b if a is not None and b else None, DoubleType())
hospitalResources = hospitalResources.withColumn("Ventilators/Bed", ratio(F.col("Ventilators"), F.col("Beds")))
stateStats = spark.read.parquet(f"{DATA}/state_stats")
perCapitaResources = hospitalResources.join(stateStats, on="State", how="left")
per_100k = F.udf(lambda count, population: count / population * 100000 if count is not None and population else None,
                 DoubleType())
perCapitaResources = (perCapitaResources
                      .withColumn("Beds/100,000", per_100k(F.col("Beds"), F.col("Population")))
                      .withColumn("Ventilators/100,000", per_100k(F.col("Ventilators"), F.col("Population"))))
perCapitaResources.orderBy(F.desc("Ventilators/100,000")).show(5)

# %%
# calcVentilators and vpbLookup: the state's ventilators per bed, 0 where the state has none
state_vpb = perCapitaResources.select("State", F.col("Ventilators/Bed").alias("vpb"))
hospitalProfiles = (hospitalProfiles.join(state_vpb, on="State", how="left")
                    .withColumn("Statewide Ventilators per Bed", F.coalesce(F.col("vpb"), F.lit(0.0)))
                    .withColumn("Estimated Ventilators", F.col("Beds").cast("double")
                                * F.col("Statewide Ventilators per Bed"))
                    .drop("vpb"))
hospitalProfiles.show(5)

# %%
# the hospitals estimated to hold at least 50 ventilators
well_equipped = hospitalProfiles.filter(F.col("Estimated Ventilators") >= 50)
