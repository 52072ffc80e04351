"""The Kaggle Titanic training set (PassengerId, Survived, Pclass, Name, Sex, Age, SibSp,
Parch, Ticket, Fare, Cabin, Embarked).

Third class is the largest and youngest; ages are missing for about a fifth of the
passengers, more in third class; two passengers have no port of embarkation (NULL); the
port "Q" is almost only third class, and the second class has no passenger boarding there.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n = max(rows, 40)
    pclass = rng.choice([1, 2, 3], n, p=[0.24, 0.21, 0.55])
    sex = rng.choice(["male", "female"], n, p=[0.65, 0.35])
    age = np.round(np.clip(rng.normal(np.select([pclass == 1, pclass == 2], [38, 30], 25), 14), 0.42, 80), 1)
    age[rng.random(n) < np.where(pclass == 3, 0.28, 0.12)] = np.nan
    embarked = np.where(pclass == 3, rng.choice(["S", "C", "Q"], n, p=[0.65, 0.12, 0.23]),
                        np.where(pclass == 1, rng.choice(["S", "C", "Q"], n, p=[0.6, 0.39, 0.01]),
                                 rng.choice(["S", "C"], n, p=[0.9, 0.1]))).astype(object)
    embarked[rng.choice(n, 2, replace=False)] = None
    frame = pd.DataFrame({
        "PassengerId": np.arange(1, n + 1, dtype="int64"),
        "Survived": (rng.random(n) < np.where(sex == "female", 0.74, 0.19)).astype("int64"),
        "Pclass": pclass.astype("int64"), "Name": [f"Passenger, Mr. {i}" for i in range(n)], "Sex": sex,
        "Age": age, "SibSp": rng.poisson(0.5, n).astype("int64"), "Parch": rng.poisson(0.4, n).astype("int64"),
        "Ticket": [str(t) for t in rng.integers(1000, 400000, n)],
        "Fare": np.round(np.where(pclass == 1, rng.gamma(3, 28, n), rng.gamma(2, 9, n)), 4),
        "Cabin": [f"C{rng.integers(1, 130)}" if c == 1 and rng.random() < 0.8 else None for c in pclass],
        "Embarked": embarked,
    })
    return {"titanic_dataset": frame}
