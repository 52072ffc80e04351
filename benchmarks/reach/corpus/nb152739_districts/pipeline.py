# %% [markdown]
# # City districts by day: readable codes
# A ride-hailing demand table keyed by hashed city and district codes: the rows put in city,
# district and date order, the hashes of three cities and of the districts of three others
# replaced by short codes, then one city looked at.

# %%
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
DATA = os.environ.get("REACH_DATA", "data")

# %%
df0 = spark.read.parquet(f"{DATA}/city_district_day")
df11 = df0.orderBy("city_code", "district_code", "date_dt")
df11.show(5, truncate=False)

# %%
city_names = {
    "a20d041605db832309e26c003c626719": "c5", "c7537db4101856877ea6381d0174283c": "c6",
    "ee2ff207184bf16b4a0aec0f97900c27": "c7",
}
district_names = {
    "032c75c11f45ab3abf41506d616af280": "c1d1", "077ff638b4c221fc3abb88fa9bd499a7": "c1d2",
    "3a3630930e4f054033e0c64a728f759a": "c1d3", "4d3b1591070ad975f4c0b7232485980d": "c1d4",
    "4fe4bd4a69e1d7a5550d28ef71c8dcaa": "c1d5", "663c41e93447911aaeb2bded1ecdd918": "c1d6",
    "76aa9284408ba09d7069f226d6b86a31": "c1d7", "7809f7e1ce419a80532cf5917f9b34c0": "c1d8",
    "85792b2278de59316d1158f6a97537ec": "c1d9", "a07711a54a122bee09726fc7489f2c1b": "c1d10",
    "ccbf7a1a33c7c6926366ba5f6e2f1e83": "c1d11", "01bb949d16b241654d3be95fa224abc8": "c2d1",
    "09669156636ecb81594f220af7090f07": "c2d2", "16206fca49a2a5a29174c651473e9de2": "c2d3",
    "2520d8133ed1363c15a57697c40614d1": "c2d4", "2b6555ea85b6a3ac817c7926576d65a9": "c2d5",
    "307185b7aa11f160d45a8595d274f25d": "c2d6", "36427b54c6d666453a98398aad52f195": "c2d7",
    "402adb2557f9bfb55e876b202ed436c7": "c2d8", "450fc9a17a3c2eed378b14f27624778d": "c2d9",
    "4dba3225999ecab2a33c3398a1b9eb2c": "c2d10", "5e36de425a507017165ee1625b23f562": "c2d11",
    "739d7b5930812338a131df1812734f9c": "c2d12", "8557deefde49ac19e77889eae2836e22": "c2d13",
    "8e36f44049175bf28290bd040a329480": "c2d14", "8e45a723ac5d47626151b4f0759d343e": "c2d15",
    "9b476f4792e4302d91e214afd537dfa5": "c2d16", "a4b4f6d5532d10b4a6611c8e9cffb5e8": "c2d17",
    "c0293b05819ae31b378c547a987bb987": "c2d18", "dad5b1a26517a039827215846bcaf394": "c2d19",
    "df94f92b5c9ea5c5bd7098f00840e83a": "c2d20", "f29b7de70c06c60afadb220115b6918c": "c2d21",
    "fbcd4e601940721b90fefbccc90524f6": "c2d22", "178c03faf94e50490bc798e9507008ab": "c3d1",
    "1d86aa481642ba64ef42e2956339bbad": "c3d2", "2d9ca395c9405028ca5d6635253d7166": "c3d3",
    "3ef7d4a4cd79814c2ee3dfa6724d2fc7": "c3d4", "48305fe4a863757610e25d72b8dac98a": "c3d5",
    "4a33322e6eabfd38b334964c939d07cb": "c3d6", "50ec193f67e23ca084bb7af4100c1243": "c3d7",
    "60d70ece4057ea94fd8c36cc39b91131": "c3d8", "60d9a82c1f961f206c44cdaf618fc15b": "c3d9",
    "eb8ef95c3874a09518095f3110c01e2d": "c3d10",
}
df14 = df11.replace(city_names)
df74 = df14.replace(district_names)
df74.groupBy("city_code").count().show()

# %%
# city c5's busy district-days
c5_busy = df74.filter((F.col("city_code") == "c5") & (F.col("order_cnt") >= 100))
