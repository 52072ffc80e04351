# %% [markdown]
# # COVID-19 (JHU CSSE): one clean table and a country-level table
# The three wide time series (confirmed, deaths, recovered) melted to one row per location
# and day, joined on the location and day (NULL-safe, provinces are often missing), dates
# parsed, locations without coordinates and the cruise ships dropped, recovered cleaned,
# types set, active cases computed; then totals per country and day. (An AWS Glue job: the
# S3 reads and writes are replaced by the local tables; the koalas melt by `unpivot`.)

# %%
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import DateType, DoubleType, IntegerType, StringType

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
confirmed_df = spark.read.parquet(f"{DATA}/time_series_covid19_confirmed_global")
deaths_df = spark.read.parquet(f"{DATA}/time_series_covid19_deaths_global")
recovered_df = spark.read.parquet(f"{DATA}/time_series_covid19_recovered_global")

confirmed_df = (confirmed_df.withColumnRenamed("Province/State", "province_state")
                .withColumnRenamed("Country/Region", "country_region")
                .withColumnRenamed("Lat", "lat")
                .withColumnRenamed("long", "long"))
deaths_df = (deaths_df.withColumnRenamed("Province/State", "province_state")
             .withColumnRenamed("Country/Region", "country_region")
             .withColumnRenamed("Lat", "lat")
             .withColumnRenamed("long", "long"))
recovered_df = (recovered_df.withColumnRenamed("Province/State", "province_state")
                .withColumnRenamed("Country/Region", "country_region")
                .withColumnRenamed("Lat", "lat")
                .withColumnRenamed("long", "long"))
dates = confirmed_df.columns[4:]

# %%
ids = ["province_state", "country_region", "lat", "long"]
confirmed_df_long = confirmed_df.unpivot(ids, dates, "date", "confirmed")
deaths_df_long = deaths_df.unpivot(ids, dates, "date", "deaths")
recovered_df_long = recovered_df.unpivot(ids, dates, "date", "recovered")

# %%
full_table = confirmed_df_long.join(
    deaths_df_long,
    (confirmed_df_long["province_state"].eqNullSafe(deaths_df_long["province_state"]))
    & (confirmed_df_long["country_region"].eqNullSafe(deaths_df_long["country_region"]))
    & (confirmed_df_long["date"].eqNullSafe(deaths_df_long["date"]))
    & (confirmed_df_long["lat"].eqNullSafe(deaths_df_long["lat"]))
    & (confirmed_df_long["long"].eqNullSafe(deaths_df_long["long"])),
    "left").select(confirmed_df_long["*"], deaths_df_long["deaths"])

full_table = full_table.join(
    recovered_df_long,
    (full_table["province_state"].eqNullSafe(recovered_df_long["province_state"]))
    & (full_table["country_region"].eqNullSafe(recovered_df_long["country_region"]))
    & (full_table["date"].eqNullSafe(recovered_df_long["date"]))
    & (full_table["lat"].eqNullSafe(recovered_df_long["lat"]))
    & (full_table["long"].eqNullSafe(recovered_df_long["long"])),
    "left").select(full_table["*"], recovered_df_long["recovered"])

# %%
# as in the job, the pattern's `m` is minutes: every date lands in January
full_table = full_table.withColumn("date", F.to_date(F.col("date"), "m/d/yy"))
full_table = full_table.filter("lat is NOT NULL or long is NOT NULL")
full_table = full_table.fillna({"recovered": "0"})
full_table = full_table.withColumn("recovered", F.regexp_replace("recovered", "-1", "0"))
full_table = full_table.filter(~(full_table.province_state.eqNullSafe("Grand Princess"))
                               | ~(full_table.province_state.eqNullSafe("Diamond Princess")))
full_table = full_table.filter((full_table.country_region != "Diamond Princess")
                               | (full_table.country_region != "MS Zaandam"))

# %%
full_table = (full_table
              .withColumn("province_state", full_table["province_state"].cast(StringType()))
              .withColumn("country_region", full_table["country_region"].cast(StringType()))
              .withColumn("lat", full_table["lat"].cast(DoubleType()))
              .withColumn("long", full_table["long"].cast(DoubleType()))
              .withColumn("date", full_table["date"].cast(DateType()))
              .withColumn("confirmed", full_table["confirmed"].cast(IntegerType()))
              .withColumn("deaths", full_table["deaths"].cast(IntegerType()))
              .withColumn("recovered", full_table["recovered"].cast(IntegerType())))
full_table = full_table.withColumn("active", F.col("confirmed") - F.col("deaths") - F.col("recovered"))

# %%
group_cols = ["country_region", "date"]
country_level = (full_table.groupBy(group_cols)
                 .agg(F.sum("confirmed").alias("total_confirmed"), F.sum("deaths").alias("total_deaths"),
                      F.sum("recovered").alias("total_recovered"), F.sum("active").alias("total_active"))
                 .orderBy(["date", "country_region"]))
country_level.show()

# %%
# the days Italy had more than a thousand active cases
italy_active = country_level.filter((F.col("country_region") == "Italy") & (F.col("total_active") > 1000))
