"""A weather site's daily history table for one city, saved as CSV with its two-line header:
every column is text. Each month starts with a header row (no date; the month's name in
the first column, "high" / "avg" / "low" under each measure), then one row per day.

Temperatures in degrees Celsius (hot, humid summers: highs up to 40), dew point, humidity,
sea level pressure, visibility, wind, precipitation ("T" for traces) and events (empty on
most days).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

TRIPLES = [("Temp. (°C)", "Unnamed: 3", "Unnamed: 4"), ("Dew Point (°C)", "Unnamed: 6", "Unnamed: 7"),
           ("Humidity (%)", "Unnamed: 9", "Unnamed: 10"), ("Sea Level Press. (hPa)", "Unnamed: 12", "Unnamed: 13"),
           ("Visibility (km)", "Unnamed: 15", "Unnamed: 16"), ("Wind (km/h)", "Unnamed: 18", "Unnamed: 19")]


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    days = pd.date_range("2011-01-01", periods=max(rows, 60), freq="D")
    records = []
    for day in days:
        if day.day == 1:  # the month's header row
            header = {"Unnamed: 0": None, "2011": day.strftime("%b")}
            for triple in TRIPLES:
                header.update(dict(zip(triple, ["high", "avg", "low"])))
            header.update({"Precip. (mm)": "sum", "Events": ""})
            records.append(header)
        season = np.cos((day.dayofyear - 200) / 365 * 2 * np.pi)  # 1 in midsummer
        high = int(round(rng.normal(27 + 9 * season, 3.5)))
        low = high - int(rng.integers(6, 15))
        humidity = int(np.clip(rng.normal(62 + 6 * season, 12), 15, 100))
        row = {"Unnamed: 0": day.strftime("%-m/%-d/%y 12:00 AM"), "2011": str(day.day),
               "Temp. (°C)": str(high), "Unnamed: 3": str((high + low) // 2), "Unnamed: 4": str(low),
               "Dew Point (°C)": str(low - 2), "Unnamed: 6": str(low - 4), "Unnamed: 7": str(low - 7),
               "Humidity (%)": str(min(humidity + 20, 100)), "Unnamed: 9": str(humidity),
               "Unnamed: 10": str(max(humidity - 25, 5)),
               "Sea Level Press. (hPa)": str(int(rng.normal(1018, 5))), "Unnamed: 12": "1015", "Unnamed: 13": "1011",
               "Visibility (km)": "16", "Unnamed: 15": str(int(rng.integers(8, 17))), "Unnamed: 16": "5",
               "Wind (km/h)": str(int(rng.integers(10, 45))), "Unnamed: 18": str(int(rng.integers(3, 20))),
               "Unnamed: 19": "-", "Precip. (mm)": rng.choice(["0", "0", "0", "T", "2.03", "11.94"]),
               "Events": rng.choice(["", "", "", "Rain", "Thunderstorm", "Fog"])}
        records.append(row)
    columns = ["Unnamed: 0", "2011"] + [c for triple in TRIPLES for c in triple] + ["Precip. (mm)", "Events"]
    return {"weather_history": pd.DataFrame(records, columns=columns)}
