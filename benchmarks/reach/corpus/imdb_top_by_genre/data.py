"""IMDb's title.basics and title.ratings extracts (the public TSV files, read with
inferSchema: "\\N" marks a missing value, so years and runtimes stay text).

Titles of every type (movies, episodes, shorts, series); one to three genres per title,
comma-separated, "\\N" for a few; ratings for most titles, with one decimal (many ties) and
vote counts spread over several orders of magnitude (a few films have hundreds of
thousands).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

GENRES = ["Drama", "Comedy", "Thriller", "Action", "Crime", "Romance", "Horror", "Adventure", "Sci-Fi", "Mystery",
          "Biography", "Animation", "Fantasy", "Family", "War", "History", "Music", "Western", "Documentary", "Sport"]


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n = max(rows, 60)
    weights = 1.0 / np.arange(1, len(GENRES) + 1) ** 0.8
    genres = []
    for _ in range(n):
        if rng.random() < 0.02:
            genres.append("\\N")
        else:
            k = int(rng.integers(1, 4))
            genres.append(",".join(sorted(rng.choice(GENRES, k, replace=False, p=weights / weights.sum()))))
    title_type = rng.choice(["movie", "tvEpisode", "short", "tvSeries", "tvMovie"], n, p=[0.55, 0.2, 0.1, 0.08, 0.07])
    basics = pd.DataFrame({
        "tconst": [f"tt{i:07d}" for i in range(1, n + 1)],
        "titleType": title_type,
        "primaryTitle": [f"Title {i}" for i in range(n)],
        "originalTitle": [f"Title {i}" for i in range(n)],
        "isAdult": np.zeros(n, dtype="int64"),
        "startYear": [("\\N" if rng.random() < 0.02 else str(y)) for y in rng.integers(1920, 2023, n)],
        "endYear": "\\N",
        "runtimeMinutes": [("\\N" if rng.random() < 0.1 else str(m)) for m in rng.integers(20, 200, n)],
        "genres": genres,
    })
    rated = rng.random(n) < 0.8
    votes = np.round(np.exp(rng.uniform(np.log(5), np.log(2.5e6), n))).astype("int64")
    ratings = pd.DataFrame({
        "tconst": basics["tconst"][rated].to_numpy(),
        "averageRating": np.round(rng.normal(6.6, 1.0, n).clip(1, 10), 1)[rated],
        "numVotes": votes[rated],
    })
    return {"title_basics": basics, "title_ratings": ratings}
