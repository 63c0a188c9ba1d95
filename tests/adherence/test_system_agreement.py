"""System-level agreement: Kendall's tau of the systems' mean scores, its document bootstrap, whole-document draws."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from judge_data.human import HumanItem, select_documents
from scorers.adherence import CriterionSpec, agreement_metrics
from scorers.correlation import CriterionScores
from scorers.system_agreement import (
    SYSTEM_JUDGE_CONSTANT,
    batched_tau_b,
    document_resamples,
    few_systems_caveat,
    system_agreement,
    system_means,
    system_tau,
)

SYSTEMS = ["a", "b", "c", "d"] * 2
DOCUMENTS = ["x"] * 4 + ["y"] * 4


def test_system_means_leave_out_unscored_and_unnamed_responses():
    means = system_means([1.0, 3.0, math.nan, 5.0, 2.0], ["a", "a", "b", None, "b"])
    assert means == {"a": 2.0, "b": 2.0}


def test_system_tau_by_hand():
    judge = [1, 2, 3, 4, 3, 2, 5, 4]  # system means a 2, b 2, c 4, d 4
    human = [1, 1, 2, 4, 1, 1, 2, 4]  # a 1, b 1, c 2, d 4
    # pairs: (a,b) tied in both; (c,d) tied for the judge; the other 4 concordant: 4 / sqrt(4 * 5)
    tau = system_tau(judge, human, SYSTEMS)
    assert tau.value == pytest.approx(4 / math.sqrt(4 * 5))
    assert tau.value == pytest.approx(stats.kendalltau([2, 2, 4, 4], [1, 1, 2, 4]).statistic)
    assert tau.n_systems == 4 and tau.reason is None


def test_system_tau_is_nan_with_its_reason():
    two = system_tau([1, 2, 3, 4], [1, 2, 3, 4], ["a", "b", "a", "b"])
    assert math.isnan(two.value) and two.reason == "2 system(s) with scored responses; at least 3 are needed"
    unscored = system_tau([1, 2, math.nan], [1, 2, 3], ["a", "b", "c"])
    assert unscored.n_systems == 2 and math.isnan(unscored.value)
    constant = system_tau([3, 3, 3], [1, 2, 3], ["a", "b", "c"])
    assert constant.reason == f"{SYSTEM_JUDGE_CONSTANT} (3)"
    unnamed = system_tau([1, 2, 3], [1, 2, 3], [None, None, None])
    assert unnamed.n_systems == 0 and math.isnan(unnamed.value)


def test_batched_tau_b_is_scipys_with_ties_and_absent_systems():
    rng = np.random.default_rng(3)
    judge = rng.integers(1, 4, (200, 7)).astype(float)  # many ties
    human = rng.integers(1, 6, (200, 7)).astype(float)
    judge[rng.random(judge.shape) < 0.1] = np.nan
    expected = []
    for row_judge, row_human in zip(judge, human, strict=True):
        keep = np.isfinite(row_judge)
        constant = keep.sum() < 3 or np.ptp(row_judge[keep]) == 0 or np.ptp(row_human[keep]) == 0
        expected.append(math.nan if constant else stats.kendalltau(row_judge[keep], row_human[keep]).statistic)
    assert np.allclose(batched_tau_b(judge, human), expected, equal_nan=True)


def test_document_resamples_draw_whole_documents():
    """Each resample's tau is scipy's on the system means of the drawn documents (the same draws, rebuilt here)."""
    rng = np.random.default_rng(0)
    documents = [f"doc{d}" for d in range(5) for _ in range(4)]
    systems = ["a", "b", "c", "d"] * 5
    judge = rng.integers(1, 6, 20).astype(float)
    judge[3] = math.nan  # one unparsed answer
    human = rng.normal(3, 1, 20)
    criteria = [CriterionScores("q", "Content", judge, human)]
    resampled = document_resamples(criteria, systems, documents, n_resamples=50, seed=7)[:, 0]
    counts = np.random.default_rng(7).multinomial(5, np.full(5, 0.2), 50)
    for draw, value in zip(counts, resampled, strict=True):
        chosen = [i for d in range(5) for _ in range(draw[d]) for i in range(4 * d, 4 * d + 4)]
        tau = system_tau(judge[chosen], human[chosen], [systems[i] for i in chosen]).value
        assert value == pytest.approx(tau, nan_ok=True)


def test_system_agreement_orients_and_averages_the_grouped_criteria():
    judge = np.array([1, 2, 3, 4, 2, 3, 4, 5], dtype=float)
    reverse = -judge
    human = np.array([1, 2, 3, 4, 1, 2, 3, 4], dtype=float)
    criteria = [
        CriterionScores("up", "Content", judge, human),
        CriterionScores("down", "Content", reverse, human, sign=-1),
        CriterionScores("overall", None, reverse, human),
    ]
    agreement = system_agreement(criteria, SYSTEMS, DOCUMENTS)
    assert agreement.value == 1.0 and agreement.criteria["overall"].value == -1.0
    assert agreement.low == agreement.high == 1.0  # every resample ranks the systems the same way
    assert (agreement.n_systems, agreement.n_documents) == (4, 2)
    unnamed = system_agreement(criteria, [None] * 8, DOCUMENTS)
    assert math.isnan(unnamed.value) and unnamed.reason == "the responses name no system that wrote them"


def test_agreement_metrics_report_system_level_for_both_harnesses():
    specs = [CriterionSpec("q", "Content", 1)]
    rng = np.random.default_rng(1)
    samples = []
    for index in range(40):
        system = "abcd"[index % 4]
        human = float(rng.normal("abcd".index(system), 1))
        samples.append(({"human": {"q": human}, "system": system, "task": f"doc{index // 4}"}, {"q": human + 0.1}))
    report, _, notes = agreement_metrics(specs, samples)
    assert report["system_tau"] == report["system_tau/q"] == 1.0
    assert report["n_systems"] == 4 and report["system_tau_ci_low"] <= 1.0 == report["system_tau_ci_high"]
    assert "system_tau" not in notes
    no_systems, _, notes = agreement_metrics(specs, [({**meta, "system": None}, value) for meta, value in samples])
    assert (
        math.isnan(no_systems["system_tau"]) and notes["system_tau"] == "the responses name no system that wrote them"
    )


def _item(task: str, system: str) -> HumanItem:
    return HumanItem(f"{task}::{system}", task, f"{system} answers {task}", {"q": 1.0}, meta={"system": system})


def test_select_documents_keeps_every_response_of_a_drawn_document():
    items = [_item(f"doc{d}", system) for d in range(10) for system in "abc"]
    chosen = select_documents(items, 4, seed=2)
    assert len(chosen) == 12 and len({item.task for item in chosen}) == 4
    assert all(sum(item.task == task for item in chosen) == 3 for task in {item.task for item in chosen})
    assert chosen == select_documents(items, 4, seed=2) != select_documents(items, 4, seed=3)
    assert chosen == sorted(chosen, key=items.index)
    assert select_documents(items, None, 0) == items


def test_a_tau_over_fewer_than_eight_systems_is_flagged_with_its_exact_null_distribution():
    # 6 systems: 15 pairs, steps of 2/15; tau >= 0.6 is at most 3 discordant pairs, 1 + 5 + 14 + 29 = 49 of the 720
    # orders (Mahonian numbers); 0.733 (2 discordant, 20 of 720 = 0.028) is the smallest with a one-sided p < 0.05
    caveat = few_systems_caveat(6)
    assert caveat is not None and "steps of 0.133" in caveat and f"probability {49 / 720:.3f}" in caveat
    assert "only a tau of 0.733 or more" in caveat
    assert few_systems_caveat(8) is None and few_systems_caveat(2) is None
    assert "no tau has" in (few_systems_caveat(3) or "")
