# %% [markdown]
# # Stack Overflow questions since 2020, per month and tag
# The public Stack Overflow tables: questions joined (left) with their accepted answer and the
# answerer's profile, then, per month and tag (the "|"-separated tags exploded), the number
# of questions, how many have an accepted answer and how fast it came, answer, comment and
# view counts, the accepted answers' score and their authors' reputation.

# %%
import os

from pyspark.sql import SparkSession, Window
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
column_post_questions = [F.col("id").alias("post_id"), "accepted_answer_id", "answer_count", "comment_count",
                         "creation_date", "owner_user_id", "score", "tags", "view_count"]
column_post_answers = [F.col("id").alias("answer_id"), F.col("creation_date").alias("answer_creation_date"),
                       F.col("owner_user_id").alias("user_id_answer"), F.col("score").alias("answer_score")]
column_users = [F.col("id").alias("user_id"), "reputation", F.col("creation_date").alias("user_creation_date")]

df_post_questions = spark.read.parquet(f"{DATA}/posts_questions").select(column_post_questions)
df_post_answers = spark.read.parquet(f"{DATA}/posts_answers").select(column_post_answers)
df_users = spark.read.parquet(f"{DATA}/users").select(column_users)

# %%
# from 2020 on; answers with an author and a date
df_post_questions = df_post_questions.filter(F.year("creation_date") >= 2020)
df_post_answers = df_post_answers.where(~F.col("user_id_answer").isNull() & (F.year("answer_creation_date") >= 2020)
                                        & ~F.col("answer_creation_date").isNull())

# %%
df_users_answers = df_users.withColumnRenamed("user_id", "user_id_answer")
df_post_questions_answers = (df_post_questions
                             .join(df_post_answers, df_post_questions.accepted_answer_id == df_post_answers.answer_id,
                                   how="left")
                             .join(df_users_answers, df_post_answers.user_id_answer == df_users_answers.user_id_answer,
                                   how="left"))
df_post_questions_answers_f = df_post_questions_answers.select(
    F.concat(F.year(F.col("creation_date")), F.lit("-"), F.month(F.col("creation_date"))).alias("year_month"),
    F.year(F.col("creation_date")).alias("year"), F.month(F.col("creation_date")).alias("month"), "*")
df_post_questions_answers_f.show(5)

# %%
sum_quest_accepted_answer = F.sum(F.when(~F.col("accepted_answer_id").isNull(), F.lit(1)).otherwise(F.lit(0)))
days_to_accepted = F.datediff(F.col("answer_creation_date"), F.col("creation_date"))
tag_name = F.explode(F.split(F.col("tags"), "\\|"))

df_post_questions_grouped_tag = (df_post_questions_answers_f
                                 .select("*", tag_name.alias("tag_name"))
                                 .groupBy("year", "month", "tag_name")
                                 .agg(F.count("*").alias("qty_questions"),
                                      sum_quest_accepted_answer.alias("sum_questions_w_acceptedanswer"),
                                      F.avg(days_to_accepted).alias("avg_days_accepted_answer"),
                                      F.max(days_to_accepted).alias("max_days_accepted_answer"),
                                      F.min(days_to_accepted).alias("min_days_accepted_answer"),
                                      F.sum("answer_count").alias("sum_answers"),
                                      F.avg("answer_count").alias("avg_answers"),
                                      F.sum("comment_count").alias("sum_comments"),
                                      F.avg("comment_count").alias("avg_comments"),
                                      F.sum("view_count").alias("sum_views"),
                                      F.avg("view_count").alias("avg_views"),
                                      F.avg(F.col("answer_score")).alias("avg_answer_score"),
                                      F.avg(F.col("reputation")).alias("avg_answer_user_reputation"))
                                 .orderBy(F.col("year").desc(), F.col("month").desc(), F.col("qty_questions").desc()))
df_post_questions_grouped_tag.show(5)

# %%
# ranking of tags per year and month
(df_post_questions_grouped_tag
 .select("*", F.dense_rank().over(Window.partitionBy("year", "month").orderBy(F.desc("qty_questions"))).alias("rank"))
 .filter("rank <= 15")
 .orderBy(F.col("year").desc(), F.col("month").desc(), "rank")
 .show(15))

# %%
# the months in which at least three python questions were asked
python_months = df_post_questions_grouped_tag.filter((F.col("tag_name") == "python") & (F.col("qty_questions") >= 3))
