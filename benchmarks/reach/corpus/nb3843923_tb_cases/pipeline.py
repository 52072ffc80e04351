# %% [markdown]
# # WHO tuberculosis cases, tidied
# The wide table (one column per sex and age band) melted to one row per country, year and
# band; the band's code split by a regular expression into sex and age bounds, the age
# label built by a Python function; incomplete rows dropped, sorted.

# %%
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import StringType

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
df22 = spark.read.parquet(f"{DATA}/tb")
df23 = df22.unpivot(["country", "year"], ["m4554", "mu", "m2534", "m1524", "m3544", "m014", "m5564", "m65", "f014"],
                    "sex_and_age", "cases")

# %%
# str.extract("(\D)(\d+)(\d{2})"): no match gives missing values
pattern = r"(\D)(\d+)(\d{2})"
matched = F.col("sex_and_age").rlike(pattern)
df30 = (df23.withColumn("sex", F.when(matched, F.regexp_extract("sex_and_age", pattern, 1)))
        .withColumn("age_lower", F.when(matched, F.regexp_extract("sex_and_age", pattern, 2)))
        .withColumn("age_upper", F.when(matched, F.regexp_extract("sex_and_age", pattern, 3))))
age_label = F.udf(lambda lower, upper: str(lower) + "-" + str(upper), StringType())
df30 = df30.withColumn("age", age_label(F.col("age_lower"), F.col("age_upper")))
df30.show(5)

# %%
df31 = df30.drop("sex_and_age", "age_lower", "age_upper")
df32 = df31.dropna(subset=["country", "year", "cases", "sex", "age"])
df33 = df32.orderBy("country", "year", "sex", "age")
df33.printSchema()

# %%
# children (0-14) in the country-years with more than a hundred such cases
children = df33.filter((F.col("age") == "0-14") & (F.col("cases") > 100))
