"""OECD average annual wages (the OECD.Stat export with its code and label column pairs):
one row per country, series and year, 2000 to 2018. The pairs differ only in case (COUNTRY
and Country, SERIES and Series, TIME and Time), so Spark's CSV reader, which compares names
without case, suffixes them with their position (COUNTRY0, Country1, ...): the columns are
named as that read gives them.

Three series (constant prices at 2018 USD PPPs, at 2018 exchange rates, current prices);
countries enter the table at different years (a few only after 2007, so they have no 2007
figure); the flag columns are mostly empty.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

SERIES = [("USDPPP", "In 2018 constant prices at 2018 USD PPPs"),
          ("USDEXCH", "In 2018 constant prices at 2018 USD exchange rates"),
          ("CPNCU", "In current prices in NCU")]
COUNTRIES = ["Greece", "United Kingdom", "United States", "France", "Germany", "Poland", "Italy", "Spain", "Japan",
             "Korea", "Mexico", "Chile", "Canada", "Australia", "Sweden", "Norway", "Denmark", "Finland", "Austria",
             "Belgium", "Netherlands", "Ireland", "Portugal", "Hungary", "Czech Republic", "Slovak Republic",
             "Slovenia", "Estonia", "Latvia", "Lithuania", "Iceland", "Israel", "New Zealand", "Switzerland",
             "Luxembourg"]


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    years = np.arange(2000, 2019)
    n_countries = max(rows // (len(years) * len(SERIES)), 8)
    names = (COUNTRIES + [f"Country {i}" for i in range(max(n_countries - len(COUNTRIES), 0))])[:max(n_countries, 8)]
    records = []
    for c, name in enumerate(names):
        first_year = 2000 if rng.random() > 0.15 else int(rng.integers(2008, 2012))
        level = rng.uniform(15000, 65000)
        trend = rng.normal(0.008, 0.01)
        for code, label in SERIES:
            factor = {"USDPPP": 1.0, "USDEXCH": rng.uniform(0.7, 1.2), "CPNCU": rng.uniform(0.5, 300)}[code]
            for year in years:
                if year < first_year:
                    continue
                value = round(level * factor * (1 + trend) ** (year - 2000) * rng.lognormal(0, 0.01), 3)
                records.append((name[:3].upper(), name, code, label, int(year), int(year), "USD", "US Dollar", 0,
                                "Units", None, None, value, None, None))
    frame = pd.DataFrame(records, columns=["COUNTRY0", "Country1", "SERIES2", "Series3", "TIME4", "Time5", "Unit Code",
                                           "Unit", "PowerCode Code", "PowerCode", "Reference Period Code",
                                           "Reference Period", "Value", "Flag Codes", "Flags"])
    return {"real_wage": frame.astype({"TIME4": "int64", "Time5": "int64", "PowerCode Code": "int64"})}
