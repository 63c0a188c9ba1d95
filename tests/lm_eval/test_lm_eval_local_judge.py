"""The bundled CPU judge through lm-eval's own ``hf`` backend: the real ``lm_eval`` command on a few items.

One ``lm_eval`` run serves every test here (lm-eval's start-up and the judge's loading are most of its time): Story
Cloze ratings and likelihoods, each task given its own items under its name in ``--metadata``. lm-eval applies
``--apply_chat_template`` to every task of a run, the likelihood task's context included."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from judge_data.local_judge import GGUF_FILE
from lm_eval_tasks import TASK_DIR
from tests.conftest import data_folder
from tests.support.lm_eval_runs import lm_eval_metrics, run_lm_eval

pytestmark = pytest.mark.local_judge

RATINGS = "dhp_storycloze_once"
"""Ratings asked once per prompt, through a task file of the user's own that includes ours (lm-eval's way to change
``repeats``), to keep the CPU time small."""
LIKELIHOODS = "dhp_storycloze_perplexity"


@pytest.fixture(scope="module")
def results(judge_folder, tmp_path_factory) -> dict:
    """The results JSON of one ``lm_eval`` run of both tasks on the CPU judge."""
    folder = tmp_path_factory.mktemp("lm_eval_cpu_judge")
    once = folder / f"{RATINGS}.yaml"
    once.write_text(
        f"include: {Path(TASK_DIR) / 'dhp_storycloze.yaml'}\n"
        f"task: {RATINGS}\n"
        "repeats: 1\n"
        "filter_list:\n  - name: none\n    filter:\n      - function: take_first_k\n        k: 1\n"
    )
    metadata = {
        "data_dir": str(data_folder("dhp", "storycloze")),
        "dhp_storycloze": {"n": 1, "perturbations": "wrong_ending"},
        LIKELIHOODS: {"n": 6, "perturbations": "typos,random_ending"},
    }
    model_args = f"pretrained={judge_folder},gguf_file={GGUF_FILE},tokenizer={judge_folder},dtype=float32"
    return run_lm_eval(
        [str(once), LIKELIHOODS],
        metadata,
        folder,
        "hf",
        model_args,
        ("--device", "cpu", "--apply_chat_template", "--gen_kwargs", "max_gen_toks=8"),
    )


def test_storycloze_ratings_on_the_cpu_judge(results):
    metrics = lm_eval_metrics(results, RATINGS)
    # 1 item x (original + wrong ending) x 3 metrics, one answer each, parsed or counted as a failure
    assert results["n-samples"][RATINGS]["effective"] == 2 * 3
    assert 0 <= metrics["parse_failures"] <= 6
    assert metrics["parse_failure_rate"] == pytest.approx(metrics["parse_failures"] / 6)
    assert set(metrics) >= {"D_avg", "D/wrong_ending", "D_EW/wrong_ending"}


def test_storycloze_likelihoods_on_the_cpu_judge(results):
    metrics = lm_eval_metrics(results, LIKELIHOODS)
    assert results["n-samples"][LIKELIHOODS]["effective"] == 6 * 3
    assert metrics["parse_failures"] == 0 and metrics["n_undefined"] == 0
    # typos lower a text's likelihood per byte: on six items the one-sided Wilcoxon test finds it at the 5 % level
    assert metrics["D/typos"] > 1
    assert not math.isnan(metrics["D/random_ending"])
