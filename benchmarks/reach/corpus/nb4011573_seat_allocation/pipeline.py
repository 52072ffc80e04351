# %% [markdown]
# # Seat allocation: opening and closing ranks in two rounds
# Two scraped tables of an engineering admission's seat allocation (institute, programme,
# opening and closing rank), with numbered columns: the unused columns dropped, the rest
# named, the two rounds put side by side by an outer join on the programme id, and the
# institute names cleaned of the line breaks the scrape left in them by a Python function.

# %%
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import StringType

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
df0 = spark.read.parquet(f"{DATA}/round_one")
df28 = spark.read.parquet(f"{DATA}/round_two")

# %%
df27 = df0.drop("0").drop("4", "9").drop("5", "8")
df27 = df27.withColumnsRenamed({"1": "Id", "2": "College", "3": "Course"})
df30 = df28.drop("0").drop("6")
df30 = df30.withColumnsRenamed({"1": "Id", "2": "College", "3": "Course", "4": "6", "5": "7"})

# %%
left = df27.select("Id", *[F.col(c).alias(f"{c}_x") for c in ["College", "Course", "6", "7"]])
right = df30.select("Id", *[F.col(c).alias(f"{c}_y") for c in ["College", "Course", "6", "7"]])
df32 = left.join(right, on="Id", how="outer")

clean = F.udf(lambda name: str(name).replace("\n", "").replace("\r", ""), StringType())
df32 = df32.withColumn("College_x", clean(F.col("College_x")))
df32 = df32.withColumn("College_y", clean(F.col("College_y")))

# %%
df0.show(3)
df28.show(3)
df32.show(3)

# %%
# the IITs' programmes as listed in the first round
iit_programmes = df32.filter(F.col("College_x").startswith("Indian Institute of Technology"))
