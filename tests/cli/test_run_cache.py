"""The run's own request cache: where ``judge-meta-eval run`` keeps it, and that it never turns repeated samples of
one prompt into copies of the first answer."""

from __future__ import annotations

import os
from pathlib import Path
from unittest.mock import patch

from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import Sample
from inspect_ai.model import (
    CachePolicy,
    ChatMessage,
    GenerateConfig,
    ModelAPI,
    ModelOutput,
    get_model,
    modelapi,
)
from inspect_ai.solver import Generate, TaskState, solver
from inspect_ai.tool import ToolChoice, ToolInfo

from judge_meta_eval.cli import CACHE_FOLDER_VARIABLE, RUN_CACHE_FOLDER, parser, run_cache
from solvers.judge import sample_answers


class OneAnswerPerCall(ModelAPI):
    """A judge that, like ``hf/`` or ``anthropic/``, answers one choice per call: the number of the call."""

    calls = 0

    def __init__(self, model_name: str, base_url=None, api_key=None, config=GenerateConfig(), **model_args) -> None:  # noqa: B008
        super().__init__(model_name, base_url, api_key, [], config)

    async def generate(
        self, input: list[ChatMessage], tools: list[ToolInfo], tool_choice: ToolChoice, config: GenerateConfig
    ) -> ModelOutput:
        type(self).calls += 1
        return ModelOutput.from_content(model=self.model_name, content=f"answer {type(self).calls}")


@modelapi(name="one-answer-per-call")
def one_answer_per_call() -> type[ModelAPI]:
    return OneAnswerPerCall


@solver
def three_samples():
    async def solve(state: TaskState, generate: Generate) -> TaskState:
        state.store.set(
            "answers", await sample_answers(get_model(), state.input_text, 3, GenerateConfig(temperature=1))
        )
        return state

    return solve


def _answers(cache_folder: Path, log_folder: Path) -> list[str]:
    with patch.dict(os.environ, {CACHE_FOLDER_VARIABLE: str(cache_folder)}):
        [log] = inspect_eval(
            Task(dataset=[Sample(input="Rate this text.")], solver=three_samples(), name="repeats"),
            model="one-answer-per-call/judge",
            cache=CachePolicy(expiry=None),
            log_dir=str(log_folder),
            display="log",
        )
    return log.samples[0].store["answers"]


def test_repeated_samples_of_one_prompt_keep_their_own_cache_entries(tmp_path):
    """Three answers to one prompt from a judge that answers one per call are three calls, each cached under its own
    key (each asks for the answers still missing, ``num_choices`` 3, 2 and none, which the key holds): the first run
    gets three different answers, the same cache answers the same three without a call, and a new cache asks the
    judge again."""
    OneAnswerPerCall.calls = 0
    assert _answers(tmp_path / "cache", tmp_path / "first") == ["answer 1", "answer 2", "answer 3"]
    assert _answers(tmp_path / "cache", tmp_path / "resumed") == ["answer 1", "answer 2", "answer 3"]
    assert OneAnswerPerCall.calls == 3
    assert _answers(tmp_path / "other-cache", tmp_path / "repeat") == ["answer 4", "answer 5", "answer 6"]


def test_the_run_cache_lives_in_the_judges_log_folder_unless_asked_otherwise(tmp_path, monkeypatch):
    monkeypatch.setenv(CACHE_FOLDER_VARIABLE, "/inspect/shared")
    own = parser().parse_args(["run", "--model", "m"])
    with run_cache(own, tmp_path / "judge"):
        assert os.environ[CACHE_FOLDER_VARIABLE] == str(tmp_path / "judge" / RUN_CACHE_FOLDER)
    assert os.environ[CACHE_FOLDER_VARIABLE] == "/inspect/shared"
    for flags in (["--no-cache"], ["--cache", "1D"]):
        with run_cache(parser().parse_args(["run", "--model", "m", *flags]), tmp_path / "judge"):
            assert os.environ[CACHE_FOLDER_VARIABLE] == "/inspect/shared"
    monkeypatch.delenv(CACHE_FOLDER_VARIABLE)
    with run_cache(own, tmp_path / "judge"):
        assert CACHE_FOLDER_VARIABLE in os.environ
    assert CACHE_FOLDER_VARIABLE not in os.environ
