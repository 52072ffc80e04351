# %% [markdown]
# # Happiness: countries surveyed every year
# Life satisfaction scores since 2007 for the countries of the Gallup list; per country, how
# many years have a score, a year and a code; the countries with twelve years of data.

# %%
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
happiness = spark.read.parquet(f"{DATA}/happiness_cantril")
happiness = happiness.drop("World Happiness Report 2016 (Cantril Ladder (0=worst; 10=best))")

# %%
recent = happiness.filter(F.col("Year") > 2006)
surveyed = recent.filter(F.col("Entity").isin([
    "Albania", "Argentina", "Armenia", "Australia", "Azerbaijan", "Bangladesh", "Belarus", "Belgium", "Belize",
    "Bolivia", "Bosnia and Herzegovina", "Brazil", "Bulgaria", "Burkina Faso", "Cambodia", "Cameroon", "Canada",
    "Central African Republic", "Chad", "Chile", "China", "Colombia", "Costa Rica", "Croatia", "Czech Republic",
    "Denmark", "Dominican Republic", "Ecuador", "Egypt", "El Salvador", "Estonia", "Georgia", "Germany", "Ghana",
    "Greece", "Guatemala", "Guyana", "Honduras", "Hungary", "India", "Indonesia", "Iran", "Israel", "Italy", "Japan",
    "Jordan", "Kazakhstan", "Kenya", "Kosovo", "Kyrgyzstan", "Laos", "Latvia", "Liberia", "Lithuania", "Macedonia",
    "Malawi", "Malaysia", "Mauritania", "Mexico", "Moldova", "Mongolia", "Montenegro", "Mozambique", "Namibia",
    "Nepal", "Netherlands", "New Zealand", "Nicaragua", "Niger", "Nigeria", "Pakistan", "Palestine", "Panama",
    "Paraguay", "Peru", "Philippines", "Poland", "Romania", "Russia", "Saudi Arabia", "Senegal", "Serbia",
    "Sierra Leone", "Singapore", "South Africa", "South Korea", "Spain", "Sri Lanka", "Sweden", "Tajikistan",
    "Tanzania", "Thailand", "Turkey", "Uganda", "Ukraine", "United Kingdom", "United States", "Uruguay", "Vietnam",
    "Yemen", "Zambia", "Zimbabwe"]))

# %%
counts = surveyed.groupBy("Entity").agg(F.count("Cantril_Score").alias("Cantril_Score"),
                                        F.count("Year").alias("Year"), F.count("Code").alias("Code"))
counts.orderBy("Code").show()

# %%
# the countries with a row for each of the twelve years
every_year = counts.filter(F.col("Code") == 12)
