# %% [markdown]
# # Nursery applications: one-hot attributes and a numeric class
# The columns named (the file's first record had become the header), the attributes one-hot
# encoded as `pd.get_dummies` does, and the class replaced by a priority number.

# %%
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import IntegerType

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
nursery = spark.read.parquet(f"{DATA}/nursery")
nursery = nursery.drop("1")
nursery = nursery.withColumnsRenamed({"usual": "parents", "proper": "has_nurs", "complete": "form",
                                      "convenient": "children", "convenient.1": "housing", "nonprob": "finance",
                                      "recommended": "social", "recommend": "health"})

# %%
# get_dummies: one 0/1 column per value of each attribute, values in sorted order
dummy_values = {
    "parents": ["great_pret", "pretentious", "usual"],
    "has_nurs": ["critical", "improper", "less_proper", "proper", "very_crit"],
    "form": ["complete", "completed", "foster", "incomplete"],
    "children": ["convenient", "critical", "less_conv"],
    "housing": ["convenient", "inconv"],
    "finance": ["nonprob", "problematic", "slightly_prob"],
    "social": ["not_recom", "priority", "recommended"],
}
encoded = nursery.select("health", *[F.when(F.col(column) == value, 1).otherwise(0).alias(f"{column}_{value}")
                                     for column, values in dummy_values.items() for value in values])

# %%
priority = {"not_recom": 0, "priority": 1, "spec_prior": 2, "very_recom": 3, "recommend": 4}
to_priority = F.udf(lambda label: priority.get(label), IntegerType())
encoded = encoded.withColumn("health", to_priority(F.col("health")))
encoded = encoded.dropna()
encoded.groupBy("health").count().show()

# %%
# the highly recommended applications of families without financial problems
very_recom = encoded.filter((F.col("health") == 3) & (F.col("finance_nonprob") == 1))
