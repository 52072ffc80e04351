# %% [markdown]
# # Students with low grades
# The Ada1 fold (Ada1_2 of the public Pusharoo benchmarks), as a PySpark user writes it: count
# and count of a when (built-in aggregates). Per student, the number of grades and the number of
# low grades (1 or 2); students with more than 1 grade and at least 2 low ones.

# %%
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
grades = spark.read.parquet(f"{DATA}/grades")
per_student = grades.groupBy("grp").agg(F.count("grade").alias("graded"),
                                        F.count(F.when(F.col("grade").isin(1, 2), 1)).alias("low"))

# %%
kept = per_student.filter((F.col("graded") > 1) & (F.col("low") >= 2))
