"""lm-eval hooks (``!function utils.<name>`` in the YAML files): documents, prompts, answers, aggregations.

Every task builds its items exactly as the inspect task does (it calls the inspect task's own builder and
reads its samples), one lm-eval document per prompt (a CoEval criteria document asks its one prompt at two
temperatures, through :class:`CriteriaListsTask`). ``doc_to_text`` calls the suites' prompt functions,
``process_results`` passes each document's raw answers on untouched, and the aggregations regroup the
answers per sample, parse them with the suites' parsers into the same score values inspect's scorers make,
and compute the same metrics with the same functions in ``scorers/``.

This module is what the YAML files name; each suite's part (options, documents, prompts, metrics) is in its
own module (``dhp.py``, ``fbi.py`` with ``explanations.py``, ``adherence.py``, ``coeval.py``), found through
:data:`SUITES`.

Options come from lm-eval's task metadata (``--metadata '{"data_dir": ..., "n": 5}'``), which lm-eval
passes, together with the model arguments, to ``custom_dataset``; names this task does not know are the
model's and are ignored. Options under a suite's or a task's name (``{"dhp_storycloze": {"n": 5}}``) apply
to that suite or task only. Repeats and temperature are lm-eval's own settings (``repeats`` in the YAML,
``--gen_kwargs``), except in CoEval's criteria tasks. ``answer_format=json`` changes the prompts and how answers
are read, as in inspect; lm-eval has no setting its backends share for passing a response schema, so the schema
is not enforced here.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

from datasets import Dataset, DatasetDict

from judge_data import OptionError
from lm_eval_tasks import adherence, coeval, dhp, explanations, fbi
from lm_eval_tasks.adherence import adherence_prompt
from lm_eval_tasks.coeval import CriteriaListsTask, coeval_prompt, criteria_lists_prompt
from lm_eval_tasks.dhp import dhp_prompt
from lm_eval_tasks.documents import (
    METRIC_NAMES,
    SampleAnswers,
    SuiteHooks,
    YamlClassTask,
    doc_metadata,
    doc_settings,
)
from lm_eval_tasks.explanations import explanation_check
from lm_eval_tasks.fbi import fbi_prompt
from lm_eval_tasks.tasks import (
    CUSTOM,
    EXPLANATIONS,
    LIKELIHOOD_NORMALIZATION,
    TASKS,
    LmEvalTask,
    aggregation_name,
)
from scorers.directions import higher_is_better
from scorers.likelihood import normalized_logprob
from solvers.likelihood import SEPARATOR, response_bytes

__all__ = [
    "CriteriaListsTask",
    "UserDataTask",
    "adherence_prompt",
    "coeval_prompt",
    "collect_answers",
    "collect_criteria_lists",
    "collect_likelihood",
    "criteria_lists_prompt",
    "dhp_prompt",
    "docs",
    "every_answer",
    "explanation_check",
    "fbi_prompt",
    "likelihood_context",
    "likelihood_continuation",
]
"""The hooks the YAML files name, besides the aggregations (``agg_<metric>``, see :func:`__getattr__`)."""

TASK_KEY = "suite_task"
"""Task metadata key naming the row of :data:`TASKS` a YAML file stands for."""

SUITES: dict[str, SuiteHooks] = {
    "dhp": dhp.HOOKS,
    "fbi": fbi.HOOKS,
    "adherence": adherence.HOOKS,
    "coeval": coeval.HOOKS,
}
"""Each suite's part of the hooks, by :attr:`LmEvalTask.suite`."""

USER_DATA = "data_dir"
"""The option that names the user's data folder in every suite's ``custom`` tasks (required)."""


def _option_defaults(task: LmEvalTask) -> Mapping[str, Any]:
    """The options the task takes, with their defaults: its suite's, or the explanation check's (it reads an
    earlier run, none of FBI's data)."""
    if task.dataset == CUSTOM:
        return SUITES[task.suite].custom_options
    if task.variant == EXPLANATIONS:
        return explanations.OPTIONS
    return SUITES[task.suite].options


