"""Your own judge prompt (``-T judge_template=``) on DHP, FBI and adherence: placeholders checked on load, filled
per judgment, the answers read by the suite's parser, and the template's hash in the log and judge-report."""

from __future__ import annotations

import os
import re
from unittest.mock import patch

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.model import get_model

from adherence_tasks.prompts import criterion_question, generic_question, render
from fbi_tasks.data import load_items
from fbi_tasks.fbi import judge_prompts
from fbi_tasks.prompts import fbi_strategy
from judge_data import OptionError
from judge_data.human import HumanCriterion
from judge_report.runs import read_runs
from judge_report.tables import build_report
from solvers.judge_template import ADHERENCE_PLACEHOLDERS, DHP_PLACEHOLDERS, FBI_PLACEHOLDERS, load_judge_template
from tests.support.commands import INSPECT, create_task, one_clean_message, run_cli, task_options
from tests.support.fake_judge import serve
from tests.support.inspect_runs import metrics_of, originals_of

DHP_TEMPLATE = "Judge the {criterion} of this text from {low} to {high}.\nTEXT<<{text}>>\n{request}"
FBI_TEMPLATE = "Question: {question}\nANSWER<<{answer}>>\nGrade it from {low} to {high}. {request}"
STRICT_FBI_TEMPLATE = "Be strict.\nANSWER<<{answer}>>\nOnly a flawless answer gets {high}. {request}"


def _write(folder, name: str, text: str) -> str:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_a_template_is_checked_on_load(tmp_path):
    template = load_judge_template(_write(tmp_path, "ok.txt", DHP_TEMPLATE), DHP_PLACEHOLDERS, "dhp_tasks/summeval")
    assert template.render(criterion="Fluency", low=1, high=5, text="A text.", request="Score:", context="x") == (
        "Judge the Fluency of this text from 1 to 5.\nTEXT<<A text.>>\nScore:"
    )
    missing = _write(tmp_path, "missing.txt", "Rate {criterion} from {low} to {high}.")
    with pytest.raises(OptionError, match=re.escape(f"{missing}: missing placeholder {{text}}")):
        load_judge_template(missing, DHP_PLACEHOLDERS, "dhp_tasks/summeval")
    unknown = _write(tmp_path, "unknown.txt", "{question}\n{answer}\n{rubric}")
    with pytest.raises(OptionError, match=re.escape(f"{unknown}: unknown placeholder {{rubric}}")):
        load_judge_template(unknown, FBI_PLACEHOLDERS["single"], "fbi_tasks/single")
    brace = _write(tmp_path, "brace.txt", 'Answer {answer} as {"score": n}')
    with pytest.raises(OptionError, match=re.escape('unknown placeholder {"score"}')) as refused:
        load_judge_template(brace, FBI_PLACEHOLDERS["single"], "fbi_tasks/single")
    assert "write a literal brace as {{ or }}" in str(refused.value)
    unpaired = _write(tmp_path, "unpaired.txt", "Answer {answer} }")
    with pytest.raises(OptionError, match=re.escape(f"{unpaired}: not a template (Single '}}' encountered")):
        load_judge_template(unpaired, FBI_PLACEHOLDERS["single"], "fbi_tasks/single")
    with pytest.raises(OptionError, match="scoring=perplexity sends none"):
        create_task(
            "dhp_tasks/custom", f"data_dir={tmp_path}", f"judge_template={tmp_path / 'ok.txt'}", "scoring=perplexity"
        )
    with pytest.raises(OptionError, match="scale sets the range a judge_template asks for"):
        create_task("dhp_tasks/custom", f"data_dir={tmp_path}", "scale=10")


def test_pairwise_and_reference_templates_show_the_answers_in_their_places(tmp_path):
    pairwise = _write(tmp_path, "pair.txt", "A<<{answer_a}>> B<<{answer_b}>> {request}")
    reference = _write(tmp_path, "ref.txt", "R<<{reference}>> J<<{answer}>> 1-{high}")
    meta = {"axis_ability": "factual", "question": "Q?", "gold": "right", "perturbed": "wrong"}
    template = load_judge_template(pairwise, FBI_PLACEHOLDERS["pairwise"], "fbi_tasks/pairwise")
    prompts = judge_prompts(fbi_strategy("pairwise", "pairwise_star"), 10, meta, template=template)
    assert prompts["gold_first"].startswith("A<<right>> B<<wrong>> Reply with the verdict only: [[A]]")
    assert prompts["gold_second"].startswith("A<<wrong>> B<<right>>")
    template = load_judge_template(reference, FBI_PLACEHOLDERS["reference"], "fbi_tasks/reference")
    assert judge_prompts(fbi_strategy("reference", "reference"), 7, meta, template=template) == {
        "perturbed": "R<<right>> J<<wrong>> 1-7"
    }


