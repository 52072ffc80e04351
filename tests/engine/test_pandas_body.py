"""Reading applyInPandas bodies: which pandas forms become which operators, and what is refused."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from magicpush_lab.ir import plan as P
from magicpush_lab.ir.expr import Col
from magicpush_lab.translate.pandas_body import Unsupported, body_plan

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
    # refused
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
        with pytest.raises(Unsupported, match=case.detail):
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
