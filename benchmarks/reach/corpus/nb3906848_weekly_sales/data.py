"""The UCI Sales Transactions Weekly data set: one row per product (P1, P2, ...), its units
sold in weeks W0-W51, then MIN, MAX and the normalized weeks Normalized 0-51.

Most products sell a few units a week, a few sell dozens (skew), many weeks are zero; some
weeks of a product were not recorded (NULL); seasonality lifts the last weeks of the year.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n = max(rows // 10, 20)  # 52 weeks per product: the long form is about five times `rows`
    level = rng.lognormal(1.5, 1.0, n)
    season = 1 + 0.3 * np.sin(np.arange(52) / 52 * 2 * np.pi - 1.2)
    sales = rng.poisson(level[:, None] * season[None, :]).astype(float)
    sales[rng.random(sales.shape) < 0.01] = np.nan
    frame = pd.DataFrame({"Product_Code": [f"P{i + 1}" for i in range(n)]})
    for w in range(52):
        frame[f"W{w}"] = pd.array(np.where(np.isnan(sales[:, w]), None, sales[:, w]), dtype="Int64")
    frame["MIN"] = np.nanmin(sales, axis=1).astype("int64")
    frame["MAX"] = np.nanmax(sales, axis=1).astype("int64")
    span = np.where(frame["MAX"] > frame["MIN"], frame["MAX"] - frame["MIN"], 1)
    for w in range(52):
        frame[f"Normalized {w}"] = np.round((sales[:, w] - frame["MIN"].to_numpy()) / span, 2)
    return {"sales_transactions_weekly": frame}
