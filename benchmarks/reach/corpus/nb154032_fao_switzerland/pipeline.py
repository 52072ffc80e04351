# %% [markdown]
# # Swiss crops: production against trade
# FAOSTAT crop statistics and Switzerland's trade matrix: per item and year, the quantity
# produced in Switzerland next to the quantities imported and exported, in long form for
# plotting.

# %%
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
raw_crops = spark.read.parquet(f"{DATA}/faostat_crops")
raw_crops = raw_crops.select("Domain", "Area", "Element", "Item", "Year", "Unit", "Value", "Flag Description")
raw_crops = raw_crops.filter(~F.col("Flag Description").contains("Data not available"))

# %%
trade_columns = ["Reporter Countries", "Partner Countries", "Element", "Item", "Year", "Unit", "Value",
                 "Flag Description"]
ch_imports = spark.read.parquet(f"{DATA}/faostat_imports").select(*trade_columns)
ch_exports = spark.read.parquet(f"{DATA}/faostat_exports").select(*trade_columns)
ch_trade = ch_imports.union(ch_exports)
ch_trade = ch_trade.filter(F.col("Flag Description") != "Unofficial figure")
ch_trade = ch_trade.filter(F.col("Unit") == "tonnes")
# an unchanged copy for the graph analysis later
ch_trade_network = ch_trade

# %%
ch_trade = ch_trade.select("Element", "Partner Countries", "Item", "Year", "Unit", "Value")
ch_trade = ch_trade.groupBy("Item", "Year", "Element").agg(F.sum("Value").alias("Value"))
ch_trade_transformed = (ch_trade.groupBy("Item", "Year")
                        .pivot("Element", ["Export Quantity", "Import Quantity"]).agg(F.first("Value"))
                        .withColumnRenamed("Export Quantity", "Exported Quantity")
                        .withColumnRenamed("Import Quantity", "Imported Quantity"))
ch_trade = ch_trade.join(ch_trade_transformed, on=["Item", "Year"])
ch_trade = ch_trade.drop("Value", "Element")
ch_trade = ch_trade.groupBy("Item", "Year").agg(F.mean("Exported Quantity").alias("Exported Quantity"),
                                                F.mean("Imported Quantity").alias("Imported Quantity"))
print((ch_trade.count(), len(ch_trade.columns)))

# %%
ch_data = (raw_crops.filter((F.col("Area") == "Switzerland") & (F.col("Element") == "Production")
                            & (F.col("Year") >= 1986))
           .join(ch_trade, on=["Item", "Year"], how="inner")
           .withColumnRenamed("Value", "Produced Quantity"))
print((ch_data.count(), len(ch_data.columns)))
ch_data2 = (ch_data.withColumnRenamed("Produced Quantity", "Country production")
            .withColumnRenamed("Imported Quantity", "Importation")
            .withColumnRenamed("Exported Quantity", "Exportation"))
ch_data_transformed = ch_data2.unpivot(["Area", "Element", "Item", "Year", "Unit"],
                                       ["Country production", "Importation"], "Input", "Value")
print((ch_data_transformed.count(), len(ch_data_transformed.columns)))

# %%
ch_restrained = ch_data_transformed.filter(
    F.col("Item").isin(["Apples", "Wheat", "Potatoes", "Maize", "Sugar beet", "Grapes", "Barley"]))
ch_restrained.show()
