"""The World Bank's GDP per capita sheet and its country groups file.

gdp_per_capita: one row per economy (countries and aggregates), "Country Name", "Country
Code", one column per year 1960-2019 in current dollars, missing in early years for many
economies, in scattered years for some, and after some year for a few whose series stops
(dissolved or no longer reporting); growth varies by country, so some members double after
2000 and others stagnate. country_groups: one row per (group, country) membership; a country
is in many groups, and OECD ("OED") holds a few dozen.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

GROUPS = ["OED", "HIC", "LMC", "UMC", "EUU", "EAS", "ECS", "LCN", "MEA", "SAS", "SSF", "NAC", "IDA", "IBD",
          "WLD", "ARB", "EMU", "FCS", "LDC", "PST", "TEA", "TEC", "TLA", "TSA"]


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n_groups_rows = max(rows, 60)
    economies = max(n_groups_rows // 8, 20)
    codes = [f"{chr(65 + i // 26 % 26)}{chr(65 + i % 26)}{chr(65 + (i * 7) % 26)}" for i in range(economies)]
    codes[0] = "ISR"
    names = [f"Economy {c}" for c in codes]
    years = np.arange(1960, 2020)
    start = rng.lognormal(7, 1.2, economies)
    growth = rng.normal(0.03, 0.025, economies)
    wide = {"Country Name": names, "Country Code": codes}
    values = start[:, None] * np.exp(np.cumsum(growth[:, None] + rng.normal(0, 0.04, (economies, len(years))), axis=1))
    first = rng.choice([1960, 1970, 1980, 1990, 1995], economies, p=[0.5, 0.2, 0.15, 0.1, 0.05])
    values[years[None, :] < first[:, None]] = np.nan
    stops = rng.random(economies) < 0.15  # series that stop
    last = np.where(stops, rng.integers(1991, 2005, economies), 2019)
    values[years[None, :] > last[:, None]] = np.nan
    values[rng.random(values.shape) < 0.02] = np.nan
    for j, year in enumerate(years):
        wide[str(year)] = np.round(values[:, j], 2)
    gdp = pd.DataFrame(wide)
    oecd = set(rng.choice(economies, max(economies // 5, 5), replace=False)) | {0}
    memberships = [("OED", codes[i]) for i in sorted(oecd)]
    while len(memberships) < n_groups_rows:
        memberships.append((GROUPS[int(rng.integers(1, len(GROUPS)))], codes[int(rng.integers(0, economies))]))
    groups = pd.DataFrame(memberships, columns=["GroupCode", "CountryCode"])
    groups["GroupName"] = groups["GroupCode"].map(lambda g: f"Group {g}")
    groups["CountryName"] = groups["CountryCode"].map(lambda c: f"Economy {c}")
    return {"gdp_per_capita": gdp, "country_groups": groups}
