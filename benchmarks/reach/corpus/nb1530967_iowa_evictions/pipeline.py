# %% [markdown]
# # Evictions in small Iowa cities
# Eviction Lab's city table for Iowa (one row per city and year): incomplete rows
# dropped, bookkeeping columns dropped, columns renamed; rates summed per city over the
# years; each city's coordinates looked up in a table of city basics whose names ("Le
# Claire, IA") are cut at the comma by a Python function; the cities of the study kept.

# %%
import os
import re

from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import StringType

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

theCities = ["Batavia", "Farmington", "Denison", "Atkins", "Elgin", "Williamsburg", "Le_Claire", "Radcliffe",
             "Hopkinton", "Webster_City", "Altoona", "University_Park", "Battle_Creek", "Ainsworth", "Villisca", "Colo",
             "Bayard", "Donnellson", "Sheffield", "Albert_City", "Hartford", "Mount_Ayr", "Epworth", "Humboldt",
             "Le_Mars", "Albion", "Dumont", "St_Charles", "Ventura", "Bancroft", "Olin", "Fruitland", "St_Ansgar",
             "Sibley", "Bedford", "Grand_Mound", "Hartley", "George", "Missouri_Valley", "Graettinger", "What_Cheer",
             "Albia", "Hospers", "Center_Point", "Clarence", "Estherville", "Pomeroy", "Monroe", "Gilbertville",
             "Gowrie", "Kanawha", "Quasqueton", "Lamoni", "Murray", "Sac_City", "Moulton", "Mapleton", "Montezuma",
             "Winfield", "Correctionville", "Pocahontas", "Nashua", "Eagle_Grove", "Columbus_Junction", "Audubon",
             "Traer", "Cherokee", "Hamburg", "Waverly", "Mediapolis", "Pleasantville", "Glidden", "Bloomfield", "Anita",
             "Nora_Springs", "Elma", "Agency", "Elk_Horn", "Jefferson", "Pacific_Junction", "Lake_Park", "Wellsburg",
             "Chariton", "Clarinda", "Allerton", "Madrid", "Garnavillo", "Buffalo_Center", "Calmar", "Woodward", "Hills",
             "Sabula", "Corning", "Fontanelle", "Afton", "Northwood", "Everly", "Waukon"]

# %%
df = spark.read.parquet(f"{DATA}/cities")
print(df.columns)
exportDF = df.dropna()
exportDF = exportDF.drop("GEOID", "parent-location", "imputed", "subbed", "pct-multiple", "pct-other")
exportDF = exportDF.toDF("Year", "City", "Pop", "Poverty Rate", "% Renter", "Median Gross Rent",
                         "Median Household Income", "Median Property Value", "Rent Burden", "White",
                         "African American", "Hispanic", "American Indian", "Asian", "Non-Hispanic",
                         "Renter Occupied Households", "Eviction Filings", "Evictions", "Eviction Rate", "Filing Rate")

# %%
cityBasics = spark.read.parquet(f"{DATA}/city_basics_iowa")
city_name = F.udf(lambda city: re.match("([^,]+),.*", city)[1] if re.match("([^,]+),.*", city) is not None else "",
                  StringType())
cityBasics = cityBasics.withColumn("City", city_name(F.col("City")))

# %%
newDF = exportDF.groupBy("City").agg(*[F.sum(c).alias(c) for c in [
    "Poverty Rate", "% Renter", "Median Gross Rent", "Median Household Income", "Rent Burden", "Eviction Rate",
    "Filing Rate"]])
newDF = newDF.toDF("City", "Poverty Rate", "Renter Rate", "Median Rent", "Median Income", "Rent Burden",
                   "Eviction Rate", "Filing Rate")
newDF = newDF.join(cityBasics.select("City", "Lat", "Lon"), on="City", how="left")
newDF = newDF.filter(F.col("City").isin(theCities))
newDF.show(5)

# %%
# the study's cities with the most evictions over the years
high_eviction = newDF.filter(F.col("Eviction Rate") > 15)
