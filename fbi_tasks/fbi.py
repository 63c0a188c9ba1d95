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
    Strategy,
    explanation_check_prompt,
    fbi_strategy,
    pairwise_prompt,
    rating_shape,
    reference_prompt,
    single_prompt,
)
from judge_data import OptionError, names_option
from judge_data.providers import check_rating_scoring
from judge_data.recorded import Columns, Place, RecordedJudgments, check_judgments_options, read_judgments
from judge_data.shared_options import RatingScoring
from scorers.fbi import GOLD_POSITION, Paradigm, blind_spot_judgments, blind_spot_rates
from solvers.judge import answer_prompts
from solvers.judge_template import FBI_PLACEHOLDERS, JudgeTemplate, load_judge_template
from solvers.logprobs import logprob_prompts
from solvers.reading.formats import AnswerFormat
from solvers.reading.json_answers import answer_config, check_answer_format
from solvers.reading.logprobs import max_tokens_for
from solvers.reading.shapes import VERDICT
from solvers.recorded import recorded_judgments

JUDGMENTS: dict[str, tuple[str, ...]] = {
    "single": ("gold", "perturbed"),
    "pairwise": tuple(GOLD_POSITION),
    "reference": ("perturbed",),
    "grader": ("gold", "perturbed"),
}
"""The judgments each kind of FBI task makes of an item, by name: its prompts' names (its grader's submissions), and
the values of a recorded judgment's ``judgment`` column."""

SINGLE_DEFAULTS = FBI.task_defaults("single")
PAIRWISE_DEFAULTS = FBI.task_defaults("pairwise")
REFERENCE_DEFAULTS = FBI.task_defaults("reference")


def item_sample(item: FbiItem) -> Sample:
    """An item as a sample: the question, the gold answer as the target, both answers in the metadata."""
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
    strategy: Strategy,
    scale: int,
    meta: Mapping[str, Any],
    rating_only: bool = False,
    answer_format: AnswerFormat = "text",
    template: JudgeTemplate | None = None,
) -> dict[str, str]:
    """The named prompts that judge one item (its sample metadata) under a strategy (of a paradigm).

    ``rating_only`` asks single and reference judges for the rating alone (``scoring=logprobs`` reads it
    from the first generated tokens); ``answer_format="json"`` asks for a JSON object. A ``template`` replaces each
    prompt, its ``{request}`` being the strategy prompt's closing request.
    """
    prompts = _strategy_prompts(strategy, scale, meta, rating_only, answer_format)
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
    strategy: Strategy,
    scale: int,
    meta: Mapping[str, Any],
    rating_only: bool,
    answer_format: AnswerFormat,
) -> dict[str, str]:
    axis = AXES[meta["axis_ability"]]
    question, gold, perturbed = meta["question"], meta["gold"], meta["perturbed"]
    if strategy.paradigm == "single":
        return {
            name: single_prompt(strategy, question, meta[name], scale, axis, rating_only, answer_format)
            for name in ("gold", "perturbed")
        }
    if strategy.paradigm == "pairwise":
        return {
            "gold_first": pairwise_prompt(strategy, question, gold, perturbed, axis, answer_format),
            "gold_second": pairwise_prompt(strategy, question, perturbed, gold, axis, answer_format),
        }
    return {"perturbed": reference_prompt(question, gold, perturbed, scale, rating_only, answer_format)}


def _prompts(
    strategy: Strategy, scale: int, rating_only: bool, answer_format: AnswerFormat, template: JudgeTemplate | None
):
    def build(state: TaskState) -> Mapping[str, str]:
        return judge_prompts(strategy, scale, state.metadata, rating_only, answer_format, template)

    return build


