"""Showing what was dropped: one warning at the end of a task when many of the judge's answers did not parse, and
one when many of a recorded run's judgments have no row in its file, and the metrics' notes on why a value is
undefined, said once the task's metrics are final.

Every scorer that reads written answers records in its score metadata how many it read and the ones that did not
parse; an inspect hook sums them when the task ends, and lm-eval's aggregations do the same from their records. An
unparsed answer is left out of the statistics, and that is not neutral (an unread tie in FBI pairwise hides a
failure), so the user sees the share and two of the answers, not only a count in the results table.

inspect also computes metrics on the samples scored so far while a run goes on, where a value (an interval, a
correlation) can be undefined for now only; a metric hands its notes to :class:`MetricNotes`, and the same hook says
those of the metric's last computation over every sample of the task, when the task ends.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from inspect_ai.hooks import Hooks, SampleEnd, TaskEnd, hooks
from inspect_ai.log import read_eval_log_async
from inspect_ai.scorer import SampleScore, Score

from scorers.values import MetricFamily

logger = logging.getLogger(__name__)

WARNING_SHARE = 0.05
"""Above this share of unparsed answers a task ends with a warning."""

ANSWERS_READ = "answers_read"
UNPARSED_ANSWERS = "unparsed_answers"
"""Score-metadata keys: how many written answers the scorer read for the sample, and those that did not parse."""

UNANSWERED_JUDGMENTS = "unanswered"
"""Score-metadata key (recorded judgments): the judgments of the sample the file has no row for, by name."""

METRIC_FAMILIES = (MetricFamily("parse_failure", higher_is_better=False, count=True),)
"""``parse_failures`` and ``parse_failure_rate`` (with their per-criterion forms), in every suite."""


PACKAGES = ("dhp_tasks/", "fbi_tasks/", "adherence_tasks/", "coeval_tasks/", "grader_tasks/")
"""Registry prefixes of the tasks whose logs the hook reads from disk when it is handed the header only."""

_EXAMPLE_CHARACTERS = 80


def unparsed_record(answers: Sequence[str], values: Sequence[object]) -> dict[str, Any]:
    """The score metadata of :data:`ANSWERS_READ` and :data:`UNPARSED_ANSWERS` for answers read as ``values``."""
    return {
        ANSWERS_READ: len(answers),
        UNPARSED_ANSWERS: [a for a, v in zip(answers, values, strict=True) if v is None],
    }


def _shortened(answer: str) -> str:
    text = " ".join(answer.split())
    if len(text) > _EXAMPLE_CHARACTERS:
        text = f"{text[: _EXAMPLE_CHARACTERS - 30]} ... {text[-25:]}"
    return repr(text)


def unparsed_warning(task: str, read: int, unparsed: Sequence[str]) -> str | None:
    """The warning line when more than :data:`WARNING_SHARE` of ``read`` answers did not parse, else ``None``."""
    if read == 0 or len(unparsed) / read <= WARNING_SHARE:
        return None
    examples = "; ".join(_shortened(answer) for answer in list(dict.fromkeys(unparsed))[:2])
    return (
        f"{task}: {len(unparsed)} of {read} judge answers ({len(unparsed) / read:.0%}) did not parse and were left "
        f"out of the statistics, e.g. {examples}"
    )


def warn_if_many_unparsed(task: str, read: int, unparsed: Sequence[str]) -> None:
    """Log :func:`unparsed_warning`'s line when there is one."""
    message = unparsed_warning(task, read, unparsed)
    if message is not None:
        logger.warning(message)


def unanswered_warning(task: str, read: int, unanswered: Sequence[str]) -> str | None:
    """The warning line when more than :data:`WARNING_SHARE` of a recorded run's judgments (``read`` of them had a
    row, ``unanswered`` had none) are missing from its file, else ``None``."""
    total = read + len(unanswered)
    if total == 0 or len(unanswered) / total <= WARNING_SHARE:
        return None
    examples = ", ".join(unanswered[:2])
    return (
        f"{task}: {len(unanswered)} of {total} judgments ({len(unanswered) / total:.0%}) have no row in the recorded "
        f"judgments and were left out of the statistics, e.g. {examples}"
    )


