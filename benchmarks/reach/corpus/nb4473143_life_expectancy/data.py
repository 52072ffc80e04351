"""Country indicators by year (2000-2015), as a WHO / World Bank merge gives them: life
expectancy (both sexes, male, female), GDP per capita and two more indicators, the World
Bank income level (H, UM, LM, L).

Some countries have no income level (NULL) and a few are labelled "Unknown"; life
expectancy is missing for some country-years (NULL, made 0 by the fill); rich countries live
longer, so about 80 years is reached by high-income countries in the later years.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    years = np.arange(2000, 2016)
    k = max(rows // len(years), 8)
    countries = ["South Sudan"] + [f"Country {i}" for i in range(1, k)]
    level = rng.choice(["H", "UM", "LM", "L", None, "Unknown"], k, p=[0.25, 0.25, 0.22, 0.18, 0.06, 0.04])
    level[0] = "L"
    base = pd.Series(level).map({"H": 78.0, "UM": 72.0, "LM": 66.0, "L": 58.0, "Unknown": 74.0}).fillna(70.0).to_numpy()
    base = base + rng.normal(0, 2.5, k)
    country = np.repeat(np.arange(k), len(years))
    year = np.tile(years, k)
    le = np.round(base[country] + (year - 2000) * 0.2 + rng.normal(0, 0.3, len(year)), 1)
    le[rng.random(len(year)) < 0.05] = np.nan
    gdp = np.round(np.exp(rng.normal(9, 1.2, k))[country] * (1.02 ** (year - 2000)), 2)
    frame = pd.DataFrame({
        "Country": [countries[c] for c in country], "Year": year.astype("int64"),
        "Life expectancy at birth (years)  Both sexes": le,
        "Life expectancy at birth (years)  Male": np.round(le - 2.5, 1),
        "Life expectancy at birth (years)  Female": np.round(le + 2.5, 1),
        "GDP per Capita": gdp,
        "Surface area (sq. km)": np.round(rng.lognormal(12, 2, k)[country]),
        "Population, total": np.round(rng.lognormal(16, 1.5, k)[country]),
        "Income Level": [level[c] for c in country],
    })
    return {"life_expectancy": frame}
