# %% [markdown]
# # Sparkify: churn features, and the users who skip their songs
# The event log of the Sparkify music service, one row per page a user opens. First a look
# at it: events of logged-out visitors dropped, pages per subscription level, churn taken
# from the cancellation pages and carried back through each user's history by a window.
# Then, from the log as read, one feature table per user for a churn model: thumbs up and
# down per day, friends added, the cancel and downgrade flags, free or paid, and how much of
# each song is skipped (the gap to the next event of the session against the song's
# length). (The notebook's daily help and error visits, songs between home visits, scaling
# and models are left out.)

# %%
import datetime
import os

from pyspark.sql import SparkSession, Window
from pyspark.sql import functions as F
from pyspark.sql.functions import col, desc, floor, lag, udf
from pyspark.sql.functions import sum as Fsum
from pyspark.sql.types import DateType, IntegerType

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
df = spark.read.parquet(f"{DATA}/mini_sparkify_event_data")
df.show(1)
df.printSchema()

# %%
# missing values per column: artist, song and length go together (pages that are not a song);
# registration, names, gender, location and user agent go together (logged-out visitors)
print(df.count(), len(df.columns))
df.select([F.count(F.when(col(c).isNull(), c)).alias(c) for c in df.columns]).show(vertical=True)

# %%
# a logged-out visitor cannot be followed as a user
df = df.filter(df.registration.isNotNull())
df.groupby("level", "page").count().sort("page").show(100, False)
df.groupby("page", "method").count().sort("page", "method").show(100, False)

# %% [markdown]
# ## Churn
# A first label: the user reached the Cancel page at some point.

# %%
churn_event = df.groupby("userId").agg(F.collect_list("page").alias("pages"))
reached_cancel = udf(lambda pages: 1 if "Cancel" in set(pages) else 0)
churn_event = churn_event.withColumn("label", reached_cancel(churn_event.pages)).drop("pages")
labeled_df = churn_event.join(df, "userId")
use_level_count = labeled_df.groupby("userId", "level", "label").count()
use_level_count_pd = use_level_count.select("userId", "level", "label").toPandas()
print(use_level_count_pd.groupby(["level", "label"]).size().unstack())

# %%
# one flag per event, then per event how many cancellations (downgrades) are still to come
# in the user's history: 1 in the phase before the user leaves
churn = udf(lambda page: int(page == "Cancellation Confirmation"), IntegerType())
downgrade_churn = udf(lambda page: int(page == "Submit Downgrade"), IntegerType())
df = df.withColumn("downgraded", downgrade_churn("page")).withColumn("cancelled", churn("page"))

windowvalue = Window.partitionBy("userId").orderBy(desc("ts")).rangeBetween(Window.unboundedPreceding, 0)
df = (df.withColumn("churn_phase", Fsum("cancelled").over(windowvalue))
      .withColumn("downgrade_phase", Fsum("downgraded").over(windowvalue)))

# %%
get_day = udf(lambda ts: datetime.datetime.fromtimestamp(ts / 1000), DateType())
song = udf(lambda page: int(page == "NextSong"), IntegerType())
df = df.withColumn("date", get_day(col("ts")))

# share of the events that are songs, before leaving and otherwise
for phase in (1, 0):
    df.filter(col("churn_phase") == phase).withColumn("songPlayed", song(col("page"))).agg({"songPlayed": "mean"}).show()

# songs a day, before leaving and otherwise
(df.filter(col("page") == "NextSong").groupBy("userId", "date", "churn_phase").count()
 .groupBy("churn_phase").agg(F.avg("count").alias("songs_a_day"), F.max("count").alias("most_in_a_day")).show())

# %% [markdown]
# ## Features per user
# The log read again, as it comes, each feature computed on its own and joined on userId.

# %%
data_frame = spark.read.parquet(f"{DATA}/mini_sparkify_event_data")


def user_info(df):
    # the notebook's condition also compared the numeric sessionId with "", which is never
    # true: the users are the non-empty ids
    return df.where(df.userId != "").select("userId").dropDuplicates()


users = user_info(data_frame)
users.show(5)


