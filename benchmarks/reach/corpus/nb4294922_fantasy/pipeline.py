# %% [markdown]
# # Fantasy football: positional scores in won matchups
# ESPN fantasy league box scores: each team's mean score per position and matchup (bench
# slots left out), pivoted to one column per position, with whether the team won the
# matchup; one team's wins.

# %%
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
boxscores = spark.read.parquet(f"{DATA}/boxscores")
positional_stats = (boxscores.filter(F.col("slotId") != 20)
                    .select("teamName", "matchupPeriodId", "position", "appliedStatTotal", "wonMatchup")
                    .groupBy("teamName", "matchupPeriodId")
                    .pivot("position", ["D/ST", "QB", "RB", "TE", "WR"])
                    .agg(F.mean("appliedStatTotal")))

# %%
won = boxscores.groupBy("teamName", "matchupPeriodId").agg(F.min("wonMatchup").alias("Won"))
positional_stats = positional_stats.join(won, on=["teamName", "matchupPeriodId"], how="left")
positional_stats = positional_stats.toDF("Team", "Matchup", "D/ST", "QB", "RB", "TE", "WR", "Won")
positional_stats.orderBy("Team", "Matchup").show(5)

# %%
df_team = positional_stats.filter(F.col("Team") == "Team 4")
# box scores for the selected team in wins
df_team_win = df_team.filter(F.col("Won") == True)  # noqa: E712
