"""Instruction-adherence tasks for inspect-ai.

Murugadoss et al., "Evaluating the Evaluator: Measuring LLMs' Adherence to Task Evaluation Instructions",
AAAI 2025. The same judge scores human-annotated responses with more and more instruction — its
likelihood of the response alone, a generic quality prompt, the criterion's name, the full rubric —
and its agreement with the humans is compared per criterion, per dataset and per criteria group.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.scorer import Scorer
from inspect_ai.solver import Solver, TaskState

from adherence_tasks.data import DATASETS, AdherenceDataset, packaged_groups, public_folder
from adherence_tasks.definition import ADHERENCE
from adherence_tasks.prompts import PERPLEXITY_SETTING, Question, Setting, questions_for, render
from judge_data import DataError, names_option
from judge_data.human import (
    ITEMS_FILE,
    HumanCriterion,
    HumanItem,
    choose_criteria,
    exclude_systems,
    item_system,
    load_criteria,
    load_items,
    read_groups,
    regroup,
    select_documents,
    select_items,
)
from judge_data.options import OptionError
from judge_data.providers import check_rating_scoring
from judge_data.recorded import Columns, RecordedJudgments, check_judgments_options, read_judgments
from judge_data.shared_options import Scoring
from scorers.adherence import CriterionSpec, ReadAnswer, criterion_ratings, human_agreement
from scorers.likelihood import DEFAULT_NORMALIZATION, Normalization, likelihood_scores
from solvers.judge import sample_prompts
from solvers.judge_template import ADHERENCE_PLACEHOLDERS, JudgeTemplate, check_template_scoring, load_judge_template
from solvers.likelihood import score_likelihood
from solvers.logprobs import logprob_prompts
from solvers.reading.formats import AnswerFormat
from solvers.reading.json_answers import answer_config, check_answer_format
from solvers.reading.logprobs import max_tokens_for, whole_number_scale
from solvers.recorded import recorded_judgments

logger = logging.getLogger(__name__)

DEFAULTS = ADHERENCE.task_defaults("paper")
CUSTOM_DEFAULTS = ADHERENCE.task_defaults("custom")

QUALITY_SETTINGS = (PERPLEXITY_SETTING, "generic")
"""Settings whose score measures quality in general, so it should fall where a lower-is-better criterion rises."""


def logged_setting(setting: str, scoring: str) -> str:
    """The paper's setting a run measures: its setting 1 (``perplexity``) under ``scoring=perplexity``."""
    return PERPLEXITY_SETTING if scoring == "perplexity" else setting


def expected_sign(setting: str, criterion: HumanCriterion) -> int:
    """+1 when agreement with the humans shows as a positive correlation, -1 when as a negative one."""
    return -1 if setting in QUALITY_SETTINGS and not criterion.higher_is_better else 1


def _sample(item: HumanItem, criteria: Sequence[HumanCriterion], dataset: str) -> Sample:
    return Sample(
        id=item.id,
        input=item.response,
        metadata={
            "dataset": dataset,
            "task": item.task,
            "context": item.task,
            "response": item.response,
            "system": item_system(item),
            "human": {
                criterion.name: item.human[criterion.name] for criterion in criteria if criterion.name in item.human
            },
        },
    )


def _prompts(questions: Sequence[Question], task_description: str, template: JudgeTemplate | None):
    def build(state: TaskState) -> Mapping[str, str]:
        meta = state.metadata
        return {
            question.key: render(question, task_description, meta["task"], meta["response"], template)
            for question in questions
        }

    return build


def check_options(options: Mapping[str, Any], task: str) -> JudgeTemplate | None:
    """What an adherence task's options say together (each alone the definition checked), before any data is read or
    downloaded; the judge template, loaded and checked."""
    n, documents, scoring, normalize = options["n"], options["documents"], options["scoring"], options["normalize"]
    if n is not None and documents is not None:
        raise OptionError(f"n={n} draws responses and documents={documents} whole documents; pass one of them")
    check_rating_scoring(scoring)
    check_answer_format(options["answer_format"], scoring)
    if normalize != DEFAULT_NORMALIZATION and scoring != "perplexity":
        raise OptionError(f"normalize={normalize} applies to scoring=perplexity, not scoring={scoring}")
    template = load_judge_template(options["judge_template"], ADHERENCE_PLACEHOLDERS, task)
    check_template_scoring(template, scoring)
    check_judgments_options(options, scoring)
    return template


