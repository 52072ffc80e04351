# %% [markdown]
# # COVID-19 by country: static indicators and the confirmed cases day by day
# A daily report per country and province, merged beforehand with country indicators
# (GDP, population, density, fertility, median age, smokers, lung disease mortality,
# hospital beds, temperature and humidity in the first quarter). Provinces are aggregated
# per country and day; each country's indicators are taken from its first report day, the
# cases pivoted into one column per day, and both put side by side.

# %%
import os

from pyspark.sql import SparkSession, Window
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
df0 = spark.read.parquet(f"{DATA}/covid_indicadores")
df0.printSchema()

# %%
df6 = df0.groupBy("Data", "País/Região").agg(
    F.mean("Latitude").alias("Latitude"), F.mean("Longitude").alias("Longitude"),
    F.collect_set("PIB 2019").alias("PIB 2019"), F.collect_set("População").alias("População"),
    F.collect_set("População Urbana").alias("População Urbana"), F.collect_set("Área (Km/2)").alias("Área (Km/2)"),
    F.collect_set("Densidade (Km/2)").alias("Densidade (Km/2)"),
    F.mean("Taxa de Fertilidade").alias("Taxa de Fertilidade"), F.mean("Média de Idade").alias("Média de Idade"),
    F.mean("Taxa de Fumantes").alias("Taxa de Fumantes"),
    F.mean("Taxa de Mortalidade por Doenças Pulmonares").alias("Taxa de Mortalidade por Doenças Pulmonares"),
    F.min("Total de Leitos Hospitalares").alias("Total de Leitos Hospitalares"),
    F.mean("Temperatura Média (Janeiro - Março)").alias("Temperatura Média (Janeiro - Março)"),
    F.mean("Taxa de Umidade (Janeiro - Março)").alias("Taxa de Umidade (Janeiro - Março)"),
    F.sum("Casos Confirmados").alias("Casos Confirmados"))

# %%
# each country's indicators as on its first report day (sort_values, drop_duplicates)
first_report = Window.partitionBy("País/Região").orderBy("Data")
df37 = (df6.withColumn("n", F.row_number().over(first_report)).filter(F.col("n") == 1)
        .select("País/Região", "Latitude", "Longitude", "PIB 2019", "População", "População Urbana", "Área (Km/2)",
                "Densidade (Km/2)", "Taxa de Fertilidade", "Média de Idade", "Taxa de Fumantes",
                "Taxa de Mortalidade por Doenças Pulmonares", "Total de Leitos Hospitalares",
                "Temperatura Média (Janeiro - Março)", "Taxa de Umidade (Janeiro - Março)"))
df42 = df6.groupBy("País/Região").pivot("Data").agg(F.first("Casos Confirmados"))

# %%
df52 = df37.join(df42, on="País/Região", how="left")
df54 = df52.select("País/Região", "Latitude", "Longitude", "População Urbana", "4/15/20")
df54.show(5)

# %%
# the countries past a thousand confirmed cases on April 15
past_thousand = df54.filter(F.col("4/15/20") > 1000)
