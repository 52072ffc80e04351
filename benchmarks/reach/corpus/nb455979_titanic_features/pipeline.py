# %% [markdown]
# # Titanic: features for a survival model
# Missing ages filled with the mean age of the passenger's class, missing ports of
# embarkation with Southampton, indicator columns for sex, port and class (pandas'
# get_dummies: one column per value seen), the identifying and text columns dropped.

# %%
import os

from pyspark.sql import SparkSession, Window
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
titanic_data = spark.read.parquet(f"{DATA}/titanic_dataset")
titanic_data.show(5)

# %%
# imput_age: a missing age becomes the mean age of the passenger's class
same_class = Window.partitionBy("Pclass")
titanic_data = titanic_data.withColumn("Age", F.coalesce(F.col("Age"), F.avg("Age").over(same_class)))
titanic_data = titanic_data.fillna({"Embarked": "S"})

# %%
def seen_values(df, column):
    return sorted(row[0] for row in df.select(column).distinct().collect())


sex = seen_values(titanic_data, "Sex")
embark = seen_values(titanic_data, "Embarked")
pclass = seen_values(titanic_data, "Pclass")
print(sex)
for column, values in (("Sex", sex), ("Embarked", embark), ("Pclass", pclass)):
    for value in values:
        titanic_data = titanic_data.withColumn(str(value), (F.col(column) == value).cast("int"))
titanic_data = titanic_data.drop("PassengerId", "Sex", "Embarked", "Name", "Ticket", "Pclass")
print(titanic_data.columns)

# %%
# children in third class
third_class_children = titanic_data.filter((F.col("Age") < 16) & (F.col("3") == 1))
