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


def test_weights_travel_in_the_samples_and_equal_the_old_logs_parameter(tmp_path):
    """Each perturbed sample carries its perturbation's weights and the metric's parameters none (inspect writes them
    with every displayed value); a log written before, whose metric holds the weights, gives the same numbers."""
    from inspect_ai.scorer import SampleScore, Score

    from judge_data.inspect_private import registry_params
    from scorers.dhp import EXPERT_WEIGHTS_KEY, dhp_discernment

    rows = "".join(
        json.dumps({"id": str(index), "text": f"The dog number {index} ran home. It slept well after that."}) + "\n"
        for index in range(12)
    )
    path = tmp_path / "w.json"
    path.write_text(
        json.dumps(
            {"story": {"typos": {"coherence": 0, "consistency": 1, "fluency": 3}, "char_deletion": {"fluency": 1}}}
        )
    )
    task = custom(
        data_dir=str(custom_folder(tmp_path, "d", rows)),
        kind="story",
        perturbations="typos,char_deletion",
        expert_weights=str(path),
    )
    weights = task.metadata["expert_weights"]
    assert weights["typos"] == {"coherence": 0.0, "consistency": 1.0, "fluency": 3.0}
    samples = list(task.dataset)
    for sample in samples:
        carried = sample.metadata.get(EXPERT_WEIGHTS_KEY)
        assert carried == (
            None if sample.metadata["perturbation"] == "original" else weights[sample.metadata["perturbation"]]
        )
    assert "expert_weights" not in registry_params(task.metrics[0])

    def rating(sample, metric: str) -> float:
        """Originals rated higher than their copies, by how much depending on the metric."""
        drop = {"coherence": 0.0, "consistency": 0.5, "fluency": 1.5}[metric]
        base = 3.0 + int(sample.metadata["item_id"]) % 3
        return (
            base
            if sample.metadata["perturbation"] == "original"
            else base - drop * (int(sample.metadata["item_id"]) % 2)
        )

    metrics = task.metadata["metrics"]
    scores = [
        SampleScore(
            score=Score(value={name: rating(sample, name) for name in metrics}),
            sample_id=sample.id,
            sample_metadata=sample.metadata,
        )
        for sample in samples
    ]
    carried_report = task.metrics[0](scores)
    old_log_report = dhp_discernment(metrics, weights)(scores)
    unweighted = dhp_discernment(metrics, {})(scores)
    assert carried_report == old_log_report
    assert carried_report["D/typos"] == unweighted["D/typos"]
    assert carried_report["D_EW/typos"] != unweighted["D_EW/typos"]
