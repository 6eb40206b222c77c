"""The grounding pass of the offline judge: which pairs it scores, how it decides, how it explains."""

from __future__ import annotations

import numpy as np
import pytest

from rageval_lc.judges.offline.nli_pass import NLI_FEATURES, nli_inputs, nli_table
from rageval_lc.text import KeyedSentences

SENTENCES = KeyedSentences.from_texts(
    [
        "Mount Everest is 8,849 metres tall. It lies on the border of Nepal and China. Climbers start in spring.",
        "K2 is the second-highest mountain.",
    ],
    "Mount Everest is 6,120 metres tall. It lies between Nepal and China.",
)


def evidence(sentences: KeyedSentences, *keys: tuple[str, ...]) -> list[tuple[tuple[str, ...], str, str]]:
    """Each response sentence's grounding pair over the given document keys (claims as they are)."""
    return [
        (k, " ".join(sentences.sentence(key) for key in k), text)
        for k, (_, text) in zip(keys, sentences.response, strict=True)
    ]


def test_one_pair_per_sentence_its_evidence_against_its_claim() -> None:
    candidates, flat = nli_inputs(SENTENCES, evidence(SENTENCES, ("0a", "0b"), ()))
    assert candidates == [
        [(("0a", "0b"), "Mount Everest is 8,849 metres tall. It lies on the border of Nepal and China.")],
        [],
    ]
    assert flat == [(candidates[0][0][1], "Mount Everest is 6,120 metres tall.")]


def _fake(rows: dict[str, list[float]]):
    """A predictor answering by the premise's first word (worked out by hand in each test)."""

    def predict(pairs):
        return np.array([rows[p.split()[0]] for p, _ in pairs])

    return predict


def test_a_slot_conflict_is_contradicted_whatever_the_model_says() -> None:
    rows = {"Mount": [0.9, 0.05, 0.05], "K2": [0.1, 0.8, 0.1], "It": [0.7, 0.2, 0.1]}  # the model entails 6,120
    table, verdicts = nli_table(
        SENTENCES, evidence(SENTENCES, ("0a", "1a"), ("0a", "0b", "0c")), _fake(rows), threshold=0.97
    )
    assert table.shape == (2, len(NLI_FEATURES))
    first, second = verdicts
    assert first.verdict == "contradicted" and first.kind == "number"
    assert first.contradicting_keys == ("0a",)
    assert first.detail == "says 6,120 metres; 0a says 8,849 metres"
    assert table[0, NLI_FEATURES.index("lexical_conflict")] == 1.0
    assert table[0, NLI_FEATURES.index("nli_contradicted")] == 0.0
    # sentence b: no slot differs (Nepal, China); its evidence 0a-0c (premise "Mount ...": 0.9) entails it
    # and the verdict names the one evidence sentence holding most of its words, not the span
    assert second.verdict == "supported" and second.entailing_keys == ("0b",)


def test_an_nli_contradiction_counts_only_above_the_threshold_and_on_aligned_text() -> None:
    keyed = KeyedSentences.from_texts(
        ["Penguins cannot fly.", "Bananas are a good source of potassium."], "Penguins waddle across the ice."
    )
    strong = {"Penguins": [0.01, 0.01, 0.98], "Bananas": [0.01, 0.01, 0.98]}
    _, verdicts = nli_table(keyed, evidence(keyed, ("0a",)), _fake(strong), threshold=0.97)
    # 0.98 >= 0.97 but "Penguins cannot fly" holds none of "waddle", "ice": not aligned, not contradicted
    assert verdicts[0].verdict == "not_found"
    aligned = KeyedSentences.from_texts(["Emperor penguins waddle on the ice in winter."], "Penguins waddle on ice.")
    _, verdicts = nli_table(aligned, evidence(aligned, ("0a",)), _fake({"Emperor": [0.01, 0.01, 0.98]}), threshold=0.97)
    assert verdicts[0].verdict == "contradicted" and verdicts[0].kind == "nli"
    assert verdicts[0].strength == pytest.approx(0.98)
    _, verdicts = nli_table(aligned, evidence(aligned, ("0a",)), _fake({"Emperor": [0.04, 0.0, 0.96]}), threshold=0.97)
    assert verdicts[0].verdict == "not_found"  # 0.96 < 0.97


def test_an_entailing_pair_clears_an_nli_contradiction_but_not_a_slot_conflict() -> None:
    rows = {"It": [0.6, 0.1, 0.3], "K2": [0.0, 0.1, 0.9], "Mount": [0.2, 0.7, 0.1]}
    _, verdicts = nli_table(SENTENCES, evidence(SENTENCES, (), ("0b",)), _fake(rows), threshold=0.5)
    assert verdicts[0].verdict == "contradicted" and verdicts[0].kind == "number"  # no pair at all: slots speak
    assert verdicts[1].verdict == "supported" and verdicts[1].kind == ""


def test_slot_checks_can_be_turned_off() -> None:
    rows = {"Mount": [0.9, 0.05, 0.05], "K2": [0.1, 0.8, 0.1], "It": [0.7, 0.2, 0.1]}
    _, verdicts = nli_table(SENTENCES, evidence(SENTENCES, ("0a",), ("0b",)), _fake(rows), threshold=0.97, slots=False)
    assert verdicts[0].verdict == "supported"
