"""The grader under test: any inspect scorer, loaded as ``inspect score --scorer`` loads one, grading named
submissions of a sample (a gold and a perturbed answer, a reference text and its damaged copies).

The scorer is called in the solver, once per submission, on a copy of the sample's state whose output is that
submission; what it gave (its value, explanation and reason, or the exception it raised) is kept in the store, and
the suite's scorer reads the values. A grader is a model, a prompt and a way of reading the model's answer: this is
how a user's own ``model_graded_fact`` set-up, or their own scorer, is meta-evaluated as it runs in their evals.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import math
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import yaml
from inspect_ai.event import ModelEvent
from inspect_ai.log import transcript
from inspect_ai.model import ChatMessageAssistant, ChatMessageUser, ModelOutput
from inspect_ai.scorer import Score, Scorer, Target
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import LimitExceededError

from judge_data import OptionError
from judge_data.inspect_private import ScorerSpec, registry_lookup, scorer_from_spec
from judge_data.recorded import Columns, RecordedJudgments, check_judgments_options, read_judgments

GRADES_STORE_KEY = "grader_grades"
"""Where :func:`grade_submissions` leaves ``{submission name: what the scorer gave}``."""

GRADER_MODELS_STORE_KEY = "grader_models"
"""Where :func:`grade_submissions` leaves the models the scorer called for the sample."""

TARGETS = ("gold", "none")
"""``-T target=``: the gold answer as the scorer's target, or an empty target for graders that need none."""


def scorer_arguments(value: str | Mapping[str, Any] | None) -> dict[str, Any]:
    """``-T scorer_args``: a JSON object (inspect may already have parsed it), or a ``.json``/``.yaml`` file."""
    if value is None or value == "":
        return {}
    if isinstance(value, Mapping):
        return dict(value)
    text, origin = value, "-T scorer_args"
    if value.endswith((".json", ".yaml", ".yml")):
        path = Path(value).expanduser()
        if not path.is_file():
            raise OptionError(f"-T scorer_args={value}: no such file")
        text, origin = path.read_text(encoding="utf-8"), str(path)
    try:
        parsed = yaml.safe_load(text)  # JSON is YAML
    except yaml.YAMLError as error:
        raise OptionError(f"{origin}: not a JSON or YAML object ({error})") from error
    if not isinstance(parsed, Mapping):
        raise OptionError(f"{origin}: the scorer's arguments must be an object of name: value, got {parsed!r}")
    return dict(parsed)