@dataclass(frozen=True)
class AdherenceData:
    """One dataset's criteria and items as a task judges them."""

    all_criteria: list[HumanCriterion]
    chosen: list[HumanCriterion]
    """The criteria asked about (``criteria``), each in its taxonomy group."""
    items: list[HumanItem]
    excluded: list[str] | None
    """The generating systems left out (``exclude_systems``)."""
    task_description: str


def load_dataset(name: str, folder: Path | None, options: Mapping[str, Any]) -> AdherenceData:
    """The dataset's criteria (regrouped by the packaged assignment and ``groups``) and its items (systems left
    out, then a seeded draw of ``n`` and of ``documents``); ``folder`` ``None`` is the paper dataset's public
    source."""
    groups = options["groups"]
    if folder is None:
        folder = public_folder(DATASETS[name])
    all_criteria, document = load_criteria(folder)
    if name in DATASETS:
        all_criteria = regroup(all_criteria, packaged_groups(name), f"the packaged criteria of {name}")
    if groups is not None:
        all_criteria = regroup(all_criteria, read_groups(groups), f"groups file {groups}")
    chosen = choose_criteria(all_criteria, names_option(options["criteria"]), str(folder))
    if not (folder / ITEMS_FILE).is_file():
        note = document.get("items_available") or "its pointwise human scores are not public"
        raise DataError(
            f"{folder / ITEMS_FILE} is missing: {name} has no public human scores here ({note}). "
            f"Put your own items.jsonl in the same layout into a folder and pass -T data_dir=<folder>."
        )
    excluded = names_option(options["exclude_systems"])
    kept = exclude_systems(load_items(folder, all_criteria), excluded, str(folder))
    items = select_documents(select_items(kept, options["n"], options["seed"]), options["documents"], options["seed"])
    task_description = str(document.get("task_description") or "").strip()
    return AdherenceData(all_criteria, chosen, items, excluded, task_description)


def _judge_prompts(
    chosen: Sequence[HumanCriterion],
    task_description: str,
    template: JudgeTemplate | None,
    judgments: RecordedJudgments | None,
    options: Mapping[str, Any],
) -> tuple[Solver, Scorer, dict[str, Any]]:
    """The solver that asks the setting's questions (or reads recorded answers to them), the scorer that reads the
    answers, and the questions as the log's metadata records them."""
    setting, scoring, answer_format = options["setting"], options["scoring"], options["answer_format"]
    questions, answered_by = questions_for(setting, chosen, answer_format)
    by_key = {question.key: question for question in questions}
    readers = {
        criterion: ReadAnswer(key, by_key[key].low, by_key[key].high, by_key[key].binary)
        for criterion, key in answered_by.items()
    }
    prompts = _prompts(questions, task_description, template)
    if judgments is not None:

        def criterion_prompts(state: TaskState) -> dict[str, str]:
            asked = prompts(state)
            return {criterion: asked[key] for criterion, key in answered_by.items()}

        solver = recorded_judgments(
            judgments, lambda state: {c.name: (str(state.sample_id), c.name, ()) for c in chosen}, criterion_prompts
        )
    elif scoring == "logprobs":
        solver = logprob_prompts(prompts, _logprob_tokens(questions), temperature=options["temperature"])
    else:
        solver = sample_prompts(
            prompts,
            repeats=options["repeats"],
            temperature=options["temperature"],
            configs={question.key: answer_config(question.shape, answer_format) for question in questions},
        )
    scorer = criterion_ratings(readers, scoring, options["min_mass"], answer_format)
    asked = {
        "questions": {
            question.key: {"ask": question.ask, "range": [question.low, question.high], "binary": question.binary}
            for question in questions
        },
        "answered_by": answered_by,
    }
    return solver, scorer, asked


