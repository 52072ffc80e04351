# %% [markdown]
# # Daily temperatures in Fahrenheit
# A weather site's history table (every column text, a header row at each month): the
# temperature and humidity columns kept and renamed, the header rows dropped, the values
# made integers, and the temperatures converted to Fahrenheit.

# %%
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import DoubleType

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
weather = spark.read.parquet(f"{DATA}/weather_history")
weather = weather.drop("Events")
weather = weather.drop("Unnamed: 10", "Sea Level Press. (hPa)", "Unnamed: 12", "Unnamed: 13", "Visibility (km)",
                       "Unnamed: 15", "Unnamed: 16", "Wind (km/h)", "Unnamed: 18", "Unnamed: 19", "Precip. (mm)")
weather = weather.drop("Dew Point (°C)", "Unnamed: 6", "Unnamed: 7", "Humidity (%)")
weather = weather.drop("2011")

# %%
weather = weather.withColumnsRenamed({"Unnamed: 0": "date", "Temp. (°C)": "highT", "Unnamed: 3": "avgT",
                                      "Unnamed: 4": "lowT", "Unnamed: 9": "avgH"})
weather = weather.filter(F.col("date").isNotNull())
# applymap(int); try_cast: Spark 4 fails a query on a text it cannot cast, and does not promise
# to run the date filter before the cast (a month's header row, "high", would fail it)
weather = weather.select("date", *[F.col(c).try_cast("int").alias(c) for c in ["highT", "avgT", "lowT", "avgH"]])
weather.select("highT").show(5)

# %%
to_fahrenheit = F.udf(lambda celsius: celsius * (9 / 5) + 32, DoubleType())
weather = weather.withColumn("highT", to_fahrenheit(F.col("highT")))
weather = weather.withColumn("avgT", to_fahrenheit(F.col("avgT")))
weather = weather.withColumn("lowT", to_fahrenheit(F.col("lowT")))

# %%
# hot and humid days
hot_humid = weather.filter((F.col("highT") >= 90) & (F.col("avgH") >= 60))
