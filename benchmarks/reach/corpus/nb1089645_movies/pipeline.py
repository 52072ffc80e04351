# %% [markdown]
# # TMDB movies: what makes a film profitable
# Cleaning the TMDB 5000 movie table (text columns dropped, duplicate records removed), then
# profit per film.

# %%
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
movies = spark.read.parquet(f"{DATA}/tmdb_movies")
movies.printSchema()

# %%
trimmed = movies.drop("imdb_id", "homepage", "tagline", "keywords", "overview", "production_companies",
                      "budget_adj", "revenue_adj")
trimmed = trimmed.dropDuplicates(["id", "popularity", "budget", "revenue", "original_title", "cast", "director",
                                  "runtime", "genres", "release_date", "vote_count", "vote_average", "release_year"])
print(movies.count(), trimmed.count())

# %%
slim = trimmed.drop("id", "runtime", "vote_count", "release_date")
by_popularity = slim.orderBy("popularity")
by_popularity = by_popularity.withColumn("profit", F.col("revenue") - F.col("budget"))
by_popularity.show(5)

# %%
# the films of this century that made money
profitable = by_popularity.filter((F.col("profit") > 0) & (F.col("release_year") >= 2000))
