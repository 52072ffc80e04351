# %% [markdown]
# # One kernel's design space measured twice
# Two sweeps of the same FPGA kernel's tuning knobs (unrolling, block size, tile shape): the
# memory partition size is the data block knob, the knobs that differ between the sweeps are
# dropped, each sweep keeps its row number, and the sweeps are matched configuration by
# configuration.

# %%
import os

from pyspark.sql import SparkSession, Window
from pyspark.sql import functions as F
from pyspark.sql.types import LongType

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
df0 = spark.read.parquet(f"{DATA}/knobs_0")
df1 = spark.read.parquet(f"{DATA}/knobs_1")
df0.show(5)

# %%
mem_partition_size = F.udf(lambda data_block: data_block, LongType())
df0 = df0.withColumn("mem_partition_size", mem_partition_size(F.col("knob_DATA_BLOCK")))
df1 = df1.withColumn("mem_partition_size", mem_partition_size(F.col("knob_DATA_BLOCK")))

# %%
sweep1 = df1.drop("knob_I_B").drop("knob_MAT_SIZE").drop("knob_DATA_BLOCK")
sweep0 = df0.drop("knob_I_B").drop("knob_MAT_SIZE").drop("knob_DATA_BLOCK")

# %%
# reset_index(): each sweep's rows numbered in the order they were measured
in_order = Window.orderBy(F.monotonically_increasing_id())
sweep1 = sweep1.withColumn("index", F.row_number().over(in_order) - 1)
sweep0 = sweep0.withColumn("index", F.row_number().over(in_order) - 1)

# %%
knobs = ["knob_UNROLL_FACTOR1", "knob_UNROLL_FACTOR2", "knob_UNROLL_FACTOR3", "mem_partition_size",
         "knob_SUBDIM_X", "knob_SUBDIM_Y"]
left = sweep1.select(*knobs, *[F.col(c).alias(f"{c}_x") for c in ("index", "time", "area")])
right = sweep0.select(*knobs, *[F.col(c).alias(f"{c}_y") for c in ("index", "time", "area")])
matched = left.join(right, on=knobs)
matched.show(5)

# %%
# large memory partitions on which the first sweep ran faster
faster_large = matched.filter((F.col("mem_partition_size") >= 1024) & (F.col("time_x") < F.col("time_y")))
