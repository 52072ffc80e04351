"""MovieLens movies and ratings (movieId, title, genres; userId, movieId, rating, timestamp).

Genres are "|"-separated, one to four per movie, "(no genres listed)" for a few; ratings in
half stars, skewed towards 3-4; popular movies get most ratings (skew); documentaries are
few and rated high; some rating rows lost their score in an export (NULL); a few ratings
refer to movies missing from the movie list.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

GENRES = ["Drama", "Comedy", "Thriller", "Action", "Romance", "Adventure", "Crime", "Sci-Fi", "Horror", "Fantasy",
          "Children", "Animation", "Mystery", "Documentary", "War", "Musical", "Western", "Film-Noir"]
WEIGHTS = np.array([25, 20, 10, 10, 9, 7, 7, 5, 5, 4, 4, 3, 3, 2, 2, 1.5, 1, 0.5])


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n = max(rows, 60)
    n_movies = max(n // 8, 10)
    genre_lists = []
    for _ in range(n_movies):
        if rng.random() < 0.02:
            genre_lists.append("(no genres listed)")
            continue
        k = int(rng.choice([1, 2, 3, 4], p=[0.3, 0.35, 0.25, 0.1]))
        genre_lists.append("|".join(rng.choice(GENRES, k, replace=False, p=WEIGHTS / WEIGHTS.sum())))
    movies = pd.DataFrame({"movieId": np.arange(1, n_movies + 1, dtype="int64"),
                           "title": [f"Movie {i} ({rng.integers(1950, 2019)})" for i in range(1, n_movies + 1)],
                           "genres": genre_lists})
    popularity = rng.lognormal(0.0, 1.0, n_movies)
    movie = rng.choice(np.arange(1, n_movies + 6), n, p=np.append(popularity, [1, 1, 1, 1, 1]) / (popularity.sum() + 5))
    documentary = np.array(["Documentary" in genre_lists[m - 1] if m <= n_movies else False for m in movie])
    stars = np.clip(np.round(rng.normal(np.where(documentary, 3.9, 3.4), 1.0) * 2) / 2, 0.5, 5.0)
    rating = pd.array(stars, dtype="Float64")
    rating[rng.random(n) < 0.01] = pd.NA
    ratings = pd.DataFrame({"userId": rng.integers(1, n // 20 + 2, n).astype("int64"), "movieId": movie.astype("int64"),
                            "rating": rating, "timestamp": rng.integers(1_000_000_000, 1_500_000_000, n).astype("int64")})
    return {"movies": movies, "ratings": ratings}
