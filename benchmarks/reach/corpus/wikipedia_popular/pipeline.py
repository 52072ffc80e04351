# %% [markdown]
# # Wikipedia: the most viewed page of each hour
# English pages from the hourly pagecounts files (the hour taken from the file name by a
# Python UDF), without the main page and Special: pages; per hour, the page(s) with the
# most views. (The files' names are in a `path` column here: the table is one Parquet
# file, where the notebook read one file per hour and called `input_file_name()`.)

# %%
import os

from pyspark.sql import SparkSession, functions, types

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
@functions.udf(returnType=types.StringType())
def pathToHour(path):
    return os.path.splitext(os.path.basename(path))[0][:-4]


views = spark.read.parquet(f"{DATA}/pagecounts").withColumn("hour", pathToHour(functions.col("path")))
views = (views.filter(views.language == "en").filter(views.title != "Main Page")
         .filter(~views.title.startswith("Special:")).cache())

# %%
maxViews = views.groupBy("hour").max("views").withColumnRenamed("max(views)", "views")
functions.broadcast(maxViews)
maxPages = views.join(maxViews, ["hour", "views"]).orderBy("hour", "title")
top_pages = maxPages[["hour", "title", "views"]]
top_pages.show(truncate=False)

# %%
# the hours whose top page drew more than 50,000 views
busy_hours = top_pages.filter(functions.col("views") > 50000)
