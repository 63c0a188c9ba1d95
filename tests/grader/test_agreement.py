"""``grader_tasks/agreement``: your grader against your labels, through the real ``inspect eval`` command against
stand-in graders on 127.0.0.1; reading the labels; the grader's traps (a template path that is no file, a placeholder
the scorer does not fill, ``inspect score`` on a grader log); ``judge-report`` on graders."""

from __future__ import annotations

import json
import re

import pytest
from inspect_ai.log import read_eval_log, write_eval_log
from inspect_ai.scorer import Score

from grader_tasks.labels import read_labels, read_unlabelled
from judge_data import DataError, OptionError
from judge_report.judges import judges_of
from judge_report.runs import read_runs
from judge_report.tables import build_report
from solvers.grader import check_template, load_grader
from tests.support.commands import INSPECT, create_task, one_clean_message, run_cli, side_by_side
from tests.support.inspect_runs import eval_command, run_command

_SUBMISSION = re.compile(r"\[Submission\]: (.*?)\n\*+\n\[END DATA\]", re.DOTALL)

N_LABELLED = 24


def _labels(folder) -> tuple[str, dict[str, str]]:
    """24 outputs, 15 labelled correct; returns the file and each output's label."""
    rows, by_output = [], {}
    for i in range(N_LABELLED):
        correct = i % 8 < 5
        output = f"{i} + {i} = {2 * i if correct else 2 * i + 1}."
        by_output[output] = "C" if correct else "I"
        rows.append({"id": f"sum-{i}", "input": f"What is {i} + {i}?", "output": output, "target": str(2 * i),
                     "label": by_output[output]})  # fmt: skip
    path = folder / "labels.jsonl"
    path.write_text("\n".join(json.dumps(row) for row in rows) + "\n")
    return str(path), by_output


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """One ``inspect eval`` of two stand-in graders (one that answers as the labels say, one that passes
    everything), two epochs, with 200 unlabelled grades; beside it, the run that names a template file that is not
    there. Then ``inspect score`` on the first run's log."""
    folder = tmp_path_factory.mktemp("agreement")
    labels, by_output = _labels(folder)
    unlabelled = folder / "unlabelled.jsonl"
    unlabelled.write_text("\n".join(json.dumps({"id": f"u{i}", "grade": "C" if i % 4 else "I"}) for i in range(200)))
    graders = {"oracle": lambda prompt: f"GRADE: {by_output[_SUBMISSION.search(prompt).group(1)]}",
               "lenient": lambda prompt: "GRADE: C"}  # fmt: skip
    command = eval_command(
        "grader_tasks/agreement",
        f"labels={labels}",
        "scorer=model_graded_fact",
        f"unlabelled={unlabelled}",
        extra_args=("--epochs", "2"),
    )
    command[command.index("openai-api/fakejudge/judge")] = "openai-api/fakejudge/oracle,openai-api/fakejudge/lenient"
    misspelt = eval_command(
        "grader_tasks/agreement", f"labels={labels}", "scorer=model_graded_fact",
        'scorer_args={"template": "my_templat.txt"}', display="plain",
    )  # fmt: skip
    (result, calls), (refused, refused_calls) = side_by_side(
        lambda: run_command(command, graders, folder / "run"),
        lambda: run_command(misspelt, graders, folder / "misspelt", expect_success=False),
    )
    runs, skipped = read_runs([folder / "run" / "logs"])
    oracle = next(run for run in runs if run.model.endswith("oracle"))
    score = [INSPECT, "score", oracle.location, "--scorer", "scorers/grader_grades", "--display", "plain"]
    rescored = run_cli(score, folder / "score", expect_success=False)
    return {"runs": runs, "skipped": skipped, "calls": calls, "refused": refused, "refused_calls": refused_calls,
            "rescored": rescored, "folder": folder}  # fmt: skip


@pytest.mark.integration
def test_a_grader_that_answers_as_the_labels_reaches_kappa_one_and_always_c_zero(graded):
    assert not graded["skipped"] and len(graded["calls"]) == 2 * 2 * N_LABELLED
    by_model = {run.model.rsplit("/", 1)[-1]: run for run in graded["runs"]}
    oracle, lenient = by_model["oracle"].metrics, by_model["lenient"].metrics
    assert oracle["kappa"] == 1.0 and oracle["accuracy"] == 1.0 and oracle["balanced_f1"] == 1.0
    assert lenient["kappa"] == 0.0 and lenient["accuracy"] == pytest.approx(15 / 24)
    assert lenient["balanced_f1"] == pytest.approx((2 * 15 / (15 + 24) + 0) / 2)
    assert oracle["kappa_n"] == N_LABELLED and oracle["pairs"] == 2 * N_LABELLED and oracle["parse_failures"] == 0
    assert oracle["self_alpha"] == 1.0 and oracle["grades_changed"] == 0.0
    # the unlabelled outputs: 150 of 200 graded C; the oracle's error on the labelled ones is 0, the lenient's 9/24
    assert oracle["pass_rate_corrected"] == pytest.approx(0.75) and oracle["pass_rate_labels"] == pytest.approx(15 / 24)
    assert lenient["pass_rate_corrected"] == pytest.approx(0.75 - 9 / 24)
    assert lenient["pass_rate_naive"] == pytest.approx((150 + 24) / 224)
    assert lenient["pass_rate_corrected_ci_low"] < 0.75 - 9 / 24 < lenient["pass_rate_corrected_ci_high"]
    assert "pearson" not in lenient  # binary labels: kappa, accuracy and balanced F1, no correlation
    metadata = by_model["oracle"].metadata
    assert metadata["scale"] == "binary" and metadata["annotators"] == ["label"]
    assert metadata["unlabelled"]["outputs"] == 200 and metadata["unlabelled"]["labelled_left_out"] == 0


