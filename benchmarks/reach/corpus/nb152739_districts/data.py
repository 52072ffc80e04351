"""A ride-hailing platform's orders per district and day, with hashed city and district codes.

Six cities: three known by their city hash (the notebook names them c5-c7), three by the
hashes of their districts (named c1d1, c2d1, ...); c5 is a large city (skew). Each row is a
district on a day; the order count is missing (NULL) on days a district's feed failed, and
zero on quiet days.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pandas as pd

NAMED_CITIES = ["a20d041605db832309e26c003c626719", "c7537db4101856877ea6381d0174283c",
                "ee2ff207184bf16b4a0aec0f97900c27"]
C1_DISTRICTS = [
    "032c75c11f45ab3abf41506d616af280", "077ff638b4c221fc3abb88fa9bd499a7", "3a3630930e4f054033e0c64a728f759a",
    "4d3b1591070ad975f4c0b7232485980d", "4fe4bd4a69e1d7a5550d28ef71c8dcaa", "663c41e93447911aaeb2bded1ecdd918",
    "76aa9284408ba09d7069f226d6b86a31", "7809f7e1ce419a80532cf5917f9b34c0", "85792b2278de59316d1158f6a97537ec",
    "a07711a54a122bee09726fc7489f2c1b", "ccbf7a1a33c7c6926366ba5f6e2f1e83",
]
C2_DISTRICTS = [
    "01bb949d16b241654d3be95fa224abc8", "09669156636ecb81594f220af7090f07", "16206fca49a2a5a29174c651473e9de2",
    "2520d8133ed1363c15a57697c40614d1", "2b6555ea85b6a3ac817c7926576d65a9", "307185b7aa11f160d45a8595d274f25d",
    "36427b54c6d666453a98398aad52f195", "402adb2557f9bfb55e876b202ed436c7", "450fc9a17a3c2eed378b14f27624778d",
    "4dba3225999ecab2a33c3398a1b9eb2c", "5e36de425a507017165ee1625b23f562", "739d7b5930812338a131df1812734f9c",
    "8557deefde49ac19e77889eae2836e22", "8e36f44049175bf28290bd040a329480", "8e45a723ac5d47626151b4f0759d343e",
    "9b476f4792e4302d91e214afd537dfa5", "a4b4f6d5532d10b4a6611c8e9cffb5e8", "c0293b05819ae31b378c547a987bb987",
    "dad5b1a26517a039827215846bcaf394", "df94f92b5c9ea5c5bd7098f00840e83a", "f29b7de70c06c60afadb220115b6918c",
    "fbcd4e601940721b90fefbccc90524f6",
]
C3_DISTRICTS = [
    "178c03faf94e50490bc798e9507008ab", "1d86aa481642ba64ef42e2956339bbad", "2d9ca395c9405028ca5d6635253d7166",
    "3ef7d4a4cd79814c2ee3dfa6724d2fc7", "48305fe4a863757610e25d72b8dac98a", "4a33322e6eabfd38b334964c939d07cb",
    "50ec193f67e23ca084bb7af4100c1243", "60d70ece4057ea94fd8c36cc39b91131", "60d9a82c1f961f206c44cdaf618fc15b",
    "eb8ef95c3874a09518095f3110c01e2d",
]


def _hash(text: str) -> str:
    return hashlib.md5(text.encode()).hexdigest()


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n = max(rows, 60)
    cities = {NAMED_CITIES[0]: [_hash(f"c5 district {i}") for i in range(14)],
              NAMED_CITIES[1]: [_hash(f"c6 district {i}") for i in range(6)],
              NAMED_CITIES[2]: [_hash(f"c7 district {i}") for i in range(5)],
              _hash("city one"): C1_DISTRICTS, _hash("city two"): C2_DISTRICTS, _hash("city three"): C3_DISTRICTS}
    weight = {NAMED_CITIES[0]: 4.0}
    pairs = [(c, d, weight.get(c, 1.0)) for c, ds in cities.items() for d in ds]
    p = np.array([w for _, _, w in pairs])
    pick = rng.choice(len(pairs), n, p=p / p.sum())
    days = pd.date_range("2016-01-01", periods=21, freq="D").strftime("%Y-%m-%d").to_numpy()
    size = np.array([rng.lognormal(4.0, 0.8) for _ in pairs])
    orders = rng.poisson(size[pick] * rng.uniform(0.5, 1.5, n))
    frame = pd.DataFrame({
        "city_code": [pairs[i][0] for i in pick], "district_code": [pairs[i][1] for i in pick],
        "date_dt": rng.choice(days, n), "order_cnt": pd.array(orders, dtype="Int64"),
        "gmv": np.round(orders * rng.uniform(15, 40, n), 2),
    })
    frame.loc[rng.random(n) < 0.03, "order_cnt"] = pd.NA
    return {"city_district_day": frame}
