"""The lm-eval task files: up to date with their table, loadable by lm-eval, and their hooks' building blocks."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from judge_data import OptionError
from lm_eval_tasks import TASK_DIR
from lm_eval_tasks.generate import generated_files
from lm_eval_tasks.tasks import CUSTOM, TASKS, aggregation_name
from scorers.directions import higher_is_better
from tests.coeval.test_coeval_criteria import DATASETS, coeval_folder, minilm  # noqa: F401 (minilm is a fixture)


def test_committed_yaml_files_are_what_the_generator_writes():
    committed = {path.name: path.read_text(encoding="utf-8") for path in Path(TASK_DIR).glob("*.yaml")}
    assert committed == generated_files(), "run `python -m lm_eval_tasks.generate`"


def test_lm_eval_loads_every_task_and_group_from_the_folder():
    from lm_eval.tasks import TaskManager

    manager = TaskManager(include_path=TASK_DIR, include_defaults=False)
    assert set(TASKS) <= set(manager.all_tasks)
    assert {"dhp", "dhp_perplexity", "fbi", "adherence", "adherence_perplexity", "coeval"} <= set(manager.all_groups)
    assert {"dhp_summeval", "fbi_single_vanilla", "fbi_pairwise_star", "adherence_summeval_rubric"} <= set(TASKS)
    coeval = {name for name, task in TASKS.items() if task.suite == "coeval" and task.dataset != CUSTOM}
    assert coeval == {f"coeval_{kind}" for d in DATASETS for kind in (f"criteria_{d}", f"{d}_direct")}
    on_user_files = {name for name, task in TASKS.items() if task.group is None}
    assert on_user_files == {
        "dhp_custom",
        "dhp_custom_perplexity",
        *(f"adherence_custom_{setting}" for setting in ("generic", "criterion", "rubric", "perplexity")),
        "coeval_custom_direct",
        "fbi_explanations",
    }
    grouped = {name for group in manager.all_groups for name in manager.task_index[group].cfg["task"]}
    assert grouped and not on_user_files & grouped


def test_every_metric_has_its_own_aggregation():
    import lm_eval_tasks.utils as utils

    metrics = {metric for task in TASKS.values() for metric in task.metrics}
    names = {aggregation_name(metric) for metric in metrics}
    assert len(names) == len(metrics)
    assert all(callable(getattr(utils, name)) for name in names)
    assert higher_is_better("D_avg") and higher_is_better("pearson/group/Content")
    assert not higher_is_better("error_rate/factual") and not higher_is_better("si_flip_rate")
    assert not higher_is_better("parse_failure_rate/fluency")


def test_console_script_prints_the_folder():
    script = Path(sys.executable).parent / "judge-meta-eval-tasks"
    printed = subprocess.run([str(script)], capture_output=True, text=True, check=True).stdout.strip()
    assert (Path(printed) / "dhp_storycloze.yaml").is_file()


def test_options_under_a_suite_or_task_name_win(dhp_data):
    from lm_eval_tasks.utils import docs

    folder = dhp_data("storycloze")
    documents = docs(
        suite_task="dhp_storycloze",
        n=9,
        pretrained="a model argument, ignored",
        dhp={"data_dir": str(folder), "n": 3},
        dhp_storycloze={"n": 2, "perturbations": "typos"},
    )["test"]
    samples = {doc["sample_id"] for doc in documents}
    assert len(samples) == 2 * 2  # two items, original and typos
    assert len(documents) == 2 * 2 * 3  # three metrics each
    settings = json.loads(documents[0]["settings"])
    assert settings["metrics"] == ["coherence", "consistency", "fluency"]


def test_aggregation_regroups_answers_and_counts_parse_failures(dhp_data, caplog):
    from lm_eval_tasks.utils import agg_D_avg, agg_parse_failures, collect_answers, dhp_prompt, docs

    documents = docs(suite_task="dhp_storycloze", data_dir=str(dhp_data("storycloze")), n=3, perturbations="typos")
    records = []
    for doc in documents["test"]:
        original = json.loads(doc["metadata"])["perturbation"] == "original"
        assert doc["prompt"].capitalize() in dhp_prompt(doc)
        answers = ["5", "5"] if original else ["2", "no idea"]
        records.append(collect_answers(doc, [answers])["D_avg"])
    assert agg_parse_failures(records) == 3 * 3  # one per perturbed text and metric
    # three items, every original rated above its copy: the one-sided Wilcoxon p is 1/8 per metric
    assert agg_D_avg(records) == pytest.approx(math.log(1 / 8) / math.log(0.05))
    # as inspect's hook does at the end of a run: the share of unparsed answers and an example
    assert "dhp_storycloze: 9 of 36 judge answers (25%) did not parse" in caplog.text
    assert "e.g. 'no idea'" in caplog.text


def test_a_suite_file_is_judged_as_built(dhp_data, tmp_path):
    from dhp_tasks.suite import main as dhp_build
    from lm_eval_tasks.utils import docs

    suite = tmp_path / "storycloze.suite.jsonl"
    dhp_build(
        [
            "storycloze",
            "--data-dir",
            str(dhp_data("storycloze")),
            "--n",
            "2",
            "--perturbations",
            "typos",
            "-o",
            str(suite),
        ]
    )
    documents = docs(suite_task="dhp_storycloze", dhp_storycloze={"suite": str(suite), "n": 50})["test"]
    texts = {json.loads(doc["metadata"])["response"] for doc in documents}
    built = [json.loads(line) for line in suite.read_text().splitlines()[1:]]
    assert texts == {item["text"] for item in built} | {item["variants"]["typos"] for item in built}
    assert len(documents) == 2 * 2 * 3


@pytest.mark.parametrize("dataset", DATASETS)
def test_coeval_metric_names_follow_the_data(dataset):
    from coeval_tasks.data import DATASETS as COEVAL_DATASETS
    from coeval_tasks.data import load_human_scores

    items = load_human_scores(dataset, coeval_folder(dataset)).items
    assert {tuple(item.annotator_ids) for item in items} == {COEVAL_DATASETS[dataset].annotator_ids}
    metrics = TASKS[f"coeval_{dataset}_direct"].metrics
    assert [m for m in metrics if m.startswith("pearson/annotator/")] == [
        f"pearson/annotator/{annotator}/overall" for annotator in items[0].annotator_ids
    ]
    assert not any(m.startswith("pearson/") and m.split("/")[1] in items[0].human for m in metrics)


def test_criteria_task_asks_the_reference_greedily_and_samples_as_the_options_say(minilm, caplog):  # noqa: F811 (fixture)
    from lm_eval.tasks import TaskManager

    options = {"data_dir": str(coeval_folder("rocstories")), "n": 2, "embedder": minilm}
    manager = TaskManager(
        include_path=TASK_DIR,
        include_defaults=False,
        metadata={
            "coeval": {**options, "samples": 9},
            "coeval_criteria_rocstories": {"samples": 4, "temperature": 0.9},
        },
    )
    task = manager.load(["coeval_criteria_rocstories"])["tasks"]["coeval_criteria_rocstories"]
    assert type(task).__name__ == "CriteriaListsTask"  # lm-eval imports utils.py by path: its own class object
    task.build_all_requests()
    assert len(task.instances) == 2 * 2
    settings = [(i.idx, i.repeats, i.arguments[1]["temperature"], i.arguments[1]["do_sample"]) for i in task.instances]
    assert sorted(settings) == [(0, 1, 0.0, False)] * 2 + [(1, 4, 0.9, True)] * 2
    assert all(i.arguments[1]["max_gen_toks"] == 1024 for i in task.instances)
    assert task.instances[0].arguments[0].endswith("Evaluation criteria:")
    # one document with the same list everywhere, one whose sampled answers hold no list
    same = "1. Clarity: The story is clear.\n2. Coherence: The events follow."
    records = [
        task.process_results(doc, [[same], [same] * 4 if index == 0 else ["No idea."] * 4])["cc"]
        for index, doc in enumerate(task.test_docs())
    ]
    aggregations = task.aggregation()
    # every document's sampled answers are one text repeated: no consistency measured, and at temperature 0.9 that
    # is a fixed seed, flagged
    assert math.isnan(aggregations["cc"](records)) and aggregations["identical_lists"](records) == 2
    assert aggregations["parse_failures"](records) == 4
    assert "one text repeated at temperature 0.9" in caplog.text
    caplog.clear()
    reworded = [same, f"My criteria:\n{same}", same, same]  # one list, in answers that differ
    records = [task.process_results(doc, [[same], reworded])["cc"] for doc in task.test_docs()]
    assert aggregations["cc"](records) == pytest.approx(1.0) and aggregations["identical_lists"](records) == 0
    varied = [same, same, same, "1. Clarity: The story is clear."]
    records = [task.process_results(doc, [[same], varied])["cc"] for doc in task.test_docs()]
    assert aggregations["icc"](records) < 1.0
    assert "repeated" not in caplog.text


def test_custom_task_reports_the_metrics_its_data_names(tmp_path):
    from lm_eval.tasks import TaskManager

    from lm_eval_tasks.utils import docs

    data = tmp_path / "texts"
    data.mkdir()
    texts = [f"Story {j} begins at dawn. The hero walks far. She finds the well. The village drinks." for j in range(3)]
    (data / "items.jsonl").write_text(
        "".join(json.dumps({"id": f"s{j}", "text": t}) + "\n" for j, t in enumerate(texts))
    )
    with pytest.raises(
        OptionError, match=r"dhp_custom runs on your data: pass --metadata '\{\"data_dir\": \"<path>\"\}'"
    ):
        docs(suite_task="dhp_custom")
    options = {"data_dir": str(data), "kind": "story", "metrics": "fluency", "perturbations": "typos"}
    manager = TaskManager(include_path=TASK_DIR, include_defaults=False, metadata={"dhp_custom": options})
    task = manager.load(["dhp_custom"])["tasks"]["dhp_custom"]
    assert type(task).__name__ == "UserDataTask"
    assert len(task.test_docs()) == 3 * 2  # originals and typos copies, one metric
    data_named = ["D/typos", "D_EW/typos", "D_ci_low/typos", "D_ci_high/typos", "D_EW_ci_low/typos"]
    data_named += ["D_EW_ci_high/typos", "parse_failures/fluency", "parse_failure_rate/fluency"]
    assert task.data_metrics == data_named
    assert set(TASKS["dhp_custom"].metrics) | set(data_named) == set(task.aggregation())
    assert task.higher_is_better()["D/typos"] and not task.higher_is_better()["parse_failures/fluency"]
    records = []
    for doc in task.test_docs():
        original = json.loads(doc["metadata"])["perturbation"] == "original"
        result = task.process_results(doc, [["5"] * 5 if original else ["2"] * 4 + ["?"]])
        assert set(result) == set(task.aggregation())
        records.append(result["D/typos"])
    aggregations = task.aggregation()
    assert aggregations["parse_failures/fluency"](records) == 3
    # three texts, each original rated above its copy: the one-sided Wilcoxon p is 1/8
    assert aggregations["D/typos"](records) == pytest.approx(math.log(1 / 8) / math.log(0.05))
    assert aggregations["D_avg"](records) == aggregations["D/typos"](records)


def _judge_run_samples(fbi_data, path: Path, answer) -> list[dict]:
    """A samples file as ``lm_eval --log_samples`` writes it for fbi_single_vanilla: one row per document,
    with its ``doc`` and the judge's answer in ``filtered_resps`` (other fields left out)."""
    from lm_eval_tasks.utils import docs

    documents = docs(suite_task="fbi_single_vanilla", data_dir=str(fbi_data), per_category=1, abilities="factual")
    rows = [{"doc_id": n, "doc": doc, "filtered_resps": [[answer(doc)]]} for n, doc in enumerate(documents["test"])]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return rows


