# %% [markdown]
# # "Getting real about fake news": English articles from the U.S. around October 26, 2016
# The crawled posts of sites flagged as fake or biased: English posts from the U.S., their
# word counts and publication days by Python functions, two days kept, duplicates removed,
# long posts with a title and an author kept.

# %%
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import IntegerType, StringType

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
df0 = spark.read.parquet(f"{DATA}/fake")
print(df0.columns)

# %%
df2 = df0.filter(F.col("language") == "english")
df6 = df2.filter(F.col("country") == "US")
df7 = df6.select("doc_id", "author", "published", "title", "text", "thread_title", "type")
word_count = F.udf(lambda text: len(text.split(" ")), IntegerType())
df7 = df7.withColumn("word_count", word_count(F.col("text")))
day_of = F.udf(lambda published: published[0:10], StringType())
df7 = df7.withColumn("published", day_of(F.col("published")))

# %%
df15 = df7.filter(F.col("published").isin(["2016-10-26", "2016-10-27"]))
df18 = df15.dropDuplicates(["title", "text"])
df21 = df18.filter(F.col("word_count") > 200)
df24 = df21.filter(F.col("title").isNotNull())
df41 = df24.dropna(subset=["text", "author"])
df42 = df41.dropDuplicates(["text"])
df42.groupBy("type").count().show()

# %%
# the long reads
long_reads = df42.filter(F.col("word_count") >= 1000)
