"""Task options shared by the suites."""

from __future__ import annotations

from collections.abc import Sequence


def names_option(value: str | Sequence[str] | None) -> list[str] | None:
    """A task option naming several things: ``a,b`` on the command line (inspect may already split it) or a list."""
    if value is None or value == "":
        return None
    parts = value.split(",") if isinstance(value, str) else list(value)
    return [str(part).strip() for part in parts if str(part).strip()]
