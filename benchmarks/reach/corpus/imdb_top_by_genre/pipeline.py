# %% [markdown]
# # IMDb: the ten best films of each genre
# Films with at least 100,000 votes, one row per genre (the genres text exploded), ranked
# within each genre by rating and then votes; the first ten of each.

# %%
import os

from pyspark.sql import SparkSession, Window
from pyspark.sql import functions as f

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
title_basics = spark.read.parquet(f"{DATA}/title_basics")
rating = spark.read.parquet(f"{DATA}/title_ratings")

# %%
movies_popular_rating_genre = (title_basics
                               .select("tconst", "primaryTitle", "startYear", "genres")
                               .filter(f.col("titleType") == "movie")
                               .join(rating, "tconst")
                               .filter(f.col("numVotes") >= 100000)
                               .withColumn("genre", f.explode(f.split("genres", ","))))
# cached, as it is used again
movies_popular_rating_genre.cache()

# %%
# per genre, by rating then number of votes
window_genre = (Window.partitionBy(movies_popular_rating_genre["genre"])
                .orderBy(*[f.desc(col) for col in ["averageRating", "numVotes"]]))
movies_by_genre = (movies_popular_rating_genre
                   .select(f.col("*"), f.rank().over(window_genre).alias("rank"))
                   .filter(f.col("rank") <= 10)
                   .drop("rank", "genres")
                   .orderBy(f.col("genre")))
movies_by_genre.show(30)

# %%
# the best thrillers
top_thrillers = movies_by_genre.filter(f.col("genre") == "Thriller")
