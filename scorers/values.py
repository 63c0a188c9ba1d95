"""Reading numbers back out of inspect score values."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence


def as_float(value: object) -> float:
    """A numeric score value as float; anything else (missing, text, booleans) as NaN."""
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else math.nan


def headlines_first(metrics: Mapping[str, float], headlines: Sequence[str]) -> dict[str, float]:
    """The same metrics with ``headlines`` (those present) first: inspect's results table follows the dict's order."""
    return {**{name: metrics[name] for name in headlines if name in metrics}, **metrics}
