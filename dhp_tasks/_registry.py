"""inspect-ai entry point: importing this module registers the ``dhp_tasks/...`` tasks."""

from dhp_tasks.dhp import (
    answer_equivalence,
    custom,
    storycloze,
    summeval,
    sumpubmed,
    wmt22_de_en,
    wmt22_zh_en,
)
from dhp_tasks.grader import grader

__all__ = [
    "answer_equivalence",
    "custom",
    "grader",
    "storycloze",
    "summeval",
    "sumpubmed",
    "wmt22_de_en",
    "wmt22_zh_en",
]
