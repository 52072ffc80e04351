# %% [markdown]
# # Indoor air quality: time in each comfort category
# VOC readings sorted into the comfort categories I-IV (as `pd.cut` bins them), then, per
# monitoring period and season, the share of the time spent in each category and the share
# of missing data (the notebook's pandas function, run per group).

# %%
import os

import pandas as pd
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
air = spark.read.parquet(f"{DATA}/indoor_air")
air.printSchema()

# %%
labels_T_RH = ["I", "II", "III", "IV"]
labels_CO2_VOC = ["I", "II", "III", "IV"]
# pd.cut(VOC, bins=[0, 300, 500, 1000, inf], labels=labels_CO2_VOC): right-closed bins, 0 falls outside
voc = F.col("VOC")
air = air.withColumn("Category_VOC",
                     F.when((voc > 0) & (voc <= 300), "I").when((voc > 300) & (voc <= 500), "II")
                     .when((voc > 500) & (voc <= 1000), "III").when(voc > 1000, "IV"))

# %%
def stats_category(df, cat_name):
    """
    This f-n calculates time distribution of indoor air parameters in comfort categories
    and percentage of missing data.
    """
    labels = labels_T_RH if cat_name in ("Category_TEMP", "Category_RH") else labels_CO2_VOC
    df_cat = pd.DataFrame(0.0, index=[cat_name], columns=labels + ["Missing data"])
    for cat in labels:
        df_cat.loc[cat_name, cat] = df[cat_name].isin([cat]).sum() * 100 / len(df[cat_name])
    df_cat.loc[cat_name, "Missing data"] = df[cat_name].isna().sum() * 100 / len(df[cat_name])
    df_cat = df_cat.fillna(0)
    df_cat.insert(0, "Season", df["Season"].iloc[0])
    df_cat.insert(0, "Monitoring_Period", df["Monitoring_Period"].iloc[0])
    return df_cat


schema = ("Monitoring_Period string, Season string, I double, II double, III double, IV double, "
          "`Missing data` double")
voc_stats = (air.groupBy("Monitoring_Period", "Season")
             .applyInPandas(lambda df: stats_category(df, "Category_VOC"), schema=schema))
voc_stats.show()

# %%
# the periods that spent more than 5% of the time in the worst category
poor_air = voc_stats.filter(F.col("IV") > 5)
