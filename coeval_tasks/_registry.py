"""inspect-ai entry point: importing this module registers the ``coeval_tasks/...`` tasks."""

from coeval_tasks.criteria import criteria

__all__ = ["criteria"]