def fbi_task(paradigm: Paradigm, options: Mapping[str, Any]) -> Task:
    """Assemble one FBI strategy: items, the judge prompts, the failure-rate metric; ``options`` are the paradigm's
    task options as the definition checked them (``FBI.arguments(paradigm, ...)``).

    ``scoring="logprobs"`` (single and reference) asks each strategy's prompt with a request for the bare
    rating instead of an explanation followed by ``Rating: [[n]]``, since a score read from
    log-probabilities must be the first thing the judge writes; the explanation check then has nothing
    to check. With ``judgments`` (recorded judgments, one per item and judgment) no model is asked: a recorded answer
    is read against the strategy's prompt, a value (a rating, or a verdict ``A``/``B``/``tie``) on its scale.
    """
    strategy = fbi_strategy(paradigm, options["strategy"])
    temperature, answer_format = options["temperature"], options["answer_format"]
    scoring, min_mass = options.get("scoring", "sample"), options.get("min_mass", FBI.default("min_mass"))
    if scoring == "logprobs" and not strategy.rated:
        raise OptionError("scoring=logprobs reads ratings; pairwise verdicts are only sampled")
    check_rating_scoring(scoring)
    check_answer_format(answer_format, scoring)
    check_judgments_options(options, scoring)
    scale = strategy.scale(options.get("scale"))
    template = load_judge_template(options["judge_template"], FBI_PLACEHOLDERS[paradigm], f"fbi_tasks/{paradigm}")
    selection, source = select_items(options)
    columns = Columns("score" if strategy.rated else "verdict", keys={"judgment": JUDGMENTS[paradigm]})
    judgments = recorded_items(options, columns, selection.items, f"fbi_tasks/{paradigm}")
    explains = strategy.explains and scoring != "logprobs"
    check_prompt = partial(explanation_check_prompt, answer_format=answer_format) if explains else None
    if judgments is not None:
        solver = recorded_judgments(
            judgments,
            partial(item_places, JUDGMENTS[paradigm]),
            _prompts(strategy, scale, False, answer_format, template),
        )
    elif scoring == "logprobs":
        solver = logprob_prompts(
            _prompts(strategy, scale, True, answer_format, template), max_tokens_for(scale), temperature
        )
    else:
        shape = rating_shape(scale) if strategy.rated else VERDICT
        solver = answer_prompts(
            _prompts(strategy, scale, False, answer_format, template),
            temperature=temperature,
            config=answer_config(shape, answer_format),
        )
    return Task(
        dataset=MemoryDataset([item_sample(item) for item in selection.items], name=f"fbi_{paradigm}"),
        solver=solver,
        scorer=blind_spot_judgments(paradigm, scale, check_prompt, scoring, min_mass, answer_format),
        metrics=[blind_spot_rates(paradigm)],
        name=f"fbi_{paradigm}_{strategy.name}",
        version=FBI.version,
        metadata={
            "task_version": FBI.version,
            "paradigm": paradigm,
            "strategy": strategy.name,
            "scoring": scoring,
            "answer_format": answer_format,
            **({"min_mass": min_mass, "prompt": "rating only, no explanation"} if scoring == "logprobs" else {}),
            "scale": scale if strategy.rated else None,
            "n_items": len(selection.items),
            **source,
            "keep_identical": options["keep_identical"],
            "left_out_identical": [f"{item.category}/{item.id}" for item in selection.unchanged],
            **(template.metadata() if template else {}),
            **({"recorded": judgments.metadata()} if judgments else {}),
        },
    )


def recorded_items(
    options: Mapping[str, Any], columns: Columns, items: Sequence[FbiItem], task: str
) -> RecordedJudgments | None:
    """The recorded judgments of the task options' ``judgments`` file on these items (``None`` without one): a row
    names an item by its sample id (``category/id``) or by its id in the data files."""
    judgments = read_judgments(options, columns)
    return None if judgments is None else judgments.for_items(item_ids(items), task)


def item_ids(items: Sequence[FbiItem]) -> dict[str, str]:
    """The ids a row of recorded judgments may name an item by, its sample id (``category/id``) or its id in FBI's
    files, each to its sample id."""
    return {name: f"{item.category}/{item.id}" for item in items for name in (f"{item.category}/{item.id}", item.id)}


def item_places(names: Sequence[str], state: TaskState) -> dict[str, Place]:
    """Where each named judgment of the sample's item is in recorded judgments: the item, its ``judgment`` column."""
    return {name: (str(state.sample_id), None, (name,)) for name in names}


def select_items(options: Mapping[str, Any]) -> tuple[FbiSelection, dict[str, Any]]:
    """The items a task judges and where they came from: an ``fbi-build`` suite file, or the authors' release
    (local ``data_dir`` or the hub) narrowed by the item options (``ITEM_OPTIONS``, from the task's options)."""
    if options["suite"] is not None:
        return suite_selection(options["suite"], options["categories"])
    data_dir, hub_revision = options["data_dir"], options["hub_revision"]
    selection = load_items(
        data_dir,
        names_option(options["abilities"]),
        names_option(options["categories"]),
        options["per_category"],
        options["seed"],
        options["include_extra"],
        hub_revision,
        options["keep_identical"],
    )
    return selection, {"source": data_dir or (f"hub {hub_revision}" if hub_revision else "authors' release")}


