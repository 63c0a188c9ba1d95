"""inspect-ai entry point: importing this module registers the ``scorers/...`` scorers and metrics.

inspect loads it when a name such as ``scorers/mean_ratings`` is looked up, as ``inspect score LOG
--scorer scorers/mean_ratings`` does to re-score a finished log.
"""

import scorers.adherence
import scorers.coeval
import scorers.consistency
import scorers.dhp
import scorers.fbi
import scorers.grader
import scorers.labels

__all__ = ["scorers"]
