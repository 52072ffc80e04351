"""The Ergast Formula 1 tables as the project's ingestion notebooks leave them (processed,
renamed columns): drivers, constructors, circuits, races (2017-2021) and results (one row
per driver and race, with the incremental file each came in).

About twenty drivers a season in ten teams; points by finishing position (25, 18, 15, ...,
0 outside the top ten), a few stronger drivers win most races; positions missing (NULL) for
retirements; the results file of 2021-03-21 holds the 2019 and 2020 seasons, the later
files the 2021 races.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

POINTS = [25, 18, 15, 12, 10, 8, 6, 4, 2, 1]


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n_drivers, n_teams, n_circuits = 30, 12, 25
    drivers = pd.DataFrame({"driver_id": np.arange(1, n_drivers + 1, dtype="int64"),
                            "driver_ref": [f"driver{i}" for i in range(1, n_drivers + 1)],
                            "number": rng.integers(2, 99, n_drivers).astype("int64"),
                            "name": [f"Driver {i}" for i in range(1, n_drivers + 1)],
                            "nationality": rng.choice(["British", "German", "Dutch", "Finnish", "Spanish"], n_drivers)})
    constructors = pd.DataFrame({"constructor_id": np.arange(1, n_teams + 1, dtype="int64"),
                                 "name": [f"Team {i}" for i in range(1, n_teams + 1)],
                                 "nationality": rng.choice(["British", "Italian", "Austrian"], n_teams)})
    circuits = pd.DataFrame({"circuit_id": np.arange(1, n_circuits + 1, dtype="int64"),
                             "name": [f"Circuit {i}" for i in range(1, n_circuits + 1)],
                             "location": [f"City {i}" for i in range(1, n_circuits + 1)]})
    per_race = 20
    n_races = max(rows // per_race, 10)
    years = np.sort(rng.choice([2017, 2018, 2019, 2020, 2021], n_races, p=[0.15, 0.15, 0.25, 0.25, 0.2]))
    races = pd.DataFrame({"race_id": np.arange(1, n_races + 1, dtype="int64"), "race_year": years.astype("int64"),
                          "round": np.arange(1, n_races + 1, dtype="int64"),
                          "circuit_id": rng.integers(1, n_circuits + 1, n_races).astype("int64"),
                          "name": [f"Grand Prix {i}" for i in range(1, n_races + 1)],
                          "race_timestamp": pd.to_datetime([f"{y}-06-01" for y in years])
                          + pd.to_timedelta(rng.integers(0, 150, n_races), "D")})
    skill = rng.gamma(2.0, 1.0, n_drivers)
    team_of = rng.integers(1, n_teams + 1, n_drivers)
    records = []
    for race_id, year in zip(races["race_id"], races["race_year"]):
        field = rng.choice(n_drivers, per_race, replace=False, p=skill / skill.sum())
        order = field[np.argsort(-(skill[field] + rng.gumbel(0, 1.0, per_race)))]
        file_date = ("2021-03-21" if year in (2019, 2020) else "2021-03-28" if year == 2021 else "2021-03-14")
        for place, d in enumerate(order, start=1):
            retired = rng.random() < 0.08
            records.append((race_id, int(d) + 1, int(team_of[d]), int(rng.integers(1, 21)),
                            None if retired else place, 0.0 if retired or place > 10 else float(POINTS[place - 1]),
                            None if retired else f"1:{rng.integers(20, 40)}:{rng.integers(0, 60):02d}.000",
                            int(rng.integers(1, 70)), file_date))
    results = pd.DataFrame(records, columns=["race_id", "driver_id", "constructor_id", "grid", "position", "points",
                                             "time", "fastest_lap", "file_date"])
    results.insert(0, "result_id", np.arange(1, len(results) + 1, dtype="int64"))
    results["position"] = results["position"].astype("Int64")
    return {"drivers": drivers, "constructors": constructors, "circuits": circuits, "races": races,
            "results": results}