@task
@FBI.takes("single")
def single(
    strategy: str = SINGLE_DEFAULTS["strategy"],
    data_dir: str | None = SINGLE_DEFAULTS["data_dir"],
    abilities: str | list[str] | None = SINGLE_DEFAULTS["abilities"],
    categories: str | list[str] | None = SINGLE_DEFAULTS["categories"],
    per_category: int | None = SINGLE_DEFAULTS["per_category"],
    seed: int = SINGLE_DEFAULTS["seed"],
    scale: int | None = SINGLE_DEFAULTS["scale"],
    include_extra: bool = SINGLE_DEFAULTS["include_extra"],
    temperature: float = SINGLE_DEFAULTS["temperature"],
    hub_revision: str | None = SINGLE_DEFAULTS["hub_revision"],
    keep_identical: bool = SINGLE_DEFAULTS["keep_identical"],
    scoring: RatingScoring = SINGLE_DEFAULTS["scoring"],
    min_mass: float = SINGLE_DEFAULTS["min_mass"],
    answer_format: AnswerFormat = SINGLE_DEFAULTS["answer_format"],
    judge_template: str | None = SINGLE_DEFAULTS["judge_template"],
    suite: str | None = SINGLE_DEFAULTS["suite"],
    judgments: str | None = SINGLE_DEFAULTS["judgments"],
    judge: str | None = SINGLE_DEFAULTS["judge"],
    prompt: str | None = SINGLE_DEFAULTS["prompt"],
) -> Task:
    """FBI single-answer scoring: the gold and the perturbed answer are rated in separate calls."""
    return fbi_task("single", FBI.arguments("single", locals()))


@task
@FBI.takes("pairwise")
def pairwise(
    strategy: str = PAIRWISE_DEFAULTS["strategy"],
    data_dir: str | None = PAIRWISE_DEFAULTS["data_dir"],
    abilities: str | list[str] | None = PAIRWISE_DEFAULTS["abilities"],
    categories: str | list[str] | None = PAIRWISE_DEFAULTS["categories"],
    per_category: int | None = PAIRWISE_DEFAULTS["per_category"],
    seed: int = PAIRWISE_DEFAULTS["seed"],
    include_extra: bool = PAIRWISE_DEFAULTS["include_extra"],
    temperature: float = PAIRWISE_DEFAULTS["temperature"],
    hub_revision: str | None = PAIRWISE_DEFAULTS["hub_revision"],
    keep_identical: bool = PAIRWISE_DEFAULTS["keep_identical"],
    answer_format: AnswerFormat = PAIRWISE_DEFAULTS["answer_format"],
    judge_template: str | None = PAIRWISE_DEFAULTS["judge_template"],
    suite: str | None = PAIRWISE_DEFAULTS["suite"],
    judgments: str | None = PAIRWISE_DEFAULTS["judgments"],
    judge: str | None = PAIRWISE_DEFAULTS["judge"],
    prompt: str | None = PAIRWISE_DEFAULTS["prompt"],
) -> Task:
    """FBI pairwise comparison: each gold/perturbed pair judged twice, gold first and gold second."""
    return fbi_task("pairwise", FBI.arguments("pairwise", locals()))


@task
@FBI.takes("reference")
def reference(
    strategy: str = REFERENCE_DEFAULTS["strategy"],
    data_dir: str | None = REFERENCE_DEFAULTS["data_dir"],
    abilities: str | list[str] | None = REFERENCE_DEFAULTS["abilities"],
    categories: str | list[str] | None = REFERENCE_DEFAULTS["categories"],
    per_category: int | None = REFERENCE_DEFAULTS["per_category"],
    seed: int = REFERENCE_DEFAULTS["seed"],
    scale: int | None = REFERENCE_DEFAULTS["scale"],
    include_extra: bool = REFERENCE_DEFAULTS["include_extra"],
    temperature: float = REFERENCE_DEFAULTS["temperature"],
    hub_revision: str | None = REFERENCE_DEFAULTS["hub_revision"],
    keep_identical: bool = REFERENCE_DEFAULTS["keep_identical"],
    scoring: RatingScoring = REFERENCE_DEFAULTS["scoring"],
    min_mass: float = REFERENCE_DEFAULTS["min_mass"],
    answer_format: AnswerFormat = REFERENCE_DEFAULTS["answer_format"],
    judge_template: str | None = REFERENCE_DEFAULTS["judge_template"],
    suite: str | None = REFERENCE_DEFAULTS["suite"],
    judgments: str | None = REFERENCE_DEFAULTS["judgments"],
    judge: str | None = REFERENCE_DEFAULTS["judge"],
    prompt: str | None = REFERENCE_DEFAULTS["prompt"],
) -> Task:
    """FBI reference-guided scoring: the gold answer is the reference, the perturbed answer is rated."""
    return fbi_task("reference", FBI.arguments("reference", locals()))
