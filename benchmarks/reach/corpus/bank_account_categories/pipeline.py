# %% [markdown]
# # Bank accounts profiled by spending category
# UPI payment records categorised at two levels: per account and category the number and sum
# of payments (a pivot per level, with a value band per category), the two levels joined,
# each account's total, and the account's details.

# %%
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
result_df = spark.read.parquet(f"{DATA}/transactions")
result_df.show(5)


# %%
def compute_aggregates(df, category_col, amount_col):
    # count and sum of the payments per account, a column pair per category
    agg_df = df.groupBy("account_number").pivot(category_col).agg(F.count(amount_col).alias("count"),
                                                                  F.sum(amount_col).alias("sum"))
    for category in df.select(category_col).distinct().rdd.flatMap(lambda x: x).collect():
        agg_df = (agg_df.withColumnRenamed(category + "_count", "count_" + category)
                  .withColumnRenamed(category + "_sum", "sum_" + category)
                  .withColumn("type_" + category,
                              F.when(F.col("sum_" + category) < 10000, "Low Value")
                              .when((F.col("sum_" + category) >= 10000) & (F.col("sum_" + category) < 25000),
                                    "Medium Value")
                              .when((F.col("sum_" + category) >= 25000) & (F.col("sum_" + category) < 50000),
                                    "High Value")
                              .otherwise("Very High Value")))
    return agg_df


agg_df1 = compute_aggregates(result_df, "category_level1", "payer_amount")
agg_df2 = compute_aggregates(result_df, "category_level2", "payer_amount")

# %%
final_agg_df = agg_df1.join(agg_df2, ["account_number"], "outer").fillna(0)
total_sum_df = result_df.groupBy("account_number").agg(F.sum("payer_amount").alias("total_transaction_sum"))
unique_account_details = result_df.select("account_number", "account_holder_name", "account_ifsc", "account_type",
                                          "payee_account_type", "payer_account_type").distinct()
final_df = (unique_account_details.join(final_agg_df, ["account_number"], "left")
            .join(total_sum_df, ["account_number"], "left"))
print(len(final_df.columns))

# %%
# current accounts that paid out 50,000 or more in all
big_current_accounts = final_df.filter((F.col("account_type") == "Current")
                                       & (F.col("total_transaction_sum") >= 50000))
