"""The medical cost personal data set (insurance.csv): age, sex, BMI, children, smoker,
region and yearly charges.

Charges are skewed (log-normal), far higher for smokers, higher with age and BMI; only a
few insured reach 50,000; some groups of (sex, smoker, region) are small. Some records are
duplicated, as in the public file.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n = max(rows, 60)
    age = rng.integers(18, 65, n)
    sex = rng.choice(["female", "male"], n)
    bmi = np.round(rng.normal(30.6, 6.1, n).clip(15.9, 53.1), 3)
    smoker = rng.choice(["yes", "no"], n, p=[0.2, 0.8])
    region = rng.choice(["southwest", "southeast", "northwest", "northeast"], n, p=[0.24, 0.28, 0.24, 0.24])
    base = 2000 + 260 * (age - 18) + np.where(smoker == "yes", 20000 + 800 * np.maximum(bmi - 30, 0), 0)
    charges = np.round(base * rng.lognormal(0, 0.25, n) + rng.exponential(1500, n), 5)
    frame = pd.DataFrame({"age": age.astype("int64"), "sex": sex, "bmi": bmi,
                          "children": rng.poisson(1.1, n).astype("int64"), "smoker": smoker, "region": region,
                          "charges": charges})
    return {"insurance": pd.concat([frame, frame.iloc[: max(n // 200, 1)]], ignore_index=True)}
