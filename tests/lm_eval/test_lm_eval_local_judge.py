"""The bundled CPU judge through lm-eval's own ``hf`` backend: the real ``lm_eval`` command on a few items."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from judge_data.local_judge import GGUF_FILE
from lm_eval_tasks import TASK_DIR
from tests.support.lm_eval_runs import lm_eval_metrics, run_lm_eval

pytestmark = pytest.mark.local_judge


@pytest.fixture(scope="module")
def hf_model_args(judge_folder) -> str:
    return f"pretrained={judge_folder},gguf_file={GGUF_FILE},tokenizer={judge_folder},dtype=float32"


def test_storycloze_ratings_on_the_cpu_judge(hf_model_args, dhp_data, tmp_path):
    """One rating per prompt, through a task file of the user's own that includes ours (lm-eval's way to
    change ``repeats``), to keep the CPU time small."""
    once = tmp_path / "dhp_storycloze_once.yaml"
    once.write_text(
        f"include: {Path(TASK_DIR) / 'dhp_storycloze.yaml'}\n"
        "task: dhp_storycloze_once\n"
        "repeats: 1\n"
        "filter_list:\n  - name: none\n    filter:\n      - function: take_first_k\n        k: 1\n"
    )
    metadata = {"data_dir": str(dhp_data("storycloze")), "n": 1, "perturbations": "wrong_ending"}
    results = run_lm_eval(
        [str(once)],
        metadata,
        tmp_path,
        "hf",
        hf_model_args,
        ("--device", "cpu", "--apply_chat_template", "--gen_kwargs", "max_gen_toks=8"),
    )
    metrics = lm_eval_metrics(results, "dhp_storycloze_once")
    # 1 item x (original + wrong ending) x 3 metrics, one answer each, parsed or counted as a failure
    assert results["n-samples"]["dhp_storycloze_once"]["effective"] == 2 * 3
    assert 0 <= metrics["parse_failures"] <= 6
    assert metrics["parse_failure_rate"] == pytest.approx(metrics["parse_failures"] / 6)
    assert set(metrics) >= {"D_avg", "D/wrong_ending", "D_EW/wrong_ending"}


def test_storycloze_likelihoods_on_the_cpu_judge(hf_model_args, dhp_data, tmp_path):
    metadata = {"data_dir": str(dhp_data("storycloze")), "n": 6, "perturbations": "typos,random_ending"}
    results = run_lm_eval(["dhp_storycloze_perplexity"], metadata, tmp_path, "hf", hf_model_args, ("--device", "cpu"))
    metrics = lm_eval_metrics(results, "dhp_storycloze_perplexity")
    assert metrics["parse_failures"] == 0 and metrics["n_undefined"] == 0
    # typos lower a text's likelihood per byte: on six items the one-sided Wilcoxon test finds it at the 5 % level
    assert metrics["D/typos"] > 1
    assert not math.isnan(metrics["D/random_ending"])
