"""Reading applyInPandas bodies: which pandas forms become which operators, and what is refused."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from magicpush_lab.ir import plan as P
from magicpush_lab.ir.expr import Col
from magicpush_lab.translate.pandas_body import BodyNotRead, body_plan

INPUTS = (Col("v", 0, "int"), Col("store", 1, "string"), Col("amount", 2, "double"), Col("size", 3, "int"),
          Col("n", 4, "long"))


def shape(plan: P.Plan) -> list[str]:
    """Operator names from the body's output down to its input."""
    out = [P.operator_name(plan)]
    while plan.children:
        plan = plan.children[0]
        out.append(P.operator_name(plan))
    return out


@dataclass(frozen=True)
class Read:
    title: str
    source: str
    shape: list[str] | None  # None: refused
    detail: str  # a piece of the first operator's text, or of the refusal's reason


READS = [
    Read("boolean mask then return", "def f(pdf):\n    pdf = pdf[pdf.v > 3]\n    return pdf\n",
         ["Filter", "Source"], "coalesce(v > 3, False)"),
    Read("!= keeps missing values, as pandas does", "def f(pdf):\n    return pdf[pdf.store != 'a']\n",
         ["Filter", "Source"], "coalesce(store != 'a', True)"),
    Read("masks combined with & and ~", "def f(pdf):\n    return pdf[(pdf.v > 3) & ~pdf.store.isna()]\n",
         ["Filter", "Source"], "coalesce(v > 3, False) AND NOT store IS NULL"),
    Read("column set by item assignment", "def f(pdf):\n    pdf['y'] = pdf.amount * 2\n    return pdf\n",
         ["RowTransform", "Source"], "(amount * 2)"),
    Read("assign with a lambda sees the earlier item",
         "def f(pdf):\n    return pdf.assign(y=pdf.v + 1, z=lambda d: d.y * 3)\n",
         ["RowTransform", "RowTransform", "Source"], "(y * 3)"),
    Read("a copy is a frame of its own: setting a column on it is read",
         "def f(pdf):\n    out = pdf.copy()\n    out['y'] = out.v * 2\n    return out\n",
         ["RowTransform", "Source"], "(v * 2)"),
    Read("a lambda is a function returning its body", "lambda pdf: pdf[pdf.v > 3]",
         ["Filter", "Source"], "coalesce(v > 3, False)"),
    Read("column list", "def f(pdf):\n    return pdf[['store', 'v']]\n", ["DropColumn", "Source"], "store"),
    Read("sort then head is a top-k",
         "def f(pdf):\n    return pdf.sort_values('v', ascending=False).head(3)\n",
         ["TopK", "Source"], "k=3"),
    Read("sort alone only reorders", "def f(pdf):\n    return pdf.sort_values(['store', 'v'])\n",
         ["Reorder", "Source"], "sort_values"),
    Read("groupby agg drops missing keys first",
         "def f(pdf):\n    return pdf.groupby('store', as_index=False).agg(total=('amount', 'sum'))\n",
         ["GroupBy", "Filter", "Source"], "pandas_sum"),
    Read("broadcast sum in assign", "def f(pdf):\n    return pdf.assign(total=pdf.amount.sum())\n",
         ["RowTransform", "Source"], "pandas_sum"),
    Read("one-row frame",
         "def f(pdf):\n    return pd.DataFrame({'store': [pdf.store.iloc[0]], 'n': [pdf.v.count()]})\n",
         ["GroupBy", "Source"], "pandas_first"),
    Read("len of the frame in a one-row frame",
         "def f(pdf):\n    return pd.DataFrame({'store': [pdf.store.iloc[0]], 'n': [len(pdf)]})\n",
         ["GroupBy", "Source"], "pandas_size"),
    Read("shape[0] broadcast to every row", "def f(pdf):\n    return pdf.assign(n=pdf.shape[0])\n",
         ["RowTransform", "Source"], "pandas_size"),
    Read("a reference value from .loc[mask, column].values[0]",
         "def f(pdf):\n    base = pdf.loc[pdf.v == 0, 'amount'].values[0]\n    pdf['rel'] = pdf.amount - base\n"
         "    return pdf\n", ["RowTransform", "Source"], "pandas_first_where"),
    Read("the last row's value, by iloc and by to_numpy",
         "def f(pdf):\n    return pdf.assign(last=pdf.v.iloc[-1], first=pdf.v.to_numpy()[0])\n",
         ["RowTransform", "RowTransform", "Source"], "pandas_last"),
    Read("nunique in a one-row frame",
         "def f(pdf):\n    return pd.DataFrame({'store': [pdf.store.iloc[0]], 'k': [pdf.v.nunique()]})\n",
         ["GroupBy", "Source"], "pandas_nunique"),
    Read("groupby().transform gives each row its subgroup's value",
         "def f(pdf):\n    pdf['m'] = pdf.groupby('store')['v'].transform('max')\n    return pdf\n",
         ["RowTransform", "Source"], "pandas_max_by_store"),
    Read("a mask against the group's mean", "def f(pdf):\n    return pdf[pdf.v > pdf.v.mean()]\n",
         ["Filter", "Source"], "pandas_avg"),
    Read("a left merge with a recorded frame is a lookup",
         "import pandas\nSIZES = pandas.DataFrame({'store': ['a', 'b'], 'cls': ['S', 'L']})\n"
         "def f(pdf):\n    return pdf.merge(SIZES, on='store', how='left')\n",
         ["RowTransform", "Source"], "CASE WHEN store = 'a' THEN 'S'"),
    Read("an inner merge drops the rows without a match",
         "import pandas\nSIZES = pandas.DataFrame({'store': ['a', 'b'], 'cls': ['S', 'L']})\n"
         "def f(pdf):\n    return pdf.merge(SIZES, on='store')\n",
         ["RowTransform", "Filter", "Source"], "store = 'a' OR store = 'b'"),
    Read("a frame of the group's series", "def f(pdf):\n    return pd.DataFrame({'store': pdf.store, 'y': pdf.v * 2})\n",
         ["RowTransform", "Source"], "(v * 2)"),
    Read(".loc with a mask and a column list", "def f(pdf):\n    return pdf.loc[pdf.v > 1, ['store', 'v']]\n",
         ["DropColumn", "Filter", "Source"], "coalesce(v > 1, False)"),
    Read(".loc[mask, column] = value sets the column where the mask holds",
         "def f(pdf):\n    pdf.loc[pdf.v > 3, 'v'] = 0\n    return pdf\n",
         ["RowTransform", "Source"], "CASE WHEN coalesce(v > 3, False) THEN 0 ELSE v END"),
    # refused
    Read("a merge with a frame that was not recorded",
         "def f(pdf):\n    return pdf.merge(other, on='store')\n", None, "recorded frame"),
    Read("a merge with a frame whose keys repeat",
         "import pandas\nT = pandas.DataFrame({'store': ['a', 'a'], 'c': [1, 2]})\n"
         "def f(pdf):\n    return pdf.merge(T, on='store')\n", None, "repeat"),
    Read("transform of a function", "def f(pdf):\n    pdf['m'] = pdf.groupby('store')['v'].transform(len)\n"
         "    return pdf\n", None, "transform with the name"),
    Read("the rows of .loc[mask, column] set as a column",
         "def f(pdf):\n    pdf['x'] = pdf.loc[pdf.v > 1, 'v']\n    return pdf\n", None, "aligned by index"),
    Read("head without a sort", "def f(pdf):\n    return pdf.head(2)\n", None, "without a sort"),
    Read("division", "def f(pdf):\n    pdf['r'] = pdf.amount / pdf.v\n    return pdf\n", None, "division"),
    Read("ordering strings", "def f(pdf):\n    return pdf[pdf.store < 'b']\n", None, "comparison <"),
    Read("Series.apply", "def f(pdf):\n    pdf['w'] = pdf.v.apply(abs)\n    return pdf\n", None, "apply"),
    Read("a loop", "def f(pdf):\n    for c in pdf:\n        pass\n    return pdf\n", None, "For"),
    Read("key and frame arguments", "def f(key, pdf):\n    return pdf\n", None, "one argument"),
    Read("a mask from another frame",
         "def f(pdf):\n    top = pdf.sort_values('v')\n    return top[pdf.v > 1]\n", None, "does not belong"),
    Read("a missing column", "def f(pdf):\n    return pdf[pdf.nope > 1]\n", None, "no column 'nope'"),
    Read("a column set through a second name for the same frame",
         "def f(pdf):\n    other = pdf\n    other['v'] = other.v * 0\n    return pdf\n", None,
         "another name"),
    Read("a column named like a DataFrame attribute, read as an attribute",
         "def f(pdf):\n    return pdf[pdf.size > 1]\n", None, "attribute"),
    Read("a long compared with a double", "def f(pdf):\n    return pdf[pdf.n > 2.5]\n", None,
         "long combined"),
    Read("groupby keeping the index", "def f(pdf):\n    return pdf.groupby('store').agg(t=('v', 'sum'))\n",
         None, "as_index=False"),
]


@pytest.mark.parametrize("case", READS, ids=[r.title for r in READS])
def test_body_is_read(case: Read):
    if case.shape is None:
        with pytest.raises(BodyNotRead, match=case.detail):
            body_plan(case.source, INPUTS)
        return
    plan = body_plan(case.source, INPUTS)
    assert shape(plan) == case.shape
    assert case.detail in str(plan) or case.detail in _text(plan)


def _text(plan: P.Plan) -> str:
    """The operator's expressions as the engine prints them."""
    parts = []
    for node in P.nodes(plan):
        for value in vars(node).values():
            parts.append(str(value) if not isinstance(value, tuple) else " ".join(map(_item, value)))
    return " | ".join(parts)


def _item(v) -> str:
    return " ".join(map(str, v)) if isinstance(v, tuple) else str(v)


def test_reading_twice_gives_equal_plans():
    source = "def f(pdf):\n    pdf['y'] = pdf.v * 2\n    return pdf[pdf.y > 3]\n"
    assert body_plan(source, INPUTS) == body_plan(source, INPUTS)
