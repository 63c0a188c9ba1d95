"""The judge meta-evaluation suites as lm-evaluation-harness tasks.

lm-eval 0.4.13 finds external tasks only through ``--include_path``; this folder is that path::

    lm_eval --tasks dhp_storycloze --include_path "$(judge-meta-eval-tasks)" ...
"""

from __future__ import annotations

from pathlib import Path

TASK_DIR = str(Path(__file__).resolve().parent)
"""The folder of the YAML task files, for ``--include_path`` or ``TaskManager(include_path=TASK_DIR)``."""

JUDGMENTS_OPTION = "judgments"
"""Task metadata of ``fbi_explanations``: the judge run's ``--log_samples`` file whose explanations it checks
(read by the task, and by ``judge-report`` to find that run's judge)."""


def main() -> None:
    """Print :data:`TASK_DIR` (console script ``judge-meta-eval-tasks``)."""
    print(TASK_DIR)