def test_explanation_documents_are_the_equal_ratings_of_the_judge_run(tmp_path, fbi_data):
    from fbi_tasks.prompts import explanation_check_prompt
    from lm_eval_tasks.utils import agg_explanation_caught_rate, agg_explanation_unparsed, collect_answers, docs

    samples = tmp_path / "samples_fbi_single_vanilla_2026.jsonl"

    def ties_on_entity(doc: dict) -> str:
        """Rates both answers of the entity item 6; elsewhere gold 9 and perturbed 2."""
        if json.loads(doc["metadata"])["category"] == "entity":
            return "Looks fine. Rating: [[6]]"
        return "Rating: [[9]]" if doc["prompt"] == "gold" else "Wrong. Rating: [[2]]"

    rows = _judge_run_samples(fbi_data, samples, ties_on_entity)
    documents = docs(suite_task="fbi_explanations", judgments=str(samples))["test"]
    [doc] = documents  # one factual item per category: the entity item's perturbed judgment
    meta = json.loads(doc["metadata"])
    assert meta["category"] == "entity" and doc["prompt"] == "perturbed"
    check = explanation_check_prompt(
        meta["question"], [("Answer", meta["perturbed"])], "Answer", "Looks fine. Rating: [[6]]"
    )
    assert doc["check"] == check
    records = [collect_answers(doc, [["[[YES]]"]])["explanation_caught_rate"]]
    assert agg_explanation_caught_rate(records) == 1.0 and agg_explanation_unparsed(records) == 0
    records = [collect_answers(doc, [["Maybe."]])["explanation_caught_rate"]]
    assert math.isnan(agg_explanation_caught_rate(records)) and agg_explanation_unparsed(records) == 1
    assert len(rows) == 2 * 6


