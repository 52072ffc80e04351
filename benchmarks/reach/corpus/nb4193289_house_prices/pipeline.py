# %% [markdown]
# # Ames house prices: train and test stacked
# Both files without the Id and the mostly missing columns, stacked for the feature
# engineering (the test rows get no SalePrice).

# %%
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
train = spark.read.parquet(f"{DATA}/house_train")
test = spark.read.parquet(f"{DATA}/house_test")
train = train.drop("Id")
test = test.drop("Id")

# %%
train = train.drop("Alley", "FireplaceQu", "PoolQC", "Fence", "MiscFeature")
test = test.drop("Alley", "FireplaceQu", "PoolQC", "Fence", "MiscFeature")
all_data = train.unionByName(test, allowMissingColumns=True)
print(all_data.count(), len(all_data.columns))

# %%
# the known outliers: very large houses sold cheaply
outliers = all_data.filter((F.col("GrLivArea") > 4000) & (F.col("SalePrice") < 300000))
outliers.select("GrLivArea", "SalePrice", "SaleCondition").show()
