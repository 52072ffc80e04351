"""ADNIMERGE, the Alzheimer's Disease Neuroimaging Initiative's merged table: one row per
participant visit, with demographics, cognitive scores, imaging measures and their baseline
values.

Visits from the four protocols (ADNI1, ADNIGO, ADNI2, ADNI3); the diagnosis (CN, MCI,
Dementia) missing at about one visit in ten; numeric fields occasionally missing and
occasionally coded -4 or -1 (not done), text fields "Unknown" now and then; PIB only for a
few early participants; RAVLT forgetting can legitimately be negative. Scores depend on the
diagnosis (MMSE near 29 for CN, 27 for MCI, 21 for Dementia).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

ECOG = [f"Ecog{who}{what}" for who in ("Pt", "SP") for what in ("Mem", "Lang", "Visspat", "Plan", "Organ", "Divatt",
                                                                  "Total")]
SCORES = ["CDRSB", "ADAS11", "ADAS13", "MMSE", "RAVLT_immediate", "RAVLT_learning", "RAVLT_forgetting",
          "RAVLT_perc_forgetting", "FAQ", "MOCA"]
IMAGING = ["Ventricles", "Hippocampus", "WholeBrain", "Entorhinal", "Fusiform", "MidTemp", "ICV"]


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n = max(rows, 50)
    rid = np.sort(rng.integers(2, max(n // 4, 10), n))
    dx_level = rng.choice(3, n, p=[0.38, 0.42, 0.2])
    dx = np.array(["CN", "MCI", "Dementia"], dtype=object)[dx_level]
    dx[rng.random(n) < 0.1] = None
    protocol = rng.choice(["ADNI1", "ADNIGO", "ADNI2", "ADNI3"], n, p=[0.25, 0.1, 0.45, 0.2])
    frame: dict[str, object] = {
        "RID": rid.astype("int64"),
        "PTID": [f"{r % 140:03d}_S_{r:04d}" for r in rid],
        "VISCODE": rng.choice(["bl", "m06", "m12", "m24", "m36", "m48"], n),
        "SITE": (rid % 60 + 2).astype("int64"),
        "COLPROT": protocol,
        "ORIGPROT": np.where(rng.random(n) < 0.7, protocol, "ADNI1"),
        "EXAMDATE": (pd.Timestamp("2006-01-01") + pd.to_timedelta(rng.integers(0, 4500, n), "D")).strftime("%Y-%m-%d"),
        "DX_bl": np.array(["CN", "EMCI", "LMCI", "AD"])[np.clip(dx_level + rng.integers(0, 2, n), 0, 3)],
        "AGE": np.round(rng.normal(73.5, 7, n), 1),
        "PTGENDER": rng.choice(["Male", "Female"], n),
        "PTEDUCAT": rng.integers(8, 21, n).astype("int64"),
        "PTETHCAT": rng.choice(["Not Hisp/Latino", "Hisp/Latino", "Unknown"], n, p=[0.95, 0.04, 0.01]),
        "PTRACCAT": rng.choice(["White", "Black", "Asian", "More than one", "Unknown"], n, p=[0.9, 0.04, 0.03, 0.02, 0.01]),
        "PTMARRY": rng.choice(["Married", "Widowed", "Divorced", "Never married", "Unknown"], n,
                              p=[0.74, 0.12, 0.09, 0.04, 0.01]),
        "APOE4": rng.choice([0.0, 1.0, 2.0], n, p=[0.53, 0.37, 0.1]),
        "FDG": np.round(rng.normal(6.3 - 0.4 * dx_level, 0.6, n), 4),
        "PIB": np.where(rng.random(n) < 0.03, np.round(rng.normal(1.6, 0.3, n), 3), np.nan),
        "AV45": np.round(rng.normal(1.1 + 0.1 * dx_level, 0.2, n), 4),
    }
    mmse = np.clip(np.round(rng.normal(np.array([29.0, 27.0, 21.0])[dx_level], np.array([1.0, 2.0, 4.0])[dx_level])),
                   0, 30)
    for name in SCORES:
        frame[name] = np.round(rng.normal(10 + 5 * dx_level, 4, n), 2)
    frame["MMSE"] = mmse
    frame["RAVLT_forgetting"] = np.round(rng.normal(4, 3, n))  # may be negative, -1 included
    for name in ECOG:
        frame[name] = np.round(rng.uniform(1, 4, n), 5)
    frame["FLDSTRENG"] = rng.choice(["3 Tesla MRI", "1.5 Tesla MRI"], n)
    frame["FSVERSION"] = rng.choice(["Cross-Sectional FreeSurfer (5.1)", "Cross-Sectional FreeSurfer (6.0)"], n)
    for name in IMAGING:
        frame[name] = np.round(rng.normal(1e4 * (1 + IMAGING.index(name)), 900, n), 0)
    frame["DX"] = dx
    frame["EXAMDATE_bl"] = frame["EXAMDATE"]
    for name in SCORES:
        frame[f"{name}_bl"] = np.round(np.asarray(frame[name], dtype=float) * rng.uniform(0.9, 1.0, n), 2)
    frame["FLDSTRENG_bl"] = frame["FLDSTRENG"]
    frame["FSVERSION_bl"] = frame["FSVERSION"]
    for name in IMAGING:
        frame[f"{name}_bl"] = np.round(np.asarray(frame[name], dtype=float) * 1.01, 0)
    frame["MOCA_bl"] = frame.pop("MOCA_bl")
    for name in ECOG:
        frame[f"{name}_bl"] = np.round(np.asarray(frame[name], dtype=float), 5)
    frame["FDG_bl"] = frame["FDG"]
    frame["PIB_bl"] = frame["PIB"]
    frame["AV45_bl"] = frame["AV45"]
    years = np.round(rng.uniform(0, 10, n), 4)
    frame["Years_bl"] = years
    frame["Month_bl"] = np.round(years * 12, 4)
    frame["Month"] = (np.round(years * 2) * 6).astype("int64")
    frame["M"] = frame["Month"]
    frame["update_stamp"] = "2019-03-04 23:15:39.0"
    df = pd.DataFrame(frame)
    numeric = [c for c in df.columns if df[c].dtype == float]
    for name in numeric:  # now and then missing, or coded -4 / -1
        u = rng.random(n)
        df.loc[u < 0.002, name] = np.nan
        df.loc[(u >= 0.002) & (u < 0.0035), name] = -4.0
        df.loc[(u >= 0.0035) & (u < 0.004), name] = -1.0
    return {"adnimerge": df}
