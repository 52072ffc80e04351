"""Simulated IoT sensor readings (sensor_data.csv of the exercise): sensor id, timestamp
text "yyyy-MM-dd HH:mm:ss", temperature (°C), humidity (%), location (a building floor),
sensor type.

Temperatures spread from about 15 to 35 °C, warmer in the afternoon and on the upper
floors; every location reports at every hour; a sensor stays on one floor; readings are
spread over a few days.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

LOCATIONS = ["BuildingA_Floor1", "BuildingA_Floor2", "BuildingB_Floor1", "BuildingB_Floor2"]


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n = max(rows, 200)
    sensors = np.arange(1000, 1100)
    home = {s: LOCATIONS[int(rng.integers(0, 4))] for s in sensors}
    sensor = rng.choice(sensors, n)
    location = np.array([home[s] for s in sensor])
    start = pd.Timestamp("2025-04-07") + pd.to_timedelta(rng.integers(0, 5 * 24 * 3600, n), "s")
    warm = np.where(np.char.endswith(location.astype(str), "Floor2"), 2.5, 0.0)
    afternoon = 4.0 * np.exp(-((start.hour.to_numpy() - 15) ** 2) / 18)
    temperature = np.round(rng.normal(22 + warm + afternoon, 4.0), 2)
    frame = pd.DataFrame({"sensor_id": sensor.astype("int64"),
                          "timestamp": start.strftime("%Y-%m-%d %H:%M:%S"),
                          "temperature": temperature,
                          "humidity": np.round(rng.uniform(30, 70, n), 2),
                          "location": location,
                          "sensor_type": rng.choice(["TypeA", "TypeB", "TypeC"], n)})
    # make sure every location reports at every hour (the stack names all 24 hour columns)
    base = pd.Timestamp("2025-04-06")
    fill = pd.DataFrame({"sensor_id": [next(s for s in sensors if home[s] == loc) for loc in LOCATIONS for _ in range(24)],
                         "timestamp": [(base + pd.Timedelta(hours=h, minutes=7)).strftime("%Y-%m-%d %H:%M:%S")
                                       for _ in LOCATIONS for h in range(24)],
                         "temperature": np.round(rng.normal(24, 3, 96), 2),
                         "humidity": np.round(rng.uniform(30, 70, 96), 2),
                         "location": [loc for loc in LOCATIONS for _ in range(24)],
                         "sensor_type": "TypeA"})
    return {"sensor_data": pd.concat([frame, fill], ignore_index=True)}
