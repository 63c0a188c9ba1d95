"""inspect-ai entry point: importing this module registers the ``coeval_tasks/...`` tasks."""

from coeval_tasks.criteria import criteria
from coeval_tasks.scoring import custom, eli5, rocstories, self_instruct

__all__ = ["criteria", "custom", "eli5", "rocstories", "self_instruct"]
