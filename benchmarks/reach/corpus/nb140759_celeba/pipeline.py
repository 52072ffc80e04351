# %% [markdown]
# # CelebA: a training set for "young"
# Face attributes (+1/-1 per attribute) joined to the evaluation partition of each image;
# the training partition's young and not-young faces.

# %%
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
attributes = spark.read.parquet(f"{DATA}/list_attr_celeba")
attributes = attributes.replace(-1, 0)  # attributes as 0/1
partitions = spark.read.parquet(f"{DATA}/list_eval_partition")

# %%
labelled = partitions.join(attributes.select("file_name", "young"), on="file_name", how="left")
labelled.groupBy("partition").count().show()

# %%
not_young = labelled.filter((F.col("partition") == 0) & (F.col("young") == 0))
young = labelled.filter((F.col("partition") == 0) & (F.col("young") == 1))
train = not_young.union(young)

# %%
# only the first 50,000 images are on this machine
train_local = train.filter(F.col("file_name") < "050000.jpg")
