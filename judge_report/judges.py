"""Short, stable names for judges: the model name, or the alias the user chose, with the model arguments shown once
in the judges table instead of in every row, column and plot axis.

Two judges that share a model name (the same model run with different arguments) are told apart by the arguments
in which they differ, ``hf/smollm2 (temperature=1)``; where those would be longer than
:data:`MAX_DISTINGUISHING_TEXT` characters, by a short hash of every argument, ``hf/smollm2 #3f2a9c``. The one judge
of a model that sets none of the differing arguments keeps the plain name.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from judge_data import DataError
from judge_report.runs import GRADER_METADATA, Run

MAX_DISTINGUISHING_TEXT = 24
"""The longest argument text a name carries to tell two judges of one model apart; past it, a hash does."""

LM_EVAL_MODEL_ARGUMENTS = ("model", "pretrained")
"""lm-eval names the model in its model arguments (``local-chat-completions`` with ``model=...``, ``hf`` with
``pretrained=...``): the first of these present completes the model name."""


@dataclass(frozen=True)
class Judge:
    """One judge as the report lists it: its display name and everything that identifies it."""

    name: str
    identity: str
    """The model name with every model argument, as :attr:`Run.judge` gives it."""
    model: str
    model_args: Mapping[str, Any]
    harnesses: tuple[str, ...]
    recorded: bool = False
    """Whether the judge is recorded judgments read from a file (``-T judgments=``), not a model that was asked."""

    @property
    def harness_text(self) -> str:
        """The judges table's harness column: the harnesses, and whether the judgments were recorded."""
        return ", ".join(self.harnesses) + (" (recorded judgments)" if self.recorded else "")


SHOWN_ARGUMENT_TEXT = 48
"""The longest value of a grader's argument (a template) the judges table shows; past it, its start and a hash."""


def recorded_name(judge: str, prompt: str | None) -> str:
    """A recorded judge's name: its name in its file with its prompt label, ``ChatGPT (prompt 1)``."""
    return judge + ("" if prompt is None else f" (prompt {prompt})")


def model_name(run: Run) -> str:
    """The judge's model name without its arguments (lm-eval's ``model=``/``pretrained=`` argument included), after
    the grader under test (scorer and arguments' hash) of a ``grader`` task; a recorded judge's name in its file with
    its prompt label (``ChatGPT (prompt 1)``)."""
    if run.recorded is not None:
        prompt = run.recorded.get("prompt")
        return recorded_name(str(run.recorded["judge"]), None if prompt is None else str(prompt))
    name = run.model
    if run.harness == "lm-eval":
        named = next((str(run.model_args[key]) for key in LM_EVAL_MODEL_ARGUMENTS if key in run.model_args), None)
        if named is not None:
            name = f"{run.model}/{named}"
    return f"{run.grader} on {name}" if run.grader else name


def _shown_argument(value: Any) -> Any:
    text = " ".join(str(value).split())
    if not isinstance(value, str) or len(text) <= SHOWN_ARGUMENT_TEXT:
        return value
    return f"{text[: SHOWN_ARGUMENT_TEXT - 10]}… #{hashlib.sha1(value.encode()).hexdigest()[:6]}"


def judge_arguments(run: Run) -> dict[str, Any]:
    """The judge's arguments as the judges table lists them: the model's, then a grader's scorer arguments; for a
    recorded judge, its prompt label and the file it was read from."""
    if run.recorded is not None:
        return {**run.model_args, "judgments": Path(str(run.recorded.get("file"))).name}
    grader = run.metadata.get(GRADER_METADATA) if run.grader else None
    scorer_args = grader.get("scorer_args") or {} if isinstance(grader, Mapping) else {}
    return {**run.model_args, **{f"scorer_args.{name}": _shown_argument(v) for name, v in scorer_args.items()}}


def parse_aliases(pairs: Iterable[str]) -> dict[str, str]:
    """``--alias MODEL=NAME`` values as ``{MODEL: NAME}``; MODEL is a model name or a judge's full identity."""
    aliases: dict[str, str] = {}
    for pair in pairs:
        model, equals, name = pair.rpartition("=")
        if not equals or not model.strip() or not name.strip():
            raise DataError(f"--alias {pair!r}: write it as MODEL=NAME (for example openai/gpt-4o=GPT-4o)")
        aliases[model.strip()] = name.strip()
    return aliases


def _distinguishing(model_args: Mapping[str, Any], group: Sequence[Mapping[str, Any]]) -> str:
    """The arguments in which this judge differs from the others of its model, as ``(a=1, b=2)``, or a hash."""
    missing = object()
    names = sorted({name for args in group for name in args})
    differing = [
        name for name in names if len({json.dumps(args.get(name, missing), default=str) for args in group}) > 1
    ]
    text = ", ".join(f"{name}={model_args[name]}" for name in differing if name in model_args)
    if not text:
        return ""
    if len(text) <= MAX_DISTINGUISHING_TEXT:
        return f" ({text})"
    digest = hashlib.sha1(json.dumps(dict(model_args), sort_keys=True, default=str).encode()).hexdigest()
    return f" #{digest[:6]}"


def judges_of(runs: Sequence[Run], aliases: Mapping[str, str] | None = None) -> dict[str, Judge]:
    """Every judge of the runs by identity, each with a display name no other judge has."""
    aliases = dict(aliases or {})
    known = {name for run in runs for name in (run.judge, model_name(run), run.model)}
    unused = sorted(set(aliases) - known)
    if unused:
        raise DataError(f"--alias names no judge of these runs: {unused}; models: {sorted(known)}")
    found: dict[str, Judge] = {}
    for run in runs:
        if run.judge in found:
            judge = found[run.judge]
            if run.harness not in judge.harnesses:
                found[run.judge] = replace(judge, harnesses=(*judge.harnesses, run.harness))
            continue
        base = aliases.get(run.judge) or aliases.get(model_name(run)) or aliases.get(run.model) or model_name(run)
        found[run.judge] = Judge(
            base, run.judge, run.model, judge_arguments(run), (run.harness,), recorded=run.recorded is not None
        )
    by_base: dict[str, list[Judge]] = {}
    for judge in found.values():
        by_base.setdefault(judge.name, []).append(judge)
    for group in (group for group in by_base.values() if len(group) > 1):
        arguments = [judge.model_args for judge in group]
        for judge in group:
            found[judge.identity] = replace(judge, name=judge.name + _distinguishing(judge.model_args, arguments))
    names = [judge.name for judge in found.values()]
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise DataError(f"two judges would both be called {repeated}; choose distinct names with --alias MODEL=NAME")
    return found
