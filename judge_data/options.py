"""Task options shared by the suites."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from judge_data.inspect_private import PrerequisiteError


class OptionError(ValueError, PrerequisiteError):
    """A task option (``-T name=value``) that cannot be used; ``inspect eval`` shows the message without a traceback."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def names_option(value: str | Sequence[str] | None) -> list[str] | None:
    """A task option naming several things: ``a,b`` on the command line (inspect may already split it) or a list."""
    if value is None or value == "":
        return None
    parts = value.split(",") if isinstance(value, str) else list(value)
    return [str(part).strip() for part in parts if str(part).strip()]


def builder_model_args(pairs: Sequence[str]) -> dict[str, Any]:
    """The ``-M name=value`` options of the suite-building commands (``dhp-build``, ``fbi-build``) as model
    arguments: ``true``/``false`` as booleans, everything else as text."""
    args: dict[str, Any] = {}
    for pair in pairs:
        name, separator, value = pair.partition("=")
        if not separator:
            raise SystemExit(f"-M expects name=value, got {pair!r}")
        args[name] = {"true": True, "false": False}.get(value.lower(), value)
    return args
