"""Recruit restaurant visits (the AirREGI visit data joined to the store info): one row per
store and day with the number of visitors, the store's genre and area, and the week of the
year and weekday of the visit, plus the row number a CSV export left behind.

Areas are skewed (a few Tokyo wards hold many stores); weekends and Fridays are busier;
visitor counts are skewed too.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

EXCLUDED = ["Hokkaidō Katō-gun Motomachi", "Niigata-ken Kashiwazaki-shi Chūōchō", "Fukuoka-ken Fukuoka-shi Tenjin",
            "Tōkyō-to Meguro-ku Takaban", "Tōkyō-to Chiyoda-ku Kanda Jinbōchō", "Tōkyō-to Musashino-shi Midorichō",
            "Tōkyō-to Adachi-ku Chūōhonchō", "Tōkyō-to Kōtō-ku Tomioka", "Hokkaidō Sapporo-shi Atsubetsuchūō 1 Jō",
            "Tōkyō-to Edogawa-ku Chūō", "Hokkaidō Sapporo-shi Kita 24 Jōnishi", "Tōkyō-to Fuchū-shi Miyanishichō",
            "Ōsaka-fu Ōsaka-shi Ōhiraki", "Niigata-ken Niigata-shi Teraohigashi", "Ōsaka-fu Ōsaka-shi Nanbasennichimae",
            "Fukuoka-ken Kitakyūshū-shi Konyamachi", "Hyōgo-ken Amagasaki-shi Higashinanamatsuchō",
            "Tōkyō-to Musashino-shi Kichijōji Honchō", "Tōkyō-to Taitō-ku Asakusa", "Ōsaka-fu Suita-shi Izumichō",
            "Tōkyō-to Toshima-ku Sugamo", "Tōkyō-to Meguro-ku Jiyūgaoka", "Fukuoka-ken Fukuoka-shi Imaizumi",
            "Tōkyō-to Shibuya-ku Higashi", "Tōkyō-to Setagaya-ku Kitazawa"]
KEPT = ["Tōkyō-to Minato-ku Shibakōen", "Tōkyō-to Shibuya-ku Shibuya", "Tōkyō-to Chūō-ku Ginza",
        "Tōkyō-to Shinjuku-ku Kabukichō", "Ōsaka-fu Ōsaka-shi Ōgimachi", "Fukuoka-ken Fukuoka-shi Daimyō",
        "Hiroshima-ken Hiroshima-shi Kokutaijimachi", "Hokkaidō Sapporo-shi Minami 3 Jōnishi",
        "Tōkyō-to Toshima-ku Minamiikebukuro", "Hyōgo-ken Kōbe-shi Kumoidōri"]
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
GENRES = ["Izakaya", "Cafe/Sweets", "Dining bar", "Italian/French", "Bar/Cocktail", "Japanese food", "Other"]


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n = max(rows, 50)
    areas = KEPT + EXCLUDED
    weights = np.r_[np.linspace(6, 2, len(KEPT)), np.full(len(EXCLUDED), 0.8)]
    area = rng.choice(areas, n, p=weights / weights.sum())
    dates = pd.Timestamp("2016-07-01") + pd.to_timedelta(rng.integers(0, 42, n), "D")
    day = np.array([DAYS[d.weekday()] for d in dates])
    busy = np.select([day == "Friday", np.isin(day, ["Saturday", "Sunday"])], [1.5, 1.3], 1.0)
    frame = pd.DataFrame({
        "Unnamed: 0": np.arange(n, dtype="int64"),
        "air_store_id": [f"air_{i:04x}" for i in rng.integers(0, 800, n)],
        "visit_date": dates.strftime("%Y-%m-%d"),
        "visitors": np.maximum(1, np.round(rng.lognormal(2.7, 0.6, n) * busy)).astype("int64"),
        "air_genre_name": rng.choice(GENRES, n),
        "air_area_name": area,
        "current_week": np.array([d.isocalendar()[1] for d in dates], dtype="int64"),
        "day_of_week": day,
    })
    return {"air_visits": frame}
