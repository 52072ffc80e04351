"""The Book-Crossing dataset: books, users and ratings, with the files' own column names.

Ratings are very skewed: a handful of users rate hundreds of books, most rate a few; most
ratings are implicit (0), the explicit ones are mostly 7-10; a few books are very popular,
some titles exist under several ISBNs (editions), some rated ISBNs are not in the books file
and a few books have no title. Users' locations are "city, state, country" text, many in
the USA or Canada, some "n/a"; ages are often missing.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

PLACES = ["seattle, washington, usa", "new york, new york, usa", "toronto, ontario, canada",
          "vancouver, british columbia, canada", "london, england, united kingdom", "berlin, berlin, germany",
          "madrid, madrid, spain", "sydney, new south wales, australia", "n/a, n/a, n/a", "austin, texas, usa",
          "porto, porto, portugal", "montreal, quebec, canada"]


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n = max(rows, 400)
    n_users = n // 2
    n_books = n // 3
    isbns = [f"{i:09d}{rng.integers(0, 10)}" for i in rng.choice(10**9, n_books, replace=False)]
    titles = [f"Title {i}" for i in range(n_books)]
    for i in range(1, n_books, 17):  # another edition of a popular title
        titles[i] = titles[0] if i < 40 else titles[i - 1]
    titles = [None if rng.random() < 0.01 else t for t in titles]
    books = pd.DataFrame({
        "ISBN": isbns, "Book-Title": titles,
        "Book-Author": [f"Author {i % 300}" for i in range(n_books)],
        "Year-Of-Publication": pd.array(rng.integers(1950, 2005, n_books), dtype="Int64"),
        "Publisher": [f"Publisher {i % 90}" for i in range(n_books)],
        "Image-URL-S": [f"http://images.example/{i}.01.THUMBZZZ.jpg" for i in isbns],
        "Image-URL-M": [f"http://images.example/{i}.01.MZZZZZZZ.jpg" for i in isbns],
        "Image-URL-L": [f"http://images.example/{i}.01.LZZZZZZZ.jpg" for i in isbns],
    })
    users = pd.DataFrame({
        "User-ID": np.arange(1, n_users + 1, dtype="int64"),
        "Location": rng.choice(PLACES, n_users, p=[0.14, 0.14, 0.1, 0.06, 0.1, 0.08, 0.06, 0.06, 0.05, 0.1, 0.05, 0.06]),
        "Age": np.where(rng.random(n_users) < 0.4, np.nan, rng.integers(12, 80, n_users).astype(float)),
    })
    heavy = rng.choice(n_users, 6, replace=False) + 1  # the users who rate hundreds of books
    heavy_share = 0.66
    user = np.where(rng.random(n) < heavy_share, rng.choice(heavy, n, p=[0.25, 0.2, 0.2, 0.15, 0.12, 0.08]),
                    rng.integers(1, n_users + 1, n))
    popularity = 1.0 / np.arange(1, n_books + 1) ** 0.9
    book = rng.choice(n_books, n, p=popularity / popularity.sum())
    isbn = [isbns[b] if rng.random() > 0.04 else f"{rng.integers(10**9, 10**10)}" for b in book]  # unknown ISBNs
    rating = np.where(rng.random(n) < 0.62, 0, rng.choice([5, 6, 7, 8, 9, 10], n, p=[0.08, 0.1, 0.2, 0.27, 0.17, 0.18]))
    ratings = pd.DataFrame({"User-ID": user.astype("int64"), "ISBN": isbn, "Book-Rating": rating.astype("int64")})
    return {"bx_books": books, "bx_users": users, "bx_ratings": ratings}
