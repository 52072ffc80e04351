# %% [markdown]
# # WeRateDogs: ratings by dog stage
# The enhanced archive of the @dog_rates tweets: the reply and retweet columns filled where
# missing, then the four stage columns (doggo, floofer, pupper, puppo, each holding its own
# name or "None") melted into one dog_stage column.

# %%
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
df_clean = spark.read.parquet(f"{DATA}/twitter_archive_enhanced")
df_clean = df_clean.fillna(0, subset=["in_reply_to_status_id", "in_reply_to_user_id", "retweeted_status_id",
                                      "retweeted_status_user_id"])
df_clean = df_clean.fillna("0", subset=["retweeted_status_timestamp", "expanded_urls"])

# %%
melt1 = df_clean.select("tweet_id", "rating_numerator", "rating_denominator", "name", "doggo", "floofer",
                        "pupper", "puppo")
melt1.groupBy("puppo").count().show()
melt1 = melt1.unpivot(["tweet_id", "rating_numerator", "rating_denominator", "name"],
                      ["doggo", "floofer", "pupper", "puppo"], "variable", "dog_stage")
melt1 = melt1.drop("variable")
melt1 = melt1.filter(F.col("dog_stage") == "puppo")
melt1.show(5)

# %%
# the puppos rated 13/10 or more
top_puppos = melt1.filter(F.col("rating_numerator") >= 13)