def arguments_hash(arguments: Mapping[str, Any]) -> str:
    """A short hash of the scorer's arguments; an argument naming a file (a template) counts by the file's content,
    so an edited template is another grader."""

    def canonical(value: Any) -> Any:
        if isinstance(value, str) and len(value) < 4096 and Path(value).expanduser().is_file():
            return {"file": hashlib.sha256(Path(value).expanduser().read_bytes()).hexdigest()}
        if isinstance(value, Mapping):
            return {str(key): canonical(item) for key, item in value.items()}
        if isinstance(value, (list, tuple)):
            return [canonical(item) for item in value]
        return value

    text = json.dumps(canonical(arguments), sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def grader_metadata(scorer: str, arguments: Mapping[str, Any]) -> dict[str, Any]:
    """The grader under test as the task metadata records it (``judge-report`` names the judge after it)."""
    return {"scorer": scorer, "scorer_args": dict(arguments), "scorer_args_hash": arguments_hash(arguments)}


def grader_under_test(
    options: Mapping[str, Any], arguments: Mapping[str, Any], columns: Columns
) -> Scorer | RecordedJudgments:
    """The grader under test of a grader task, before any item is read: its recorded grades (``-T judgments=``, read
    and checked against ``columns``; they stand in for the scorer, so none may be named), or the scorer ``-T scorer=``
    names, made with ``arguments``."""
    check_judgments_options(options)
    judgments = read_judgments(options, columns)
    if judgments is None:
        return load_grader(options["scorer"], arguments)
    for name in ("scorer", "scorer_args"):
        if options[name] is not None:
            raise OptionError(
                f"-T {name} runs a grader and -T judgments holds the grades of one already run; pass one of them"
            )
    return judgments


def load_grader(name: str | None, arguments: Mapping[str, Any]) -> Scorer:
    """The scorer called ``name`` (a registered name, ``file.py`` or ``file.py@function``) made with ``arguments``,
    as inspect's own loader makes the scorer of ``inspect score --scorer``."""
    if not name:
        raise OptionError(
            "name the grader under test: -T scorer=model_graded_fact (any registered inspect scorer, "
            "my_package/my_scorer, or path/to/file.py@function)"
        )
    file_part = name.split("@", 1)[0]
    if "@" in name or file_part.endswith(".py"):
        if not Path(file_part).expanduser().is_file():
            raise OptionError(f"-T scorer={name}: no such file {file_part}")
    elif registry_lookup("scorer", name) is None:
        raise OptionError(
            f"-T scorer={name}: no inspect scorer of that name is registered; give a registered name "
            "(model_graded_fact, my_package/my_scorer) or path/to/file.py@function"
        )
    try:
        return scorer_from_spec(ScorerSpec(scorer=name), None, **arguments)
    except TypeError as error:
        raise OptionError(f"-T scorer_args: {name} does not take these arguments ({error})") from error


def _submission_state(state: TaskState, submission: str, target: Target, question: str | None) -> TaskState:
    """A copy of the sample's state whose output (and last message) is ``submission``, as a solver would leave it,
    whose target is ``target`` and whose input is ``question`` where given."""
    asked = [ChatMessageUser(content=question)] if question is not None else state.messages
    return TaskState(
        model=state.model,
        sample_id=state.sample_id,
        epoch=state.epoch,
        input=state.input if question is None else question,
        messages=[*asked, ChatMessageAssistant(content=submission, model=str(state.model))],
        target=target,
        output=ModelOutput.from_content(model=str(state.model), content=submission),
        metadata=dict(state.metadata),
        sample_uuid=state.uuid,
    )


def _plain(value: Any) -> Any:
    """A score value as it can be stored: NaN (inspect's "unscored") as ``None``."""
    return None if isinstance(value, float) and math.isnan(value) else value


async def grade(
    grader: Scorer, state: TaskState, submission: str, target: Target, question: str | None = None
) -> dict[str, Any]:
    """What the grader gave one submission: ``value``, ``explanation``, ``reason``, or the ``error`` it raised."""
    try:
        score = await grader(_submission_state(state, submission, target, question), target)
    except LimitExceededError:  # the sample's own limits (time, tokens) end the sample, as in any solver
        raise
    except Exception as error:  # the grader's failure is a result to count, not a crash of the run
        return {"value": None, "explanation": None, "reason": "error", "error": f"{type(error).__name__}: {error}"}
    if not isinstance(score, Score):
        return {"value": None, "explanation": None, "reason": "no score", "error": None}
    return {
        "value": _plain(score.value),
        "explanation": score.explanation,
        "reason": None if score.reason is None else str(score.reason),
        "error": None,
    }


def _shown(result: Mapping[str, Any]) -> str:
    if result["error"]:
        return result["error"]
    return f"no grade ({result['reason'] or 'unscored'})" if result["value"] is None else str(result["value"])


@solver
def grade_submissions(
    submissions: Callable[[TaskState], Mapping[str, str]],
    grader: Scorer,
    target: Callable[[TaskState], Target],
    question: Callable[[TaskState], str] | None = None,
) -> Solver:
    """Grade each named submission of the sample with ``grader`` (concurrently), given ``target(state)`` and, where
    ``question`` is given, ``question(state)`` as the input instead of the sample's; keep what it gave and the models
    it called in the store."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        named = dict(submissions(state))
        asked = question(state) if question else None
        results = await asyncio.gather(*(grade(grader, state, text, target(state), asked) for text in named.values()))
        grades = dict(zip(named, results, strict=True))
        models = sorted({event.model for event in transcript().events if isinstance(event, ModelEvent)})
        state.store.set(GRADES_STORE_KEY, grades)
        state.store.set(GRADER_MODELS_STORE_KEY, models)
        shown = "\n".join(f"[{name}] {_shown(result)}" for name, result in grades.items())
        state.output = ModelOutput.from_content(model=", ".join(models) or str(state.model), content=shown)
        return state

    return solve
