"""Russia's federal subjects scraped from a wiki table: name, federal district, area in
thousands of km² as text ("1,234.5" with a thousands separator for the large ones, missing
for a few rows), population at the 2002 census.

Densities range from under one person per km² (the north and east) to thousands (the two
federal cities with tiny areas); the table is repeated per census year in the scrape, so
the same subject occurs several times.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n = max(rows, 40)
    k = max(n // 4, 10)
    area = np.round(rng.lognormal(3.8, 1.5, k), 1)
    area[:2] = [1.4, 2.6]  # the federal cities
    population = np.round(rng.lognormal(14, 0.8, k)).astype("int64")
    population[:2] = [10382754, 4661219]
    text = [f"{a:,.1f}" for a in area]
    for i in rng.choice(np.arange(2, k), max(k // 15, 1), replace=False):
        text[i] = None
    pick = rng.integers(0, k, n)
    frame = pd.DataFrame({
        "Субъект федерации": [f"Субъект {i}" for i in pick],
        "Федеральный округ": rng.choice(["Центральный", "Северо-Западный", "Южный", "Приволжский", "Уральский",
                                          "Сибирский", "Дальневосточный"], n),
        "Площадь, тыс.км2": [text[i] for i in pick],
        "Численность населения (2002  г.), чел": population[pick],
    })
    return {"regions": frame}
