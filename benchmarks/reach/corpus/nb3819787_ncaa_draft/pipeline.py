# %% [markdown]
# # From college to the NBA draft: the last NCAA season of drafted players
# NCAA per-game statistics limited to each player's most recent season (a max over the
# player's seasons); the draft picks joined to them; the drafted players before 2017 and the
# current (2016-17) college players stacked into one table of statistics.

# %%
import os

from pyspark.sql import SparkSession, Window
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
nba = spark.read.parquet(f"{DATA}/nba_draft_picks_final")
df = spark.read.parquet(f"{DATA}/ncaa_stats")

# %%
df_new = df.withColumn("last_season", F.max("Season").over(Window.partitionBy("Player")))
stats = df_new.filter(F.col("Season") == F.col("last_season")).drop("last_season")
# limit to the few columns we need from the NBA dataset
nba = nba.select("Player", "Rd", "Pk", "Year")

# %%
# merge nba players and get their ncaa stats
draft_stats = nba.join(stats, on="Player", how="left")
draft_stats = draft_stats.dropna(subset=["Class"])
draft_stats_test = draft_stats.filter(F.col("Year") < 2017)
test = stats.filter(F.col("Season") == "2016-17")

# %%
draft_stats_vars = draft_stats_test.drop("Rd", "Pk", "Year", "Rk", "Class", "Season", "Pos", "School", "Conf", "G",
                                         "MP")
test_16_vars = test.drop("Class", "Rk", "Season", "Pos", "School", "Conf", "G")
print("test df shape:", (test_16_vars.count(), len(test_16_vars.columns)))
print("draft df shape:", (draft_stats_vars.count(), len(draft_stats_vars.columns)))
# concat the two DFs together into one big DF
final = test_16_vars.unionByName(draft_stats_vars, allowMissingColumns=True)

# %%
# the scorers
scorers = final.filter(F.col("PTS") >= 15)
