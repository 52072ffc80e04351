# %% [markdown]
# # Book-Crossing: ratings of popular books by readers in the USA and Canada
# Ratings of the users with at least 200 ratings, of the rating values given at least 100
# times, joined to the books; per title, the number of ratings; the ratings of titles with
# at least 50 ratings, joined to the users.

# %%
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
books = spark.read.parquet(f"{DATA}/bx_books")
books = books.toDF("ISBN", "bookTitle", "bookAuthor", "yearOfPublication", "publisher", "imageUrlS", "imageUrlM",
                   "imageUrlL")
users = spark.read.parquet(f"{DATA}/bx_users")
users = users.toDF("userID", "Location", "Age")
print((users.count(), len(users.columns)))
print((users.filter(F.col("Location").rlike("usa|canada")).count(), len(users.columns)))
ratings = spark.read.parquet(f"{DATA}/bx_ratings")
ratings = ratings.toDF("userID", "ISBN", "bookRating")

# %%
counts1 = ratings.groupBy("userID").count()
ratings = ratings.join(counts1.filter(F.col("count") >= 200).select("userID"), on="userID", how="left_semi")
counts = ratings.groupBy("bookRating").count()
ratings = ratings.join(counts.filter(F.col("count") >= 100).select("bookRating"), on="bookRating", how="left_semi")

# %%
combine_book_rating = ratings.join(books, on="ISBN")
combine_book_rating = combine_book_rating.drop("yearOfPublication", "publisher", "bookAuthor", "imageUrlS",
                                               "imageUrlM", "imageUrlL")
combine_book_rating = combine_book_rating.dropna(subset=["bookTitle"])
book_rating_count = (combine_book_rating.groupBy("bookTitle").agg(F.count("bookRating").alias("totalRatingCount"))
                     .select("bookTitle", "totalRatingCount"))
rating_with_total_rating_count = combine_book_rating.join(book_rating_count, on="bookTitle", how="left")

# %%
rating_popular_book = rating_with_total_rating_count.filter(F.col("totalRatingCount") >= 50)
combined = rating_popular_book.join(users, on="userID", how="left")
us_canada_user_rating = combined.filter(F.col("Location").rlike("usa|canada"))
