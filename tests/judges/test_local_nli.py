"""The NLI pass of the offline judge: which pairs it scores, how it decides, how it explains."""

from __future__ import annotations

import numpy as np
import pytest

from rageval_lc.judges.local_nli import NLI_FEATURES, conflict_detail, nli_pairs, nli_table
from rageval_lc.text import KeyedSentences

SENTENCES = KeyedSentences.from_texts(
    [
        "Mount Everest is 8,849 metres tall. It lies on the border of Nepal and China. Climbers start in spring.",
        "K2 is the second-highest mountain.",
    ],
    "Mount Everest is 6,120 metres tall. It lies between Nepal and China.",
)


def test_pairs_are_the_two_closest_sentences_and_a_window_around_the_closest() -> None:
    pairs = nli_pairs(SENTENCES, [("0a", "1a", "0b"), ("0b",)])
    assert [keys for keys, _ in pairs[0]] == [("0a",), ("1a",), ("0a", "0b")]
    assert pairs[0][2][1] == "Mount Everest is 8,849 metres tall. It lies on the border of Nepal and China."
    assert [keys for keys, _ in pairs[1]] == [("0b",), ("0a", "0b", "0c")]
    assert nli_pairs(SENTENCES, [(), ()]) == [[], []]


def _fake(rows: dict[str, list[float]]):
    """A predictor answering by the premise's first word (worked out by hand in each test)."""

    def predict(pairs):
        return np.array([rows[p.split()[0]] for p, _ in pairs])

    return predict


def test_verdicts_supported_contradicted_and_not_found() -> None:
    rows = {"Mount": [0.02, 0.08, 0.90], "K2": [0.1, 0.8, 0.1], "It": [0.7, 0.2, 0.1]}
    table, verdicts = nli_table(SENTENCES, [("0a", "1a"), ("0b",)], _fake(rows))
    assert table.shape == (2, len(NLI_FEATURES))
    first, second = verdicts
    # sentence a: pairs 0a (contradiction 0.90), 1a (neutral), window 0a+0b (premise starts "Mount": 0.90)
    assert first.verdict == "contradicted"
    assert first.contradiction == pytest.approx(0.90)
    assert first.contradicting_keys == ("0a",)
    assert first.detail == "says 6,120 metres; 0a says 8,849 metres"
    assert table[0, NLI_FEATURES.index("nli_contradicted")] == 1.0
    # sentence b: 0b entails (0.7) -> supported, although its window (starting "Mount") contradicts
    assert second.verdict == "supported" and second.entailing_keys == ("0b",)
    _, verdicts = nli_table(SENTENCES, [("0a", "1a"), ("1a",)], _fake(rows))
    assert verdicts[1].verdict == "not_found"  # only 1a ("K2", neutral); its document has no window


def test_an_entailing_pair_outweighs_a_contradicting_one() -> None:
    rows = {"It": [0.6, 0.1, 0.3], "K2": [0.0, 0.1, 0.9], "Mount": [0.2, 0.7, 0.1]}
    _, verdicts = nli_table(SENTENCES, [(), ("0b", "1a")], _fake(rows))
    assert verdicts[0].verdict == "not_found" and verdicts[0].entailment == 0.0
    assert verdicts[1].verdict == "supported" and not verdicts[1].lexical


def test_a_conflict_the_words_show_outweighs_an_entailing_pair() -> None:
    rows = {"Mount": [0.9, 0.05, 0.05], "K2": [0.1, 0.8, 0.1]}  # the model misses the changed number
    table, verdicts = nli_table(SENTENCES, [("0a", "1a"), ()], _fake(rows))
    assert verdicts[0].verdict == "contradicted" and verdicts[0].lexical
    assert verdicts[0].detail == "says 6,120 metres; 0a says 8,849 metres"
    assert table[0, NLI_FEATURES.index("lexical_conflict")] == 1.0
    assert table[0, NLI_FEATURES.index("nli_contradicted")] == 0.0


CONFLICTS = [
    (
        "The Berlin Wall fell in 1991.",
        "The Berlin Wall fell on 9 November 1989.",
        "says 1991; 0a says 9 November, 1989",
    ),
    ("The bag weighs 5 kilograms.", "The bag weighs 5 grams.", "says 5 kilograms; 0a says 5 grams"),
    ("The capital of Australia is Sydney.", "Canberra is the capital of Australia.", "says Sydney; 0a says Canberra"),
    ("Aspirin is advised for children.", "Aspirin is not advised for children.", "0a negates what the sentence states"),
    ("Paris is in France.", "Paris is in France.", ""),
]


@pytest.mark.parametrize(("claim", "premise", "expected"), CONFLICTS)
def test_conflict_detail_names_what_differs(claim: str, premise: str, expected: str) -> None:
    assert conflict_detail(claim, "0a", premise) == expected
