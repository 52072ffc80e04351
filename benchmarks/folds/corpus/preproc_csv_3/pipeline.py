# %% [markdown]
# # Hospitals with flagged ambulance or import visits
# The PreprocCSVTable fold (PreprocCSVTable_3 of the public Pusharoo benchmarks), as a PySpark
# user writes it: RDD map then reduceByKey. Per hospital, an RDD map gives 1 for a flagged visit
# of type AMB or IMP, else 0, and reduceByKey sums them; hospitals with a count over 0, or under
# -10 other than -29 (never).

# %%
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
visits = spark.read.parquet(f"{DATA}/visits")
counts = (visits.rdd.map(lambda r: (r.grp, 1 if r.flag and r.kind in ("AMB", "IMP") else 0))
          .reduceByKey(lambda a, b: a + b)
          .toDF("grp long, n long"))

# %%
some = counts.filter((F.col("n") > 0) | ((F.col("n") < -10) & (F.col("n") != -29)))
