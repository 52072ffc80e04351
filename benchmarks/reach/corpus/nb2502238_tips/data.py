"""The tips data set (a waiter's record of tables: bill, tip, party).

Bills in dollars and cents, skewed to small bills; tips mostly 10-20% with a long tail, some
tables leaving nothing, and a few recorded without a tip (NULL); more non-smokers than
smokers, so the smokers' top five reach further down; the same tip and bill repeat across
tables.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n = max(rows, 40)
    smoker = rng.choice(["No", "Yes"], n, p=[0.62, 0.38])
    size = rng.choice([1, 2, 3, 4, 5, 6], n, p=[0.02, 0.64, 0.15, 0.15, 0.02, 0.02])
    bill = np.round(np.clip(rng.gamma(4.0, 5.0, n) * size / 2.5, 3.07, 60), 2)
    share = np.clip(rng.normal(0.155, 0.05, n), 0, None)
    share[rng.random(n) < 0.03] = 0.0
    share[rng.random(n) < 0.01] *= 3.0  # a few very generous tables
    # the smokers' tips vary less: few reach a quarter, so their top five holds tables under it
    share = np.where(smoker == "Yes", np.clip(rng.normal(0.14, 0.035, n), 0, None), share)
    tip = np.round(bill * share, 2)
    tip = pd.array(tip, dtype="Float64")
    tip[rng.random(n) < 0.02] = pd.NA
    frame = pd.DataFrame({
        "total_bill": bill, "tip": tip, "sex": rng.choice(["Female", "Male"], n, p=[0.36, 0.64]),
        "smoker": smoker, "day": rng.choice(["Thur", "Fri", "Sat", "Sun"], n, p=[0.25, 0.08, 0.36, 0.31]),
        "time": rng.choice(["Lunch", "Dinner"], n, p=[0.28, 0.72]), "size": size.astype("int64"),
    })
    return {"tips": frame}
