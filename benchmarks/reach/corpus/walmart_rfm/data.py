"""Walmart's retail analytics data (the Kaggle "Retail Data Analytics" files): weekly sales per
store and department, weekly features per store (temperature, fuel price, markdowns, CPI,
unemployment), and the stores' type and size. Dates are dd/mm/yyyy text.

Weekly sales are skewed and sometimes negative (returns larger than sales); markdowns are
missing before they were introduced; the features file runs a few weeks past the sales; a
few stores closed early (their sales stop), and the last week's sales were not all loaded
yet (only some stores have it); one store in the stores file has no sales.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n_stores, n_depts = 20, 5
    n_weeks = max(rows // (n_stores * n_depts), 4)
    weeks = pd.date_range("2010-02-05", periods=n_weeks + 3, freq="7D")
    holiday = {pd.Timestamp("2010-02-12"), pd.Timestamp("2010-09-10"), pd.Timestamp("2010-11-26"),
               pd.Timestamp("2010-12-31")}
    last_week = {s: n_weeks - 1 for s in range(1, n_stores + 1)}
    for s in rng.choice(np.arange(1, n_stores + 1), 4, replace=False):
        last_week[s] = n_weeks - 1 - int(rng.integers(2, 6))  # closed early
    for s in range(1, n_stores + 1):
        if last_week[s] == n_weeks - 1 and (s <= 10 or rng.random() < 0.5):
            last_week[s] = n_weeks - 2  # last week not loaded yet
    sales = []
    for s in range(1, n_stores + 1):
        size = rng.lognormal(0, 0.4)
        for d in range(1, n_depts + 1):
            for w in range(last_week[s] + 1):
                value = round(float(rng.lognormal(9.5, 1.0) * size), 2)
                if rng.random() < 0.03:
                    value = -round(float(rng.uniform(5, 800)), 2)  # returns exceeding sales
                sales.append((s, d, weeks[w].strftime("%d/%m/%Y"), value, weeks[w] in holiday))
    features = []
    for s in range(1, n_stores + 1):
        for w, week in enumerate(weeks):
            markdowns = [np.nan if w < 2 else round(float(rng.lognormal(8, 1)), 2) for _ in range(5)]
            features.append((s, week.strftime("%d/%m/%Y"), round(float(rng.normal(60, 18)), 2),
                             round(float(rng.normal(3.0, 0.3)), 3), *markdowns, round(float(rng.normal(211, 4)), 6),
                             round(float(rng.normal(7.9, 1.2)), 3), week in holiday))
    stores = [(s, rng.choice(["A", "B", "C"]), int(rng.integers(35000, 220000))) for s in range(1, n_stores + 2)]
    return {
        "features_data_set": pd.DataFrame(features, columns=["Store", "Date", "Temperature", "Fuel_Price", "MarkDown1",
                                                             "MarkDown2", "MarkDown3", "MarkDown4", "MarkDown5", "CPI",
                                                             "Unemployment", "IsHoliday"]).astype({"Store": "int32"}),
        "sales_data_set": pd.DataFrame(sales, columns=["Store", "Dept", "Date", "Weekly_Sales", "IsHoliday"])
        .astype({"Store": "int32", "Dept": "int32"}),
        "stores_data_set": pd.DataFrame(stores, columns=["Store", "Type", "Size"]).astype({"Store": "int32", "Size": "int32"}),
    }
