"""FAOSTAT extracts: crop statistics of Switzerland and its neighbours, and Switzerland's
detailed trade matrix (imports and exports, one row per partner country, item and year).

Crops: area harvested (ha), production (tonnes) and yield (hg/ha) per country, item and year
since 1961, with flags ("Data not available" rows carry no value). Trade: quantities in
tonnes and values in 1000 US$ since 1986, one file per direction; some figures are flagged
unofficial; an item is traded with many partners in a year (several rows per item and year),
some items only one way.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

AREAS = ["Switzerland", "France", "Germany", "Italy", "Austria", "Liechtenstein"]
ITEMS = ["Apples", "Wheat", "Potatoes", "Maize", "Sugar beet", "Grapes", "Barley", "Oats", "Rye", "Pears",
         "Cherries", "Plums and sloes", "Apricots", "Strawberries", "Carrots and turnips", "Cabbages and other brassicas",
         "Onions, dry", "Tomatoes", "Lettuce and chicory", "Rapeseed", "Soybeans", "Sunflower seed", "Triticale",
         "Spelt", "Peas, dry", "Beans, dry", "Walnuts, with shell", "Chestnut", "Hops", "Tobacco, unmanufactured"]
CROP_ELEMENTS = [("Area harvested", "ha"), ("Production", "tonnes"), ("Yield", "hg/ha")]
CROP_FLAGS = ["Official data", "FAO estimate", "FAO data based on imputation methodology", "Data not available",
              "Unofficial figure"]
TRADE_FLAGS = ["Official data", "Unofficial figure", "FAO estimate", "Figure from international organizations"]
PARTNERS = ["Germany", "France", "Italy", "Austria", "Spain", "Netherlands", "Belgium", "Poland", "Hungary", "China",
            "United States of America", "Brazil", "Argentina", "Chile", "New Zealand", "South Africa", "Morocco",
            "Turkey", "Egypt", "Kenya", "Canada", "India", "Viet Nam", "Thailand", "Peru"]


def _crops(rng: np.random.Generator, n: int) -> pd.DataFrame:
    swiss = rng.random(n) < 0.45  # the extract is mostly Switzerland's
    area = np.where(swiss, "Switzerland", rng.choice(AREAS[1:], n))
    element = rng.choice(3, n, p=[0.3, 0.45, 0.25])
    item = rng.choice(ITEMS, n, p=np.r_[np.full(7, 0.06), np.full(23, 0.58 / 23)])
    year = rng.integers(1961, 2018, n)
    flag = rng.choice(CROP_FLAGS, n, p=[0.7, 0.12, 0.1, 0.05, 0.03])
    value = np.round(rng.lognormal(9, 2, n), 0)
    value[flag == "Data not available"] = np.nan
    frame = pd.DataFrame({
        "Domain Code": "QC", "Domain": "Crops", "Area Code": pd.Series(area).map({a: i for i, a in enumerate(AREAS)}),
        "Area": area, "Element Code": element.astype("int64") + 5312,
        "Element": [CROP_ELEMENTS[e][0] for e in element], "Item Code": rng.integers(15, 900, n),
        "Item": item, "Year Code": year.astype("int64"), "Year": year.astype("int64"),
        "Unit": [CROP_ELEMENTS[e][1] for e in element], "Value": value,
        "Flag": pd.Series(flag).map({f: f[0] for f in CROP_FLAGS}), "Flag Description": flag,
    })
    return frame.drop_duplicates(subset=["Area", "Element", "Item", "Year"]).reset_index(drop=True)


def _trade(rng: np.random.Generator, n: int, direction: str) -> pd.DataFrame:
    quantity = rng.random(n) < 0.6
    element = np.where(quantity, f"{direction} Quantity", f"{direction} Value")
    item = rng.choice(ITEMS, n, p=np.r_[np.full(7, 0.06), np.full(23, 0.58 / 23)])
    year = rng.integers(1986, 2018, n)
    return pd.DataFrame({
        "Domain Code": "TM", "Domain": "Detailed trade matrix", "Reporter Country Code": 211,
        "Reporter Countries": "Switzerland", "Partner Country Code": rng.integers(1, 250, n),
        "Partner Countries": rng.choice(PARTNERS, n), "Element Code": np.where(quantity, 5610, 5622),
        "Element": element, "Item Code": rng.integers(15, 900, n), "Item": item,
        "Year Code": year.astype("int64"), "Year": year.astype("int64"),
        "Unit": np.where(quantity, "tonnes", "1000 US$"), "Value": np.round(rng.lognormal(5, 2.2, n), 0),
        "Flag": "", "Flag Description": rng.choice(TRADE_FLAGS, n, p=[0.75, 0.1, 0.1, 0.05]),
    })


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n = max(rows, 100)
    return {"faostat_crops": _crops(rng, n), "faostat_imports": _trade(rng, n // 2, "Import"),
            "faostat_exports": _trade(rng, n * 2 // 5, "Export")}
