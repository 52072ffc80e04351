# %% [markdown]
# # Recruit restaurants: visitors per week, weekday and area
# Visits of the restaurants outside the areas left out of the study (25 areas, one filter
# each), summed per week of the year, weekday and area.

# %%
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
visits = spark.read.parquet(f"{DATA}/air_visits")
visits = visits.drop("Unnamed: 0")

# %%
left_out = ["Hokkaidō Katō-gun Motomachi", "Niigata-ken Kashiwazaki-shi Chūōchō", "Fukuoka-ken Fukuoka-shi Tenjin",
            "Tōkyō-to Meguro-ku Takaban", "Tōkyō-to Chiyoda-ku Kanda Jinbōchō", "Tōkyō-to Musashino-shi Midorichō",
            "Tōkyō-to Adachi-ku Chūōhonchō", "Tōkyō-to Kōtō-ku Tomioka", "Hokkaidō Sapporo-shi Atsubetsuchūō 1 Jō",
            "Tōkyō-to Edogawa-ku Chūō", "Hokkaidō Sapporo-shi Kita 24 Jōnishi", "Tōkyō-to Fuchū-shi Miyanishichō",
            "Ōsaka-fu Ōsaka-shi Ōhiraki", "Niigata-ken Niigata-shi Teraohigashi", "Ōsaka-fu Ōsaka-shi Nanbasennichimae",
            "Fukuoka-ken Kitakyūshū-shi Konyamachi", "Hyōgo-ken Amagasaki-shi Higashinanamatsuchō",
            "Tōkyō-to Musashino-shi Kichijōji Honchō", "Tōkyō-to Taitō-ku Asakusa", "Ōsaka-fu Suita-shi Izumichō",
            "Tōkyō-to Toshima-ku Sugamo", "Tōkyō-to Meguro-ku Jiyūgaoka", "Fukuoka-ken Fukuoka-shi Imaizumi",
            "Tōkyō-to Shibuya-ku Higashi", "Tōkyō-to Setagaya-ku Kitazawa"]
for area in left_out:
    visits = visits.filter(F.col("air_area_name") != area)

# %%
weekly = visits.groupBy("current_week", "day_of_week", "air_area_name").agg(F.sum("visitors").alias("visitors"))
weekly.orderBy(F.desc("visitors")).show(10, truncate=False)

# %%
# busy Fridays: an area's restaurants together had at least 100 visitors
busy_fridays = weekly.filter((F.col("day_of_week") == "Friday") & (F.col("visitors") >= 100))