def _options(task: LmEvalTask, metadata: Mapping[str, Any]) -> dict[str, Any]:
    """The task's options: top-level metadata keys, overridden by those under the suite's name, then under the
    task's name (so one command can point every task at its own data)."""
    given = {**metadata, **(metadata.get(task.suite) or {}), **(metadata.get(task.name) or {})}
    options = {name: given.get(name, default) for name, default in _option_defaults(task).items()}
    if task.dataset == CUSTOM and not options[USER_DATA]:
        raise OptionError(
            f'{task.name} runs on your data: pass --metadata \'{{"{USER_DATA}": "<path>"}}\' '
            f"(the -T {USER_DATA}= option of inspect's {task.suite}_tasks/custom)"
        )
    return options


def docs(**metadata: Any) -> DatasetDict:
    """``custom_dataset``: one document per prompt of every sample the inspect task would judge."""
    task = TASKS[metadata[TASK_KEY]]
    if task.output_type == "loglikelihood" and metadata.get("normalize", LIKELIHOOD_NORMALIZATION) != "byte":
        raise OptionError(
            f"{task.name}: normalize={metadata['normalize']!r} cannot be computed by lm-eval, whose loglikelihood "
            "requests return no token count; its perplexity tasks normalise per UTF-8 byte of the response "
            "(normalize=byte; inspect's tasks compute the same with -T normalize=byte)"
        )
    built = SUITES[task.suite].build_documents(task, _options(task, metadata))
    return DatasetDict({"test": Dataset.from_list(built)})


class UserDataTask(YamlClassTask):
    """A task on the user's data (``*_custom*``): besides the metrics its YAML lists, those every dataset has,
    it reports the ones the data names (per perturbation, criterion, group or annotator), known once its
    documents are built, with the same aggregations and directions as the table's tasks."""

    def __init__(self, config: Mapping[str, Any] | None = None) -> None:
        super().__init__(config)
        documents = self.test_docs()
        named = json.loads(documents[0]["settings"])[METRIC_NAMES] if len(documents) else []
        listed = super().aggregation()
        self.data_metrics = [name for name in named if name not in listed]

    def process_results(self, doc: dict, results: Sequence[Any]) -> dict[str, Any]:
        """The hook's record (the same for every metric) under every metric name, the data's included."""
        listed = super().process_results(doc, results)
        return {**listed, **dict.fromkeys(self.data_metrics, next(iter(listed.values())))}

    def aggregation(self) -> dict[str, Callable[[Sequence[tuple]], float]]:
        """The YAML's aggregations and one for each metric the user's data names."""
        return {**super().aggregation(), **{name: _aggregation(name) for name in self.data_metrics}}

    def higher_is_better(self) -> dict[str, bool]:
        """The YAML's directions and those of the metrics the user's data names."""
        return {**super().higher_is_better(), **{name: higher_is_better(name) for name in self.data_metrics}}


def every_answer(resps: Sequence[Sequence[str]], docs: Sequence[Mapping]) -> Sequence[Sequence[str]]:
    """Filter that keeps every answer of every request (the reference and all sampled lists)."""
    return resps


class Record(NamedTuple):
    """What ``process_results`` hands the aggregations for one document (the same under every metric name)."""

    settings: str
    sample_id: str
    metadata: str
    prompt: str
    """The prompt's name within its sample."""
    answers: Any
    """The raw answers, the criteria lists, or a likelihood."""
    prompt_text: str = ""
    """The prompt the judge answered (generation tasks), which its answers are read against."""


def _task(doc: Mapping[str, str]) -> LmEvalTask:
    return TASKS[doc_settings(doc)["task"]]


def collect_criteria_lists(doc: Mapping[str, str], results: Sequence[Any]) -> dict[str, tuple]:
    """``process_results`` of criteria tasks: the reference answer and the sampled answers, for every metric."""
    reference, sampled = results
    answers = (tuple(reference), tuple(sampled))
    record = Record(doc["settings"], doc["sample_id"], doc["metadata"], doc["prompt"], answers)
    return dict.fromkeys(_task(doc).metrics, record)


