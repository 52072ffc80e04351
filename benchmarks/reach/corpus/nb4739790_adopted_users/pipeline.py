# %% [markdown]
# # Relax Inc.: adopted users and who invited them
# A take-home challenge: a user is "adopted" on logging in on three separate days within
# seven days (a 7-day rolling count of visits per user). Each user is flagged, and an
# invited user gets their inviter's flag plus one (0 when nobody invited them).

# %%
import os

from pyspark.sql import SparkSession, Window
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
users = spark.read.parquet(f"{DATA}/takehome_users")
user_engagement = spark.read.parquet(f"{DATA}/takehome_user_engagement")
user_engagement = user_engagement.withColumn("time_stamp", F.to_timestamp("time_stamp"))

# %%
# rolling('7d').sum() per user: the visits in the seven days up to each visit
last_7_days = (Window.partitionBy("user_id").orderBy(F.col("time_stamp").cast("long"))
               .rangeBetween(-7 * 24 * 3600 + 1, 0))
check = user_engagement.withColumn("visits_7d", F.sum("visited").over(last_7_days))
adopted_user = check.filter(F.col("visits_7d") == 3).select("user_id").distinct()
print(adopted_user.count())

# %%
flagged = adopted_user.withColumn("adopted", F.lit(1))
users = (users.join(flagged, users["object_id"] == flagged["user_id"], how="left")
         .drop("user_id")
         .withColumn("adopted", F.coalesce(F.col("adopted"), F.lit(0))))

# %%
# checkInvitedUser: the inviter's flag plus one
inviters = users.select(F.col("object_id").alias("inviter_id"), F.col("adopted").alias("inviter_adopted"))
users = (users.join(inviters, users["invited_by_user_id"] == inviters["inviter_id"], how="left")
         .withColumn("invited_adopted", F.when(F.col("invited_by_user_id").isNull(), F.lit(0))
                     .otherwise(F.col("inviter_adopted") + 1))
         .drop("inviter_id", "inviter_adopted"))
users.groupBy("adopted", "invited_adopted").count().show()

# %%
# adopted users whose inviter was adopted too
adopted_by_adopted = users.filter((F.col("adopted") == 1) & (F.col("invited_adopted") == 2))