def test_adherence_templates_get_the_question_and_its_request(tmp_path):
    path = _write(tmp_path, "adh.txt", "{task}\n---\n{response}\n{criterion} ({low}-{high}): {definition}\n{request}")
    template = load_judge_template(path, ADHERENCE_PLACEHOLDERS, "adherence_tasks/summeval")
    rated = HumanCriterion("fluency", "Fluency", 1, 5, "likert", True, "Reads well.", {}, None)
    binary = HumanCriterion("correct", "Correct", 0, 1, "binary", True, "", {}, None)
    assert render(criterion_question(rated, "criterion"), "Summarise.", "An article.", "A summary.", template) == (
        "An article.\n---\nA summary.\nFluency (1-5): Reads well.\nReply with the score only.\nFluency score:"
    )
    assert render(criterion_question(binary, "rubric"), "", "In", "Out", template).endswith(
        "Correct (0-1): \nReply with yes or no only.\nAnswer:"
    )
    assert render(generic_question(1, 5, False), "", "In", "Out", template).startswith("In\n---\nOut\noverall quality")


@pytest.mark.integration
def test_dhp_and_fbi_with_templates_end_to_end_and_in_the_report(tmp_path, dhp_data, fbi_data):
    """A DHP task and two FBI runs with two templates, one eval: the judge sees the templates, the suite's parser reads
    its answers, and judge-report keeps the two templates of one model in different columns."""
    summeval = dhp_data("summeval")
    originals = originals_of("summeval", summeval, 5)
    golds = {item.gold for item in load_items(fbi_data, per_category=1, abilities=["factual"]).items}
    templates = {name: _write(tmp_path, f"{name}.txt", text) for name, text in
                 (("dhp", DHP_TEMPLATE), ("fbi", FBI_TEMPLATE), ("strict", STRICT_FBI_TEMPLATE))}  # fmt: skip

    def judge(prompt: str) -> str:
        if match := re.search(r"TEXT<<(.*)>>", prompt, re.DOTALL):
            return "5" if match.group(1) in originals else "1"
        answer = re.search(r"ANSWER<<(.*)>>", prompt, re.DOTALL).group(1)
        return "Rating: [[9]]" if answer in golds else "Rating: [[2]]"

    fbi = (f"data_dir={fbi_data}", "per_category=1", "abilities=factual")
    tasks = [
        create_task("dhp_tasks/summeval", f"data_dir={summeval}", "n=5", "repeats=1", "perturbations=typos_major",
                    f"judge_template={templates['dhp']}"),
        create_task("fbi_tasks/single", *fbi, f"judge_template={templates['fbi']}"),
        create_task("fbi_tasks/single", *fbi, f"judge_template={templates['strict']}"),
    ]  # fmt: skip
    with serve(judge) as (url, calls), patch.dict(os.environ, {"INSPECT_CACHE_DIR": str(tmp_path / "cache")}):
        model = get_model("openai-api/fakejudge/judge", base_url=url, api_key="test", memoize=False)
        logs = inspect_eval(tasks, model=model, log_dir=str(tmp_path / "logs"), log_format="json", display="log")
    assert [log.status for log in logs] == ["success"] * 3
    prompts = [call["messages"][-1]["content"] for call in calls]
    assert all(prompt.startswith(("Judge the ", "Question: ", "Be strict.")) for prompt in prompts)
    assert any("Judge the Coherence of this text from 1 to 5." in prompt for prompt in prompts)
    assert any("Grade it from 1 to 10. First explain your assessment" in prompt for prompt in prompts)

    dhp, lenient, strict = (metrics_of(log) for log in logs)
    assert dhp["D_min"] > 1 and dhp["parse_failures"] == 0
    assert lenient["error_rate"] == strict["error_rate"] == 0.0 and lenient["parse_failures"] == 0
    hashes = [log.eval.metadata["judge_template"] for log in logs]
    assert len(set(hashes)) == 3 and logs[1].eval.metadata["judge_template_file"] == templates["fbi"]

    runs, _ = read_runs([tmp_path / "logs"])
    report = build_report(runs)
    assert len(report.judges) == 1
    fbi_table = next(table for table in report.suite_tables if table.name == "suite_fbi")
    assert {"fbi_single_vanilla [config 1] error_rate", "fbi_single_vanilla [config 2] error_rate"} <= set(
        fbi_table.columns
    )
    assert any("fbi_single_vanilla: 2 settings" in note and "judge_template" in note for note in report.notes)


@pytest.mark.integration
def test_a_template_missing_a_placeholder_is_one_error_line(tmp_path, fbi_data):
    template = _write(tmp_path, "no_answer.txt", "Question: {question}\nGrade it. {request}")
    command = [INSPECT, "eval", "fbi_tasks/single", "--model", "mockllm/model",
               *task_options(f"data_dir={fbi_data}", f"judge_template={template}")]  # fmt: skip
    message = one_clean_message(run_cli(command, tmp_path, expect_success=False))
    assert f"{template}: missing placeholder {{answer}}; a fbi_tasks/single template must use {{answer}}" in message
