import json

import pytest

from dhp_tasks.dhp import custom, load_expert_weights
from dhp_tasks.prompts import TEXT_KINDS
from dhp_tasks.suite import all_perturbations
from judge_data import DataError
from tests.dhp.test_datasets import custom_folder

DATASET_KIND = {
    "summeval": "summarization",
    "sumpubmed": "summarization",
    "storycloze": "story",
    "answer_equivalence": "qa",
    "wmt22_de_en": "translation",
    "wmt22_zh_en": "translation",
}


@pytest.mark.parametrize("dataset", sorted(DATASET_KIND))
def test_default_table_covers_every_perturbation(dataset):
    kind = TEXT_KINDS[DATASET_KIND[dataset]]
    weights = load_expert_weights(kind, all_perturbations(dataset))
    assert set(weights) == {p.id for p in all_perturbations(dataset)}
    for entry in weights.values():
        assert set(entry) == {c.name for c in kind.criteria} and sum(entry.values()) > 0


def test_user_file_with_id_overriding_family(tmp_path):
    path = tmp_path / "weights.json"
    path.write_text(
        json.dumps(
            {
                "qa": {
                    "typos": {"answer_quality": 1},
                    "typos_major": {"answer_quality": 4},
                    "char_deletion": {"answer_quality": 2},
                    "random_answer": {"answer_quality": 3},
                }
            }
        )
    )
    kind = TEXT_KINDS["qa"]
    weights = load_expert_weights(kind, all_perturbations("answer_equivalence")[:5], path)
    assert weights["typos_minor"] == {"answer_quality": 1.0} and weights["typos_major"] == {"answer_quality": 4.0}


def test_weight_file_errors(tmp_path):
    kind = TEXT_KINDS["translation"]
    rows = all_perturbations("wmt22_zh_en")
    with pytest.raises(DataError, match="does not exist|No such file"):
        load_expert_weights(kind, rows, tmp_path / "missing.json")
    path = tmp_path / "w.json"
    path.write_text(json.dumps({"translation": {"char_deletion": {"accuracy": 1, "fluenc": 2}}}))
    with pytest.raises(DataError, match=r"unknown metric\(s\) \['fluenc'\]"):
        load_expert_weights(kind, rows, path)
    path.write_text(json.dumps({"translation": {"typos": {"accuracy": 1}}}))
    with pytest.raises(DataError, match="no weights for 'char_deletion_minor'"):
        load_expert_weights(kind, rows, path)


def test_metric_subset_without_weight_is_refused(tmp_path):
    data = custom_folder(
        tmp_path,
        "d",
        '{"id": "a", "text": "He smiled at the dog and walked home."}\n{"id": "b", "text": "She sang a song."}\n',
    )
    with pytest.raises(ValueError, match="give no weight to the chosen metrics"):
        custom(data_dir=str(data), kind="story", metrics="coherence", perturbations="char_deletion")


@pytest.mark.parametrize(
    ("votes", "shown"),
    [(-1, "-1"), ("9", "'9'"), (True, "True"), (None, "None"), ([1], r"\[1\]")],
)
def test_bad_weights_are_refused_at_task_creation(tmp_path, votes, shown):
    """Before any judge call, naming the file and the entry, not in the metric after the run."""
    data = custom_folder(tmp_path, "d", '{"id": "a", "text": "He smiled at the dog and walked home. Then he slept."}\n')
    path = tmp_path / "w.json"
    path.write_text(json.dumps({"story": {"typos": {"coherence": 1, "consistency": votes, "fluency": 2}}}))
    with pytest.raises(DataError, match=rf"w.json: story.typos.consistency: .*non-negative numbers, got {shown}"):
        custom(data_dir=str(data), kind="story", perturbations="typos", expert_weights=str(path))