@pytest.mark.parametrize(
    "damage, message",
    [
        ("missing", r"judgments file .*nowhere.jsonl does not exist"),
        ("not json", r"samples.jsonl, row 2: not valid JSON"),
        ("no doc", r"samples.jsonl, row 1: field 'doc' must hold the text fields"),
        (
            "other task",
            r"samples.jsonl, row 1: field 'doc.settings' is of task 'dhp_storycloze', not of an fbi_\* judge",
        ),
        (
            "no answer",
            r"samples.jsonl, row 3: field 'filtered_resps' must hold the judge's answer as \[\[text\]\], got \[\]",
        ),
        ("cut", r"sample '.*' lacks the judgment\(s\) \['perturbed'\]; the file must hold every document"),
        ("no ties", r"no judgment of fbi_single_vanilla rated a perturbed answer as good as the gold one"),
        ("star", r"fbi_single_vanilla_star asks for the verdict alone \(strategy 'vanilla_star'\)"),
    ],
)
def test_a_bad_judgments_file_names_file_row_and_field(tmp_path, fbi_data, damage, message):
    from judge_data import DataError
    from lm_eval_tasks.utils import docs

    samples = tmp_path / "samples.jsonl"

    def judge(doc: dict) -> str:  # every pair rated equal, except in the run that must have nothing to check
        if damage == "no ties":
            return "Rating: [[9]]" if doc["prompt"] == "gold" else "Rating: [[1]]"
        return "Rating: [[5]]"

    rows = _judge_run_samples(fbi_data, samples, judge)
    lines = [json.dumps(row) for row in rows]
    if damage == "not json":
        lines[1] = lines[1][:-5]
    elif damage == "no doc":
        lines[0] = json.dumps({"doc_id": 0, "filtered_resps": [["Rating: [[5]]"]]})
    elif damage == "other task":
        settings = json.dumps({"task": "dhp_storycloze"})
        lines[0] = json.dumps({**rows[0], "doc": {**rows[0]["doc"], "settings": settings}})
    elif damage == "no answer":
        lines[2] = json.dumps({**rows[2], "filtered_resps": []})
    elif damage == "cut":
        lines = lines[:-1]
    elif damage == "star":
        settings = {
            **json.loads(rows[0]["doc"]["settings"]),
            "task": "fbi_single_vanilla_star",
            "strategy": "vanilla_star",
        }
        lines = [json.dumps({**row, "doc": {**row["doc"], "settings": json.dumps(settings)}}) for row in rows]
    samples.write_text("\n".join(lines) + "\n")
    path = tmp_path / "nowhere.jsonl" if damage == "missing" else samples
    with pytest.raises((DataError, OptionError), match=message):
        docs(suite_task="fbi_explanations", judgments=str(path))


