"""Judges compared on the items they share, rank groups and references, on real logs: an oracle judge, its exact
twin and a constant judge through ``inspect eval-set`` and ``judge-report``; then the statistics on values."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from fbi_tasks.data import load_items
from tests.cli import BIN, INSPECT, run_cli, task_options
from tests.conftest import data_folder
from tests.fake_judge import constant, knows_gold, knows_originals, serve

JUDGES = ("oracle", "twin", "constant")
MODELS = ",".join(f"openai-api/fakejudge/{judge}" for judge in JUDGES)

PER_CATEGORY = 3
CATEGORIES = ("entity", "grammar", "calculations")
"""9 perturbed FBI items: the oracle fails none, the constant judge all, so McNemar's p is 2 / 2^9, below 0.05
after Holm's adjustment over the 3 pairs."""

D_FOUR_PAIRS = math.log(1 / 16) / math.log(0.05)
"""D of a judge that rates all 4 originals above their copies: the one-sided Wilcoxon p of 4 positive pairs."""


def eval_set(log_dir: Path, task: str, oracle, wrong, *task_args: str) -> None:
    command = [INSPECT, "eval-set", task, "--model", MODELS, "--log-dir", str(log_dir), "--display", "plain"]
    answers = {"oracle": oracle, "twin": oracle, "constant": wrong}
    with serve(answers) as (url, _):
        run_cli(
            [*command, *task_options(*task_args)],
            log_dir.parent,
            {"FAKEJUDGE_BASE_URL": url, "FAKEJUDGE_API_KEY": "test"},
        )


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    from tests.test_inspect_integration import originals_of

    root = tmp_path_factory.mktemp("comparisons") / "logs"
    summeval = data_folder("dhp", "summeval")
    eval_set(
        root / "dhp",
        "dhp_tasks/summeval",
        knows_originals(originals_of("summeval", summeval, 4)),
        constant("3"),
        f"data_dir={summeval}",
        "n=4",
        "repeats=1",
        "perturbations=typos_major,sentence_reorder_major",
    )
    fbi = data_folder("fbi")
    gold = {item.gold for item in load_items(fbi, per_category=PER_CATEGORY).items}
    eval_set(
        root / "fbi",
        "fbi_tasks/single",
        knows_gold(gold),
        constant("Rating: [[3]]"),
        f"data_dir={fbi}",
        f"per_category={PER_CATEGORY}",
        f"categories={','.join(CATEGORIES)},score_invariant",
        "strategy=vanilla_star",
    )
    eval_set(
        root / "fbi-pairwise",
        "fbi_tasks/pairwise",
        knows_gold(gold),
        constant("[[A]]"),
        f"data_dir={fbi}",
        f"per_category={PER_CATEGORY}",
        f"categories={','.join(CATEGORIES)}",
        "strategy=pairwise_star",
    )
    out = root.parent / "report"
    run_cli([str(BIN / "judge-report"), str(root), "--out", str(out), "--plots", "none"], root.parent)
    return out


@pytest.mark.integration
def test_logs(report):
    print(report)
    assert 0
