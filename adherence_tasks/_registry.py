"""inspect-ai entry point: importing this module registers the ``adherence_tasks/...`` tasks."""

from adherence_tasks.adherence import (
    custom,
    flask,
    hanna,
    instrusum,
    opinsummeval,
    roscoe,
    roscoe_stepwise,
    summeval,
    thenextchapter,
    topicalchat,
)

__all__ = [
    "custom",
    "flask",
    "hanna",
    "instrusum",
    "opinsummeval",
    "roscoe",
    "roscoe_stepwise",
    "summeval",
    "thenextchapter",
    "topicalchat",
]