@dataclass
class _Tally:
    """What a task's scorers read so far: answers, those unparsed, and the samples counted."""

    read: int = 0
    unparsed: list[str] = field(default_factory=list)
    unanswered: list[str] = field(default_factory=list)
    samples: int = 0

    def add(self, sample_id: object, scores: Mapping[str, Score] | None) -> None:
        for score in (scores or {}).values():
            metadata = score.metadata or {}
            self.read += int(metadata.get(ANSWERS_READ, 0))
            self.unparsed += metadata.get(UNPARSED_ANSWERS, [])
            self.unanswered += [f"{sample_id} {name}" for name in metadata.get(UNANSWERED_JUDGMENTS, [])]

    def warn(self, task: str) -> None:
        warn_if_many_unparsed(task, self.read, self.unparsed)
        message = unanswered_warning(task, self.read, self.unanswered)
        if message is not None:
            logger.warning(message)


class MetricNotes:
    """What one metric has to say of its latest computation (why a value is undefined), kept until its task ends;
    the hook then logs each note once if that computation covered every sample of the task."""

    _latest: dict[int, tuple[MetricNotes, frozenset[str], tuple[str, ...]]] = {}

    def __init__(self) -> None:
        self._said: set[str] = set()
        register_warning_hook()

    def latest(self, scores: Sequence[SampleScore], notes: Sequence[str]) -> None:
        """Keep the notes of this computation over ``scores`` (replacing the previous computation's)."""
        MetricNotes._latest[id(self)] = (self, frozenset(str(score.sample_id) for score in scores), tuple(notes))

    @classmethod
    def say_final(cls, sample_ids: Sequence[str | int]) -> None:
        """Log the notes of every metric whose latest computation covered exactly these samples (a task's, at its
        end), once each, and forget them."""
        ids = frozenset(str(sample_id) for sample_id in sample_ids)
        for key, (owner, seen, notes) in list(cls._latest.items()):
            if seen != ids:
                continue
            del cls._latest[key]
            for note in notes:
                if note not in owner._said:
                    owner._said.add(note)
                    logger.warning(note)


class UnparsedAnswers(Hooks):
    """Sums the scorers' :data:`ANSWERS_READ`, :data:`UNPARSED_ANSWERS` and :data:`UNANSWERED_JUDGMENTS` over a
    task's samples as they end, and warns when the task ends."""

    def __init__(self) -> None:
        self._tallies: dict[str, _Tally] = {}

    async def on_sample_end(self, data: SampleEnd) -> None:
        """Add the sample's counts to its task's tally."""
        tally = self._tallies.setdefault(data.eval_id, _Tally())
        tally.add(data.sample.id, data.sample.scores)
        tally.samples += 1

    async def on_task_end(self, data: TaskEnd) -> None:
        """Warn when too many of the task's answers did not parse.

        The tally kept while the samples ended serves when it holds every sample of the log, so that the finished log
        is not read back (inspect hands its samples over unread, and reading them takes seconds for a large log); a
        log with samples this process did not run (a resumed eval-set reuses its earlier samples) is read instead."""
        log = data.log
        MetricNotes.say_final(log.eval.dataset.sample_ids or [])
        tally = self._tallies.pop(data.eval_id, None)
        if tally is not None and log.results is not None and tally.samples == log.results.completed_samples:
            tally.warn(log.eval.task)
            return
        samples = log.samples
        ours = (log.eval.task_registry_name or "").startswith(PACKAGES)
        if samples is None and ours and log.location:
            # an eval-set hands the hook the log's header only; read the samples without leaving the running event
            # loop (the synchronous reader re-enters it through nest_asyncio, which drains the loop's ready queue
            # under asyncio's own _run_once: "IndexError: pop from an empty deque" when tasks end together)
            samples = (await read_eval_log_async(log.location)).samples
        counted = _Tally()
        for sample in samples or []:
            counted.add(sample.id, sample.scores)
        counted.warn(log.eval.task)


_registered = False


def register_warning_hook() -> None:
    """Register :class:`UnparsedAnswers` with inspect, once per process, when a scorer that reads answers is made.

    Registering when a task is created, not when the package is imported, keeps the hook (and inspect's start-up
    line listing enabled hooks) out of runs of other packages' tasks: inspect imports every plugin's entry point
    when it starts.
    """
    global _registered
    if not _registered:
        hooks(
            name="unparsed_answers",
            description="warns when more than 5% of the judge's answers did not parse, and why final values are NaN",
        )(UnparsedAnswers)
        _registered = True
