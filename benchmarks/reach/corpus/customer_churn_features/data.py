"""A marketing agency's customers (the `customer_churn.csv` of the well-known PySpark course
exercise): name, age, total purchase, whether an account manager is assigned, years as a
customer, number of websites, onboarding date, location, company, and whether they churned.

Ages from 22 to 65 (the bucket splits end at 65, as in the data); years as a customer from
1 to 10 with decimals; churners (about 17%) have more websites and shorter tenure.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n = max(rows, 40)
    churn = (rng.random(n) < 0.17).astype("int64")
    years = np.round(np.clip(rng.normal(np.where(churn == 1, 4.5, 5.4), 1.3, n), 1, 10), 2)
    frame = pd.DataFrame({
        "Names": [f"Customer {i}" for i in range(n)],
        "Age": np.round(np.clip(rng.normal(41.8, 6.1, n), 22, 65)),
        "Total_Purchase": np.round(rng.normal(10062, 2400, n).clip(100), 2),
        "Account_Manager": rng.integers(0, 2, n).astype("int64"),
        "Years": years,
        "Num_Sites": np.round(np.clip(rng.normal(np.where(churn == 1, 10.0, 8.2), 1.4, n), 3, 14)),
        "Onboard_date": (pd.Timestamp("2006-01-01") + pd.to_timedelta(rng.integers(0, 3800, n), "D")),
        "Location": [f"{rng.integers(10, 99999)} Main Street, Town {rng.integers(0, 400)}" for _ in range(n)],
        "Company": [f"Company {rng.integers(0, 800)}" for _ in range(n)],
        "Churn": churn,
    })
    return {"customer_churn": frame}