def adherence_task(name: str, folder: Path | None, metadata: Mapping[str, Any], options: Mapping[str, Any]) -> Task:
    """Assemble one dataset under one setting: samples, the judge (prompts or likelihood), the agreement metric;
    ``options`` are the task's options as the definition checked them (``ADHERENCE.arguments(...)``).

    ``scoring``: ``sample`` parses ``repeats`` answers per question, ``logprobs`` reads one answer's top
    log-probabilities, ``perplexity`` asks nothing (``setting`` is unused) and takes the judge's likelihood of the
    response, per scored token or (``normalize="byte"``, lm-eval's convention) per UTF-8 byte.
    ``answer_format="json"`` asks for JSON objects. With ``judgments`` (a file of recorded judgments, one per item and
    criterion) no model is asked: each recorded answer is read against the setting's prompt, each value on the
    criterion's scale.

    ``folder`` is the data (``None``: the paper dataset's public source, fetched once the options are checked).
    Each criterion's taxonomy group is the suite's assignment for a paper dataset (``criteria/<dataset>.json``,
    whatever the data folder's file says), the data's own for ``custom``, and ``groups`` (a JSON file mapping
    criterion names to a group or null) overrides either; a criterion without a group is reported alone and left
    out of the dataset and group means.
    """
    template = check_options(options, f"adherence_tasks/{name}")
    setting, scoring, groups = options["setting"], options["scoring"], options["groups"]
    documents, seed, answer_format = options["documents"], options["seed"], options["answer_format"]
    repeats, temperature, min_mass = options["repeats"], options["temperature"], options["min_mass"]
    normalize = options["normalize"]
    data = load_dataset(name, folder, options)
    chosen, items = data.chosen, data.items
    judgments = read_judgments(options, Columns("score", [criterion.name for criterion in data.all_criteria]))
    if judgments is not None:
        judgments = judgments.for_items({item.id: item.id for item in items}, f"adherence_tasks/{name}")
    measured = logged_setting(setting, scoring)
    if scoring == "perplexity":
        solver = score_likelihood()
        scorer = likelihood_scores([criterion.name for criterion in chosen], normalize)
        asked: dict[str, Any] = {}
    else:
        solver, scorer, asked = _judge_prompts(chosen, data.task_description, template, judgments, options)
    specs = [CriterionSpec(c.name, c.group, expected_sign(measured, c)) for c in chosen]
    return Task(
        dataset=MemoryDataset([_sample(item, chosen, name) for item in items], name=f"adherence_{name}"),
        solver=solver,
        scorer=scorer,
        metrics=[human_agreement(specs)],
        name=f"adherence_{name}_{measured}",
        version=ADHERENCE.version,
        metadata={
            **metadata,
            "task_version": ADHERENCE.version,
            "setting": measured,
            "task_description": data.task_description,
            "scoring": scoring,
            **({} if scoring == "perplexity" else {"answer_format": answer_format}),
            **({"groups": groups} if groups is not None else {}),
            **({"normalize": normalize} if scoring == "perplexity" else {}),
            **({"min_mass": min_mass} if scoring == "logprobs" else {}),
            **(template.metadata() if template else {}),
            **({"recorded": judgments.metadata()} if judgments else {}),
            "exclude_systems": data.excluded,
            "n_items": len(items),
            "documents": documents,
            "n_documents": len({item.task for item in items}),
            "seed": seed,
            "repeats": 1 if scoring == "logprobs" else repeats,
            "temperature": temperature,
            "criteria": {
                c.name: {
                    "group": c.group,
                    "range": [c.low, c.high],
                    "scale": c.scale,
                    "higher_is_better": c.higher_is_better,
                    "expected_sign": expected_sign(measured, c),
                    "has_definition": bool(c.definition),
                    "has_levels": bool(c.rubric),
                }
                for c in chosen
            },
            **asked,
        },
    )


def _logprob_tokens(questions: Sequence[Question]) -> int:
    """Tokens to generate so that every question's answer can be read: a yes/no needs two, a rating its digits."""
    return max(
        2 if question.binary else max_tokens_for(whole_number_scale(question.key, question.low, question.high)[1])
        for question in questions
    )


