"""inspect-ai entry point: importing this module registers the ``fbi_tasks/...`` tasks."""

from fbi_tasks.fbi import pairwise, reference, single

__all__ = ["pairwise", "reference", "single"]
