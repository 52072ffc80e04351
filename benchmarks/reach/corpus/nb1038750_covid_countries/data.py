"""Johns Hopkins daily COVID-19 reports (January 22 to April 15, 2020, dates written
M/D/YY) merged with country indicators (column names in Portuguese), one row per day and
province (or country).

A few countries report by province (several rows a day, summed per country); the
indicators are constant within a country; cumulative cases grow exponentially from a
country's first case, so some countries pass 1000 on April 15 and some do not; a
country's first report day varies (a country enters the report with its first case).
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    days = pd.date_range("2020-01-22", "2020-04-15", freq="D")
    labels = [f"{d.month}/{d.day}/{d.year % 100}" for d in days]
    k = max(rows // 75, 6)
    countries = ["Afghanistan", "Brazil", "Italy", "Peru", "Nepal", "Chile"] + [f"País {i}" for i in range(k - 6)]
    records = []
    for c_index, country in enumerate(countries):
        provinces = ["Norte", "Sul", "Leste"] if c_index % 4 == 1 else [None]
        first = int(rng.integers(0, len(days) - 10))
        growth = float(rng.uniform(0.04, 0.16))
        indicators = dict(zip(
            ["PIB 2019", "População", "População Urbana", "Área (Km/2)", "Densidade (Km/2)", "Taxa de Fertilidade",
             "Média de Idade", "Taxa de Fumantes", "Taxa de Mortalidade por Doenças Pulmonares",
             "Total de Leitos Hospitalares", "Temperatura Média (Janeiro - Março)", "Taxa de Umidade (Janeiro - Março)"],
            [float(rng.lognormal(25, 1.5)), int(rng.lognormal(16, 1.3)), float(rng.uniform(20, 95)),
             float(rng.lognormal(12, 1.5)), float(rng.lognormal(4, 1)), float(rng.uniform(1.2, 6)),
             float(rng.uniform(17, 45)), float(rng.uniform(5, 40)), float(rng.uniform(10, 80)),
             float(rng.uniform(0.5, 13)), float(rng.uniform(-10, 30)), float(rng.uniform(40, 90))]))
        for p_index, province in enumerate(provinces):
            for d_index in range(first, len(days)):
                cases = int(np.exp((d_index - first) * growth) * rng.uniform(0.5, 1.5))
                records.append({"Data": labels[d_index], "Estado/Província": province, "País/Região": country,
                                "Latitude": 10.0 * c_index + p_index, "Longitude": -5.0 * c_index - p_index,
                                **indicators, "Casos Confirmados": cases})
    frame = pd.DataFrame(records)
    frame["Casos Confirmados"] = frame["Casos Confirmados"].astype("int64")
    frame["População"] = frame["População"].astype("int64")
    return {"covid_indicadores": frame}
