"""CoEval's lm-eval hooks: its options, documents, prompts and metrics, for criteria generation (CC, ICC,
coverage, with :class:`CriteriaListsTask`) and for direct scoring (agreement with the annotators)."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

from lm_eval.api.instance import Instance

from coeval_tasks.criteria import criteria as criteria_task
from coeval_tasks.definition import COEVAL_CRITERIA, COEVAL_SCORING
from coeval_tasks.scoring import custom, paper_dataset_task
from lm_eval_tasks.documents import (
    METRIC_NAMES,
    SampleAnswers,
    SuiteHooks,
    YamlClassTask,
    as_int,
    doc_metadata,
    doc_settings,
    documents,
    task_metadata,
    warn_on_unparsed,
)
from lm_eval_tasks.tasks import CUSTOM, TASKS, LmEvalTask, coeval_metric_names
from scorers.adherence import ReadAnswer, criterion_value
from scorers.coeval import OVERALL, coeval_report
from scorers.criteria_consistency import criteria_lists_means, score_criteria_lists
from solvers.criteria_lists import criteria_prompt
from solvers.stepwise import item_text, scoring_turns

logger = logging.getLogger(__name__)

OPTIONS = {**COEVAL_CRITERIA.lm_eval_defaults("criteria"), **COEVAL_SCORING.lm_eval_defaults("paper")}
"""The options of the tasks on a paper dataset, with their defaults: ``criteria`` and ``answer_format`` apply to
the scoring tasks, ``tasks_file``, ``samples``, ``temperature``, ``embedder`` and ``match_threshold`` to the
criteria tasks. There, as in inspect, ``samples`` and ``temperature`` set the sampled lists, and the reference
list is always asked at temperature 0."""

CUSTOM_OPTIONS = COEVAL_SCORING.lm_eval_defaults("custom")
"""The options of the ``custom`` tasks, with their defaults."""

CRITERIA_PROMPT = "criteria"
"""The one "prompt" of a criteria document: the request for evaluation criteria (and the criteria tasks'
variant)."""


def build_documents(task: LmEvalTask, options: dict[str, Any]) -> list[dict[str, str]]:
    """One document per task description (criteria tasks) or per human-scored response (scoring tasks)."""
    numbers = {"n": as_int(options["n"]), "seed": int(options["seed"])}
    if task.variant == CRITERIA_PROMPT:
        chosen = {
            **options,
            **numbers,
            "dataset": task.dataset,
            "samples": int(options["samples"]),
            "temperature": float(options["temperature"]),
            "embedder": str(options["embedder"]),
            "match_threshold": float(options["match_threshold"]),
        }
        built = criteria_task(**COEVAL_CRITERIA.arguments("criteria", chosen))
        keys = ("samples", "temperature", "embedder", "match_threshold")
        return documents(
            built.dataset, [CRITERIA_PROMPT], {"task": task.name, **{k: task_metadata(built)[k] for k in keys}}
        )
    chosen = {**options, **numbers, "mode": task.variant}
    if task.dataset == CUSTOM:
        built = custom(**COEVAL_SCORING.arguments("custom", chosen))
    else:
        built = paper_dataset_task(task.dataset, COEVAL_SCORING.arguments("paper", chosen))
    low, high = task_metadata(built)["overall_range"]
    settings = {
        "task": task.name,
        "mode": task.variant,
        "task_description": task_metadata(built)["task_description"],
        "criteria": list(task_metadata(built)["criteria"]),
        "low": low,
        "high": high,
        "answer_format": task_metadata(built)["answer_format"],
    }
    if task.dataset == CUSTOM:
        annotators = dict.fromkeys(
            name for sample in built.dataset for name in (sample.metadata or {}).get("annotator_ids", [])
        )
        settings[METRIC_NAMES] = coeval_metric_names(list(annotators))
    return documents(built.dataset, [OVERALL], settings)


def _criteria_request(meta: Mapping[str, Any]) -> str:
    return criteria_prompt(meta["task"], meta["example_input"], meta["example_output"])


def criteria_lists_prompt(doc: Mapping[str, str]) -> str:
    """The request for evaluation criteria of one task description (``criteria_prompt``, as inspect asks it)."""
    return _criteria_request(doc_metadata(doc))


def coeval_prompt(doc: Mapping[str, str]) -> str:
    """The direct-mode question about one response (``scoring_turns``, as the inspect solver asks it; direct
    mode asks about no criterion)."""
    settings, meta = doc_settings(doc), doc_metadata(doc)
    opening = item_text(settings["task_description"], meta["task"], meta["response"])
    [(_, question)] = scoring_turns(
        settings["mode"], opening, (), settings["low"], settings["high"], answer_format=settings["answer_format"]
    )
    return question


class CriteriaListsTask(YamlClassTask):
    """A CoEval criteria task: per task description one request at temperature 0 (the reference list) and one
    repeated ``samples`` times at ``temperature``, the two settings of the inspect solver.

    lm-eval gives a task one set of generation settings; this class overrides ``construct_requests`` only,
    so the two requests start from the task's ``generation_kwargs`` (and ``--gen_kwargs``) and differ in
    temperature and sampling alone.
    """

    def construct_requests(self, doc: dict, ctx: Any, **kwargs: Any) -> list[Instance]:
        """Two requests per document: the reference list at temperature 0 and the sampled lists."""
        kwargs.pop("apply_chat_template", None)
        kwargs.pop("chat_template", None)
        task_name, doc_id, _ = kwargs.pop("metadata")
        settings = doc_settings(doc)
        reference = {**self.config.generation_kwargs, "temperature": 0.0, "do_sample": False}
        sampled = {**self.config.generation_kwargs, "temperature": float(settings["temperature"]), "do_sample": True}
        return [
            Instance("generate_until", doc, (ctx, reference), 0, (task_name, doc_id, 1), **kwargs),
            Instance("generate_until", doc, (ctx, sampled), 1, (task_name, doc_id, int(settings["samples"])), **kwargs),
        ]


def _warn_if_sampling_repeated(settings: Mapping[str, Any], sampled_per_document: Sequence[Sequence[str]]) -> None:
    """Warn when every document's sampled lists are one text repeated: at a temperature above 0 that is the
    backend's fixed seed (lm-eval's API backends send the ``seed`` model argument with every request), not the
    judge's consistency, and ICC = 1 then says nothing."""
    repeated = [len(set(sampled)) == 1 for sampled in sampled_per_document if len(sampled) > 1]
    if float(settings["temperature"]) > 0 and repeated and all(repeated):
        logger.warning(
            "%s: every task description's %d sampled lists are one text repeated at temperature %s; with an API "
            "backend this is lm-eval's fixed per-request seed, not the judge: CC and ICC are NaN (identical lists). "
            "Use lm-eval's vllm or hf backend, or inspect.",
            settings["task"],
            settings["samples"],
            settings["temperature"],
        )


