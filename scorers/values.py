"""Reading numbers back out of inspect score values."""

from __future__ import annotations

import math


def as_float(value: object) -> float:
    """A numeric score value as float; anything else (missing, text, booleans) as NaN."""
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else math.nan
