"""DHP (Discernment of Hierarchical Perturbation) tasks for inspect-ai.

Wang et al., "DHP Benchmark: Are LLMs Good NLG Evaluators?", NAACL Findings 2025. A judge rates good
reference texts and perturbed copies of them, G-Eval style, on each quality metric; the discernment
score says how significantly it rates the perturbed copies lower.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping, Sequence
from functools import partial
from importlib import resources
from pathlib import Path
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.scorer import Metric, Scorer
from inspect_ai.solver import Solver, TaskState

from dhp_tasks.data import DATASETS, DhpDataset, load_pool, select_items
from dhp_tasks.definition import ALL_PERTURBATIONS, DHP
from dhp_tasks.perturbations import (
    KIND_PERTURBATIONS,
    PERTURBATIONS,
    Item,
    Perturbation,
    select_perturbations,
)
from dhp_tasks.prompts import TEXT_KINDS, TextKind
from dhp_tasks.suite import all_perturbations, read_suite, rule_variants
from judge_data import DataError, OptionError, id_field, names_option, optional_text_field, read_jsonl, text_field
from judge_data.providers import check_rating_scoring
from judge_data.recorded import Columns, Place, RecordedJudgments, check_judgments_options, read_judgments
from judge_data.shared_options import Scoring
from scorers.dhp import EXPERT_WEIGHTS_KEY, dhp_discernment, mean_ratings
from scorers.discernment import Combination
from scorers.likelihood import DEFAULT_NORMALIZATION, Normalization, likelihood_scores
from solvers.geval import Criterion, JudgePrompt, rate_criteria
from solvers.judge_template import (
    DHP_PLACEHOLDERS,
    JudgeTemplate,
    check_template_scoring,
    load_judge_template,
    templated_prompt,
)
from solvers.likelihood import score_likelihood
from solvers.reading.formats import AnswerFormat
from solvers.reading.json_answers import check_answer_format
from solvers.recorded import recorded_judgments

logger = logging.getLogger(__name__)

DEFAULTS = DHP.task_defaults("paper")
CUSTOM_DEFAULTS = DHP.task_defaults("custom")

LIKELIHOOD = "likelihood"
"""The one "metric" of ``scoring=perplexity``: the judge's log-likelihood of the text, per token or per byte."""

DEFAULT_EXPERT_WEIGHTS = "expert_weights.json"


