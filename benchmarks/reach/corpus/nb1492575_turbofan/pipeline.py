# %% [markdown]
# # Turbofan engine degradation: remaining useful life
# NASA's C-MAPSS training set (FD001): one row per engine and cycle, 3 settings and 21 sensors
# in unnamed columns. Each engine runs until it fails, so a cycle's remaining useful life (RUL)
# is the engine's last cycle minus that cycle.

# %%
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import LongType

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
train_df = spark.read.parquet(f"{DATA}/train_fd001")
print(train_df.columns)

# %%
# the two trailing columns are empty (the file ends its lines with spaces)
train_df = train_df.drop("26", "27")
names = ["id", "cycle", "setting1", "setting2", "setting3"] + [f"s{i}" for i in range(1, 22)]
train_df = train_df.toDF(*names)
train_df = train_df.orderBy("id", "cycle")
train_df.show(5)

# %%
max_cycle = train_df.groupBy("id").agg(F.max("cycle").alias("cycle_y"))
train_df = train_df.withColumnRenamed("cycle", "cycle_x").join(max_cycle, on="id")

# %%
remaining = F.udf(lambda last, current: last - current, LongType())
train_df = train_df.withColumn("RUL", remaining(F.col("cycle_y"), F.col("cycle_x"))).drop("cycle_y")
train_df.select("id", "cycle_x", "RUL").show(5)

# %%
# the last 30 cycles before failure, where the HPC outlet temperature (s11) runs high
near_failure_hot = train_df.filter((F.col("RUL") <= 30) & (F.col("s11") > 47.9))
