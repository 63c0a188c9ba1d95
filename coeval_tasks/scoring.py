"""CoEval criterion-level scoring (Li et al., §5.1-5.3): how well a judge's scores agree with the annotators'.

One sample per human-scored response. With ``mode=step_by_step`` the judge scores the response on each
curated criterion in turn, explaining before each score, in one conversation, and then gives an overall
score with its criterion scores in the history; with ``mode=direct`` it gives the overall score alone.
The human overall score is the mean over the dataset's criteria of the human mean (the public data holds
criterion scores only). ``scoring=logprobs`` asks every turn for the bare score, one request with top
log-probabilities, and takes the expected score (see :mod:`solvers.stepwise` for what enters the history).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.solver import Solver, TaskState

from coeval_tasks.data import HumanScores, load_human_scores, read_local_items
from coeval_tasks.definition import COEVAL_SCORING
from judge_data import DataError, names_option
from judge_data.human import HumanCriterion, HumanItem, choose_criteria, select_items
from judge_data.providers import check_rating_scoring
from judge_data.recorded import Columns, RecordedJudgments, check_judgments_options, read_judgments
from judge_data.shared_options import RatingScoring
from scorers.adherence import ReadAnswer, criterion_ratings
from scorers.coeval import coeval_agreement
from solvers.reading.formats import AnswerFormat
from solvers.reading.json_answers import check_answer_format
from solvers.reading.logprobs import whole_number_scale
from solvers.recorded import recorded_judgments
from solvers.stepwise import OVERALL, Mode, converse, item_text, scoring_turns, turn_prompts

DEFAULTS = COEVAL_SCORING.task_defaults("paper")
CUSTOM_DEFAULTS = COEVAL_SCORING.task_defaults("custom")

HUMAN_OVERALL = "mean over the dataset's criteria of the human mean score"


def _mean(values: Sequence[float | None]) -> float | None:
    given = [value for value in values if value is not None]
    return sum(given) / len(given) if given else None


def _sample(
    item: HumanItem, all_criteria: Sequence[HumanCriterion], chosen: Sequence[HumanCriterion], opening: str
) -> Sample:
    """The item with the human means of the chosen criteria and the overall, and each annotator's scores."""
    human: dict[str, float] = {c.name: item.human[c.name] for c in chosen if c.name in item.human}
    overall = _mean([item.human.get(c.name) for c in all_criteria])
    if overall is not None:
        human[OVERALL] = overall
    ids = list(item.annotator_ids or [])
    scores = item.annotator_scores or {}
    annotators: dict[str, list[float | None]] = {c.name: list(scores[c.name]) for c in chosen if c.name in scores}
    if ids and scores:
        annotators[OVERALL] = [
            _mean([scores[c.name][position] for c in all_criteria if c.name in scores]) for position in range(len(ids))
        ]
    return Sample(
        id=item.id,
        input=opening,
        metadata={
            "task": item.task,
            "response": item.response,
            "system": item.meta.get("system"),
            "human": human,
            "annotators": annotators,
            "annotator_ids": ids,
        },
    )


def check_options(options: Mapping[str, Any]) -> None:
    """What a CoEval scoring task's options say together (each alone the definition checked), before any data is
    read or downloaded."""
    check_rating_scoring(options["scoring"])
    check_answer_format(options["answer_format"], options["scoring"])
    check_judgments_options(options, options["scoring"])


def _scoring_solver(
    turns: Callable[[TaskState], Any],
    readers: Mapping[str, ReadAnswer],
    judgments: RecordedJudgments | None,
    options: Mapping[str, Any],
) -> Solver:
    """The conversation with the judge, turn by turn (or the recorded answers to its turns, read against them)."""
    if judgments is not None:
        return recorded_judgments(
            judgments,
            lambda state: {key: (str(state.sample_id), key, ()) for key in readers},
            lambda state: turn_prompts(turns(state)),
        )
    scoring = options["scoring"]
    scales = (
        {key: whole_number_scale(key, reader.low, reader.high) for key, reader in readers.items()}
        if scoring == "logprobs"
        else None
    )
    return converse(
        turns,
        temperature=options["temperature"],
        scoring=scoring,
        scales=scales,
        min_mass=options["min_mass"],
        shapes={key: reader.shape for key, reader in readers.items()},
        answer_format=options["answer_format"],
    )


