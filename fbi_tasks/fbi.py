"""FBI (Finding Blind spots in evaluator LLMs) tasks for inspect-ai.

Doddapaneni et al., "Finding Blind Spots in Evaluator LLMs with Interpretable Checklists", EMNLP 2024.
Each item is a question with a gold answer and a copy carrying one targeted error; a good judge
penalises the copy. The metric is how often it does not.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.solver import TaskState

from fbi_tasks.build import suite_selection
from fbi_tasks.data import FbiItem, FbiSelection, load_items
from fbi_tasks.definition import FBI
from fbi_tasks.prompts import (
    AXES,
    DEFAULT_SCALE,
    EXPLAINED,
    PAIRWISE_STRATEGIES,
    REFERENCE_STRATEGIES,
    SINGLE_STRATEGIES,
    explanation_check_prompt,
    pairwise_prompt,
    rating_shape,
    reference_prompt,
    single_prompt,
)
from judge_data import OptionError, names_option
from scorers.fbi import Paradigm, blind_spot_judgments, blind_spot_rates
from solvers.judge import answer_prompts
from solvers.judge_template import FBI_PLACEHOLDERS, JudgeTemplate, load_judge_template
from solvers.reading.formats import AnswerFormat
from solvers.reading.json_answers import answer_config, check_answer_format
from solvers.reading.logprobs import (
    RatingScoring,
    check_rating_scoring,
    logprob_prompts,
    max_tokens_for,
)
from solvers.reading.shapes import VERDICT

DEFAULTS = FBI.default_values

STRATEGIES: dict[Paradigm, tuple[str, ...]] = {
    "single": SINGLE_STRATEGIES,
    "pairwise": PAIRWISE_STRATEGIES,
    "reference": REFERENCE_STRATEGIES,
}


def _sample(item: FbiItem) -> Sample:
    return Sample(
        id=f"{item.category}/{item.id}",
        input=item.question,
        target=item.gold,
        metadata={
            "ability": item.ability,
            "category": item.category,
            "invariant": item.invariant,
            "axis_ability": item.axis_ability,
            "question": item.question,
            "gold": item.gold,
            "perturbed": item.perturbed,
        },
    )


def judge_prompts(
    paradigm: Paradigm,
    strategy: str,
    scale: int,
    meta: Mapping[str, Any],
    rating_only: bool = False,
    answer_format: AnswerFormat = "text",
    template: JudgeTemplate | None = None,
) -> dict[str, str]:
    """The named prompts that judge one item (its sample metadata) under a paradigm and strategy.

    ``rating_only`` asks single and reference judges for the rating alone (``scoring=logprobs`` reads it
    from the first generated tokens); ``answer_format="json"`` asks for a JSON object. A ``template`` replaces each
    prompt, its ``{request}`` being the strategy prompt's closing request.
    """
    prompts = _strategy_prompts(paradigm, strategy, scale, meta, rating_only, answer_format)
    if template is None:
        return prompts
    question, gold, perturbed = meta["question"], meta["gold"], meta["perturbed"]
    shown = {
        "gold": {"answer": gold},
        "perturbed": {"answer": perturbed, "reference": gold},
        "gold_first": {"answer_a": gold, "answer_b": perturbed},
        "gold_second": {"answer_a": perturbed, "answer_b": gold},
    }
    return {
        name: template.render(question=question, low=1, high=scale, request=prompt.rsplit("\n\n", 1)[-1], **shown[name])
        for name, prompt in prompts.items()
    }


def _strategy_prompts(
    paradigm: Paradigm,
    strategy: str,
    scale: int,
    meta: Mapping[str, Any],
    rating_only: bool,
    answer_format: AnswerFormat,
) -> dict[str, str]:
    axis = AXES[meta["axis_ability"]]
    question, gold, perturbed = meta["question"], meta["gold"], meta["perturbed"]
    if paradigm == "single":
        return {
            name: single_prompt(strategy, question, meta[name], scale, axis, rating_only, answer_format)
            for name in ("gold", "perturbed")
        }
    if paradigm == "pairwise":
        return {
            "gold_first": pairwise_prompt(strategy, question, gold, perturbed, axis, answer_format),
            "gold_second": pairwise_prompt(strategy, question, perturbed, gold, axis, answer_format),
        }
    return {"perturbed": reference_prompt(question, gold, perturbed, scale, rating_only, answer_format)}


def _prompts(
    paradigm: Paradigm,
    strategy: str,
    scale: int,
    rating_only: bool,
    answer_format: AnswerFormat,
    template: JudgeTemplate | None,
):
    def build(state: TaskState) -> Mapping[str, str]:
        return judge_prompts(paradigm, strategy, scale, state.metadata, rating_only, answer_format, template)

    return build


def fbi_task(
    paradigm: Paradigm,
    strategy: str,
    *,
    data_dir: str | None = DEFAULTS["data_dir"],
    abilities: str | Sequence[str] | None = DEFAULTS["abilities"],
    categories: str | Sequence[str] | None = DEFAULTS["categories"],
    per_category: int | None = DEFAULTS["per_category"],
    seed: int = DEFAULTS["seed"],
    scale: int | None = DEFAULTS["scale"],
    include_extra: bool = DEFAULTS["include_extra"],
    temperature: float = DEFAULTS["temperature"],
    hub_revision: str | None = DEFAULTS["hub_revision"],
    keep_identical: bool = DEFAULTS["keep_identical"],
    scoring: RatingScoring = DEFAULTS["scoring"],
    min_mass: float = DEFAULTS["min_mass"],
    answer_format: AnswerFormat = DEFAULTS["answer_format"],
    judge_template: str | None = DEFAULTS["judge_template"],
    suite: str | None = DEFAULTS["suite"],
) -> Task:
    """Assemble one FBI strategy: items, the judge prompts, the failure-rate metric.

    ``scoring="logprobs"`` (single and reference) asks each strategy's prompt with a request for the bare
    rating instead of an explanation followed by ``Rating: [[n]]``, since a score read from
    log-probabilities must be the first thing the judge writes; the explanation check then has nothing
    to check.
    """
    if strategy not in STRATEGIES[paradigm]:
        raise OptionError(f"unknown {paradigm} strategy {strategy!r}; choose from {list(STRATEGIES[paradigm])}")
    if scoring == "logprobs" and paradigm == "pairwise":
        raise OptionError("scoring=logprobs reads ratings; pairwise verdicts are only sampled")
    FBI.check(per_category=per_category, scoring=scoring, answer_format=answer_format)
    check_rating_scoring(scoring, min_mass)
    check_answer_format(answer_format, scoring)
    scale = scale or DEFAULT_SCALE.get(strategy, 10)
    if strategy in ("rubric", "axis_rubric") and scale not in (3, 5):
        raise OptionError(f"{strategy} scores on 1-3 or 1-5 (the paper's two rubric ranges), not 1-{scale}")
    template = load_judge_template(judge_template, FBI_PLACEHOLDERS[paradigm], f"fbi_tasks/{paradigm}")
    selection, source = select_items(
        suite, data_dir, abilities, categories, per_category, seed, include_extra, hub_revision, keep_identical
    )
    if scoring == "logprobs":
        solver = logprob_prompts(
            _prompts(paradigm, strategy, scale, True, answer_format, template), max_tokens_for(scale), temperature
        )
        check_prompt = None
    else:
        shape = VERDICT if paradigm == "pairwise" else rating_shape(scale)
        solver = answer_prompts(
            _prompts(paradigm, strategy, scale, False, answer_format, template),
            temperature=temperature,
            config=answer_config(shape, answer_format),
        )
        check_prompt = partial(explanation_check_prompt, answer_format=answer_format) if strategy in EXPLAINED else None
    return Task(
        dataset=MemoryDataset([_sample(item) for item in selection.items], name=f"fbi_{paradigm}"),
        solver=solver,
        scorer=blind_spot_judgments(paradigm, scale, check_prompt, scoring, min_mass, answer_format),
        metrics=[blind_spot_rates(paradigm)],
        name=f"fbi_{paradigm}_{strategy}",
        version=FBI.version,
        metadata={
            "task_version": FBI.version,
            "paradigm": paradigm,
            "strategy": strategy,
            "scoring": scoring,
            "answer_format": answer_format,
            **({"min_mass": min_mass, "prompt": "rating only, no explanation"} if scoring == "logprobs" else {}),
            "scale": None if paradigm == "pairwise" else scale,
            "n_items": len(selection.items),
            **source,
            "keep_identical": keep_identical,
            "left_out_identical": [f"{item.category}/{item.id}" for item in selection.unchanged],
            **(template.metadata() if template else {}),
        },
    )


def select_items(
    suite: str | None,
    data_dir: str | None,
    abilities: str | Sequence[str] | None,
    categories: str | Sequence[str] | None,
    per_category: int | None,
    seed: int,
    include_extra: bool,
    hub_revision: str | None,
    keep_identical: bool,
) -> tuple[FbiSelection, dict[str, Any]]:
    """The items a task judges and where they came from: an ``fbi-build`` suite file, or the authors' release
    (local ``data_dir`` or the hub) narrowed by the item options."""
    if suite is not None:
        return suite_selection(suite, categories)
    selection = load_items(
        data_dir,
        names_option(abilities),
        names_option(categories),
        per_category,
        seed,
        include_extra,
        hub_revision,
        keep_identical,
    )
    return selection, {"source": data_dir or (f"hub {hub_revision}" if hub_revision else "authors' release")}


@task
def single(
    strategy: str = "vanilla",
    data_dir: str | None = DEFAULTS["data_dir"],
    abilities: str | list[str] | None = DEFAULTS["abilities"],
    categories: str | list[str] | None = DEFAULTS["categories"],
    per_category: int | None = DEFAULTS["per_category"],
    seed: int = DEFAULTS["seed"],
    scale: int | None = DEFAULTS["scale"],
    include_extra: bool = DEFAULTS["include_extra"],
    temperature: float = DEFAULTS["temperature"],
    hub_revision: str | None = DEFAULTS["hub_revision"],
    keep_identical: bool = DEFAULTS["keep_identical"],
    scoring: RatingScoring = DEFAULTS["scoring"],
    min_mass: float = DEFAULTS["min_mass"],
    answer_format: AnswerFormat = DEFAULTS["answer_format"],
    judge_template: str | None = DEFAULTS["judge_template"],
    suite: str | None = DEFAULTS["suite"],
) -> Task:
    """FBI single-answer scoring: the gold and the perturbed answer are rated in separate calls."""
    return fbi_task(
        "single",
        strategy,
        data_dir=data_dir,
        abilities=abilities,
        categories=categories,
        per_category=per_category,
        seed=seed,
        scale=scale,
        include_extra=include_extra,
        temperature=temperature,
        hub_revision=hub_revision,
        keep_identical=keep_identical,
        scoring=scoring,
        min_mass=min_mass,
        answer_format=answer_format,
        judge_template=judge_template,
        suite=suite,
    )


@task
def pairwise(
    strategy: str = "pairwise",
    data_dir: str | None = DEFAULTS["data_dir"],
    abilities: str | list[str] | None = DEFAULTS["abilities"],
    categories: str | list[str] | None = DEFAULTS["categories"],
    per_category: int | None = DEFAULTS["per_category"],
    seed: int = DEFAULTS["seed"],
    include_extra: bool = DEFAULTS["include_extra"],
    temperature: float = DEFAULTS["temperature"],
    hub_revision: str | None = DEFAULTS["hub_revision"],
    keep_identical: bool = DEFAULTS["keep_identical"],
    answer_format: AnswerFormat = DEFAULTS["answer_format"],
    judge_template: str | None = DEFAULTS["judge_template"],
    suite: str | None = DEFAULTS["suite"],
) -> Task:
    """FBI pairwise comparison: each gold/perturbed pair judged twice, gold first and gold second."""
    return fbi_task(
        "pairwise",
        strategy,
        data_dir=data_dir,
        abilities=abilities,
        categories=categories,
        per_category=per_category,
        seed=seed,
        include_extra=include_extra,
        temperature=temperature,
        hub_revision=hub_revision,
        keep_identical=keep_identical,
        answer_format=answer_format,
        judge_template=judge_template,
        suite=suite,
    )


@task
def reference(
    strategy: str = "reference",
    data_dir: str | None = DEFAULTS["data_dir"],
    abilities: str | list[str] | None = DEFAULTS["abilities"],
    categories: str | list[str] | None = DEFAULTS["categories"],
    per_category: int | None = DEFAULTS["per_category"],
    seed: int = DEFAULTS["seed"],
    scale: int | None = DEFAULTS["scale"],
    include_extra: bool = DEFAULTS["include_extra"],
    temperature: float = DEFAULTS["temperature"],
    hub_revision: str | None = DEFAULTS["hub_revision"],
    keep_identical: bool = DEFAULTS["keep_identical"],
    scoring: RatingScoring = DEFAULTS["scoring"],
    min_mass: float = DEFAULTS["min_mass"],
    answer_format: AnswerFormat = DEFAULTS["answer_format"],
    judge_template: str | None = DEFAULTS["judge_template"],
    suite: str | None = DEFAULTS["suite"],
) -> Task:
    """FBI reference-guided scoring: the gold answer is the reference, the perturbed answer is rated."""
    return fbi_task(
        "reference",
        strategy,
        data_dir=data_dir,
        abilities=abilities,
        categories=categories,
        per_category=per_category,
        seed=seed,
        scale=scale,
        include_extra=include_extra,
        temperature=temperature,
        hub_revision=hub_revision,
        keep_identical=keep_identical,
        scoring=scoring,
        min_mass=min_mass,
        answer_format=answer_format,
        judge_template=judge_template,
        suite=suite,
    )


_COMMON = ("data_dir", "abilities", "categories", "per_category", "seed")
single.__doc__ = FBI.docstring(
    "FBI single-answer scoring: the gold and the perturbed answer are rated in separate calls.",
    ("strategy", *_COMMON, "scale", "include_extra", "temperature", "hub_revision", "keep_identical", "scoring",
     "min_mass", "answer_format", "judge_template", "suite"),
    {"strategy": f"one of {', '.join(SINGLE_STRATEGIES)} (default vanilla)"},
)  # fmt: skip
pairwise.__doc__ = FBI.docstring(
    "FBI pairwise comparison: each gold/perturbed pair judged twice, gold first and gold second.",
    (
        "strategy",
        *_COMMON,
        "include_extra",
        "temperature",
        "hub_revision",
        "keep_identical",
        "answer_format",
        "judge_template",
        "suite",
    ),
    {"strategy": f"one of {', '.join(PAIRWISE_STRATEGIES)} (default pairwise)"},
)
reference.__doc__ = FBI.docstring(
    "FBI reference-guided scoring: the gold answer is the reference, the perturbed answer is rated.",
    ("strategy", *_COMMON, "scale", "include_extra", "temperature", "hub_revision", "keep_identical", "scoring",
     "min_mass", "answer_format", "judge_template", "suite"),
    {"strategy": "reference", "scale": "top of the score range (default 10); a perturbed answer given it fails"},
)  # fmt: skip
