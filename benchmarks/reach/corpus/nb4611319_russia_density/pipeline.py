# %% [markdown]
# # Russian federal subjects: population density
# The area column was scraped as text with thousands separators (and is missing for a few
# subjects); it is cleaned by a Python function, made a number, and the density of the 2002
# census population computed per square kilometre (0 where the area is unknown).

# %%
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import DoubleType, StringType

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
df1 = spark.read.parquet(f"{DATA}/regions")
df1.show(5)

# %%
AREA = "Площадь, тыс.км2"
POPULATION = "Численность населения (2002  г.), чел"

df1 = df1.withColumn("area", F.col(f"`{AREA}`"))  # a dot in the name: quoted
clean_area = F.udf(lambda area: area.replace(",", "") if isinstance(area, str) else "0", StringType())
df1 = df1.withColumn("area", clean_area(F.col(f"`{AREA}`")))
df1 = df1.withColumn("area", F.col("area").cast("double"))

# %%
density = F.udf(lambda population, area: population / (1000 * area) if area != 0 else 0.0, DoubleType())
df1 = df1.withColumn("density", density(F.col(f"`{POPULATION}`"), F.col("area")))
df1.select("Субъект федерации", "area", "density").show(5)

# %%
# the densely populated subjects
dense = df1.filter(F.col("density") > 50)