def scoring_task(source: HumanScores, options: Mapping[str, Any] | None = None) -> Task:
    """One dataset's items, the conversation (or direct question) per item, the ratings and the agreement metric;
    ``options`` are the task's options as the definition and :func:`check_options` checked them (``None``: the
    defaults).

    ``scoring="sample"`` parses each answer (an explanation, then the score); ``scoring="logprobs"`` asks each
    turn for the score only and reads the expected score from the answer's top log-probabilities, a parse
    failure below ``min_mass`` on the scale. ``answer_format="json"`` asks every turn for a JSON object. With
    ``judgments`` (recorded judgments, one per item and criterion or ``overall``) no model is asked: a recorded answer
    is read against the conversation up to its turn.
    """
    options = options or DEFAULTS
    mode, n, seed, temperature = options["mode"], options["n"], options["seed"], options["temperature"]
    scoring, min_mass, answer_format = options["scoring"], options["min_mass"], options["answer_format"]
    if any(criterion.name == OVERALL for criterion in source.criteria):
        raise DataError(f"{source.source}: criterion name {OVERALL!r} is reserved for the overall score; rename it")
    chosen = choose_criteria(source.criteria, names_option(options["criteria"]), source.source)
    items = select_items(source.items, n, seed)
    judgments = read_judgments(options, Columns("score", [*(c.name for c in source.criteria), OVERALL]))
    if judgments is not None:
        judgments = judgments.for_items({item.id: item.id for item in items}, f"coeval_tasks/{source.dataset}")
    low = min(criterion.low for criterion in source.criteria)
    high = max(criterion.high for criterion in source.criteria)
    openings = {item.id: item_text(source.task_description, item.task, item.response) for item in items}

    def turns(state: TaskState):
        return scoring_turns(
            mode, openings[str(state.sample_id)], chosen, low, high, scoring == "logprobs", answer_format
        )

    readers = {OVERALL: ReadAnswer(OVERALL, low, high, False)}
    if mode == "step_by_step":
        readers = {c.name: ReadAnswer(c.name, c.low, c.high, False) for c in chosen} | readers
    solver = _scoring_solver(turns, readers, judgments, options)
    return Task(
        dataset=MemoryDataset(
            [_sample(item, source.criteria, chosen, openings[item.id]) for item in items],
            name=f"coeval_{source.dataset}",
        ),
        solver=solver,
        scorer=criterion_ratings(readers, scoring, min_mass, answer_format),
        metrics=[coeval_agreement([c.name for c in chosen], criterion_scores=mode == "step_by_step")],
        name=f"coeval_{source.dataset}_{mode}",
        version=COEVAL_SCORING.version,
        metadata={
            "task_version": COEVAL_SCORING.version,
            "dataset": source.dataset,
            "source": source.source,
            "mode": mode,
            "n_items": len(items),
            "n_available": len(source.items),
            "seed": seed,
            "temperature": temperature,
            "scoring": scoring,
            "answer_format": answer_format,
            **({"min_mass": min_mass, "prompt": "score only, no explanation"} if scoring == "logprobs" else {}),
            "task_description": source.task_description,
            "criteria": {c.name: {"text": c.title, "range": [c.low, c.high], "group": c.group} for c in chosen},
            "overall_range": [low, high],
            "human_overall": HUMAN_OVERALL,
            **({"recorded": judgments.metadata()} if judgments else {}),
        },
    )


def _dataset_task(dataset: str):
    def dataset_task(
        mode: Mode = DEFAULTS["mode"],
        data_dir: str | None = DEFAULTS["data_dir"],
        criteria: str | list[str] | None = DEFAULTS["criteria"],
        n: int | None = DEFAULTS["n"],
        seed: int = DEFAULTS["seed"],
        temperature: float = DEFAULTS["temperature"],
        scoring: RatingScoring = DEFAULTS["scoring"],
        min_mass: float = DEFAULTS["min_mass"],
        answer_format: AnswerFormat = DEFAULTS["answer_format"],
        judgments: str | None = DEFAULTS["judgments"],
        judge: str | None = DEFAULTS["judge"],
        prompt: str | None = DEFAULTS["prompt"],
    ) -> Task:
        """CoEval criterion-level scoring on {dataset}: the judge's scores against the annotators'."""
        return paper_dataset_task(dataset, COEVAL_SCORING.arguments("paper", locals()))

    dataset_task.__name__ = dataset
    dataset_task.__qualname__ = dataset
    return task(name=dataset)(COEVAL_SCORING.takes("paper", dataset=dataset)(dataset_task))


def paper_dataset_task(dataset: str, options: Mapping[str, Any]) -> Task:
    """A paper dataset's scoring task, its options checked before the data is downloaded."""
    check_options(options)
    return scoring_task(load_human_scores(dataset, options["data_dir"]), options)


eli5 = _dataset_task("eli5")
rocstories = _dataset_task("rocstories")
self_instruct = _dataset_task("self_instruct")


@task
@COEVAL_SCORING.takes("custom")
def custom(
    data_dir: str,
    mode: Mode = CUSTOM_DEFAULTS["mode"],
    criteria: str | list[str] | None = CUSTOM_DEFAULTS["criteria"],
    n: int | None = CUSTOM_DEFAULTS["n"],
    seed: int = CUSTOM_DEFAULTS["seed"],
    temperature: float = CUSTOM_DEFAULTS["temperature"],
    scoring: RatingScoring = CUSTOM_DEFAULTS["scoring"],
    min_mass: float = CUSTOM_DEFAULTS["min_mass"],
    answer_format: AnswerFormat = CUSTOM_DEFAULTS["answer_format"],
    judgments: str | None = CUSTOM_DEFAULTS["judgments"],
    judge: str | None = CUSTOM_DEFAULTS["judge"],
    prompt: str | None = CUSTOM_DEFAULTS["prompt"],
) -> Task:
    """CoEval criterion-level scoring on your own human-scored data (criteria.json and items.jsonl with
    annotator_scores and annotator_ids, in the layout of the shared CoEval folders)."""
    options = COEVAL_SCORING.arguments("custom", locals())
    check_options(options)
    return scoring_task(read_local_items("custom", data_dir), options)