def test_answer_format_json_in_lm_eval_asks_for_json_and_reads_it(dhp_data):
    """The prompts and the reading of answer_format=json, as inspect's; lm-eval passes no response schema."""
    from lm_eval_tasks.utils import agg_D_avg, agg_json_fallbacks, agg_parse_failures, collect_answers, dhp_prompt, docs

    documents = docs(
        suite_task="dhp_storycloze",
        data_dir=str(dhp_data("storycloze")),
        n=3,
        perturbations="typos",
        answer_format="json",
    )
    records = []
    for number, doc in enumerate(documents["test"]):
        assert '"reasoning"' in dhp_prompt(doc) and "score only" not in dhp_prompt(doc)
        original = json.loads(doc["metadata"])["perturbation"] == "original"
        score = 5 if original else 2
        answer = f'{{"reasoning": "Checked.", "score": {score}}}' if number % 4 else f"Score: {score}"
        records.append(collect_answers(doc, [[answer]])["D_avg"])
    assert agg_parse_failures(records) == 0
    assert agg_json_fallbacks(records) == len([n for n in range(len(records)) if n % 4 == 0])
    assert agg_D_avg(records) == pytest.approx(math.log(1 / 8) / math.log(0.05))
    text = docs(suite_task="dhp_storycloze", data_dir=str(dhp_data("storycloze")), n=3, perturbations="typos")
    records = [collect_answers(doc, [["5"]])["D_avg"] for doc in text["test"]]
    assert math.isnan(agg_json_fallbacks(records))  # listed for every task, NaN under answer_format=text
