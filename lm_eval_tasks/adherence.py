"""Instruction adherence's lm-eval hooks: its options, documents, questions and agreement metrics."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

from adherence_tasks.adherence import custom, paper_dataset_task
from adherence_tasks.definition import ADHERENCE
from adherence_tasks.prompts import PERPLEXITY_SETTING, Question, render
from lm_eval_tasks.documents import (
    LIKELIHOOD_PROMPT,
    METRIC_NAMES,
    SampleAnswers,
    SuiteHooks,
    as_int,
    doc_metadata,
    doc_settings,
    documents,
    task_metadata,
    warn_on_unparsed,
)
from lm_eval_tasks.tasks import CUSTOM, LmEvalTask, adherence_metric_names
from scorers.adherence import CriterionSpec, ReadAnswer, agreement_metrics, criterion_value
from scorers.likelihood import likelihood_value

logger = logging.getLogger(__name__)

OPTIONS = ADHERENCE.lm_eval_defaults("paper")
"""The options of every adherence task, the ``custom`` ones included, with their defaults."""


def build_documents(task: LmEvalTask, options: dict[str, Any]) -> list[dict[str, str]]:
    """One document per question about every response the inspect task asks about (one per response in the
    likelihood setting)."""
    likelihood = task.variant == PERPLEXITY_SETTING
    chosen: dict[str, Any] = {
        **options,
        "setting": ADHERENCE.default("setting") if likelihood else task.variant,
        "scoring": "perplexity" if likelihood else "sample",
        "n": as_int(options["n"]),
        "documents": as_int(options["documents"]),
        "seed": int(options["seed"]),
    }
    if task.dataset == CUSTOM:
        built = custom(**ADHERENCE.arguments("custom", chosen))
    else:
        built = paper_dataset_task(task.dataset, ADHERENCE.arguments("paper", chosen))
    meta = task_metadata(built)
    settings: dict[str, Any] = {
        "task": task.name,
        "setting": task.variant,
        "criteria": [[name, info["group"], info["expected_sign"]] for name, info in meta["criteria"].items()],
    }
    if task.dataset == CUSTOM:
        named = [(name, info["group"]) for name, info in meta["criteria"].items()]
        settings[METRIC_NAMES] = adherence_metric_names(named, task.variant)
    if likelihood:
        return documents(built.dataset, [LIKELIHOOD_PROMPT], settings)
    settings["answer_format"] = meta["answer_format"]
    settings["task_description"] = meta["task_description"]
    settings["questions"] = {
        key: [*question["range"], question["binary"], question["ask"]] for key, question in meta["questions"].items()
    }
    settings["answered_by"] = meta["answered_by"]
    return documents(built.dataset, list(meta["questions"]), settings)


def adherence_prompt(doc: Mapping[str, str]) -> str:
    """One question about one response, rendered as the inspect task renders it."""
    settings = doc_settings(doc)
    low, high, binary, ask = settings["questions"][doc["prompt"]]
    meta = doc_metadata(doc)
    return render(
        Question(doc["prompt"], low, high, binary, ask), settings["task_description"], meta["task"], meta["response"]
    )


def metrics(settings: Mapping[str, Any], samples: Sequence[SampleAnswers]) -> dict[str, float]:
    """The agreement of the judge's criterion values (answers read, or likelihoods) with the human scores."""
    specs = [CriterionSpec(name, group, sign) for name, group, sign in settings["criteria"]]
    if settings["setting"] == PERPLEXITY_SETTING:
        names = [spec.name for spec in specs]
        values = [(meta, likelihood_value(names, answers[LIKELIHOOD_PROMPT])) for meta, answers, _ in samples]
    else:
        questions, answer_format = settings["questions"], settings["answer_format"]
        readers = {
            criterion: ReadAnswer(key, *questions[key][:3]) for criterion, key in settings["answered_by"].items()
        }
        values, read = [], []
        for meta, answers, prompts in samples:
            value, parsed = criterion_value(readers, answers, prompts, answer_format)
            values.append((meta, value))
            read += [pair for key, numbers in parsed.items() for pair in zip(answers[key], numbers, strict=True)]
        warn_on_unparsed(settings, read)
    report, _, notes = agreement_metrics(specs, values)
    subjects = {"pearson_ci": "the interval of pearson", "system_tau": "system_tau"}
    for name, reason in notes.items():
        logger.warning("%s: %s is undefined (NaN): %s", settings["task"], subjects[name], reason)
    return report


HOOKS = SuiteHooks(OPTIONS, OPTIONS, build_documents, adherence_prompt, metrics)
"""Instruction adherence's part of the hooks (its ``custom`` tasks take the same options)."""