# %%
def average_thumbs_up(df):
    get_day = udf(lambda ts: datetime.datetime.fromtimestamp(ts / 1000), DateType())
    per_day = (df.filter(df.page == "Thumbs Up").select("userId", "page", "ts")
               .withColumn("date", get_day(col("ts")))
               .groupBy("userId", "date").agg({"page": "count"}))
    return per_day.groupBy("userId").mean().withColumnRenamed("avg(count(page))", "avgThumbsUp")


def average_thumbs_down(df):
    get_day = udf(lambda ts: datetime.datetime.fromtimestamp(ts / 1000), DateType())
    per_day = (df.filter(df.page == "Thumbs Down").select("userId", "page", "ts")
               .withColumn("date", get_day(col("ts")))
               .groupBy("userId", "date").agg({"page": "count"}))
    return per_day.groupBy("userId").mean().withColumnRenamed("avg(count(page))", "avgThumbsDown")


def number_of_friends(df):
    return (df.filter(df.page == "Add Friend").select("userId", "page")
            .groupBy("userId").count().withColumnRenamed("count", "numFriends"))


avg_thumbs_up = average_thumbs_up(data_frame)
avg_thumbs_down = average_thumbs_down(data_frame)
num_friends = number_of_friends(data_frame)
avg_thumbs_up.show(5)


# %%
def skipp_attributes(df):
    """Per user, over the songs followed by another song in the same session: the share
    skipped (the next song starts before this one's whole seconds are over) and the
    seconds skipped on average."""
    song = udf(lambda page: int(page == "NextSong"), IntegerType())
    skipped = udf(lambda seconds: int(seconds != 0), IntegerType())
    # by time, latest first: lag is the event that came after
    session = Window.partitionBy("userId", "sessionId").orderBy(desc("ts"))
    played = (df.select("userId", "page", "ts", "length", "sessionId", "itemInSession")
              .where((df.page != "Thumbs Up") & (df.page != "Thumbs Down"))  # clicks during a song
              .withColumn("song", song("page"))
              .orderBy("userId", "sessionId", "itemInSession")
              .withColumn("nextActSong", lag(col("song")).over(session))
              .withColumn("tsDiff", (lag("ts").over(session) - col("ts")) / 1000)
              .withColumn("timeSkipped", floor("length") - col("tsDiff"))
              .withColumn("roundedLength", floor("length")))
    return (played.where((col("song") == 1) & ((col("nextActSong") != 0) & (col("timeSkipped") >= 0)))
            .withColumn("skipped", skipped("timeSkipped"))
            .select("userId", "timeSkipped", "skipped", "length", "ts", "tsDiff")
            .groupBy("userId").agg({"skipped": "avg", "timeSkipped": "avg"})
            .withColumnRenamed("avg(skipped)", "skipRate")
            .withColumnRenamed("avg(timeSkipped)", "avgTimeSkipped"))


skipping = skipp_attributes(data_frame)
skipping.show(5)


# %%
def churn_user(df):
    flag = {"downgraded": "Submit Downgrade", "cancelled": "Cancellation Confirmation",
            "visited_cancel": "Cancel", "visited_downgrade": "Downgrade"}
    for name, page in flag.items():
        df = df.withColumn(name, udf(lambda p, page=page: int(p == page), IntegerType())("page"))
    sums = df.select(["userId", *flag]).groupBy("userId").sum()
    for name in flag:
        sums = sums.withColumnRenamed(f"sum({name})", name)
    return sums


def get_user_level(df):
    free = udf(lambda level: int(level == "free"), IntegerType())
    paid = udf(lambda level: int(level == "paid"), IntegerType())
    return (df.select("userId", "level").where((df.level == "free") | (df.level == "paid"))
            .dropDuplicates().withColumn("free", free("level")).withColumn("paid", paid("level")).drop("level"))


churn = churn_user(data_frame)
user_level = get_user_level(data_frame)
churn.show(5)

# %%
features = (users.join(churn, on="userId")
            .join(user_level, on="userId")
            .join(avg_thumbs_up, on="userId")
            .join(avg_thumbs_down, on="userId")
            .join(num_friends, on="userId")
            .join(skipping, on="userId"))
features.show(5)
features.printSchema()

# %%
# the users who skip more than half of their songs, a minute or more early on average
heavy_skippers = skipping.filter((col("skipRate") > 0.5) & (col("avgTimeSkipped") >= 60))
