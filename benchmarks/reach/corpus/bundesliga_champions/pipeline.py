# %% [markdown]
# # Bundesliga champions, 2000-2015
# Match results of European leagues (read from CSV without a schema, so every column is
# text): the goal and result columns renamed, win / loss / draw flags, the Bundesliga's
# seasons 2000-2015, home and away records per team and season joined, totals, goal
# difference and win percentage, the teams ranked within each season, and the top team of
# each season. The steps are previewed with toPandas(), as in the notebook.

# %%
import os

from pyspark.sql import SparkSession, Window
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
df_matches = spark.read.parquet(f"{DATA}/football_matches")
df_matches = df_matches.selectExpr("*", "`FTHG` AS `HomeTeamGoals`", "`FTAG` AS `AwayTeamGoals`", "`FTR` AS `FinalResult`")
df_matches = df_matches.drop("FTHG", "FTAG", "FTR")
df_matches.toPandas()

# %%
df_matches = (df_matches.withColumn("HomeTeamWin", F.when(F.col("FinalResult") == "H", 1).otherwise(0))
              .withColumn("AwayTeamWin", F.when(F.col("FinalResult") == "A", 1).otherwise(0))
              .withColumn("GameTie", F.when(F.col("FinalResult") == "D", 1).otherwise(0)))
df_bundesliga = df_matches.filter((F.col("Div") == "D1") & (F.col("Season") >= 2000) & (F.col("Season") <= 2015))
df_bundesliga.toPandas()

# %%
df_home_matches = (df_bundesliga.groupby("Season", "HomeTeam")
                   .agg(F.sum("HomeTeamWin").alias("TotalHomeWin"), F.sum("AwayTeamWin").alias("TotalHomeLoss"),
                        F.sum("GameTie").alias("TotalHomeTie"), F.sum("HomeTeamGoals").alias("HomeScoredGoals"),
                        F.sum("AwayTeamGoals").alias("HomeAgainstGoals"))
                   .withColumnRenamed("HomeTeam", "Team"))
df_away_matches = (df_bundesliga.groupby("Season", "AwayTeam")
                   .agg(F.sum("AwayTeamWin").alias("TotalAwayWin"), F.sum("HomeTeamWin").alias("TotalAwayLoss"),
                        F.sum("GameTie").alias("TotalAwayTie"), F.sum("AwayTeamGoals").alias("AwayScoredGoals"),
                        F.sum("HomeTeamGoals").alias("AwayAgainstGoals"))
                   .withColumnRenamed("AwayTeam", "Team"))
df_merged = df_home_matches.join(df_away_matches, ["Team", "Season"], "inner")
df_merged.toPandas()

# %%
df_totals = (df_merged.withColumn("GoalsScored", F.col("HomeScoredGoals") + F.col("AwayScoredGoals"))
             .withColumn("GoalsAgainst", F.col("HomeAgainstGoals") + F.col("AwayAgainstGoals"))
             .withColumn("Win", F.col("TotalHomeWin") + F.col("TotalAwayWin"))
             .withColumn("Loss", F.col("TotalHomeLoss") + F.col("TotalAwayLoss"))
             .withColumn("Tie", F.col("TotalHomeTie") + F.col("TotalAwayTie")))
df_cleaned = df_totals.drop("HomeScoredGoals", "AwayScoredGoals", "HomeAgainstGoals", "AwayAgainstGoals",
                            "TotalHomeWin", "TotalAwayWin", "TotalHomeLoss", "TotalAwayLoss", "TotalHomeTie",
                            "TotalAwayTie")
df_processed = (df_cleaned.withColumn("GoalDifferentials", F.col("GoalsScored") - F.col("GoalsAgainst"))
                .withColumn("WinPercentage",
                            F.round(100 * F.col("Win") / (F.col("Win") + F.col("Loss") + F.col("Tie")), 2)))
df_processed.toPandas()

# %%
window_partition = Window.partitionBy("Season").orderBy(F.col("WinPercentage").desc(),
                                                        F.col("GoalDifferentials").desc())
df_ranked = df_processed.withColumn("TeamPosition", F.rank().over(window_partition))
df_top_teams = df_ranked.filter(F.col("TeamPosition") == 1).drop("TeamPosition")
df_top_teams.toPandas()

# %%
# the champions of the last six seasons
recent_champions = df_top_teams.filter(F.col("Season") >= 2010)