def metrics(settings: Mapping[str, Any], samples: Sequence[SampleAnswers]) -> dict[str, float]:
    """CC, ICC and coverage of the criteria lists, or the direct scores' agreement with the annotators."""
    if TASKS[settings["task"]].variant == CRITERIA_PROMPT:
        values = []
        for meta, answers, _ in samples:
            reference, sampled = answers[CRITERIA_PROMPT]
            scored = score_criteria_lists(
                _criteria_request(meta),
                reference[0] if reference else "",
                sampled,
                meta["curated"],
                settings["embedder"],
                settings["match_threshold"],
            )
            values.append(scored.value)
        _warn_if_sampling_repeated(settings, [answers[CRITERIA_PROMPT][1] for _, answers, _ in samples])
        return criteria_lists_means(values)
    readers = {OVERALL: ReadAnswer(OVERALL, settings["low"], settings["high"], False)}
    rows, read = [], []
    for meta, answers, prompts in samples:
        value, parsed = criterion_value(readers, {OVERALL: answers[OVERALL]}, prompts, settings["answer_format"])
        rows.append((value, meta))
        read += list(zip(answers[OVERALL], parsed[OVERALL], strict=True))
    warn_on_unparsed(settings, read)
    report, undefined = coeval_report(rows, settings["criteria"], criterion_scores=False)
    for name, reason in undefined:
        logger.warning("%s: %s is undefined (NaN): %s", settings["task"], name, reason)
    return report


HOOKS = SuiteHooks(OPTIONS, CUSTOM_OPTIONS, build_documents, coeval_prompt, metrics)
"""CoEval's part of the hooks (its criteria tasks' answers are lists, read without their prompt)."""