@pytest.mark.integration
def test_a_template_path_that_is_no_file_stops_the_run_before_any_request(graded):
    message = one_clean_message(graded["refused"])
    assert "-T scorer_args: template=my_templat.txt names no file" in message
    assert not graded["refused_calls"]


@pytest.mark.integration
def test_inspect_score_on_a_grader_log_refuses_with_one_message(graded):
    message = one_clean_message(graded["rescored"])
    assert "inspect score cannot re-grade a grader log" in message


@pytest.mark.integration
def test_judge_report_compares_graders_on_the_labels(graded):
    report = build_report(graded["runs"])
    (comparison,) = [row for row in report.comparisons if row.column == "grader_agreement kappa"]
    assert abs(comparison.difference) == 1.0 and comparison.n_items == N_LABELLED and comparison.p < 0.05
    leaderboard = report.leaderboard
    ranks = {row[0]: cell.rank for (row, _), cell in leaderboard.cells.items() if row not in leaderboard.references}
    assert ranks == {
        "model_graded_fact on openai-api/fakejudge/oracle": 1,
        "model_graded_fact on openai-api/fakejudge/lenient": 2,
    }
    references = {row.reference: row for row in report.references if row.column == "grader_agreement kappa"}
    assert references["majority class"].value == 0.0
    assert abs(references["random judge"].value) < 0.1 and references["random judge"].ci_low < 0
    assert "one annotator per output" in references["human ceiling"].note
    suite = report.suite_tables[0]
    shown = suite.cells[(("model_graded_fact on openai-api/fakejudge/lenient",), "grader_agreement kappa")].text()
    assert shown.startswith("0.000 [") and shown.endswith(f"({N_LABELLED} items)")


@pytest.mark.integration
def test_one_model_name_from_two_base_urls_is_two_judges(graded):
    """The same grader model served from two URLs (``--model-base-url``): two judges, named apart."""
    log = read_eval_log(graded["runs"][0].location)
    paths = [graded["folder"] / f"{name}.json" for name in ("first", "second")]
    for path, url in zip(paths, ("http://127.0.0.1:8001/v1", "http://127.0.0.1:8002/v1"), strict=True):
        log.eval.model_base_url = url
        write_eval_log(log, str(path))
    runs, _ = read_runs(paths)
    judges = judges_of(runs)
    assert len(judges) == 2 and len({judge.name for judge in judges.values()}) == 2
    assert sorted(judge.model_args["base_url"] for judge in judges.values()) == [
        "http://127.0.0.1:8001/v1",
        "http://127.0.0.1:8002/v1",
    ]


@pytest.mark.integration
def test_unlabelled_grades_from_an_inspect_log(graded):
    """Your eval's log as ``-T unlabelled=``: each sample's grade from the scorer named like the grader (epochs
    averaged), the labelled ids left out; a log with several scorers and no match is one error naming them."""
    oracle = next(run for run in graded["runs"] if run.model.endswith("oracle"))
    log = read_eval_log(oracle.location)
    for sample in log.samples:
        grade = sample.scores["grader_grades"].value["grade"]
        sample.scores = {"model_graded_fact": Score(value="C" if grade == 1 else "I"), "length": Score(value=7)}
    path = graded["folder"] / "my_eval.json"
    write_eval_log(log, str(path))
    unlabelled = read_unlabelled(str(path), "model_graded_fact", {"sum-0", "sum-1"})
    assert unlabelled is not None and unlabelled.metadata["scorer"] == "model_graded_fact"
    assert unlabelled.grades.n == N_LABELLED - 2 and unlabelled.metadata["labelled_left_out"] == 2
    assert unlabelled.grades.mean == pytest.approx(13 / 22)  # ids 2-23: 13 of them correct
    assert read_unlabelled(f"{path}@length", "model_graded_qa", set()).grades.mean == 7
    with pytest.raises(DataError, match="holds scores of model_graded_fact, length; name the grader's"):
        read_unlabelled(str(path), "model_graded_qa", set())


def _rows(folder, *rows: dict) -> str:
    path = folder / "labels.jsonl"
    path.write_text("\n".join(json.dumps(row) for row in rows) + "\n")
    return str(path)


