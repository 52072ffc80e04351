"""Daily prices of one stock, downloaded from a finance site as one CSV per year (2013 to
2017): Date as text, open, high, low, close, adjusted close and volume.

Trading days only (no weekends); the price wanders (a random walk), so up and down days are
about as frequent; a few rows are all missing (the site writes "null" for a day without
data); volume varies a lot.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

YEARS = [2013, 2014, 2015, 2016, 2017]


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    per_year = max(rows // len(YEARS), 20)
    price = 12.0
    out = {}
    for year in YEARS:
        days = pd.bdate_range(f"{year}-01-01", f"{year}-12-31")
        days = days[np.sort(rng.choice(len(days), min(per_year, len(days)), replace=False))]
        m = len(days)
        opens = price * np.exp(np.cumsum(rng.normal(0, 0.015, m)))
        price = float(opens[-1])
        closes = opens * np.exp(rng.normal(0, 0.012, m))
        highs = np.maximum(opens, closes) * (1 + rng.uniform(0, 0.015, m))
        lows = np.minimum(opens, closes) * (1 - rng.uniform(0, 0.015, m))
        frame = pd.DataFrame({
            "Date": days.strftime("%Y-%m-%d"),
            "Open": opens.round(4), "High": highs.round(4), "Low": lows.round(4), "Close": closes.round(4),
            "Adj Close": (closes * 0.97).round(4),
            "Volume": pd.array(rng.lognormal(12.5, 0.7, m).astype(int), dtype="Int64"),
        })
        gaps = rng.random(m) < 0.01  # "null" rows
        frame.loc[gaps, ["Open", "High", "Low", "Close", "Adj Close"]] = np.nan
        frame.loc[gaps, "Volume"] = pd.NA
        out[f"prices_{year}"] = frame
    return out
