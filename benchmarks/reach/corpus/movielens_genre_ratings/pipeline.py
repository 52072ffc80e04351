# %% [markdown]
# # MovieLens: average rating per genre
# The MovieLens movies (genres as one "|"-separated string) and ratings: each movie's genres
# exploded to one row per genre, joined with the movie's ratings, and the ratings averaged
# per genre.

# %%
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
moviesDataset = spark.read.parquet(f"{DATA}/movies")
ratingsDataset = spark.read.parquet(f"{DATA}/ratings")
ratingsDataset.groupBy("rating").count().orderBy("rating").show()

# %%
movie_genres = (moviesDataset
                .withColumn("genres", F.split(F.col("genres"), "\\|"))
                .select(F.col("movieId"), F.explode(F.col("genres"))))
rated = movie_genres.join(ratingsDataset, movie_genres.movieId == ratingsDataset.movieId)

# %%
overallGenresByAverageRating = (rated
                                .groupBy(F.col("col"))
                                .agg(F.avg("rating"))
                                .withColumnRenamed("col", "genre")
                                .withColumnRenamed("avg(rating)", "average rating")
                                .orderBy(F.col("average rating").desc())
                                .select("average rating", "genre"))
overallGenresByAverageRating.show()

# %%
# is the documentary genre rated 3.5 or better on average?
documentaries = overallGenresByAverageRating.filter((F.col("genre") == "Documentary")
                                                    & (F.col("average rating") >= 3.5))