ROW = {"id": "a", "input": "Q?", "output": "A.", "target": "A.", "label": "C", "annotator": "ana"}


def test_labels_are_read_with_inspects_conversion_and_bad_rows_named(tmp_path):
    outputs, checksum = read_labels(
        _rows(tmp_path, ROW, {**ROW, "annotator": "ben", "label": "no"}, {**ROW, "id": 7, "label": 0.5})
    )
    assert [(output.id, output.labels) for output in outputs] == [("a", {"ana": 1.0, "ben": 0.0}), ("7", {"ana": 0.5})]
    assert len(checksum) == 64
    with pytest.raises(DataError, match="rows 1 and 2: two labels of id 'a' from annotator 'ana'"):
        read_labels(_rows(tmp_path, ROW, {**ROW, "label": "I"}))
    with pytest.raises(DataError, match="row 1: field 'label' is 'maybe', not a value inspect's value_to_float"):
        read_labels(_rows(tmp_path, {**ROW, "label": "maybe"}))
    with pytest.raises(DataError, match="row 2: field 'output' of id 'a' differs from row 1"):
        read_labels(_rows(tmp_path, ROW, {**ROW, "annotator": "ben", "output": "B."}))
    with pytest.raises(OptionError, match="-T labels=nowhere.jsonl: no such file"):
        read_labels("nowhere.jsonl")


def test_a_template_placeholder_the_scorer_does_not_fill_is_refused_at_task_creation(tmp_path):
    template = tmp_path / "grade.txt"
    template.write_text("Question: {question}\nAnswer: {answr}\n{instructions}")
    with pytest.raises(OptionError, match=r"has the placeholder \{answr\}, which model_graded_fact does not fill"):
        check_template("model_graded_fact", {"template": str(template)}, {"output"})
    check_template("model_graded_fact", {"template": "{question} {answer} {output} {criterion}"}, {"output"})
    check_template("my_scorer.py@grade", {"template": "{anything}"}, set())  # not inspect's: not its template
    with pytest.raises(OptionError, match="names no file"):
        load_grader("model_graded_qa", {"template": "prompts/grade.md"})


def test_a_task_refuses_a_misspelt_placeholder_when_it_is_created(tmp_path):
    template = tmp_path / "grade.txt"
    template.write_text("{question}\n{answr}\n{instructions}")
    labels = _rows(tmp_path, ROW)
    with pytest.raises(OptionError, match=r"\{answr\}, which model_graded_fact does not fill; it fills"):
        create_task("grader_tasks/agreement", f"labels={labels}", "scorer=model_graded_fact",
                    f'scorer_args={{"template": "{template}"}}')  # fmt: skip


def test_recorded_grades_stand_in_for_the_grader_and_are_compared_with_the_labels(tmp_path):
    """Grades of an earlier run (``-T judgments=``) on the 24 labelled outputs: all as the labels say but one, which
    says ``I`` for a correct output; one output has no grade (unanswered) and one grade is unreadable."""
    from tests.support.inspect_runs import eval_recorded, metrics_of

    labels, by_output = _labels(tmp_path)
    rows = [json.loads(line) for line in open(labels, encoding="utf-8")]
    grades = []
    for index, row in enumerate(rows):
        grade = by_output[row["output"]]
        if index == 0:
            grade = "I"
        elif index == 9:
            grade = "maybe"
        if index != 1:
            grades.append({"id": row["id"], "judge": "last-year", "grade": grade})
    path = tmp_path / "grades.jsonl"
    path.write_text("".join(json.dumps(grade) + "\n" for grade in grades))
    log = eval_recorded("grader_tasks/agreement", tmp_path, f"labels={labels}", f"judgments={path}")
    metrics = metrics_of(log)
    # 22 graded and read: 13 correct outputs graded C, one graded I, 8 incorrect graded I
    assert metrics["accuracy"] == pytest.approx(21 / 22)
    assert (metrics["unanswered"], metrics["parse_failures"]) == (1, 1)
    assert log.eval.metadata["recorded"]["judge"] == "last-year"
    with pytest.raises(OptionError, match="-T scorer runs a grader and -T judgments holds the grades"):
        create_task("grader_tasks/agreement", f"labels={labels}", f"judgments={path}", "scorer=model_graded_fact")


def test_the_recorded_command_builds_a_grader_run_per_judge(tmp_path):
    """``judge-meta-eval recorded --task grader_tasks/agreement``: the command once knew only the preset suites."""
    from judge_meta_eval.recorded import recorded_tasks

    labels, by_output = _labels(tmp_path)
    rows = [json.loads(line) for line in open(labels, encoding="utf-8")]
    grades = [{"id": row["id"], "judge": judge, "grade": by_output[row["output"]]} for judge in "ab" for row in rows]
    path = tmp_path / "grades.jsonl"
    path.write_text("".join(json.dumps(grade) + "\n" for grade in grades))
    tasks = recorded_tasks(path, "grader_tasks/agreement", {"labels": str(labels)})
    assert [task.metadata["recorded"]["judge"] for task in tasks] == ["a", "b"]
