"""inspect-ai entry point: importing this module registers the ``grader_tasks/...`` tasks."""

from grader_tasks.agreement import agreement

__all__ = ["agreement"]