def load_expert_weights(
    kind: TextKind, perturbations: Sequence[Perturbation], path: str | Path | None = None
) -> dict[str, dict[str, float]]:
    """Weights per perturbation id for this kind of text, from ``path`` or the bundled default table.

    The file maps kind -> perturbation family (or full id, which wins) -> metric -> votes.
    """
    if path is None:
        source = f"dhp_tasks/{DEFAULT_EXPERT_WEIGHTS}"
        table = json.loads(resources.files("dhp_tasks").joinpath(DEFAULT_EXPERT_WEIGHTS).read_text(encoding="utf-8"))
    else:
        source = str(path)
        try:
            table = json.loads(Path(path).expanduser().read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as error:
            raise DataError(f"expert weights file {source}: {error}") from error
    kind_table = table.get(kind.name) if isinstance(table, Mapping) else None
    if not isinstance(kind_table, Mapping):
        raise DataError(f"expert weights file {source}: no table for kind of text {kind.name!r}")
    metric_names = [criterion.name for criterion in kind.criteria]
    weights: dict[str, dict[str, float]] = {}
    for perturbation in perturbations:
        entry_name = perturbation.id if perturbation.id in kind_table else perturbation.family
        entry = kind_table.get(entry_name)
        if not isinstance(entry, Mapping):
            raise DataError(
                f"expert weights file {source}: {kind.name} has no weights for {perturbation.id!r} "
                f"(or its family {perturbation.family!r})"
            )
        unknown = set(entry) - set(metric_names)
        if unknown:
            raise DataError(
                f"expert weights file {source}: {kind.name}.{entry_name}: unknown metric(s) {sorted(unknown)}"
            )
        for name, votes in entry.items():
            if isinstance(votes, bool) or not isinstance(votes, (int, float)) or not 0 <= votes < float("inf"):
                raise DataError(
                    f"expert weights file {source}: {kind.name}.{entry_name}.{name}: "
                    f"weights must be non-negative numbers, got {votes!r}"
                )
        weights[perturbation.id] = {name: float(entry.get(name, 0.0)) for name in metric_names}
    return weights


def build_samples(
    items: Sequence[Item],
    variants: Mapping[str, Mapping[str, str]],
    perturbations: Sequence[Perturbation],
    dataset: str,
    weights: Mapping[str, Mapping[str, float]],
) -> list[Sample]:
    """The original and every available perturbed variant of each item, item by item; each perturbed variant carries
    its perturbation's expert weights.

    Keeping an item's variants together lets engines with prefix caching reuse its context.
    """
    samples: list[Sample] = []
    for item in items:
        samples.append(_sample(item, item.text, None, dataset, {}))
        samples.extend(
            _sample(item, variants[item.id][perturbation.id], perturbation, dataset, weights[perturbation.id])
            for perturbation in perturbations
            if perturbation.id in variants.get(item.id, {})
        )
    return samples


def _sample(
    item: Item, text: str, perturbation: Perturbation | None, dataset: str, weights: Mapping[str, float]
) -> Sample:
    variant = "original" if perturbation is None else perturbation.id
    return Sample(
        id=f"{item.id}:{variant}",
        input=text,
        metadata={
            "dataset": dataset,
            "item_id": item.id,
            "perturbation": variant,
            "level": None if perturbation is None else perturbation.level,
            "degree": None if perturbation is None else perturbation.degree,
            "method": None if perturbation is None else perturbation.method,
            "k": None if perturbation is None else perturbation.k,
            "context": item.context,
            "response": text,
            **({} if perturbation is None else {EXPERT_WEIGHTS_KEY: dict(weights)}),
        },
    )


def chosen_expert_weights(
    kind: TextKind, chosen: Sequence[Perturbation], metric_names: Sequence[str], expert_weights: str | None
) -> dict[str, dict[str, float]]:
    """The expert weights of the chosen perturbations over the chosen metrics; a perturbation they give no weight
    is an error (its weighted p-value would be undefined)."""
    weights = load_expert_weights(kind, chosen, expert_weights)
    weights = {pid: {m: w for m, w in entry.items() if m in metric_names} for pid, entry in weights.items()}
    unweighted = sorted(pid for pid, entry in weights.items() if sum(entry.values()) <= 0)
    if unweighted:
        raise OptionError(
            f"the expert weights of {unweighted} give no weight to the chosen metrics {list(metric_names)}; "
            "choose other metrics or pass -T expert_weights=<file>"
        )
    return weights


def _recorded_ratings(
    judgments: RecordedJudgments, prompt: JudgePrompt, criteria: Sequence[Criterion], answer_format: AnswerFormat
) -> Solver:
    """Recorded ratings in place of the judge, each read against the prompt its text would have been rated with."""

    def prompts(state: TaskState) -> dict[str, str]:
        text, context = state.metadata["response"], state.metadata.get("context")
        return {criterion.name: prompt.render(criterion, text, context, answer_format) for criterion in criteria}

    names = [criterion.name for criterion in criteria]
    return recorded_judgments(judgments, partial(text_places, {name: name for name in names}), prompts)


def dhp_task(
    name: str,
    kind: TextKind,
    items: Sequence[Item],
    variants: Mapping[str, Mapping[str, str]],
    chosen: Sequence[Perturbation],
    metadata: Mapping[str, Any],
    options: Mapping[str, Any],
    template: JudgeTemplate | None = None,
) -> Task:
    """Assemble a DHP task from items and their variants: samples, the judge, the discernment metric.

    ``options`` are the task's options as :meth:`~judge_data.definitions.SuiteDefinition.arguments` checked them.
    ``scoring="sample"`` rates each text with G-Eval prompts per metric, ``repeats`` answers averaged;
    ``scoring="logprobs"`` asks the same prompts once and takes the expected rating over the top
    log-probabilities of the answer (a parse failure below ``min_mass``); ``scoring="perplexity"``
    scores it by the judge's log-likelihood given its context, with no prompt, divided by the scored tokens
    or (``normalize="byte"``, lm-eval's convention) by the text's UTF-8 bytes (one "metric",
    ``likelihood``; expert weights do not apply). ``answer_format="json"`` asks for the rating as a JSON object
    (sampled ratings only). A ``template`` replaces the G-Eval prompts (rated 1 to ``scale``, default 5). With
    ``judgments`` (recorded judgments, one per text and metric) no model is asked: a recorded answer is read against
    the prompt the text would have been rated with, a value on the prompt's scale.
    """
    scoring, seed, combine, answer_format = (
        options["scoring"],
        options["seed"],
        options["combine"],
        options["answer_format"],
    )
    if scoring == "perplexity":
        return discernment_task(
            name,
            items,
            variants,
            chosen,
            score_likelihood(),
            likelihood_scores([LIKELIHOOD], options["normalize"]),
            [LIKELIHOOD],
            {p.id: {LIKELIHOOD: 1.0} for p in chosen},
            combine,
            {**metadata, "kind": kind.name, "seed": seed, "scoring": scoring, "normalize": options["normalize"]},
        )
    criteria = chosen_criteria(kind, names_option(options.get("metrics")))
    metric_names = [criterion.name for criterion in criteria]
    weights = chosen_expert_weights(kind, chosen, metric_names, options["expert_weights"])
    repeats, temperature, scale = options["repeats"], options["temperature"], options["scale"]
    prompt = templated_prompt(kind.prompt, template, scale)
    judgments = recorded_texts(
        options,
        judgment_columns("score", [c.name for c in kind.criteria], name, kind.name),
        items,
        f"dhp_tasks/{name}",
    )
    if judgments is None:
        solver = rate_criteria(
            prompt, criteria, repeats=repeats, temperature=temperature, scoring=scoring, answer_format=answer_format
        )
    else:
        solver = _recorded_ratings(judgments, prompt, criteria, answer_format)
    return discernment_task(
        name,
        items,
        variants,
        chosen,
        solver,
        mean_ratings(options["min_mass"], answer_format, None if judgments is None else (prompt.low, prompt.high)),
        metric_names,
        weights,
        combine,
        {
            **metadata,
            "kind": kind.name,
            "seed": seed,
            "scoring": scoring,
            "answer_format": answer_format,
            "repeats": 1 if scoring == "logprobs" else repeats,
            "temperature": temperature,
            **({"min_mass": options["min_mass"]} if scoring == "logprobs" else {}),
            **({**template.metadata(), "scale": scale or kind.prompt.high} if template else {}),
            **({"recorded": judgments.metadata()} if judgments else {}),
        },
    )


def judgment_columns(value: str, criteria: Sequence[str], name: str, kind: str) -> Columns:
    """What a DHP task reads from recorded judgments: ``value`` (a ``score``, or a grader's ``grade``) per text, a
    text being an item's ``original`` or a copy under one of the dataset's perturbations (the kind's, for
    ``custom``), on each of ``criteria``."""
    available = all_perturbations(name) if name in DATASETS else KIND_PERTURBATIONS[kind]
    texts = ("original", *(perturbation.id for perturbation in available))
    return Columns(value, criteria, {"perturbation": texts}, answers=value == "score")


def recorded_texts(
    options: Mapping[str, Any], columns: Columns, items: Sequence[Item], task: str
) -> RecordedJudgments | None:
    """The recorded judgments of the task options' ``judgments`` file on these items (``None`` without one)."""
    judgments = read_judgments(options, columns)
    return None if judgments is None else judgments.for_items({item.id: item.id for item in items}, task)


def text_places(criteria: Mapping[str, str | None], state: TaskState) -> dict[str, Place]:
    """Where each named judgment of the sample's text is in recorded judgments: the text's item, the judgment's
    criterion (a metric; none for a grader's one grade), the text's perturbation."""
    item, text = str(state.metadata["item_id"]), (str(state.metadata["perturbation"]),)
    return {name: (item, criterion, text) for name, criterion in criteria.items()}


def discernment_task(
    name: str,
    items: Sequence[Item],
    variants: Mapping[str, Mapping[str, str]],
    chosen: Sequence[Perturbation],
    solver: Solver,
    scorer: Scorer,
    metric_names: Sequence[str],
    weights: Mapping[str, Mapping[str, float]],
    combine: Combination,
    metadata: Mapping[str, Any],
    version: int = DHP.version,
    extra_metrics: Sequence[Metric] = (),
) -> Task:
    """A DHP task from its parts: each reference text and perturbed copy as a sample, the solver that rates them,
    the scorer that reads the ratings and the discernment metric over ``metric_names``, with what every DHP log
    records of its perturbations, weights and combination."""
    return Task(
        dataset=MemoryDataset(build_samples(items, variants, chosen, name, weights), name=f"dhp_{name}"),
        solver=solver,
        scorer=scorer,
        metrics=[dhp_discernment(metric_names, combine=combine), *extra_metrics],
        name=f"dhp_{name}",
        version=version,
        metadata={
            **metadata,
            "task_version": version,
            "metrics": list(metric_names),
            "perturbations": {
                p.id: {"level": p.level, "degree": p.degree, "method": p.method, "k": p.k} for p in chosen
            },
            "expert_weights": weights,
            "combine": combine,
        },
    )


def chosen_criteria(kind: TextKind, metrics: Sequence[str] | None) -> list[Criterion]:
    """The kind's criteria that ``metrics`` names (all of them for ``None``); an unknown name is an option error."""
    criteria = [criterion for criterion in kind.criteria if metrics is None or criterion.name in metrics]
    if metrics is not None and len(criteria) != len(metrics):
        unknown = sorted(set(metrics) - {criterion.name for criterion in kind.criteria})
        raise OptionError(f"unknown metric(s) {unknown} for {kind.name}; choose from {[c.name for c in kind.criteria]}")
    return criteria


def check_options(options: Mapping[str, Any], kind: TextKind, task: str) -> JudgeTemplate | None:
    """What a DHP task's options say together (each alone the definition checked), before any data is read or
    downloaded; the judge template, loaded and checked."""
    scoring = options["scoring"]
    check_rating_scoring(scoring)
    check_answer_format(options["answer_format"], scoring)
    if options["normalize"] != DEFAULT_NORMALIZATION and scoring != "perplexity":
        raise OptionError(f"normalize={options['normalize']} applies to scoring=perplexity, not scoring={scoring}")
    template = load_judge_template(options["judge_template"], DHP_PLACEHOLDERS, task)
    check_template_scoring(template, scoring)
    templated_prompt(kind.prompt, template, options["scale"])  # a scale without a template fails here
    check_judgments_options(options, scoring)
    return template


def requested_perturbations(value: str | Sequence[str] | None) -> list[str] | None:
    """The perturbation ids of ``-T perturbations=``: ``None`` for ``all``; selecting nothing is an error."""
    names = names_option(value)
    if not names:
        raise OptionError(
            "perturbations selects nothing: pass comma-separated perturbation ids, or 'all' (the default)"
        )
    return None if names == [ALL_PERTURBATIONS] else names


def choose_perturbations(available: Sequence[Perturbation], names: list[str] | None) -> list[Perturbation]:
    """``select_perturbations`` with an unknown id reported as an option error."""
    try:
        return select_perturbations(available, names)
    except ValueError as error:
        raise OptionError(str(error)) from error


def perturbations_without_suite(dataset_name: str, names: list[str] | None) -> list[Perturbation]:
    """Without a suite: the ids asked for, or for ``all`` every rule-based row, saying which rows need a suite."""
    if names is not None:
        return choose_perturbations(all_perturbations(dataset_name), names)
    llm_rows = [p.id for p in all_perturbations(dataset_name) if p.method == "llm"]
    if llm_rows:
        logger.warning(
            "%s: without a suite only the rule-based perturbations are judged; the LLM-based ones %s need a suite "
            "(build one with dhp-build and pass -T suite=<file>)",
            dataset_name,
            llm_rows,
        )
    return list(PERTURBATIONS[dataset_name])


def generated_variants(
    items: Sequence[Item], pool: Sequence[Item], chosen: Sequence[Perturbation], seed: int, name: str
) -> dict[str, dict[str, str]]:
    """Rule-based variants made at task time; LLM-based ones only come from a suite file."""
    llm_rows = [p.id for p in chosen if p.method == "llm"]
    if llm_rows:
        raise OptionError(
            f"LLM-based perturbations {llm_rows} come from a suite: build one with dhp-build and pass -T suite=<file>"
        )
    variants, skipped = rule_variants(items, pool, chosen, seed)
    for perturbation_id, count in skipped.items():
        logger.warning(
            "%s: %s could not be applied to %d of %d items; they are left out", name, perturbation_id, count, len(items)
        )
    return variants


def paper_dataset_task(dataset: DhpDataset, options: Mapping[str, Any]) -> Task:
    """A DHP task on one of the paper's datasets, from its public source, a local folder or a built suite;
    ``options`` are the paper tasks' options as the definition checked them (``DHP.arguments("paper", ...)``)."""
    kind = TEXT_KINDS[dataset.kind]
    template = check_options(options, kind, f"dhp_tasks/{dataset.name}")
    items, variants, chosen, metadata = paper_dataset_items(
        dataset, options["data_dir"], options["n"], options["seed"], options["perturbations"], options["suite"]
    )
    return dhp_task(dataset.name, kind, items, variants, chosen, metadata, options, template)


def paper_dataset_items(
    dataset: DhpDataset,
    data_dir: str | None,
    n: int,
    seed: int,
    perturbations: str | Sequence[str] | None,
    suite: str | None,
) -> tuple[list[Item], dict[str, dict[str, str]], list[Perturbation], dict[str, Any]]:
    """A paper dataset's reference texts, their perturbed variants, the chosen perturbations and the metadata saying
    where they came from: a built suite, or the public source or a local folder with the rule-based perturbations."""
    names = requested_perturbations(perturbations)
    if suite is not None:
        built = read_suite(suite)
        if built.header["dataset"] != dataset.name:
            raise OptionError(f"suite {suite} was built for {built.header['dataset']!r}, not {dataset.name!r}")
        items, variants = built.items, built.variants
        chosen = choose_perturbations(built.perturbations(), names)
        metadata = {
            "source": f"suite {suite}",
            "suite": built.header["provenance"],
            "suite_report": built.header["report"],
        }
    else:
        if names is not None:
            choose_perturbations(all_perturbations(dataset.name), names)  # unknown ids fail before any download
        pool = load_pool(dataset, data_dir, n, seed)
        items = select_items(pool, n, seed, dataset.name)
        chosen = perturbations_without_suite(dataset.name, names)
        variants = generated_variants(items, pool, chosen, seed, dataset.name)
        metadata = {"source": str(data_dir) if data_dir else "public source", "n_requested": n, "n_eligible": len(pool)}
    return (
        list(items),
        {item: dict(texts) for item, texts in variants.items()},
        list(chosen),
        {**metadata, "description": dataset.description, "n_items": len(items)},
    )


def _dataset_task(dataset_name: str):
    dataset = DATASETS[dataset_name]

    def dataset_task(
        data_dir: str | None = DEFAULTS["data_dir"],
        n: int = DEFAULTS["n"],
        seed: int = DEFAULTS["seed"],
        perturbations: str | list[str] | None = DEFAULTS["perturbations"],
        repeats: int = DEFAULTS["repeats"],
        temperature: float = DEFAULTS["temperature"],
        expert_weights: str | None = DEFAULTS["expert_weights"],
        combine: Combination = DEFAULTS["combine"],
        suite: str | None = DEFAULTS["suite"],
        scoring: Scoring = DEFAULTS["scoring"],
        min_mass: float = DEFAULTS["min_mass"],
        normalize: Normalization = DEFAULTS["normalize"],
        answer_format: AnswerFormat = DEFAULTS["answer_format"],
        judge_template: str | None = DEFAULTS["judge_template"],
        scale: int | None = DEFAULTS["scale"],
        judgments: str | None = DEFAULTS["judgments"],
        judge: str | None = DEFAULTS["judge"],
        prompt: str | None = DEFAULTS["prompt"],
    ) -> Task:
        """DHP discernment on {description}."""
        return paper_dataset_task(dataset, DHP.arguments("paper", locals()))

    dataset_task.__name__ = dataset_name
    dataset_task.__qualname__ = dataset_name
    return task(name=dataset_name)(DHP.takes("paper", description=dataset.description)(dataset_task))


summeval = _dataset_task("summeval")
sumpubmed = _dataset_task("sumpubmed")
storycloze = _dataset_task("storycloze")
answer_equivalence = _dataset_task("answer_equivalence")
wmt22_de_en = _dataset_task("wmt22_de_en")
wmt22_zh_en = _dataset_task("wmt22_zh_en")


CUSTOM_FILE = "items.jsonl"
"""The file of a ``custom`` task's folder: one ``{"id", "text", "context"?}`` object per line."""


def load_custom_items(folder: str | Path) -> list[Item]:
    """A user's reference texts: ``items.jsonl`` in ``folder``, one ``{"id", "text", "context"?}`` row per line."""
    source = Path(folder).expanduser() / CUSTOM_FILE
    if not source.is_file():
        raise DataError(f"{source} does not exist: data_dir must be a folder holding {CUSTOM_FILE}")
    items = []
    seen: set[str] = set()
    for n, row in read_jsonl(source):
        item_id = id_field(row, "id", source, n)
        if item_id in seen:
            raise DataError(f"{source}, row {n}: duplicate id {item_id!r}")
        seen.add(item_id)
        context = optional_text_field(row, "context", source, n)
        items.append(Item(item_id, text_field(row, "text", source, n).strip(), context))
    if not items:
        raise DataError(f"{source} has no rows")
    return items


@task
@DHP.takes("custom")
def custom(
    data_dir: str,
    kind: str = CUSTOM_DEFAULTS["kind"],
    metrics: str | list[str] | None = CUSTOM_DEFAULTS["metrics"],
    n: int | None = CUSTOM_DEFAULTS["n"],
    seed: int = CUSTOM_DEFAULTS["seed"],
    perturbations: str | list[str] | None = CUSTOM_DEFAULTS["perturbations"],
    repeats: int = CUSTOM_DEFAULTS["repeats"],
    temperature: float = CUSTOM_DEFAULTS["temperature"],
    expert_weights: str | None = CUSTOM_DEFAULTS["expert_weights"],
    combine: Combination = CUSTOM_DEFAULTS["combine"],
    scoring: Scoring = CUSTOM_DEFAULTS["scoring"],
    min_mass: float = CUSTOM_DEFAULTS["min_mass"],
    normalize: Normalization = CUSTOM_DEFAULTS["normalize"],
    answer_format: AnswerFormat = CUSTOM_DEFAULTS["answer_format"],
    judge_template: str | None = CUSTOM_DEFAULTS["judge_template"],
    scale: int | None = CUSTOM_DEFAULTS["scale"],
    judgments: str | None = CUSTOM_DEFAULTS["judgments"],
    judge: str | None = CUSTOM_DEFAULTS["judge"],
    prompt: str | None = CUSTOM_DEFAULTS["prompt"],
) -> Task:
    """DHP discernment on your own reference texts."""
    options = DHP.arguments("custom", locals())
    text_kind = TEXT_KINDS[kind]
    template = check_options(options, text_kind, "dhp_tasks/custom")
    chosen_criteria(text_kind, names_option(metrics))
    chosen = choose_perturbations(KIND_PERTURBATIONS[kind], requested_perturbations(perturbations))
    pool = load_custom_items(data_dir)
    items = select_items(pool, n or len(pool), seed, "custom")
    variants = generated_variants(items, pool, chosen, seed, "custom")
    metadata = {"source": str(data_dir), "n_items": len(items), "n_eligible": len(pool)}
    return dhp_task("custom", text_kind, items, variants, chosen, metadata, options, template)
