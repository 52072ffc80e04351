"""Ames house prices (the Kaggle competition's train and test files; the test file has no
SalePrice).

Living area skewed with a handful of very large houses, some of them partial sales at a
low price (the known outliers); Alley, FireplaceQu, PoolQC, Fence and MiscFeature mostly
missing; LotFrontage missing for about one in six; prices follow quality and area.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

NEIGHBORHOODS = ["NAmes", "CollgCr", "OldTown", "Edwards", "Somerst", "NridgHt", "Gilbert", "Sawyer", "NWAmes",
                 "SawyerW", "BrkSide", "Crawfor", "Mitchel", "NoRidge", "Timber", "IDOTRR"]


def _houses(rng: np.random.Generator, n: int, first_id: int, with_price: bool) -> pd.DataFrame:
    area = np.round(rng.lognormal(7.27, 0.33, n)).astype("int64")
    huge = rng.random(n) < 0.004
    area[huge] = rng.integers(4050, 5700, huge.sum())
    quality = np.clip(np.round(rng.normal(6, 1.4, n)), 1, 10).astype("int64")
    built = rng.integers(1880, 2011, n).astype("int64")

    def mostly_missing(values, share):
        return [v if rng.random() < share else None for v in values]

    frame = pd.DataFrame({
        "Id": np.arange(first_id, first_id + n, dtype="int64"),
        "MSSubClass": rng.choice([20, 60, 50, 120, 30, 160, 70, 80], n).astype("int64"),
        "MSZoning": rng.choice(["RL", "RM", "FV", "RH", "C (all)"], n, p=[0.79, 0.15, 0.04, 0.01, 0.01]),
        "LotFrontage": np.where(rng.random(n) < 0.17, np.nan, np.round(rng.normal(70, 22, n).clip(21))),
        "LotArea": np.round(rng.lognormal(9.1, 0.5, n)).astype("int64"),
        "Street": rng.choice(["Pave", "Grvl"], n, p=[0.996, 0.004]),
        "Alley": mostly_missing(rng.choice(["Grvl", "Pave"], n), 0.06),
        "LotShape": rng.choice(["Reg", "IR1", "IR2", "IR3"], n, p=[0.63, 0.33, 0.03, 0.01]),
        "Neighborhood": rng.choice(NEIGHBORHOODS, n),
        "OverallQual": quality,
        "OverallCond": np.clip(np.round(rng.normal(5.6, 1.1, n)), 1, 9).astype("int64"),
        "YearBuilt": built,
        "YearRemodAdd": np.maximum(built, rng.integers(1950, 2011, n)).astype("int64"),
        "TotalBsmtSF": np.where(rng.random(n) < 0.03, 0, np.round(area * rng.uniform(0.5, 1.1, n))).astype("int64"),
        "GrLivArea": area,
        "FullBath": rng.choice([1, 2, 3], n, p=[0.45, 0.52, 0.03]).astype("int64"),
        "BedroomAbvGr": rng.choice([1, 2, 3, 4, 5], n, p=[0.04, 0.25, 0.55, 0.14, 0.02]).astype("int64"),
        "KitchenQual": rng.choice(["TA", "Gd", "Ex", "Fa"], n, p=[0.5, 0.4, 0.07, 0.03]),
        "FireplaceQu": mostly_missing(rng.choice(["Gd", "TA", "Fa", "Ex", "Po"], n), 0.53),
        "GarageCars": rng.choice([0, 1, 2, 3], n, p=[0.06, 0.25, 0.56, 0.13]).astype("int64"),
        "PoolQC": mostly_missing(rng.choice(["Gd", "Ex", "Fa"], n), 0.005),
        "Fence": mostly_missing(rng.choice(["MnPrv", "GdPrv", "GdWo", "MnWw"], n), 0.19),
        "MiscFeature": mostly_missing(rng.choice(["Shed", "Gar2", "Othr"], n), 0.04),
        "MoSold": rng.integers(1, 13, n).astype("int64"),
        "YrSold": rng.integers(2006, 2011, n).astype("int64"),
        "SaleCondition": np.where(huge & (rng.random(n) < 0.6), "Partial",
                                  rng.choice(["Normal", "Partial", "Abnorml", "Family"], n, p=[0.82, 0.09, 0.07, 0.02])),
    })
    if with_price:
        price = np.round(area * 95 * (quality / 6) ** 1.6 * rng.lognormal(0, 0.15, n), -2)
        partial_huge = huge & (frame["SaleCondition"].to_numpy() == "Partial")
        price[partial_huge] = rng.integers(160000, 290000, partial_huge.sum())  # the outliers
        frame["SalePrice"] = price.astype("int64")
    return frame


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n = max(rows, 300)
    return {"house_train": _houses(rng, n, 1, True), "house_test": _houses(rng, n, n + 1, False)}
