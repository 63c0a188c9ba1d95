"""What every suite's lm-eval hooks share: the documents' fields, reading them back, and a suite's hooks.

A document is one prompt of one sample, with text fields only (lm-eval keeps documents in a ``datasets``
table and writes them to its samples file): ``sample_id``, ``prompt`` (the prompt's name within the sample),
``metadata`` (the sample's metadata as JSON) and ``settings`` (the task's settings as JSON, the same in every
document of a task, which the prompts and the metrics read back).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, NamedTuple

from inspect_ai import Task
from inspect_ai.dataset import Sample
from lm_eval.api.task import ConfigurableTask

from lm_eval_tasks.tasks import LmEvalTask
from scorers.unparsed import warn_if_many_unparsed

METRIC_NAMES = "metric_names"
"""Settings key of a ``custom`` task: every metric it reports, named after the user's data."""

LIKELIHOOD_PROMPT = "likelihood"
"""The one "prompt" of a likelihood document: the response given its context."""

SampleAnswers = tuple[dict[str, Any], dict[str, Any], dict[str, str]]
"""One sample as the metrics read it: ``(sample metadata, {prompt: answers}, {prompt: prompt text})``."""


class SuiteHooks(NamedTuple):
    """A suite's part of the hooks: ``utils.py`` looks the suite of a task up and calls these."""

    options: Mapping[str, Any]
    """The options of its tasks on packaged data (the inspect task's ``-T`` options that choose the items),
    with their defaults."""
    custom_options: Mapping[str, Any]
    """The options of its ``custom`` tasks (on the user's data); empty for a suite without them."""
    build_documents: Callable[[LmEvalTask, dict[str, Any]], list[dict[str, str]]]
    """The documents of a task, given its options."""
    prompt: Callable[[Mapping[str, str]], str]
    """The prompt a generation document's answers reply to, which they are read against."""
    metrics: Callable[[Mapping[str, Any], Sequence[SampleAnswers]], dict[str, float]]
    """Every metric of a task from its settings and its samples' answers."""


def as_int(value: Any) -> int | None:
    """A count or seed from lm-eval's metadata (``None`` where the option means "all")."""
    return None if value is None else int(value)


def documents(
    samples: Iterable[Sample], prompt_names: Sequence[str], settings: Mapping[str, Any]
) -> list[dict[str, str]]:
    """Each sample's prompts, one document each, the sample's metadata and the task's settings as JSON text."""
    shared = json.dumps(settings, sort_keys=True)
    return [
        {"sample_id": str(sample.id), "prompt": name, "metadata": json.dumps(sample.metadata), "settings": shared}
        for sample in samples
        for name in prompt_names
    ]


def task_metadata(task: Task) -> dict[str, Any]:
    """The inspect task's metadata (every builder sets it): what it chose, which the documents' settings copy."""
    return dict(task.metadata or {})


def doc_metadata(doc: Mapping[str, str]) -> dict[str, Any]:
    """A document's sample metadata."""
    return json.loads(doc["metadata"])


def doc_settings(doc: Mapping[str, str]) -> dict[str, Any]:
    """A document's task settings."""
    return json.loads(doc["settings"])


def warn_on_unparsed(settings: Mapping[str, Any], read: Sequence[tuple[str, Any]]) -> None:
    """The warning inspect's hook gives at the end of a task, from ``(answer, value read)`` pairs."""
    warn_if_many_unparsed(settings["task"], len(read), [answer for answer, value in read if value is None])


class YamlClassTask(ConfigurableTask):
    """A task class that a YAML file names with its ``class`` key."""

    def __init__(self, config: Mapping[str, Any] | None = None) -> None:
        # lm-eval 0.4.13 passes the YAML's ``class`` key on to TaskConfig, which has no such field
        super().__init__(config={key: value for key, value in (config or {}).items() if key != "class"})
