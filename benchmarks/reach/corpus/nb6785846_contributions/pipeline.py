# %% [markdown]
# # Massachusetts political contributions by the donor's industry
# Contributions name the donor's employer as typed; LinkedIn's list of Massachusetts
# companies gives each company's industry. Both names are cleaned (lower case, letters only)
# by a Python function; an earlier fuzzy match (saved as a table) maps a cleaned employer to
# a cleaned company name, whose industry is looked up (the first company of that name).

# %%
import os
import re

from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import StringType

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
df_contribuion = spark.read.parquet(f"{DATA}/contribution_processed")
df_companies = spark.read.parquet(f"{DATA}/ma_companies_on_linkedin")
employer_dict = spark.read.parquet(f"{DATA}/employer_dict")


# %%
def clean_text(text):
    text = str(text).lower()
    text = re.sub("[^A-Za-z]+", "", text)
    return text


clean = F.udf(clean_text, StringType())
df_contribuion = df_contribuion.withColumn("Employer_clean", clean(F.col("Employer")))
df_companies = df_companies.withColumn("Company_clean", clean(F.col("Company name")))

# %%
# com_search: the industry of the first company whose cleaned name the employer was matched to
first_company = df_companies.dropDuplicates(["Company_clean"]).select("Company_clean", "Industry")
industry_of = (employer_dict.join(first_company, employer_dict["company"] == first_company["Company_clean"])
               .select(F.col("employer").alias("Employer_clean"), F.col("Industry").alias("Industry_new")))
df_contribuion = df_contribuion.join(industry_of, on="Employer_clean", how="left")
df_contribuion = df_contribuion.drop("Employer_clean")
df_contribuion.show(5)

# %%
# contributions of $500 or more from people working in software
software_donors = df_contribuion.filter((F.col("Industry_new") == "Computer Software") & (F.col("Amount") >= 500))
