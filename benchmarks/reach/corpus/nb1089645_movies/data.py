"""The TMDB movie table: 21 columns as the public CSV has them.

Budget and revenue are 0 for a large share of films (not reported), text columns are often
missing, a few records appear twice (exact duplicates), popularity is heavily skewed.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

GENRES = ["Action", "Adventure", "Comedy", "Drama", "Thriller", "Horror", "Romance", "Animation", "Family"]
DIRECTORS = [f"Director {i}" for i in range(300)]


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n = max(rows, 20)
    budget = np.where(rng.random(n) < 0.5, 0, (rng.lognormal(16.5, 1.2, n) // 1000 * 1000)).astype("int64")
    revenue = np.where(rng.random(n) < 0.55, 0, (budget * rng.lognormal(0.3, 1.0, n) // 1000 * 1000)).astype("int64")
    revenue = np.where((budget == 0) & (revenue == 0) & (rng.random(n) < 0.3),
                       (rng.lognormal(16, 1.5, n) // 1000 * 1000).astype("int64"), revenue)
    year = rng.integers(1960, 2016, n)
    genres = ["|".join(rng.choice(GENRES, rng.integers(1, 4), replace=False)) for _ in range(n)]

    def sometimes(values: list, share: float) -> list:
        return [None if rng.random() < share else v for v in values]

    frame = pd.DataFrame({
        "id": np.arange(100, 100 + n, dtype="int64"),
        "imdb_id": sometimes([f"tt{i:07d}" for i in rng.integers(0, 9_999_999, n)], 0.01),
        "popularity": np.round(rng.pareto(2.0, n), 6),
        "budget": budget,
        "revenue": revenue,
        "original_title": [f"Film {i}" for i in range(n)],
        "cast": sometimes([f"Actor {a}|Actor {b}" for a, b in rng.integers(0, 2000, (n, 2))], 0.01),
        "homepage": sometimes([f"http://film{i}.example" for i in range(n)], 0.7),
        "director": sometimes(list(rng.choice(DIRECTORS, n)), 0.005),
        "tagline": sometimes([f"Tagline {i}" for i in range(n)], 0.25),
        "keywords": sometimes([f"kw{i % 50}|kw{i % 7}" for i in range(n)], 0.14),
        "overview": sometimes([f"Overview of film {i}" for i in range(n)], 0.001),
        "runtime": pd.array(rng.integers(60, 200, n), dtype="Int64"),
        "genres": sometimes(genres, 0.002),
        "production_companies": sometimes([f"Studio {i % 80}" for i in range(n)], 0.1),
        "release_date": [f"{m}/{d}/{y % 100:02d}"
                         for m, d, y in zip(rng.integers(1, 13, n), rng.integers(1, 29, n), year)],
        "vote_count": rng.integers(10, 9000, n).astype("int64"),
        "vote_average": np.round(rng.uniform(3, 9, n), 1),
        "release_year": year.astype("int64"),
        "budget_adj": budget * 1.1,
        "revenue_adj": revenue * 1.1,
    })
    twice = frame.sample(max(n // 100, 1), random_state=seed)  # the records exported twice
    return {"tmdb_movies": pd.concat([frame, twice], ignore_index=True)}
