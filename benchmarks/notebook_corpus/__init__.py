"""Notebook-shaped PySpark pipelines that Spark's optimizer cannot push filters through."""
