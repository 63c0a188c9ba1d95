"""inspect-ai entry point: importing this module registers the ``fbi_tasks/...`` tasks."""

from fbi_tasks.fbi import pairwise, reference, single
from fbi_tasks.grader import grader

__all__ = ["grader", "pairwise", "reference", "single"]
