# %% [markdown]
# # IPL data analysis
# The Indian Premier League tables (deliveries ball by ball, matches, players, and the
# players of each match): deliveries cleaned of wides and no-balls, a running total per
# innings and a flag for high-impact balls; date parts, a win-margin band and whether the
# toss winner won for the matches; player names normalised and missing skills filled; then
# temp views and Spark SQL: each batsman's runs per season, economical bowlers in the
# powerplay, the toss's impact. (The notebook's plots and its team table, registered but
# used by no query, are left out.)

# %%
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.functions import (
    avg,
    col,
    current_date,
    dayofmonth,
    lower,
    month,
    regexp_replace,
    sum,
    when,
    year,
)
from pyspark.sql.window import Window

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
ball_by_ball_df = spark.read.parquet(f"{DATA}/ball_by_ball")
match_df = spark.read.parquet(f"{DATA}/match")
player_df = spark.read.parquet(f"{DATA}/player")
player_match_df = spark.read.parquet(f"{DATA}/player_match")

# %%
# legal deliveries only: a wide or a no-ball is bowled again
ball_by_ball_df = ball_by_ball_df.filter((col("wides") == 0) & (col("noballs") == 0))

# runs per match and innings, in all and per ball
total_and_avg_runs = ball_by_ball_df.groupBy("match_id", "innings_no").agg(
    sum("runs_scored").alias("total_runs"),
    avg("runs_scored").alias("average_runs"))

# %%
# the score as it stood over by over in each innings
windowSpec = Window.partitionBy("match_id", "innings_no").orderBy("over_id")
ball_by_ball_df = ball_by_ball_df.withColumn("running_total_runs", sum("runs_scored").over(windowSpec))

# a ball with more than six runs, extras included, or a wicket for the bowler
ball_by_ball_df = ball_by_ball_df.withColumn(
    "high_impact",
    when((col("runs_scored") + col("extra_runs") > 6) | (col("bowler_wicket") == True), True).otherwise(False))
ball_by_ball_df.show(5)

# %%
match_df = (match_df.withColumn("year", year("match_date"))
            .withColumn("month", month("match_date"))
            .withColumn("day", dayofmonth("match_date")))

match_df = match_df.withColumn(
    "win_margin_category",
    when(col("win_margin") >= 100, "High")
    .when((col("win_margin") >= 50) & (col("win_margin") < 100), "Medium")
    .otherwise("Low"))

# did the side that won the toss win the match?
match_df = match_df.withColumn("toss_match_winner", when(col("toss_winner") == col("match_winner"), "Yes").otherwise("No"))
match_df.show(2)

# %%
# names in lower case without punctuation; unknown skills made explicit
player_df = player_df.withColumn("player_name", lower(regexp_replace("player_name", "[^a-zA-Z0-9 ]", "")))
player_df = player_df.na.fill({"batting_hand": "unknown", "bowling_skill": "unknown"})
player_df = player_df.withColumn(
    "batting_style", when(col("batting_hand").contains("left"), "Left-Handed").otherwise("Right-Handed"))
player_df.show(2)

# %%
player_match_df = player_match_df.withColumn(
    "veteran_status", when(col("age_as_on_match") >= 35, "Veteran").otherwise("Non-Veteran"))
player_match_df = player_match_df.withColumn("years_since_debut", year(current_date()) - col("season_year"))
player_match_df.show()

# %%
ball_by_ball_df.createOrReplaceTempView("ball_by_ball")
match_df.createOrReplaceTempView("match")
player_df.createOrReplaceTempView("player")
player_match_df.createOrReplaceTempView("player_match")

# %%
# runs of each batsman per season: the striker's runs, matched to the players of that match
top_scoring_batsmen_per_season = spark.sql("""
    SELECT p.player_name, m.season_year, SUM(b.runs_scored) AS total_runs
    FROM ball_by_ball b
    JOIN match m ON b.match_id = m.match_id
    JOIN player_match pm ON m.match_id = pm.match_id AND b.striker = pm.player_id
    JOIN player p ON p.player_id = pm.player_id
    GROUP BY p.player_name, m.season_year
    ORDER BY m.season_year, total_runs DESC
""")
top_scoring_batsmen_per_season.show(30)

# %%
economical_bowlers_powerplay = spark.sql("""
    SELECT p.player_name, AVG(b.runs_scored) AS avg_runs_per_ball, COUNT(b.bowler_wicket) AS total_wickets
    FROM ball_by_ball b
    JOIN player_match pm ON b.match_id = pm.match_id AND b.bowler = pm.player_id
    JOIN player p ON pm.player_id = p.player_id
    WHERE b.over_id <= 6
    GROUP BY p.player_name
    HAVING COUNT(*) >= 1
    ORDER BY avg_runs_per_ball, total_wickets DESC
""")
economical_bowlers_powerplay.show()
print(economical_bowlers_powerplay.toPandas().nsmallest(10, "avg_runs_per_ball"))

# %%
toss_impact_individual_matches = spark.sql("""
    SELECT m.match_id, m.toss_winner, m.toss_name, m.match_winner,
           CASE WHEN m.toss_winner = m.match_winner THEN 'Won' ELSE 'Lost' END AS match_outcome
    FROM match m
    WHERE m.toss_name IS NOT NULL
    ORDER BY m.match_id
""")
toss_impact_pd = toss_impact_individual_matches.toPandas()
print(toss_impact_pd.groupby(["toss_winner", "match_outcome"]).size().unstack(fill_value=0))

# %%
# the batsmen who made fifty runs or more in the 2016 season
fifties_2016 = top_scoring_batsmen_per_season.filter((F.col("season_year") == 2016) & (F.col("total_runs") >= 50))