def _dataset_task(dataset: AdherenceDataset):
    def dataset_task(
        setting: Setting = DEFAULTS["setting"],
        scoring: Scoring = DEFAULTS["scoring"],
        criteria: str | list[str] | None = DEFAULTS["criteria"],
        data_dir: str | None = DEFAULTS["data_dir"],
        exclude_systems: str | list[str] | None = DEFAULTS["exclude_systems"],
        n: int | None = DEFAULTS["n"],
        documents: int | None = DEFAULTS["documents"],
        seed: int = DEFAULTS["seed"],
        repeats: int = DEFAULTS["repeats"],
        temperature: float = DEFAULTS["temperature"],
        min_mass: float = DEFAULTS["min_mass"],
        normalize: Normalization = DEFAULTS["normalize"],
        answer_format: AnswerFormat = DEFAULTS["answer_format"],
        groups: str | None = DEFAULTS["groups"],
        judge_template: str | None = DEFAULTS["judge_template"],
        judgments: str | None = DEFAULTS["judgments"],
        judge: str | None = DEFAULTS["judge"],
        prompt: str | None = DEFAULTS["prompt"],
    ) -> Task:
        """Instruction adherence on {description}."""
        options = ADHERENCE.arguments("paper", locals())
        return paper_dataset_task(dataset.name, options)

    dataset_task.__name__ = dataset.name
    dataset_task.__qualname__ = dataset.name
    return task(name=dataset.name)(ADHERENCE.takes("paper", description=dataset.description)(dataset_task))


def paper_dataset_task(name: str, options: Mapping[str, Any]) -> Task:
    """A paper dataset's task, on its public source or a local folder (``options``: as the definition checked
    them)."""
    data_dir = options["data_dir"]
    return adherence_task(
        name,
        Path(data_dir).expanduser() if data_dir else None,
        {"source": str(data_dir) if data_dir else "public source", "description": DATASETS[name].description},
        options,
    )


summeval = _dataset_task(DATASETS["summeval"])
topicalchat = _dataset_task(DATASETS["topicalchat"])
opinsummeval = _dataset_task(DATASETS["opinsummeval"])
hanna = _dataset_task(DATASETS["hanna"])
thenextchapter = _dataset_task(DATASETS["thenextchapter"])
roscoe = _dataset_task(DATASETS["roscoe"])
roscoe_stepwise = _dataset_task(DATASETS["roscoe_stepwise"])
flask = _dataset_task(DATASETS["flask"])
instrusum = _dataset_task(DATASETS["instrusum"])


@task
@ADHERENCE.takes("custom")
def custom(
    data_dir: str,
    setting: Setting = CUSTOM_DEFAULTS["setting"],
    scoring: Scoring = CUSTOM_DEFAULTS["scoring"],
    criteria: str | list[str] | None = CUSTOM_DEFAULTS["criteria"],
    exclude_systems: str | list[str] | None = CUSTOM_DEFAULTS["exclude_systems"],
    n: int | None = CUSTOM_DEFAULTS["n"],
    documents: int | None = CUSTOM_DEFAULTS["documents"],
    seed: int = CUSTOM_DEFAULTS["seed"],
    repeats: int = CUSTOM_DEFAULTS["repeats"],
    temperature: float = CUSTOM_DEFAULTS["temperature"],
    min_mass: float = CUSTOM_DEFAULTS["min_mass"],
    normalize: Normalization = CUSTOM_DEFAULTS["normalize"],
    answer_format: AnswerFormat = CUSTOM_DEFAULTS["answer_format"],
    groups: str | None = CUSTOM_DEFAULTS["groups"],
    judge_template: str | None = CUSTOM_DEFAULTS["judge_template"],
    judgments: str | None = CUSTOM_DEFAULTS["judgments"],
    judge: str | None = CUSTOM_DEFAULTS["judge"],
    prompt: str | None = CUSTOM_DEFAULTS["prompt"],
) -> Task:
    """Instruction adherence on your own human-annotated data."""
    options = ADHERENCE.arguments("custom", locals())
    folder = Path(data_dir).expanduser()
    if not folder.is_dir():
        raise OptionError(f"data_dir {folder} is not a folder")
    return adherence_task("custom", folder, {"source": str(folder)}, options)
