"""The time budget's step caps and their scale on a loaded machine (magicpush_lab/budget.py)."""

from __future__ import annotations

import pytest

from magicpush_lab import budget as B

SCALES = [  # (MAGICPUSH_STEP_TIME_SCALE, the scale read or the error's words)
    ("1", 1.0),
    ("4", 4.0),
    ("2.5", 2.5),
    ("0.5", "a number >= 1"),
    ("-3", "a number >= 1"),
    ("fast", "a number >= 1"),
    ("nan", "a number >= 1"),
]


@pytest.mark.parametrize("raw, expected", SCALES, ids=[s[0] for s in SCALES])
def test_the_step_scale_is_read_from_the_environment_and_bad_values_are_refused(monkeypatch, raw, expected):
    monkeypatch.setenv("MAGICPUSH_STEP_TIME_SCALE", raw)
    if isinstance(expected, float):
        assert B._step_scale() == expected
    else:
        with pytest.raises(ValueError, match=expected):
            B._step_scale()


def test_a_scaled_cap_never_outgrows_what_is_left_of_the_budget(monkeypatch):
    from magicpush_lab.symbolic.solver import bounded_by, limit_ms

    monkeypatch.setattr(B, "STEP_SCALE", 4.0)
    assert limit_ms(500) == 2000  # no budget: the cap, scaled
    with bounded_by(B.Budget(1.0)):
        assert 900 < limit_ms(500) <= 1000  # scaled to 2000 ms, but only a second is left
    with bounded_by(B.Budget(100.0)):
        assert limit_ms(B.Budget(100.0).slice_ms(500)) == 2000  # a slice is scaled once, where applied
