"""Kaggle's Retail Data Analytics files: store features per week, weekly sales per store and
department, and the store list (dates written dd/MM/yyyy).

Twenty stores of three types and skewed sizes; sales per department and week (some
departments in some weeks have no figure, NULL); a few stores closed before the end of the
period, so their last week with sales comes earlier (the stores of the pilot region among
them); the features run on for some weeks past the last sales week (forecast inputs) and
carry missing markdowns.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n_stores = 20
    depts = 5
    weeks = max(rows // (n_stores * depts), 6)
    dates = pd.date_range("2010-02-05", periods=weeks + 4, freq="7D")
    holidays = {d for d in dates if (d.month, d.day // 7) in {(2, 1), (9, 1), (11, 3), (12, 4)}}
    closing = {3: weeks - 3, 7: weeks - 1, 15: weeks - 4, 18: weeks - 2}
    size = np.round(rng.lognormal(11.8, 0.4, n_stores)).astype("int64")
    stores = pd.DataFrame({"Store": np.arange(1, n_stores + 1, dtype="int64"),
                           "Type": rng.choice(["A", "B", "C"], n_stores, p=[0.5, 0.35, 0.15]), "Size": size})
    sales_rows = []
    for store in range(1, n_stores + 1):
        last = closing.get(store, weeks)
        for w in range(last):
            for dept in range(1, depts + 1):
                value = round(float(rng.gamma(2.0, size[store - 1] / 20)), 2)
                sales_rows.append((store, dept, dates[w].strftime("%d/%m/%Y"),
                                   None if rng.random() < 0.02 else value, dates[w] in holidays))
    sales = pd.DataFrame(sales_rows, columns=["Store", "Dept", "Date", "Weekly_Sales", "IsHoliday"])
    sales["Store"] = sales["Store"].astype("int64")
    sales["Dept"] = sales["Dept"].astype("int64")
    feature_rows = []
    for store in range(1, n_stores + 1):
        for d in dates:
            feature_rows.append((store, d.strftime("%d/%m/%Y"), round(float(rng.normal(60, 18)), 2),
                                 round(float(rng.uniform(2.5, 4.2)), 3),
                                 *[None if rng.random() < 0.6 else round(float(rng.gamma(2, 2000)), 2) for _ in range(5)],
                                 round(float(rng.uniform(126, 228)), 4), round(float(rng.uniform(4, 14)), 3),
                                 d in holidays))
    features = pd.DataFrame(feature_rows, columns=["Store", "Date", "Temperature", "Fuel_Price", "MarkDown1",
                                                   "MarkDown2", "MarkDown3", "MarkDown4", "MarkDown5", "CPI",
                                                   "Unemployment", "IsHoliday"])
    features["Store"] = features["Store"].astype("int64")
    return {"features": features, "sales": sales, "stores": stores}
