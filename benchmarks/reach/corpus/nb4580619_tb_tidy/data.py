"""The WHO tuberculosis notifications in the wide layout of the tidy-data tutorial: one row
per country and year, one column per sex and age band ("m014" = men 0-14, "m65" = men 65
and over, "mu" = age unknown, "f014" = women 0-14).

Countries report from different years on; early years are mostly missing (NULL); counts
are skewed (a few countries report thousands); some rows have no country (a footnote line)
or no year.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

COLUMNS = ["m014", "m1524", "m2534", "m3544", "m4554", "m5564", "m65", "mu", "f014"]


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n = max(rows, 40)
    countries = max(n // 20, 3)
    codes = [f"{chr(65 + i // 26 % 26)}{chr(65 + i % 26)}" for i in range(countries)]
    size = rng.lognormal(3.5, 1.8, countries)
    country = rng.integers(0, countries, n)
    year = rng.integers(1980, 2009, n)
    frame = pd.DataFrame({"country": np.array(codes, dtype=object)[country],
                          "year": pd.array(year, dtype="Int64")})
    shares = {"m014": 0.05, "m1524": 0.2, "m2534": 0.25, "m3544": 0.2, "m4554": 0.15, "m5564": 0.1,
              "m65": 0.08, "mu": 0.01, "f014": 0.05}
    for column in COLUMNS:
        counts = rng.poisson(size[country] * shares[column] * 8).astype(float)
        counts[(year < 1995) & (rng.random(n) < 0.85)] = np.nan
        counts[rng.random(n) < 0.1] = np.nan
        frame[column] = pd.array(np.where(np.isnan(counts), None, counts), dtype="Int64")
    frame.loc[rng.random(n) < 0.01, "country"] = None
    frame.loc[rng.random(n) < 0.01, "year"] = pd.NA
    return {"tb": frame}
