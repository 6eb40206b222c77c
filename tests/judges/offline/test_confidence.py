"""The offline judge's confidence: the shipped models match the code that builds their inputs, compute what a
logistic model computes, and every verdict of real RAGBench rows carries a probability consistent with it."""

from __future__ import annotations

import json
from importlib.resources import files
from pathlib import Path

import numpy as np
import pytest

from rageval_lc.datasets.ragbench import load_ragbench
from rageval_lc.judges.offline.confidence import (
    CLAIM_FEATURES,
    ROW_FEATURES,
    SENTENCE_FEATURES,
    ConfidenceModels,
    row_inputs,
    sentence_inputs,
)
from tests.floats import ABS


def test_the_shipped_models_were_fitted_on_the_inputs_the_code_builds() -> None:
    data = json.loads(files("rageval_lc.judges.offline").joinpath("confidence.json").read_text(encoding="utf-8"))
    assert data["metadata"]["features"] == {
        "sentence": list(SENTENCE_FEATURES),
        "claim": list(CLAIM_FEATURES),
        "row": list(ROW_FEATURES),
    }
    for kind, names in (("sentence", SENTENCE_FEATURES), ("claim", CLAIM_FEATURES), ("row", ROW_FEATURES)):
        assert len(data[kind]["coef"]) == len(names) == len(data[kind]["mean"])


def test_a_probability_is_the_logistic_model_s() -> None:
    models = ConfidenceModels.load()
    x = sentence_inputs(
        np.array([0.9, 0.2]), np.array([0.8, 0.3]), [None, None], [True, False], 0.3, [0.4, 0.9], [False, False]
    )
    model = models.sentence
    by_hand = 1 / (1 + np.exp(-(((x - model.mean) / model.scale) @ model.coef + model.intercept)))
    assert models.probability("sentence", x) == pytest.approx(by_hand, abs=ABS)
    row = row_inputs(0.3, False, False, models.probability("sentence", x), 1)
    assert row.shape == (1, len(ROW_FEATURES))
    assert 0.0 < float(models.probability("row", row)[0]) < 1.0


def test_every_verdict_of_real_rows_carries_its_probability_of_being_right(ragbench_files: list[Path]) -> None:
    from rageval_lc.judges.offline.judge import OfflineJudge

    judge = OfflineJudge()
    hagrid = next(f for f in ragbench_files if f.name.startswith("hagrid"))
    for record in list(load_ragbench(hagrid))[:6]:
        judgement = judge.trace_labels(record.sample)
        notes, labels = judgement.notes, judgement.value
        keys = list(record.sample.sentences.response_keys)
        assert list(notes["sentence_confidence"]) == keys == list(notes["sentence_unsupported_probability"])
        for support in labels.sentence_support_information:
            key = support.response_sentence_key
            q, right = notes["sentence_unsupported_probability"][key], notes["sentence_confidence"][key]
            # right = P(unsupported) for a sentence judged unsupported, 1 - P(unsupported) for a supported one
            assert right == pytest.approx(q if support.fully_supported is False else 1 - q, abs=2e-4)
        assert 0.0 <= notes["adherence_confidence"] <= 1.0
