# %% [markdown]
# # A text corpus from Reddit posts
# Two scrapes of posts (a subreddit's and a search's): self texts, comment threads and linked
# articles, each as one `text` column, stacked into one corpus for sentiment analysis.

# %%
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
posts = spark.read.parquet(f"{DATA}/reddit_posts")
search = spark.read.parquet(f"{DATA}/reddit_search")

# %%
post_bodies = posts.select("body").dropna(subset=["body"])
post_comments = posts.select("comments")
post_articles = posts.select("article").dropna(subset=["article"])

search_bodies = search.select("body").dropna(subset=["body"])
search_comments = search.select("comments")
search_articles = search.select("article").dropna(subset=["article"])

# %%
post_articles = post_articles.withColumnRenamed("article", "text")
post_comments = post_comments.withColumnRenamed("comments", "text")
post_bodies = post_bodies.withColumnRenamed("body", "text")
search_articles = search_articles.withColumnRenamed("article", "text")
search_comments = search_comments.withColumnRenamed("comments", "text")
search_bodies = search_bodies.withColumnRenamed("body", "text")
corpus = (post_articles.union(post_comments).union(post_bodies)
          .union(search_articles).union(search_comments).union(search_bodies))
print(corpus.count())

# %%
# texts long enough to score
long_texts = corpus.filter(F.length("text") >= 200)
