"""``judge-report --push-to-hub``: what it would write (dry run, in this process) and what it writes to a stand-in of
the Hub's HTTP API on 127.0.0.1 (the command, through ``HF_ENDPOINT``); never the real Hub."""

from __future__ import annotations

import json
import os
from pathlib import Path
from unittest.mock import patch

import pytest
import yaml
from inspect_ai import eval as inspect_eval
from inspect_ai.log import read_eval_log, write_eval_log
from inspect_ai.model import get_model

from judge_report.cli import run as judge_report
from judge_report.hub import hub_model
from tests.conftest import data_folder
from tests.support import fake_hub
from tests.support.commands import BIN, create_task, run_cli
from tests.support.fake_judge import constant, serve

JUDGES = {"hf/alice/small-judge": "owned", "vllm/bob/big-judge": "not owned", "openai-api/fakejudge/judge": "API"}
"""The judges the logs name: a Hub model of the token's account, one of another account, and an API model."""

ITEMS = 4

CARD = "---\nlicense: apache-2.0\n---\n\n# Small judge\n\nIt judges.\n"
"""The owned judge's model card before the push: its metadata and text stay, the results are added."""


@pytest.fixture(scope="module")
def logs(tmp_path_factory) -> Path:
    """One FBI single run on the stand-in judge, and the same log under each judge's model name."""
    folder = tmp_path_factory.mktemp("hub")
    task_args = (f"data_dir={data_folder('fbi')}", "per_category=2", "categories=entity,grammar")
    with serve(constant("Rating: [[3]]")) as (url, _):
        model = get_model("openai-api/fakejudge/judge", base_url=url, api_key="test", memoize=False)
        with patch.dict(os.environ, {"INSPECT_CACHE_DIR": str(folder / "cache")}):
            [log] = inspect_eval(
                create_task("fbi_tasks/single", *task_args), model=model, log_dir=str(folder / "run"), display="log"
            )
    full = read_eval_log(log.location)
    for number, name in enumerate(JUDGES):
        full.eval.model = name
        write_eval_log(full, str(folder / "logs" / f"judge{number}.eval"))
    return folder / "logs"


def test_hub_models_are_the_providers_that_load_a_hub_repository():
    assert hub_model("hf/Qwen/Qwen2.5-7B-Instruct") == "Qwen/Qwen2.5-7B-Instruct"
    assert hub_model("vllm-completions/alice/judge") == "alice/judge"
    assert hub_model("hf/smollm2") is None  # a local folder through -M model_path
    assert hub_model("openai/gpt-4o-mini") is None and hub_model("openai-api/vendor/model") is None


def test_the_dry_run_lists_every_file_and_card_and_sends_nothing(logs, tmp_path, capsys):
    judge_report([str(logs), "--out", str(tmp_path), "--plots", "none", "--push-to-hub", "alice/results", "--dry-run"])
    printed = capsys.readouterr().out
    assert "dataset alice/results (created if it does not exist):" in printed
    for path in ("README.md", "report.json", "items/hf_alice_small-judge/fbi_single_vanilla.jsonl"):
        assert f"  {path} (" in printed
    assert "model card alice/small-judge (hf/alice/small-judge), if the token's account" in printed
    assert "model card bob/big-judge (vllm/bob/big-judge)" in printed
    assert (
        "left out: model card of openai-api/fakejudge/judge: openai-api/fakejudge/judge is not a Hub model" in printed
    )


@pytest.mark.integration
def test_the_push_writes_the_dataset_and_the_owned_judges_card_to_a_stand_in_hub(logs, tmp_path):
    existing = {"models/alice/small-judge": {"README.md": CARD.encode()}, "models/bob/big-judge": {}}
    with fake_hub.serve(user="alice", repos=existing) as (endpoint, hub):
        environment = {
            "HF_ENDPOINT": endpoint,
            "HF_TOKEN": fake_hub.TOKEN,
            "HF_HUB_OFFLINE": "0",
            "HF_HOME": str(tmp_path / "hf-home"),
        }
        command = [str(BIN / "judge-report"), str(logs), "--out", str(tmp_path / "report"), "--plots", "none"]
        result = run_cli([*command, "--push-to-hub", "alice/results"], tmp_path, environment)
    dataset = hub.repos["datasets/alice/results"]
    assert set(dataset) == {
        "README.md",
        "report.json",
        *(f"items/{name.replace('/', '_')}/fbi_single_vanilla.jsonl" for name in JUDGES),
    }
    rows = [
        json.loads(line)
        for line in dataset["items/hf_alice_small-judge/fbi_single_vanilla.jsonl"].decode().splitlines()
    ]
    assert len(rows) == ITEMS and {row["judge"] for row in rows} == {"hf/alice/small-judge"}
    assert all(row["suite"] == "fbi" and row["task"] == "fbi_single_vanilla" for row in rows)
    report = json.loads(dataset["report.json"])
    assert {judge["model"] for judge in report["judges"]} == set(JUDGES)

    card = hub.repos["models/alice/small-judge"]
    front_matter = yaml.safe_load(card["README.md"].decode().split("---")[1])
    assert front_matter["license"] == "apache-2.0" and card["README.md"].decode().endswith("It judges.\n")
    [index] = front_matter["model-index"]
    metrics = {metric["type"]: metric["value"] for result in index["results"] for metric in result["metrics"]}
    logged = {name: value for name, value in report["runs"][0]["metrics"].items() if name == "error_rate"}
    assert metrics["error_rate"] == pytest.approx(logged["error_rate"])
    assert ".eval_results/fbi_single_vanilla.yaml" in card  # FBI's benchmark is the Hub dataset ai4bharat/FBI
    assert hub.repos["models/bob/big-judge"] == {}
    assert "model card alice/small-judge: model-index entries and 1 .eval_results files" in result.stdout
    assert "model card of vllm/bob/big-judge: bob/big-judge belongs to bob, not to the token's account" in result.stdout
