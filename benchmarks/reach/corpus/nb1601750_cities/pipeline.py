# %% [markdown]
# # 500 Cities: sleep, inactivity, obesity and heart disease by census tract
# The CDC's 500 Cities estimates, one row per place and value type with a column per measure,
# joined to the places' locations, narrowed to census tracts, melted to long form and
# pivoted back to the four measures of interest (a mean over the value types).

# %%
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
data = spark.read.parquet(f"{DATA}/cdc_500_cities")
locations = spark.read.parquet(f"{DATA}/cdc_500_locations")
print(locations.columns)

# %%
data2 = data.join(locations.select("uniqueid", "geographiclevel", "stateabbr", "cityname"), on="uniqueid", how="left")
print(data2.columns)
data2 = data2.filter(F.col("geographiclevel") == "Census Tract")
data2 = data2.drop("Unnamed: 0", "datavaluetypeid", "geographiclevel")

# %%
id_vars = ["uniqueid", "stateabbr", "cityname", "populationcount"]
measures = [c for c in data2.columns if c not in id_vars]
dataMelt = data2.unpivot(id_vars, measures, "measureid", "value")
filtered = dataMelt.filter(F.col("measureid").isin("SLEEP", "LPA", "OBESITY", "CHD"))

# %%
pivoted = (filtered.groupBy("uniqueid", "populationcount", "stateabbr", "cityname")
           .pivot("measureid", ["CHD", "LPA", "OBESITY", "SLEEP"])
           .agg(F.mean("value")))
pivoted.show(5)

# %%
# tracts of four large states where more than a third of adults are obese
obesity = pivoted.filter(F.col("stateabbr").isin("NY", "TX", "CA", "CT") & (F.col("OBESITY") > 33))
