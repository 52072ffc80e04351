# %% [markdown]
# # ADNI: complete ADNI2 visits with a diagnosis
# ADNIMERGE restricted to the ADNI2 protocol; "Unknown", -1 and -4 read as missing; visits
# with a diagnosis, some sparse measures dropped, then only the visits complete in every
# remaining field.

# %%
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
adni = spark.read.parquet(f"{DATA}/adnimerge")
adni2 = adni.filter(F.col("COLPROT") == "ADNI2")
adni2 = adni2.replace("Unknown", None)
adni2 = adni2.replace(-1, None)
adni2 = adni2.replace(-4, None)

# %%
adni2 = adni2.drop("Month_bl", "Month", "M")
adni2 = adni2.filter(F.col("DX").isNotNull())
adni2 = adni2.drop("PIB_bl", "PIB", "AV45", "FLDSTRENG", "MidTemp", "Entorhinal", "Fusiform", "FDG")

# %%
complete = adni2.dropna(subset=[
    "RID", "PTID", "VISCODE", "SITE", "COLPROT", "ORIGPROT", "EXAMDATE", "DX_bl", "AGE", "PTGENDER", "PTEDUCAT",
    "PTETHCAT", "PTRACCAT", "PTMARRY", "APOE4", "CDRSB", "ADAS11", "ADAS13", "MMSE", "RAVLT_immediate",
    "RAVLT_learning", "RAVLT_forgetting", "RAVLT_perc_forgetting", "FAQ", "MOCA", "EcogPtMem", "EcogPtLang",
    "EcogPtVisspat", "EcogPtPlan", "EcogPtOrgan", "EcogPtDivatt", "EcogPtTotal", "EcogSPMem", "EcogSPLang",
    "EcogSPVisspat", "EcogSPPlan", "EcogSPOrgan", "EcogSPDivatt", "EcogSPTotal", "FSVERSION", "Ventricles",
    "Hippocampus", "WholeBrain", "ICV", "DX", "EXAMDATE_bl", "CDRSB_bl", "ADAS11_bl", "ADAS13_bl", "MMSE_bl",
    "RAVLT_immediate_bl", "RAVLT_learning_bl", "RAVLT_forgetting_bl", "RAVLT_perc_forgetting_bl", "FAQ_bl",
    "FLDSTRENG_bl", "FSVERSION_bl", "Ventricles_bl", "Hippocampus_bl", "WholeBrain_bl", "Entorhinal_bl",
    "Fusiform_bl", "MidTemp_bl", "ICV_bl", "MOCA_bl", "EcogPtMem_bl", "EcogPtLang_bl", "EcogPtVisspat_bl",
    "EcogPtPlan_bl", "EcogPtOrgan_bl", "EcogPtDivatt_bl", "EcogPtTotal_bl", "EcogSPMem_bl", "EcogSPLang_bl",
    "EcogSPVisspat_bl", "EcogSPPlan_bl", "EcogSPOrgan_bl", "EcogSPDivatt_bl", "EcogSPTotal_bl", "FDG_bl", "AV45_bl",
    "Years_bl", "update_stamp"])
complete.groupBy("DX").count().show()

# %%
# visits with dementia and a low MMSE
dementia_low_mmse = complete.filter((F.col("DX") == "Dementia") & (F.col("MMSE") < 20))
