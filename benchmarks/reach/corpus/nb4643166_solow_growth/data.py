"""The Mankiw-Romer-Weil growth data: one row per country with sample flags (non-oil `n`,
intermediate `i`, OECD `o`), real GDP per working-age person in 1960 and 1985, growth of
GDP and of the working-age population (percent per year), investment share of GDP
(percent) and schooling.

GDP figures and schooling are missing for some countries; population growth ranges from
below 1% to over 4%, the investment share from about 4% to 36%.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n = max(rows, 30)
    non_oil = rng.random(n) < 0.82
    oecd = non_oil & (rng.random(n) < 0.2)
    gdp60 = np.round(rng.lognormal(7.6, 0.9, n))
    growth = np.round(rng.normal(2.0, 1.8, n), 2)
    popgrowth = np.round(np.where(oecd, rng.normal(1.0, 0.4, n), rng.normal(2.4, 0.8, n)).clip(0.3, 6.8), 2)
    i_y = np.round(np.where(oecd, rng.normal(25, 4, n), rng.normal(15, 7, n)).clip(4, 36.9), 1)

    def missing(values, share):
        values = values.astype(float)
        values[rng.random(n) < share] = np.nan
        return values

    frame = pd.DataFrame({
        "number": np.arange(1, n + 1, dtype="int64"),
        "country": [f"Country {i}" for i in range(n)],
        "n": non_oil.astype("int64"), "i": (non_oil & (rng.random(n) < 0.76)).astype("int64"), "o": oecd.astype("int64"),
        "rgdpw60": missing(gdp60, 0.02),
        "rgdpw85": missing(np.round(gdp60 * np.exp(growth * 0.25)), 0.05),
        "gdpgrowth": missing(growth, 0.05),
        "popgrowth": popgrowth,
        "i_y": i_y,
        "school": missing(np.round(rng.gamma(2.0, 2.2, n), 1), 0.1),
    })
    return {"mrw": frame}
