"""The taxonomy group of each criterion: the suite's assignment with its evidence, overridable, and criteria that
no group fits reported alone."""

from __future__ import annotations

import json

import numpy as np
import pytest

from adherence_tasks.data import DATASETS, criteria_file, packaged_groups
from judge_data.human import GROUPS
from judge_data.inspect_private import PrerequisiteError
from scorers.correlation import CriterionScores, agreement_report
from tests.conftest import data_folder
from tests.support.commands import create_task


@pytest.mark.parametrize("dataset", sorted(DATASETS))
def test_every_packaged_criterion_states_its_group_and_why(dataset):
    for criterion in json.loads(criteria_file(dataset).read_text())["criteria"]:
        assert criterion["group"] in (*GROUPS, None), criterion["name"]
        assert len(criterion["group_evidence"]) > 20, criterion["name"]


def test_coherence_is_integrity_and_overall_impressions_have_no_group():
    assert packaged_groups("summeval")["coherence"] == "Integrity"
    assert packaged_groups("hanna")["coherence"] == "Integrity"
    assert packaged_groups("topicalchat")["overall"] is None
    assert packaged_groups("topicalchat")["natural"] == "Content"


def test_a_criterion_without_a_group_is_reported_alone():
    rng = np.random.default_rng(1)
    human = rng.uniform(1, 5, (2, 40))
    natural = CriterionScores("natural", "Content", human[0] + rng.normal(0, 0.5, 40), human[0])
    overall = CriterionScores("overall", None, -human[1], human[1])
    report = agreement_report([natural, overall], aligned=True)
    assert report["pearson"] == pytest.approx(report["pearson/natural"])  # overall's -1 does not enter the mean
    assert report["pearson/overall"] == pytest.approx(-1.0)
    assert set(name for name in report if name.startswith("pearson/group/")) == {"pearson/group/Content"}
    assert report["undefined"] == 0


def test_the_suites_assignment_wins_over_the_data_folder_and_groups_files_override_it(tmp_path):
    folder = data_folder("human", "summeval")
    assert json.loads((folder / "criteria.json").read_text())["criteria"][0]["group"] == "Content"  # the shared copy
    task = create_task("adherence_tasks/summeval", f"data_dir={folder}", "n=5")
    assert task.metadata["criteria"]["coherence"]["group"] == "Integrity"
    groups = tmp_path / "groups.json"
    groups.write_text(json.dumps({"coherence": "Content", "relevance": None}))
    task = create_task("adherence_tasks/summeval", f"data_dir={folder}", "n=5", f"groups={groups}")
    assert task.metadata["criteria"]["coherence"]["group"] == "Content"
    assert task.metadata["criteria"]["relevance"]["group"] is None and task.metadata["groups"] == str(groups)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"cohesion": "Content"}', "no criterion named ['cohesion']"),
        ('{"coherence": "Style"}', "field 'coherence' must be one of"),
        ("[1, 2]", "expected a JSON object"),
        ("{", "not valid JSON"),
    ],
)
def test_a_bad_groups_file_is_named_with_its_field(tmp_path, content, message):
    groups = tmp_path / "groups.json"
    groups.write_text(content)
    with pytest.raises(PrerequisiteError, match="groups") as raised:
        create_task("adherence_tasks/summeval", f"data_dir={data_folder('human', 'summeval')}", f"groups={groups}")
    assert message in str(raised.value.message)
