# %% [markdown]
# # Cryptocurrency market capitalisation against macroeconomic series
# Monthly IMF series (labour index, consumer prices, exchange rate to the dollar) of the
# United States, Korea, Japan and Russia, each read from its own SDMX export and renamed,
# joined on the date; the daily market capitalisation of cryptocurrencies left-joined to them
# and limited to the first five months of 2016. (Column names use "_" where the notebook's
# used ".", which Spark reads as a field access.)

# %%
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
def series(df, name):
    return df.withColumnsRenamed({"@OBS_VALUE": name, "@TIME_PERIOD": "date"})


df187 = spark.read.parquet(f"{DATA}/imf_us_le_ix")
df189 = series(df187, "US_LE_IX")
df293 = series(df187, "US_PCPI_IX")
df294 = df189.join(df293, on="date")
df403 = spark.read.parquet(f"{DATA}/imf_us_ende")
df405 = series(df403, "US_ENDE_XDC_USD_RATE")
df189 = df294.join(df405, on="date")

# %%
df514 = spark.read.parquet(f"{DATA}/imf_kr_le_ix")
df517 = df189.join(series(df514, "KR_LE_IX"), on="date")
df626 = spark.read.parquet(f"{DATA}/imf_kr_pcpi_ix")
df629 = df517.join(series(df626, "KR_PCPI_IX"), on="date")
df405 = spark.read.parquet(f"{DATA}/imf_kr_ende")
df740 = df629.join(series(df405, "KR_ENDE_XDC_USD_RATE"), on="date")

# %%
df849 = spark.read.parquet(f"{DATA}/imf_jp_le_ix")
df852 = df740.join(series(df849, "JP_LE_IX"), on="date")
df963 = df852.join(series(df514, "JP_PCPI_IX"), on="date")
df1072 = spark.read.parquet(f"{DATA}/imf_jp_ende")
df1075 = df963.join(series(df1072, "JP_ENDE_XDC_USD_RATE"), on="date")
df1184 = spark.read.parquet(f"{DATA}/imf_ru_le_ix")
df1187 = df1075.join(series(df1184, "RU_LE_IX"), on="date")
df1298 = df1187.join(series(df1072, "RU_PCPI_IX"), on="date")
df1407 = spark.read.parquet(f"{DATA}/imf_ru_ende")
df1410 = df1298.join(series(df1407, "RU_ENDE_XDC_USD_RATE"), on="date")
df1413 = df1410.select("date", "US_LE_IX", "US_PCPI_IX", "US_ENDE_XDC_USD_RATE", "KR_LE_IX", "KR_PCPI_IX",
                       "KR_ENDE_XDC_USD_RATE", "JP_LE_IX", "JP_PCPI_IX", "JP_ENDE_XDC_USD_RATE", "RU_LE_IX",
                       "RU_PCPI_IX", "RU_ENDE_XDC_USD_RATE")

# %%
df1416 = spark.read.parquet(f"{DATA}/crypto_markets")
df1419 = df1416.filter(F.col("marketcap(USD)").isNotNull())
df1421 = df1419.dropna(subset=["date", "marketcap(USD)"])
df1425 = df1421.join(df1413, on="date", how="left")
df1425 = df1425.withColumn("date", F.to_timestamp("date"))
df1457 = df1425.filter(F.col("date") < F.lit("2016-06-01 00:00:00").cast("timestamp"))
df1479 = df1457.filter((F.col("date") >= F.lit("2016-01-01 00:00:00").cast("timestamp"))
                       & (F.col("date") < F.lit("2016-06-01 00:00:00").cast("timestamp")))
df1479.show(5)

# %%
# the coins worth at least 100 million dollars
large_caps = df1479.filter(F.col("marketcap(USD)") >= 1e8)
