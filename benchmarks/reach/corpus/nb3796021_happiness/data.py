"""Our World in Data's happiness table: life satisfaction (Cantril ladder) by entity and
year, 2005 to 2018, with the World Happiness Report 2016 column beside it.

Entities are countries (with an ISO code) and regions or income groups (no code); most
countries are surveyed every year, some miss years (no row), and some years have a row but
no score (survey not published); the WHR 2016 column is mostly empty.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

SURVEYED = ["Albania", "Argentina", "Armenia", "Australia", "Azerbaijan", "Bangladesh", "Belarus", "Belgium", "Belize",
            "Bolivia", "Bosnia and Herzegovina", "Brazil", "Bulgaria", "Burkina Faso", "Cambodia", "Cameroon", "Canada",
            "Central African Republic", "Chad", "Chile", "China", "Colombia", "Costa Rica", "Croatia", "Czech Republic",
            "Denmark", "Dominican Republic", "Ecuador", "Egypt", "El Salvador", "Estonia", "Georgia", "Germany", "Ghana",
            "Greece", "Guatemala", "Guyana", "Honduras", "Hungary", "India", "Indonesia", "Iran", "Israel", "Italy",
            "Japan", "Jordan", "Kazakhstan", "Kenya", "Kosovo", "Kyrgyzstan", "Laos", "Latvia", "Liberia", "Lithuania",
            "Macedonia", "Malawi", "Malaysia", "Mauritania", "Mexico", "Moldova", "Mongolia", "Montenegro",
            "Mozambique", "Namibia", "Nepal", "Netherlands", "New Zealand", "Nicaragua", "Niger", "Nigeria",
            "Pakistan", "Palestine", "Panama", "Paraguay", "Peru", "Philippines", "Poland", "Romania", "Russia",
            "Saudi Arabia", "Senegal", "Serbia", "Sierra Leone", "Singapore", "South Africa", "South Korea", "Spain",
            "Sri Lanka", "Sweden", "Tajikistan", "Tanzania", "Thailand", "Turkey", "Uganda", "Ukraine",
            "United Kingdom", "United States", "Uruguay", "Vietnam", "Yemen", "Zambia", "Zimbabwe"]
WHR = "World Happiness Report 2016 (Cantril Ladder (0=worst; 10=best))"


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    years = np.arange(2005, 2019)
    n_entities = max(rows // len(years), 10)
    names = (SURVEYED + [f"Country {i}" for i in range(max(n_entities - len(SURVEYED) - 8, 0))]
             + ["World", "Europe", "Africa", "Asia", "High income", "Low income", "South America", "Oceania"])
    records = []
    for i, name in enumerate(names):
        region = i >= len(names) - 8
        code = None if region else f"C{i:03d}"
        level = rng.uniform(3.5, 7.6)
        keep_year = rng.random(len(years)) > np.where(rng.random() < 0.35, 0.15, 0.0)  # some miss years
        for year, kept in zip(years, keep_year):
            if not kept:
                continue
            score = round(level + rng.normal(0, 0.25), 4) if rng.random() > 0.05 else None
            whr = score if year == 2016 and rng.random() < 0.7 else None
            records.append((name, code, int(year), whr, score))
    frame = pd.DataFrame(records, columns=["Entity", "Code", "Year", WHR, "Cantril_Score"])
    frame["Year"] = frame["Year"].astype("int64")
    return {"happiness_cantril": frame}
