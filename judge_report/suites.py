"""Finding a run's suite view and reading what every suite logs alike (sample sizes, intervals); each suite
declares its view in ``<suite>_tasks/report.py`` (:class:`judge_data.views.SuiteView`), and :mod:`judge_suites`
lists them."""

from __future__ import annotations

from judge_data.views import Run, SuiteView
from judge_suites import views

VIEWS: tuple[SuiteView, ...] = views()
"""What the report shows of every suite definition."""


def suite_of(run: Run) -> SuiteView | None:
    """The view whose task prefix matches the run's task best (the longest prefix wins)."""
    matches = [(len(prefix), view) for view in VIEWS for prefix in view.task_prefixes if run.task.startswith(prefix)]
    return max(matches, key=lambda match: match[0])[1] if matches else None


def sample_size(run: Run, metric: str) -> float | None:
    """``<base>_n<suffix>`` for ``<base><suffix>``, the items a rate or an agreement rests on, if logged."""
    base, slash, suffix = metric.partition("/")
    return run.metrics.get(f"{base}_n{slash}{suffix}")


def confidence_interval(run: Run, metric: str) -> tuple[float, float] | None:
    """``(<base>_ci_low<suffix>, <base>_ci_high<suffix>)`` for ``<base><suffix>``, the suites' naming, if logged."""
    base, slash, suffix = metric.partition("/")
    low, high = (run.metrics.get(f"{base}_ci_{side}{slash}{suffix}") for side in ("low", "high"))
    return None if low is None or high is None else (low, high)