def likelihood_context(doc: Mapping[str, str]) -> str:
    """The text the response is conditioned on (empty when there is none)."""
    return doc_metadata(doc).get("context") or ""


def likelihood_continuation(doc: Mapping[str, str]) -> str:
    """The scored text: the response, after the same separator as the inspect likelihood solver's.

    lm-eval (``_encode_pair``) moves the context's trailing whitespace into the continuation and, for causal
    models, cuts the whole text's tokens after as many tokens as the context alone has; without context it
    conditions the response on BOS (EOS without one). ``solvers.likelihood.continuation_split`` scores exactly
    those tokens, so both harnesses sum the same log-probabilities: the separator's and the response's.
    """
    meta = doc_metadata(doc)
    return SEPARATOR + meta["response"] if meta.get("context") else meta["response"]


def collect_answers(doc: Mapping[str, str], results: Sequence[Any]) -> dict[str, tuple]:
    """``process_results`` of generation tasks: the document's raw answers (all repeats) and its prompt, for every
    metric."""
    task = _task(doc)
    prompt_text = SUITES[task.suite].prompt(doc)
    record = Record(doc["settings"], doc["sample_id"], doc["metadata"], doc["prompt"], tuple(results[0]), prompt_text)
    return dict.fromkeys(task.metrics, record)


def collect_likelihood(doc: Mapping[str, str], results: Sequence[Any]) -> dict[str, tuple]:
    """``process_results`` of likelihood tasks: the continuation's log-likelihood per UTF-8 byte of the response.

    lm-eval's ``loglikelihood`` returns the summed log-probability of the continuation's tokens and not
    their number, so the length normalisation is lm-eval's own (per byte, as ``acc_norm`` and
    ``bits_per_byte``): inspect's ``-T normalize=byte``, not its default mean per token.
    """
    log_likelihood, _ = results[0]
    response = doc_metadata(doc)["response"]
    score = normalized_logprob(log_likelihood, LIKELIHOOD_NORMALIZATION, n_bytes=response_bytes(response))
    record = Record(doc["settings"], doc["sample_id"], doc["metadata"], doc["prompt"], score)
    return dict.fromkeys(_task(doc).metrics, record)


def _answers_per_sample(records: Sequence[Record]) -> list[SampleAnswers]:
    """``(sample metadata, {prompt: answers}, {prompt: prompt text})`` per sample, in the order the samples first
    appear."""
    samples: dict[str, SampleAnswers] = {}
    for record in records:
        sample = samples.setdefault(record.sample_id, (json.loads(record.metadata), {}, {}))
        sample[1][record.prompt] = record.answers
        sample[2][record.prompt] = record.prompt_text
    return list(samples.values())


@functools.lru_cache(maxsize=4)
def _task_metrics(records: tuple[Record, ...]) -> dict[str, float]:
    """Every metric of a task from its documents' records (cached: lm-eval asks once per metric name)."""
    if not records:
        return {}
    settings = json.loads(records[0].settings)
    return SUITES[TASKS[settings["task"]].suite].metrics(settings, _answers_per_sample(records))


def _aggregation(metric: str) -> Callable[[Sequence[Record]], float]:
    def aggregate(records: Sequence[Record]) -> float:
        return float(_task_metrics(tuple(records)).get(metric, math.nan))

    aggregate.__name__ = aggregation_name(metric)
    aggregate.__doc__ = f"The task's ``{metric}``, computed as the inspect metric computes it."
    return aggregate


AGGREGATIONS = {aggregation_name(metric): metric for task in TASKS.values() for metric in task.metrics}
"""The aggregation name each YAML file gives a metric (``agg_<metric>``), and the metric."""


def __getattr__(name: str) -> Callable[[Sequence[Record]], float]:
    """``utils.agg_<metric>``, as the YAML files name an aggregation: looked up in :data:`AGGREGATIONS` (PEP 562)."""
    if name in AGGREGATIONS:
        return _aggregation(AGGREGATIONS[name])
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
