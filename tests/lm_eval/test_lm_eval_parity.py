"""Parity: the same stand-in judge, on the same items, through the real ``inspect eval`` and the real ``lm_eval``.

Both harnesses reach the judge over its OpenAI-compatible chat API (inspect's ``openai-api/`` provider,
lm-eval's ``local-chat-completions``), must send it the same prompts, and must report the same numbers.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import re
import threading
import time
from functools import partial
from pathlib import Path

import numpy as np
import pytest
from inspect_ai.log import EvalLog

from coeval_tasks import data as coeval_data
from dhp_tasks.prompts import TEXT_KINDS
from judge_data.human import load_criteria, load_items
from lm_eval_tasks.tasks import TASKS
from scorers.discernment import BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED, ScoreRecord, interval_names
from scorers.values import JSON_ONLY_METRICS
from solvers.criteria_lists import criteria_prompt
from tests.adherence.test_adherence_integration import _ITEM as ADHERENCE_ITEM
from tests.adherence.test_adherence_integration import knows_the_humans, unambiguous_seed
from tests.coeval.test_coeval_criteria import coeval_folder, minilm  # noqa: F401 (minilm is a fixture)
from tests.conftest import data_folder
from tests.dhp.test_discernment import median_centred_bounds, slow_bootstrap
from tests.support.commands import side_by_side
from tests.support.fake_judge import Answer, judged_text, reads_request, serve
from tests.support.inspect_runs import metrics_of, originals_of, run_inspect
from tests.support.lm_eval_runs import compare, lm_eval_metrics, print_rows, run_lm_eval, run_lm_eval_chat, same

pytestmark = pytest.mark.integration


def _draw(prompt: str, choices: int) -> int:
    """A number in ``range(choices)`` fixed by the prompt, so every harness and every repeat gets the same answer."""
    return int(hashlib.sha256(prompt.encode()).hexdigest(), 16) % choices


def partly_discerning(originals: set[str]) -> Answer:
    """Rates originals 5 and every other text 3, 4 or 5, as its prompt happens to fall: some discernment."""
    return lambda prompt: "5" if judged_text(prompt) in originals else str(3 + _draw(prompt, 3))


def erratic_fbi_judge(prompt: str) -> str:
    """Ratings 1-10, verdicts A/B/tie, and now and then an answer with nothing to parse, fixed by the prompt."""
    if "[Answer A]" in prompt:
        return ["[[A]]", "Answer B. [[B]]", "[[C]]", "Hard to say."][_draw(prompt, 4)]
    draw = _draw(prompt, 11)
    return "No verdict." if draw == 10 else f"Some explanation. Rating: [[{draw + 1}]]"


def noisy(answer: Answer, low: float, high: float) -> Answer:
    """The human score plus or minus up to one point (kept on the scale), fixed by the prompt."""

    def noisy_answer(prompt: str) -> str:
        text = answer(prompt)
        if not text.startswith("Score: "):
            return text
        shifted = float(text.removeprefix("Score: ")) + (_draw(prompt, 5) - 2) / 2
        return f"Score: {min(high, max(low, shifted)):.6f}"

    return noisy_answer


def by_prompt(answers: dict[str, Answer]) -> Answer:
    """One server for several suites: the answer function is chosen by what the prompt looks like."""

    def answer(prompt: str) -> str:
        for marker, suite_answer in answers.items():
            if marker in prompt:
                return suite_answer(prompt)
        raise ValueError(f"no judge for prompt {prompt[:200]!r}")

    return answer


def logged_records(log: EvalLog) -> list[ScoreRecord]:
    """The ratings of every sample of a DHP log, as the metric's records, read straight from the samples' scores."""
    metrics = log.eval.metadata["metrics"]
    records = []
    for sample in log.samples or []:
        value = next(iter((sample.scores or {}).values())).value
        assert isinstance(value, dict)
        scores = {metric: float(value.get(metric, math.nan)) for metric in metrics}
        meta = sample.metadata
        records.append(ScoreRecord(str(meta["item_id"]), meta["perturbation"], meta.get("level"), scores))
    return records


def test_lm_eval_and_inspect_report_the_same_numbers(tmp_path, dhp_data, fbi_data):
    storycloze = dhp_data("storycloze")
    summeval = data_folder("human", "summeval")
    seed = unambiguous_seed("summeval", 20)
    dhp_judge = partly_discerning(originals_of("storycloze", storycloze, 4))
    adherence_judge = noisy(knows_the_humans("summeval", 20, seed), 1, 5)
    judge = by_prompt(
        {
            TEXT_KINDS["story"].prompt.task: dhp_judge,
            "### Task description": adherence_judge,
            "AI assistant": erratic_fbi_judge,
        }
    )
    runs = {
        "dhp_storycloze": ("dhp_tasks/storycloze", f"data_dir={storycloze}", "n=4", "repeats=5"),
        "fbi_single_vanilla": ("fbi_tasks/single", f"data_dir={fbi_data}", "per_category=1", "strategy=vanilla"),
        "fbi_pairwise": ("fbi_tasks/pairwise", f"data_dir={fbi_data}", "per_category=1", "strategy=pairwise"),
        "adherence_summeval_rubric": (
            "adherence_tasks/summeval",
            f"data_dir={summeval}",
            "n=20",
            f"seed={seed}",
            "setting=rubric",
        ),
    }
    metadata = {
        "dhp_storycloze": {"data_dir": str(storycloze), "n": 4},
        "fbi": {"data_dir": str(fbi_data), "per_category": 1},
        "adherence_summeval_rubric": {"data_dir": str(summeval), "n": 20, "seed": seed},
    }
    started = time.perf_counter()
    (results, calls, lm_eval_seconds), *inspect_runs = side_by_side(
        partial(run_lm_eval_chat, judge, list(runs), metadata, tmp_path),
        *(
            partial(run_inspect, task, judge, tmp_path / "inspect" / name, *args)
            for name, (task, *args) in runs.items()
        ),
    )
    both_seconds = time.perf_counter() - started
    inspect_logs = {name: log for name, (log, _) in zip(runs, inspect_runs, strict=True)}
    inspect_prompts = {
        name: {json.dumps(call["messages"]) for call in inspect_calls}
        for name, (_, inspect_calls) in zip(runs, inspect_runs, strict=True)
    }
    inspect_metrics = {name: metrics_of(log) for name, log in inspect_logs.items()}

    lm_eval_prompts = {json.dumps(call["messages"]) for call in calls}
    assert lm_eval_prompts == set().union(*inspect_prompts.values())
    assert len(calls) == 4 * 5 * 3 * 5 + 23 * 2 + 23 * 2 + 20 * 4  # DHP asks each prompt 5 times, one call each

    rows = []
    for name in runs:  # lm-eval's rows that inspect leaves out (LLM-based perturbations without a suite) are NaN
        rows += compare(inspect_metrics[name], results, name)
        assert results["versions"][name] == TASKS[name].version
    print_rows(rows)
    print(f"wall time: lm_eval {lm_eval_seconds:.1f} s (one run), {both_seconds:.1f} s with inspect's 4 beside it")

    # lm-eval's usual keys, so leaderboards that read its results JSON take these as they are; a custom
    # aggregation has no stderr in lm-eval (the rates' bootstrap intervals are metrics of their own)
    assert {"D_avg,none", "D/typos,none", "error_rate,none", "pearson,none"} <= {
        key for task in runs for key in results["results"][task]
    }
    assert results["results"]["dhp_storycloze"]["D_avg_stderr,none"] == "N/A"
    assert results["higher_is_better"]["fbi_pairwise"]["error_rate"] is False

    dhp = lm_eval_metrics(results, "dhp_storycloze")
    assert 0 < dhp["D_min"] < dhp["D_avg"] < 236  # some discernment, not total: a real comparison
    # every D's item-bootstrap bounds: defined, equal in both harnesses (compare above), and the bias-corrected
    # percentiles of a plain loop over the same resamples of the inspect log's per-sample ratings
    dhp_log = inspect_logs["dhp_storycloze"]
    resampled = slow_bootstrap(
        logged_records(dhp_log), dhp_log.eval.metadata["metrics"], dhp_log.eval.metadata["expert_weights"],
        dhp_log.eval.metadata["combine"], BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED,
    )  # fmt: skip
    assert {"D_avg", "D_min_EW", "D/typos", "D_EW/typos"} <= set(resampled)
    for name, values in resampled.items():
        bounds, percentiles = interval_names(name), median_centred_bounds(values, dhp[name])
        assert [dhp[bound] for bound in bounds] == pytest.approx(percentiles, rel=1e-9), name
        assert all(same(inspect_metrics["dhp_storycloze"][bound], dhp[bound]) for bound in bounds), name
    fbi = lm_eval_metrics(results, "fbi_pairwise")
    assert 0 < fbi["flip_rate"] < 1 and fbi["parse_failures"] > 0
    assert 0 < lm_eval_metrics(results, "fbi_single_vanilla")["error_rate"] < 1
    adherence = lm_eval_metrics(results, "adherence_summeval_rubric")
    assert 0.3 < adherence["pearson"] < 1
    # system level: defined on the draw's systems, and the same number in both harnesses (compared above)
    assert adherence["n_systems"] >= 3 and -1 <= adherence["system_tau"] <= 1
    assert ("adherence_summeval_rubric", "system_tau") in {(task, metric) for task, metric, _, _ in rows}
    assert len(rows) > 120


REFERENCE_CRITERIA = (
    "1. Relevance: The response should be relevant to the user's instruction or query.\n"
    "2. Clarity: The response should be clear and easy to understand.\n"
    "3. Humour: The response should make the reader smile."
)
REWORDED_CRITERIA = (
    "- Relevance: it answers what was asked.\n- Brevity: no needless words.\n"
    "- Accuracy: the facts are right.\n- Politeness: the tone is courteous."
)
NO_LIST = "I would read the output and decide whether it is good."
_DIRECT_RESPONSE = re.compile(r"\n\nOutput:\n(.*)\n\nGive the output an overall quality score", re.DOTALL)


def coeval_judge(criteria_prompts: list[str], items) -> Answer:
    """Writes criteria lists and scores responses; every answer is fixed by the request, so both harnesses get it.

    Criteria: the same list at temperature 0 for every task description; when sampling, the same list again
    (1st, 4th, ... task description), a reworded one (2nd, 5th, ...) or no list at all (3rd, 6th, ...), each sampled
    answer under its own heading (``Set k:``) so that the samples differ as text, not as lists.
    Direct scores: the human overall mean plus or minus up to one point, and now and then no score.
    """
    behaviour = {prompt: index % 3 for index, prompt in enumerate(criteria_prompts)}
    overall = {item.response: float(np.mean(list(item.human.values()))) for item in items}
    sampled = {prompt: itertools.count(1) for prompt in criteria_prompts}
    lock = threading.Lock()

    @reads_request
    def answer(request: dict) -> str:
        prompt = request["messages"][-1]["content"]
        if prompt in behaviour:
            if not request.get("temperature"):
                return REFERENCE_CRITERIA
            with lock:  # the k-th sampled answer to a prompt, whether it comes as a choice or as a request
                preamble = f"Set {next(sampled[prompt])}:"
            return f"{preamble}\n{(REFERENCE_CRITERIA, REWORDED_CRITERIA, NO_LIST)[behaviour[prompt]]}"
        if _draw(prompt, 4) == 0:
            return "It depends on the reader."
        score = overall[_DIRECT_RESPONSE.search(prompt).group(1)] + (_draw(prompt, 5) - 2) / 2
        return f"Overall score: {min(5.0, max(1.0, score)):.6f}"

    return answer


def test_lm_eval_and_inspect_report_the_same_coeval_numbers(tmp_path, minilm):  # noqa: F811 (fixture)
    instructions, eli5 = coeval_folder("self_instruct"), coeval_folder("eli5")
    chosen = coeval_data.select(coeval_data.load_source("self_instruct", instructions).tasks, 4, 0)
    prompts = [criteria_prompt(task.task, task.example_input, task.example_output) for task in chosen]
    items = coeval_data.load_human_scores("eli5", eli5).items
    judge = coeval_judge(prompts, items)
    runs = {
        "coeval_criteria_self_instruct": (
            "coeval_tasks/criteria",
            "dataset=self_instruct",
            f"data_dir={instructions}",
            "n=4",
            "samples=3",
            f"embedder={minilm}",
        ),
        "coeval_eli5_direct": ("coeval_tasks/eli5", f"data_dir={eli5}", "mode=direct", "n=20"),
    }
    # inspect's two runs side by side (they ask different prompts), lm-eval's after them: the judge's sampled lists
    # follow the order in which each prompt is asked
    started = time.perf_counter()
    inspect_runs = side_by_side(
        *(partial(run_inspect, task, judge, tmp_path / "inspect" / name, *args) for name, (task, *args) in runs.items())
    )
    inspect_seconds = time.perf_counter() - started
    inspect_metrics = {name: metrics_of(log) for name, (log, _) in zip(runs, inspect_runs, strict=True)}
    inspect_calls = [call for _, calls in inspect_runs for call in calls]

    metadata = {
        "coeval_criteria_self_instruct": {"data_dir": str(instructions), "n": 4, "samples": 3, "embedder": minilm},
        "coeval_eli5_direct": {"data_dir": str(eli5), "n": 20},
    }
    results, calls, lm_eval_seconds = run_lm_eval_chat(judge, list(runs), metadata, tmp_path)

    # the same prompts; inspect asks for the sampled lists as 3 choices of one call, lm-eval in 3 calls
    assert {json.dumps(call["messages"]) for call in calls} == {json.dumps(call["messages"]) for call in inspect_calls}
    criteria_calls = [call for call in calls if call["messages"][-1]["content"] in prompts]
    assert sorted(call["temperature"] for call in criteria_calls) == [0.0] * 4 + [0.7] * 12
    assert len(calls) == len(criteria_calls) + 20

    rows = []
    for name in runs:
        theirs = lm_eval_metrics(results, name)
        assert set(theirs) - set(JSON_ONLY_METRICS) <= set(inspect_metrics[name]), set(theirs) - set(
            inspect_metrics[name]
        )
        assert all(math.isnan(theirs[metric]) for metric in JSON_ONLY_METRICS if metric in theirs)
        rows += compare(inspect_metrics[name], results, name)
        assert results["versions"][name] == TASKS[name].version
    print_rows(rows)
    print(
        f"wall time: inspect {inspect_seconds:.1f} s (2 runs side by side), lm_eval {lm_eval_seconds:.1f} s (one run)"
    )

    criteria = lm_eval_metrics(results, "coeval_criteria_self_instruct")
    assert 0.5 < criteria["cc"] < 1  # the reworded lists pull it below one
    assert criteria["icc"] == pytest.approx(1.0)  # the sampled answers hold one list: the sampled lists agree
    assert criteria["identical_lists"] == 0
    assert criteria["parse_failures"] == 3  # the third task description's three sampled answers
    assert criteria["matched"] == 2 and criteria["coverage"] == pytest.approx(2 / 5)
    direct = lm_eval_metrics(results, "coeval_eli5_direct")
    assert 0.3 < direct["pearson/overall"] < 1 and direct["parse_failures"] > 0
    assert direct["alpha/with_judge/overall"] < direct["alpha/annotators/overall"]
    assert "pearson/annotator/A03/overall" in direct and "pearson/simple_language" not in direct
    # alpha per pair of raters: the annotator pairs on the criterion units, and with the judge on the overall score
    ids = [f"A0{k}" for k in range(1, 6)]
    annotator_pairs = [f"{first}/{second}" for i, first in enumerate(ids) for second in ids[i + 1 :]]
    with_judge = [*(f"judge/{annotator}" for annotator in ids), *annotator_pairs]
    pairs = {name: value for name, value in direct.items() if name.startswith("alpha/pair/")}
    assert set(pairs) == {f"alpha/pair/{pair}" for pair in annotator_pairs} | {
        f"alpha/pair/{pair}/overall" for pair in with_judge
    }
    inspect_direct = inspect_metrics["coeval_eli5_direct"]
    assert all(not math.isnan(value) and same(inspect_direct[name], value) for name, value in pairs.items()), pairs
    # alpha's item-bootstrap bounds: the same resamples of the same items in both harnesses
    bounds = {name: value for name, value in direct.items() if name.startswith("alpha_ci_")}
    assert set(bounds) == {
        f"alpha_ci_{side}/{name}"
        for side in ("low", "high")
        for name in ("annotators", "annotators/overall", "with_judge/overall")
    }
    assert all(not math.isnan(value) and same(inspect_direct[name], value) for name, value in bounds.items()), bounds
    assert direct["alpha_ci_low/with_judge/overall"] < direct["alpha/with_judge/overall"]
    assert direct["alpha/with_judge/overall"] < direct["alpha_ci_high/with_judge/overall"]
    assert results["higher_is_better"]["coeval_criteria_self_instruct"]["missed"] is False
    assert len(rows) == 8 + 19 + len(bounds) + len(pairs)  # the criteria task's 8: cc, icc, ..., identical_lists


def human_scored_folder(folder: Path, n: int) -> Path:
    """A small human-scored dataset of our own: two criteria, three annotators (R1-R3) with seeded scores."""
    folder.mkdir(parents=True)
    criteria = [
        {"name": "clarity", "original_name": "Clarity", "group": "Content", "definition": "It is easy to read."},
        {"name": "accuracy", "original_name": "Accuracy", "group": "Integrity", "definition": "Its facts are right."},
    ]
    scale = {"range": [1, 5], "scale": "likert", "higher_is_better": True}
    document = {"task_description": "Answer a child's question in one sentence.", "criteria": []}
    document["criteria"] = [{**criterion, **scale} for criterion in criteria]
    (folder / "criteria.json").write_text(json.dumps(document))
    rng = np.random.default_rng(7)
    rows = []
    for j in range(n):
        scores = {c["name"]: [float(s) for s in rng.integers(1, 6, size=3)] for c in criteria}
        rows.append(
            {
                "id": f"q{j}",
                "task": f"Why does thing number {j} happen?",
                "response": f"Thing {j} happens because of reason {j * 7 % 11}.",
                "criteria": {name: float(np.mean(values)) for name, values in scores.items()},
                "annotator_scores": scores,
                "annotator_ids": ["R1", "R2", "R3"],
            }
        )
    (folder / "items.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    return folder


def knows_the_folder(folder: Path) -> Answer:
    """Answers an adherence question with the human mean of the criterion its prompt names."""
    criteria, _ = load_criteria(folder)
    human = {(item.task, item.response): item.human for item in load_items(folder, criteria)}

    def answer(prompt: str) -> str:
        task, response, ask = ADHERENCE_ITEM.search(prompt).groups()
        criterion = next(c for c in criteria if c.title in ask)
        return f"Score: {human[(task, response)][criterion.name]:.6f}"

    return answer


def test_lm_eval_and_inspect_report_the_same_numbers_on_custom_data(tmp_path):
    texts = [
        f"The report covers site {j}. It lists the costs in detail. Every figure is checked twice. The board signs it."
        for j in range(5)
    ]
    dhp_folder = tmp_path / "texts"
    dhp_folder.mkdir()
    (dhp_folder / "items.jsonl").write_text(
        "".join(
            json.dumps({"id": f"t{j}", "text": text, "context": "An article."}) + "\n" for j, text in enumerate(texts)
        )
    )
    folder = human_scored_folder(tmp_path / "scored", 16)
    direct = coeval_judge([], coeval_data.read_local_items("custom", folder).items)
    judge = by_prompt(
        {
            TEXT_KINDS["summarization"].prompt.task: partly_discerning(set(texts)),
            "### Task description": noisy(knows_the_folder(folder), 1, 5),
            "Give the output an overall quality score": lambda prompt: direct({"messages": [{"content": prompt}]}),
        }
    )
    perturbations = "typos_minor,sentence_reorder_major"
    runs = {
        "dhp_custom": (
            "dhp_tasks/custom",
            f"data_dir={dhp_folder}",
            "metrics=coherence,fluency",
            f"perturbations={perturbations}",
        ),
        "adherence_custom_rubric": ("adherence_tasks/custom", f"data_dir={folder}", "setting=rubric"),
        "coeval_custom_direct": ("coeval_tasks/custom", f"data_dir={folder}", "mode=direct"),
    }
    metadata = {
        "dhp_custom": {"data_dir": str(dhp_folder), "metrics": "coherence,fluency", "perturbations": perturbations},
        "adherence_custom_rubric": {"data_dir": str(folder)},
        "coeval_custom_direct": {"data_dir": str(folder)},
    }
    started = time.perf_counter()
    (results, calls, lm_eval_seconds), *inspect_runs = side_by_side(
        partial(run_lm_eval_chat, judge, list(runs), metadata, tmp_path),
        *(
            partial(run_inspect, task, judge, tmp_path / "inspect" / name, *args)
            for name, (task, *args) in runs.items()
        ),
    )
    both_seconds = time.perf_counter() - started
    inspect_metrics = {name: metrics_of(log) for name, (log, _) in zip(runs, inspect_runs, strict=True)}
    inspect_prompts = {json.dumps(call["messages"]) for _, inspect_calls in inspect_runs for call in inspect_calls}

    assert {json.dumps(call["messages"]) for call in calls} == inspect_prompts
    assert len(calls) == 5 * 3 * 2 * 5 + 16 * 2 + 16
    rows = [row for name in runs for row in compare(inspect_metrics[name], results, name)]
    print_rows(rows)
    print(f"wall time: lm_eval {lm_eval_seconds:.1f} s (one run), {both_seconds:.1f} s with inspect's 3 beside it")

    # the metrics named by the data are reported, with their directions
    dhp = lm_eval_metrics(results, "dhp_custom")
    assert {"D/typos_minor", "D_EW/sentence_reorder_major", "parse_failures/fluency"} <= set(dhp)
    assert "parse_failures/relevance" not in dhp and 0 < dhp["D_avg"]
    adherence = lm_eval_metrics(results, "adherence_custom_rubric")
    assert 0.3 < adherence["pearson/clarity"] < 1 and "pearson/group/Integrity" in adherence
    coeval = lm_eval_metrics(results, "coeval_custom_direct")
    assert {f"pearson/annotator/R{k}/overall" for k in (1, 2, 3)} <= set(coeval)
    assert coeval["parse_failures"] > 0
    assert results["higher_is_better"]["adherence_custom_rubric"]["n/accuracy"] is True
    assert results["higher_is_better"]["dhp_custom"]["parse_failures/coherence"] is False
    assert all(results["versions"][name] == TASKS[name].version for name in runs)
    assert len(rows) == sum(len(set(metrics) - set(JSON_ONLY_METRICS)) for metrics in (dhp, adherence, coeval))


CHECKER = "[Evaluator's explanation]"


def tying_fbi_judge(prompt: str) -> str:
    """Rates 7, 8 or 9 (a third of the pairs equal), ties one pair order in four, and as the checker says yes,
    no, or nothing parsable; every answer fixed by the prompt."""
    if CHECKER in prompt:
        return ["The explanation names it. [[YES]]", "[[NO]]", "It is hard to say."][_draw(prompt, 3)]
    if "[Answer A]" in prompt:
        return ["Answer A has a slip, but they are even. [[C]]", "[[A]]", "[[B]]", "Even. [[C]]"][_draw(prompt, 4)]
    return f"Some explanation. Rating: [[{7 + _draw(prompt, 3)}]]"


@pytest.mark.parametrize("paradigm, lm_eval_task", [("single", "fbi_single_vanilla"), ("pairwise", "fbi_pairwise")])
def test_lm_eval_checks_explanations_as_inspect_does(tmp_path, fbi_data, paradigm, lm_eval_task):
    def judge_then_check() -> tuple[dict, list[dict], float]:
        """lm-eval's two runs, the judge's and then the checker's on its logged samples."""
        started = time.perf_counter()
        model = "local-chat-completions"
        with serve(tying_fbi_judge) as (url, calls):
            (tmp_path / "judge").mkdir()
            run_lm_eval(
                [lm_eval_task],
                {"data_dir": str(fbi_data), "per_category": 1},
                tmp_path / "judge",
                model,
                f"model=judge,base_url={url}/chat/completions,num_concurrent=1",
                ("--apply_chat_template", "--log_samples"),
            )
            [samples] = (tmp_path / "judge").rglob(f"samples_{lm_eval_task}_*.jsonl")
            (tmp_path / "check").mkdir()
            results = run_lm_eval(
                ["fbi_explanations"],
                {"judgments": str(samples)},
                tmp_path / "check",
                model,
                f"model=checker,base_url={url}/chat/completions,num_concurrent=1",
                ("--apply_chat_template",),
            )
        return results, calls, time.perf_counter() - started

    (results, calls, lm_eval_seconds), (log, inspect_calls) = side_by_side(
        judge_then_check,
        partial(
            run_inspect,
            f"fbi_tasks/{paradigm}",
            tying_fbi_judge,
            tmp_path / "inspect",
            f"data_dir={fbi_data}",
            "per_category=1",
            extra_args=("--model-role", "explanation_checker=openai-api/fakejudge/checker"),
        ),
    )
    ours = metrics_of(log)

    checks = {json.dumps(call["messages"]) for call in inspect_calls if call["model"] == "checker"}
    assert {json.dumps(call["messages"]) for call in calls if call["model"] == "checker"} == checks
    rows = compare(ours, results, "fbi_explanations")
    print_rows(rows)
    print(f"wall time: lm_eval {lm_eval_seconds:.1f} s (judge run and checker run)")
    assert {metric for _, metric, _, _ in rows} == {name for name in ours if name.startswith("explanation_")}
    assert 0 < ours["explanation_caught_rate"] < 1 and ours["explanation_unparsed"] > 0
    assert len(checks) >= 5
    assert results["higher_is_better"]["fbi_explanations"]["explanation_unparsed"] is False
