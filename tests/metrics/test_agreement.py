"""Judge agreement: RMSE and hallucination AUROC, per group and pooled (RAGBench's convention)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import mean_squared_error, roc_auc_score

from rageval_lc.metrics.agreement import AgreementRecord, auroc, judge_agreement, rmse


def test_auroc_hand_examples() -> None:
    assert auroc([1, 1, 0, 0], [0.9, 0.8, 0.2, 0.1]) == 1.0
    assert auroc([1, 1, 0, 0], [0.1, 0.2, 0.8, 0.9]) == 0.0
    # One tie between a positive and a negative counts a half: (1 + 1 + 0.5 + 1) / 4.
    assert auroc([True, False, True, False], [0.9, 0.1, 0.4, 0.4]) == 0.875
    assert auroc([1, 1], [0.2, 0.3]) is None
    assert auroc([], []) is None
    with pytest.raises(ValueError, match="one score per label"):
        auroc([1, 0], [0.5])


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(st.booleans(), st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0]) | st.floats(0, 1)),
        min_size=2,
        max_size=60,
    )
)
def test_auroc_equals_sklearn(pairs: list[tuple[bool, float]]) -> None:
    labels = [y for y, _ in pairs]
    scores = [s for _, s in pairs]
    if len(set(labels)) < 2:
        assert auroc(labels, scores) is None
    else:
        assert auroc(labels, scores) == pytest.approx(roc_auc_score(labels, scores), abs=1e-12)


@given(st.lists(st.tuples(st.floats(0, 1), st.floats(0, 1)), min_size=1, max_size=50))
def test_rmse_equals_sklearn(pairs: list[tuple[float, float]]) -> None:
    p, t = [a for a, _ in pairs], [b for _, b in pairs]
    assert rmse(p, t) == pytest.approx(math.sqrt(mean_squared_error(t, p)), abs=1e-12)


def test_rmse_rejects_mismatched_input() -> None:
    with pytest.raises(ValueError, match="two non-empty sequences of one length"):
        rmse([], [])
    with pytest.raises(ValueError, match="Got 2 and 1"):
        rmse([0.1, 0.2], [0.1])


def record(group: str, rel: float | None, adh_pred: float | None, adh_true: float | bool) -> AgreementRecord:
    return AgreementRecord(
        group,
        {"context_relevance": rel, "context_utilization": 0.5, "adherence": adh_pred},
        {"context_relevance": 0.5, "context_utilization": 0.5, "completeness": 1.0, "adherence": adh_true},
    )


def test_judge_agreement_per_group_and_pooled() -> None:
    records = [
        record("covidqa", 0.7, 0.9, True),
        record("covidqa", 0.1, 0.2, False),
        record("covidqa", None, 0.6, False),
        record("hotpotqa", 0.5, 1.0, True),
        record("hotpotqa", 0.9, 1.0, True),
    ]
    report = judge_agreement(records)
    assert list(report.groups) == ["covidqa", "hotpotqa"]
    covid = report.groups["covidqa"]
    assert covid.n == 3
    assert covid.rmse_count["context_relevance"] == 2  # the None prediction is left out
    assert covid.rmse["context_relevance"] == pytest.approx(math.sqrt((0.04 + 0.16) / 2))
    assert covid.rmse["context_utilization"] == 0.0
    assert covid.rmse["completeness"] is None  # never predicted
    # Hallucination scores 1 − adherence: positives (not adherent) 0.8, 0.4; negative 0.1 → AUROC 1.0.
    assert covid.hallucination_auroc == 1.0
    assert covid.hallucinated == 2
    hotpot = report.groups["hotpotqa"]
    assert hotpot.hallucination_auroc is None  # one class only
    assert hotpot.rmse["context_relevance"] == pytest.approx(math.sqrt((0 + 0.16) / 2))
    pooled = report.pooled
    assert pooled is not None and pooled.n == 5
    assert pooled.rmse["context_relevance"] == pytest.approx(math.sqrt((0.04 + 0.16 + 0 + 0.16) / 4))
    labels = [False, True, True, False, False]
    scores = [0.1, 0.8, 0.4, 0.0, 0.0]
    assert pooled.hallucination_auroc == pytest.approx(roc_auc_score(labels, scores))
    out = report.to_dict()
    assert out["pooled"]["context_relevance_rmse"] == pytest.approx(pooled.rmse["context_relevance"])
    assert out["groups"]["hotpotqa"]["hallucination_auroc"] is None


def test_judge_agreement_uses_the_chosen_adherence_field() -> None:
    records = [
        AgreementRecord("g", {"adherence": 1.0, "adherence_probability": 0.3}, {"adherence": 0}),
        AgreementRecord("g", {"adherence": 1.0, "adherence_probability": 0.9}, {"adherence": 1}),
    ]
    assert judge_agreement(records).pooled.hallucination_auroc == 0.5  # type: ignore[union-attr]
    ranked = judge_agreement(records, adherence_key="adherence_probability")
    assert ranked.pooled.hallucination_auroc == 1.0  # type: ignore[union-attr]


def test_judge_agreement_treats_nan_as_missing_and_rejects_text() -> None:
    records = [AgreementRecord("g", {"context_relevance": math.nan}, {"context_relevance": 0.5})]
    assert judge_agreement(records).pooled.rmse["context_relevance"] is None  # type: ignore[union-attr]
    with pytest.raises(TypeError, match=r"numeric scores\. Got str"):
        judge_agreement([AgreementRecord("g", {"context_relevance": "0.5"}, {"context_relevance": 0.5})])


def test_balanced_accuracy_is_the_mean_of_the_two_labels_hit_rates() -> None:
    from rageval_lc.metrics.agreement import balanced_accuracy

    # 3 of 4 supported rows and 1 of 2 unsupported rows right: (3/4 + 1/2) / 2 = 0.625
    predicted = [True, True, True, False, False, True]
    truth = [True, True, True, True, False, False]
    assert balanced_accuracy(predicted, truth) == 0.625
    assert balanced_accuracy([True, False], [True, True]) == 0.5  # one label only: its hit rate
    assert balanced_accuracy([], []) is None
