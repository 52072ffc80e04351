# %% [markdown]
# # The Solow model: saving against effective depreciation
# The MRW cross-country data with the Solow model's regressors: n + g + delta (population
# growth plus 0.05), the investment share, and their difference.

# %%
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import DoubleType

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
mrw = spark.read.parquet(f"{DATA}/mrw")
mrw = mrw.drop("number")

# %%
lngd = F.udf(lambda popgrowth: None if popgrowth is None else popgrowth / 100 + 0.05, DoubleType())
ls = F.udf(lambda i_y: None if i_y is None else i_y / 100, DoubleType())
mrw = mrw.withColumn("lngd", lngd(F.col("popgrowth")))
mrw = mrw.withColumn("ls", ls(F.col("i_y")))
diff = F.udf(lambda s, ngd: None if s is None or ngd is None else s - ngd, DoubleType())
mrw = mrw.withColumn("ls_lngd", diff(F.col("ls"), F.col("lngd")))
mrw.show(5)

# %%
# non-oil countries that save well above their effective depreciation
high_savers = mrw.filter((F.col("n") == 1) & (F.col("ls_lngd") > 0.1))
