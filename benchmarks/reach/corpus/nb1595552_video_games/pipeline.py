# %% [markdown]
# # Video game sales: adjusted North American sales
# The sales table without the score columns, games with every sales field, each game's
# position in the file (sorted by global sales) kept as its rank, and North American sales
# scaled by a constant.

# %%
import os

from pyspark.sql import SparkSession, Window
from pyspark.sql import functions as F
from pyspark.sql.types import DoubleType

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
games = spark.read.parquet(f"{DATA}/video_games_sales")
# the pandas index: each game's position in the file, which is sorted by global sales
games = games.withColumn("Rank", F.row_number().over(Window.orderBy(F.monotonically_increasing_id())) - 1)

# %%
games = games.drop("Critic_Score")
games = games.drop("Critic_Count")
games = games.drop("User_Score")
games = games.drop("User_Count")
games = games.drop("Rating")
games = games.drop("Developer")
games = games.dropna(subset=["Name", "Platform", "Year_of_Release", "Genre", "Publisher", "NA_Sales", "EU_Sales",
                             "JP_Sales", "Other_Sales", "Global_Sales"])

# %%
na_sales_adj = F.udf(lambda na_sales: na_sales / 579, DoubleType())
games = games.withColumn("NA_Sales_Adj", na_sales_adj(F.col("NA_Sales")))
games.show(5)

# %%
# the North American hits
na_hits = games.filter(F.col("NA_Sales_Adj") >= 0.005)
