# %% [markdown]
# # Web server log analysis: missing images
# Common Log Format lines parsed with regular expressions (a size of "-" and a line cut
# short give no number: `try_cast`, as Spark 4 casts strictly), the timestamp converted by a
# Python function, the parsed log cached for the analyses; the requests that ended in a 404.

# %%
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
base_df = spark.read.parquet(f"{DATA}/access_log")
base_df.show(3, truncate=False)

# %%
host_pattern = r"^(\S+)\s"
ts_pattern = r"\[(\d{2}/\w{3}/\d{4}:\d{2}:\d{2}:\d{2}) -\d{4}]"
method_uri_protocol_pattern = r'"(\S+)\s(\S+)\s*(\S*)"'
status_pattern = r"\s(\d{3})\s"
content_size_pattern = r"\s(\d+)$"

split_df = base_df.select(F.regexp_extract("value", host_pattern, 1).alias("host"),
                          F.regexp_extract("value", ts_pattern, 1).alias("timestamp"),
                          F.regexp_extract("value", method_uri_protocol_pattern, 1).alias("method"),
                          F.regexp_extract("value", method_uri_protocol_pattern, 2).alias("endpoint"),
                          F.regexp_extract("value", method_uri_protocol_pattern, 3).alias("protocol"),
                          F.regexp_extract("value", status_pattern, 1).try_cast("integer").alias("status"),
                          F.regexp_extract("value", content_size_pattern, 1).try_cast("integer").alias("content_size"))
cleaned_df = split_df.na.fill({"content_size": 0})

# %%
month_map = {"Jan": 1, "Feb": 2, "Mar": 3, "Apr": 4, "May": 5, "Jun": 6, "Jul": 7, "Aug": 8, "Sep": 9,
             "Oct": 10, "Nov": 11, "Dec": 12}


def parse_clf_time(text):
    """'01/Aug/1995:00:00:01' as '1995-08-01 00:00:01' (the time zone is left out)."""
    if not text:
        return None
    return "{0:04d}-{1:02d}-{2:02d} {3:02d}:{4:02d}:{5:02d}".format(
        int(text[7:11]), month_map[text[3:6]], int(text[0:2]), int(text[12:14]), int(text[15:17]),
        int(text[18:20]))


u_parse_time = F.udf(parse_clf_time)
logs_df = (cleaned_df.select("*", u_parse_time(cleaned_df["timestamp"]).cast("timestamp").alias("time"))
           .drop("timestamp"))
logs_df.cache()
print(logs_df.count())

# %%
logs_df.groupBy("status").count().orderBy("status").show()
not_found_df = logs_df.filter(F.col("status") == 404)
not_found_df.groupBy("endpoint").count().orderBy(F.desc("count")).show(5)

# %%
# images that government hosts could not find
missing_images = not_found_df.filter(F.col("endpoint").startswith("/images/") & F.col("host").endswith(".gov"))
