# %% [markdown]
# # Daily meter readings: from wide to long
# A utility's daily meter file has one row per meter, channel and day with 24 quality codes
# and 24 hourly values; it is melted into one row per hour (an array of structs,
# exploded), limited to the energy data types, cleared of bad readings (the code label of
# hour 3, as the notebook tests it) and duplicates, and sorted. The notebook ends by looking
# up one meter in SQL.

# %%
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import DoubleType

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
meter_readings_df = spark.read.parquet(f"{DATA}/daily_meter_data")
print("Total columns in wide format:", len(meter_readings_df.columns))
print("Total rows in wide format:", meter_readings_df.count())

# %%
def melt_meter_readings(df, id_vars, interval_hour_col, interval_value_col, qc_code_col, qcc_value_col):
    """One row per hour: the hour, its value, the label of its QC column and the QC value."""
    hours = F.array(*[F.struct(F.lit(i).alias(interval_hour_col),
                               F.col(f"Interval#{i}").alias(interval_value_col),
                               F.lit(f"QC#{i}").alias(qc_code_col),
                               F.col(f"QC#{i}").cast(DoubleType()).alias(qcc_value_col)) for i in range(1, 25)])
    exploded = df.withColumn("exploded_data", F.explode(hours))
    return exploded.select(*[F.col(f"`{c}`") for c in id_vars],
                           *[F.col(f"exploded_data.{c}") for c in
                             [interval_hour_col, interval_value_col, qc_code_col, qcc_value_col]])


retained_columns = ["DT", "Meter Number", "Customer Account Number", "Serial Number", "Port", "Channel",
                    "Conversion Factor", "Data Type", "Start Date"]
long_format_df = melt_meter_readings(meter_readings_df, retained_columns, "IntervalHour", "IntervalValue", "QCCode",
                                     "QCC_Value")
print("Total rows in long format:", long_format_df.count())

# %%
data_types_to_filter = ["KWH", "UNITS", "Signed Net in Watts", "Fwd Consumption in Watts"]
filtered_df_kws = long_format_df.filter(F.col("Data Type").isin(data_types_to_filter))
print("Total rows after filtering by data types:", filtered_df_kws.count())

# %%
goodreadings_df = long_format_df.filter(F.col("QCCode") == "QC#3")
goodreadings_dedup_df = long_format_df.filter(F.col("QCCode") == "QC#3").dropDuplicates()
print("Total rows after deleting bad records:", goodreadings_df.count())
print("Total rows after deleting duplicate + bad records:", goodreadings_dedup_df.count())

# %%
order_by_ = ["Customer Account Number", "Meter Number", "Data Type", "Start Date", "IntervalHour"]
sorted_clean_df = goodreadings_df.orderBy(order_by_, ascending=[True] * 5)
sorted_clean_df.show(4)
sorted_clean_df.createOrReplaceTempView("sorted_clean_table")

# %%
# one meter, as the notebook looks it up
one_meter = spark.sql("SELECT DT, `Meter Number`, `Conversion Factor` FROM sorted_clean_table "
                      "WHERE `Meter Number` = '11270743'")
