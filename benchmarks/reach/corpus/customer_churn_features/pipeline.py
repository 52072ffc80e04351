# %% [markdown]
# # Customer churn: feature engineering
# The churn table explored, then new features: age over total purchase, age buckets
# (a Bucketizer), age groups and a tenure segment from Python UDFs, the squared age from a
# pandas UDF. (The notebook's model fitting that follows is left out.)

# %%
import os

import pandas as pd
from pyspark.ml.feature import Bucketizer
from pyspark.sql import SparkSession
from pyspark.sql.functions import pandas_udf, udf
from pyspark.sql.types import FloatType, StringType

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
spark_df = spark.read.parquet(f"{DATA}/customer_churn")
print("Shape: ", (spark_df.count(), len(spark_df.columns)))
spark_df.printSchema()

# %%
# variable names in lower case
spark_df = spark_df.toDF(*[c.lower() for c in spark_df.columns])
spark_df.groupby("churn").count().show()
spark_df.groupby("churn").agg({"age": "mean"}).show()

# %%
spark_df = spark_df.withColumn("age_total_purchase", spark_df.age / spark_df.total_purchase)

bucketizer = Bucketizer(splits=[0, 35, 45, 65], inputCol="age", outputCol="age_cat")
spark_df = bucketizer.setHandleInvalid("keep").transform(spark_df)
spark_df = spark_df.withColumn("age_cat", spark_df.age_cat + 1)
spark_df = spark_df.withColumn("age_cat", spark_df["age_cat"].cast("integer"))
spark_df.groupby("age_cat").agg({"churn": "mean"}).show()

# %%
def age_converter(age):
    if age < 35:
        return "young"
    elif age < 45:
        return "mature"
    elif age <= 65:
        return "senior"


spark_df = spark_df.withColumn("age_cat3", udf(age_converter, StringType())(spark_df["age"]))
spark_df.groupby("age_cat3").count().show()


def segment(years):
    if years < 5:
        return "segment_b"
    else:
        return "segment_a"


spark_df = spark_df.withColumn("segment", udf(segment, StringType())(spark_df["years"]))
spark_df.groupby("segment").count().show()

# %%
@pandas_udf(FloatType())
def pandas_square(col: pd.Series) -> pd.Series:
    return col ** 2


spark_df = spark_df.withColumn("age_square", pandas_square(spark_df.age))

# %%
# senior customers of less than five years who churned
senior_new_churners = spark_df.filter((spark_df.age_cat3 == "senior") & (spark_df.segment == "segment_b")
                                      & (spark_df.churn == 1))
