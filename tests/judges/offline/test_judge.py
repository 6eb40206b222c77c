"""The offline judge: structure with a fake encoder, behaviour with the packaged model."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

from rageval_lc.judges.base import JUDGEMENTS
from rageval_lc.judges.offline.cross_encoder import CalibrationWarning
from rageval_lc.judges.offline.encoder import Encoded
from rageval_lc.judges.offline.features import DOCUMENT_FEATURES, SUPPORT_FEATURES
from rageval_lc.judges.offline.judge import OfflineJudge
from rageval_lc.judges.offline.model import LocalParams
from rageval_lc.judges.offline.nli_pass import NLI_FEATURES
from rageval_lc.schema import RagSample
from rageval_lc.scoring.sample import evaluate_sample
from tests.floats import assert_close_structure

DIM = 64


class HashEncoder:
    """Bag-of-words vectors hashed into DIM dimensions: similar words, similar vectors; no model."""

    def __init__(self) -> None:
        self.calls = 0

    @staticmethod
    def _vector(word: str) -> np.ndarray:
        v = np.zeros(DIM)
        v[int(hashlib.md5(word.encode()).hexdigest(), 16) % DIM] = 1.0
        return v

    def encode(self, texts: list[str]) -> list[Encoded]:
        self.calls += 1
        out = []
        for text in texts:
            words = text.lower().replace(".", " ").split()
            tokens = np.array([self._vector(w) for w in words]) if words else np.zeros((0, DIM))
            sentence = tokens.sum(axis=0) if words else np.zeros(DIM)
            norm = np.linalg.norm(sentence)
            out.append(Encoded(sentence / norm if norm else sentence, tokens, tuple(words)))
        return out


SAMPLE = RagSample(
    id="paris",
    question="Where is the Eiffel Tower?",
    contexts=[
        "The Eiffel Tower is in Paris. It was finished in 1889.",
        "Berlin is the capital of Germany. It has many museums.",
    ],
    response="The Eiffel Tower is in Paris. It was painted gold in 1999.",
)


@pytest.fixture(scope="module")
def fake_judge() -> OfflineJudge:
    return OfflineJudge(encoder=HashEncoder())


def test_shipped_parameters_match_the_feature_tables() -> None:
    params = LocalParams.load()
    # relevance reads the question's side of the document table only (SPEC §6: relevance belongs to the question)
    columns = params.relevance.columns
    assert columns is not None and all(0 <= c < len(DOCUMENT_FEATURES) for c in columns)
    assert len(params.relevance.mean) == len(columns)
    assert len(params.utilization.mean) == len(DOCUMENT_FEATURES)
    assert len(params.support.mean) == len(SUPPORT_FEATURES) + len(NLI_FEATURES)
    assert len(params.relevance.coef) == len(columns) + 9  # expanded: 8 squares and 1 product
    figures = params.metadata["held_out_figures"]["local"]["pooled"]
    assert params.metadata["held_out_rows"] > 900
    assert 0.0 < figures["context_relevance_rmse"] < 0.3


def test_trace_labels_are_valid_labels(fake_judge: OfflineJudge) -> None:
    judgement = fake_judge.trace_labels(SAMPLE)
    assert judgement.ok and judgement.usage.calls == 0
    labels = judgement.value
    keys = set(SAMPLE.sentences.document_keys)
    assert set(labels.all_relevant_sentence_keys) <= keys
    assert set(labels.all_utilized_sentence_keys) <= keys
    assert [e.response_sentence_key for e in labels.sentence_support_information] == ["a", "b"]
    probability = judgement.notes["adherence_probability"]
    assert 0.0 <= probability <= 1.0
    assert labels.overall_supported == (probability >= fake_judge.params.adherence_threshold)
    assert (labels.unsupported_response_sentence_keys == []) == labels.overall_supported
    starts = (
        "Supported by", "Not found in the documents", "Contradicted by", "Closest document sentence",
        "No document sentence entails it",  # supported, though the NLI model reads a sentence against it
    )  # fmt: skip
    for entry in labels.sentence_support_information:
        assert entry.explanation.startswith(starts) and "estimated probability unsupported" in entry.explanation
    verdicts = judgement.notes["sentence_verdicts"]
    assert set(verdicts) == {"a", "b"} and set(verdicts.values()) <= {"supported", "not_found", "contradicted"}
    flagged = {k for k, v in verdicts.items() if v != "supported"}
    assert flagged == set(labels.unsupported_response_sentence_keys)


def test_trace_scores_through_evaluate(fake_judge: OfflineJudge) -> None:
    result = evaluate_sample(SAMPLE, "trace", judge=fake_judge)
    assert {r.status for r in result.results.values()} == {"ok"}
    assert 0.0 <= result.scores()["adherence_probability"] <= 1.0
    assert result.details["trace"]["judge"] == "offline"
    assert result.details["trace"]["usage"]["calls"] == 0


def test_every_judgement_returns_its_verdict_type(fake_judge: OfflineJudge) -> None:
    assert fake_judge.supports == frozenset(JUDGEMENTS) - {"generate_questions"}
    claims = fake_judge.extract_claims(SAMPLE.question, SAMPLE.response).value
    assert claims == ["The Eiffel Tower is in Paris.", "It was painted gold in 1999."]
    verdicts = fake_judge.verify_claims(claims, SAMPLE.contexts).value
    assert [v.claim for v in verdicts] == claims and all(isinstance(v.supported, bool) for v in verdicts)
    contexts = fake_judge.context_relevance(SAMPLE.question, SAMPLE.contexts).value
    assert [c.index for c in contexts] == [0, 1] and all(0 <= c.score <= 1 for c in contexts)
    statements = fake_judge.attribute_reference(SAMPLE.question, "It is in Paris. It opened in 1889.", SAMPLE.contexts)
    assert [s.statement for s in statements.value] == ["It is in Paris.", "It opened in 1889."]
    rubric = fake_judge.rate_answer_relevance(SAMPLE.question, SAMPLE.response).value
    assert 0.0 <= rubric.score <= 1.0
    accuracy = fake_judge.factual_accuracy(SAMPLE.question, "Paris.", "Paris.").value
    assert accuracy.consistency is None and 0 <= accuracy.correctness <= 100
    label = fake_judge.classify_answer(SAMPLE.question, "Paris.", "Paris.").value
    assert label.label in {"CORRECT", "WRONG"}
    assert fake_judge.planned_calls("trace_labels") == 0


def test_fused_judgements_agree_with_the_separate_ones(fake_judge: OfflineJudge) -> None:
    """Verdicts and words exactly, the model's floats within tests.floats.ABS (two paths)."""
    question, response, contexts = SAMPLE.question, SAMPLE.response, SAMPLE.contexts
    reference = "It is in Paris. It opened in 1889."
    assessed = fake_judge.assess_reference(question, response, reference, contexts).value
    assert_close_structure(assessed.statements, fake_judge.attribute_reference(question, reference, contexts).value)
    assert_close_structure(assessed.accuracy, fake_judge.factual_accuracy(question, response, reference).value)
    assert_close_structure(assessed.label, fake_judge.classify_answer(question, response, reference).value)
    full = fake_judge.assess_all(SAMPLE.model_copy(update={"reference": reference})).value
    assert_close_structure(full.trace, fake_judge.trace_labels(SAMPLE).value)
    assert_close_structure(full.reference, assessed)
    assert full.questions == []
    assert fake_judge.assess_all(SAMPLE).value.reference is None


def test_encodings_are_shared_across_judgements(fake_judge: OfflineJudge) -> None:
    encoder = fake_judge.encoder
    fake_judge.trace_labels(SAMPLE)
    before = encoder.misses
    fake_judge.trace_labels(SAMPLE)
    assert encoder.misses == before  # every sentence came from the cache


def test_edge_cases(fake_judge: OfflineJudge) -> None:
    empty_response = RagSample(question="Q?", contexts=["Alpha is first."], response="")
    judgement = fake_judge.trace_labels(empty_response)
    assert judgement.notes["adherence_probability"] == 1.0
    assert judgement.value.sentence_support_information == []
    no_sentences = RagSample(question="Q?", contexts=["  "], response="Yes.")
    labels = fake_judge.trace_labels(no_sentences).value
    assert labels.all_relevant_sentence_keys == []
    assert fake_judge.factual_accuracy("Q?", "", "ref").value.correctness == 0.0
    assert fake_judge.rate_answer_relevance("Q?", " ").value.score == 0.0


# --- the packaged model -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def judge() -> OfflineJudge:
    return OfflineJudge()


def test_support_tracks_the_documents(judge: OfflineJudge) -> None:
    contexts = ["Paris is the capital and largest city of France. It has about two million inhabitants."]
    verdicts = judge.verify_claims(
        ["Paris is the capital of France.", "Paris was founded by Vikings in 1245 on Mars."], contexts
    ).value
    assert [v.supported for v in verdicts] == [True, False]


def test_context_relevance_prefers_the_on_topic_context(judge: OfflineJudge) -> None:
    verdicts = judge.context_relevance(
        "When was the Eiffel Tower finished?",
        ["The Eiffel Tower was finished in 1889 for the World's Fair.", "Bananas are rich in potassium."],
    ).value
    assert verdicts[0].score > verdicts[1].score
    assert verdicts[0].relevant and not verdicts[1].relevant


def test_quickstart_rows_score_sensibly(judge: OfflineJudge) -> None:
    path = Path(__file__).resolve().parents[3] / "rageval_lc" / "data" / "quickstart_ragbench.jsonl"
    from rageval_lc.datasets.ragbench import ragbench_record

    for line in path.read_text(encoding="utf-8").splitlines():
        record = ragbench_record(json.loads(line))
        result = evaluate_sample(record.sample, "trace", judge=judge)
        assert {r.status for r in result.results.values()} == {"ok"}
        for name, score in result.scores().items():
            assert 0.0 <= score <= 1.0, name


def test_the_first_judgement_of_a_chunk_encodes_it_so_the_others_read_the_cache(fake_judge: OfflineJudge) -> None:
    from rageval_lc.engine.engine import prepared

    batch = [SAMPLE.model_copy(update={"question": f"Where is it? ({i})"}) for i in range(4)]
    before = fake_judge.encoder.misses
    items = list(prepared(batch, fake_judge, lambda s: s, chunk=3))  # chunks of 1, 2 and 1
    assert items == batch
    assert fake_judge.encoder.misses == before  # prepare only announces: nothing is encoded before it is needed
    fake_judge.trace_labels(batch[1])  # the first TRACe judgement of a chunk prepares the whole chunk
    encoded = fake_judge.encoder.misses
    assert encoded > before
    fake_judge.trace_labels(batch[2])
    assert fake_judge.encoder.misses == encoded  # every text of its chunk-mate was encoded with it


# The table of issue 22, one context each, through LangChain as a new user would: four contradictions (each with
# the conflict the reason must name) and one faithful restatement in other units (worked out by hand). Since issue
# 43 only a kind of conflict precise to 0.9 on real answers says "contradicted" (negation); a number, name or date
# conflict makes the sentence "not found", its reason naming the conflict as evidence.
ISSUE_ROWS = [
    # a number conflict the grounding model reads as a contradiction (P 0.95) forces the verdict
    ("Mount Everest is 6,120 metres tall.", "Mount Everest is 8,849 metres tall.", "contradicted",
     "Contradicted by 0a: says 6,120 metres; 0a says 8,849 metres"),
    ("Everest rises 8,849 m above sea level.", "Mount Everest is 8,849 metres tall.", "supported", ""),
    pytest.param("The capital of Australia is Sydney.",
                 "Canberra is the capital city of Australia. Sydney is its largest city.",
                 "not_found", "0a disagrees (says Sydney; 0a says Canberra)",
                 marks=pytest.mark.xfail(strict=True, reason="issue 43: the grounding model entails it (P 0.95) from "
                                         "the two sentences together; a name check (precision 0.16) forces nothing")),
    ("The Berlin Wall fell in 1991.", "The Berlin Wall fell on 9 November 1989, after weeks of protest.",
     "not_found", "0a disagrees (says 1991; 0a says 9 November 1989)"),
    ("Aspirin is recommended for children.",
     "Aspirin is not recommended for children because of the risk of Reye's syndrome.", "contradicted",
     'Contradicted by 0a: says "recommended"; 0a says "not recommended"'),
]  # fmt: skip


@pytest.fixture(scope="module")
def evaluators():
    from rageval_lc.adapters.langchain import RagEvaluator

    return RagEvaluator("faithfulness"), RagEvaluator("trace")


@pytest.mark.parametrize(("answer", "context", "verdict", "reason"), ISSUE_ROWS)
def test_the_issue_table_comes_out_right(evaluators, answer: str, context: str, verdict: str, reason: str) -> None:
    faithfulness, trace = evaluators
    for contexts in ([context], [context, "Bananas are a good source of potassium."]):  # a bystander changes nothing
        scored = faithfulness.evaluate_strings(prediction=answer, input="What is true?", contexts=contexts)
        traced = trace.evaluate_strings(prediction=answer, input="What is true?", contexts=contexts)
        notes = traced["details"]["trace"]["judge_notes"]
        assert notes["sentence_verdicts"] == {"a": verdict}
        if verdict == "contradicted":
            assert scored["score"] == 0.0
            assert traced["scores"]["adherence"] == 0.0
            claim_reason = scored["details"]["faithfulness"]["claims"][0]["reason"]
            assert claim_reason.startswith(reason)
            (flag,) = notes["contradictions"]
            assert flag["response_sentence_key"] == "a" and flag["document_sentence_keys"] == ["0a"]
            assert reason.endswith(flag["conflict"])
        elif verdict == "not_found":
            assert scored["score"] == 0.0
            assert traced["scores"]["adherence"] == 0.0
            assert reason in scored["details"]["faithfulness"]["claims"][0]["reason"]
            assert "contradictions" not in notes
        else:
            assert scored["score"] == 1.0
            assert traced["scores"]["adherence"] == 1.0
            assert "contradictions" not in notes


def test_reasons_never_mislead(evaluators) -> None:
    faithfulness, trace = evaluators
    scored = faithfulness.evaluate_strings(
        prediction="No. Penicillin has no effect on viral infections.",
        input="Does penicillin treat the flu?",
        contexts=["Penicillin has no effect on viral infections."],
    )
    assert scored["score"] == 1.0
    assert "Contradicted" not in scored["details"]["faithfulness"]["claims"][0]["reason"]
    traced = trace.evaluate_strings(
        prediction="Mount Everest is 6,120 metres tall. It rose 1,234 metres in a year.",
        input="How tall is Everest?",
        contexts=["Mount Everest is 8,849 metres tall."],
    )
    reasons = [s["explanation"] for s in traced["details"]["trace"]["sentence_support"]]
    assert "6,120 metres" in reasons[0]
    missing = [r.split("words not in the documents: ")[1] for r in reasons if "words not in the documents" in r]
    assert missing and not any(c.isdigit() for words in missing for c in words)  # never "120, 6" or "1, 234"
    off_topic = trace.evaluate_strings(
        prediction="Mount Everest is 8,849 metres tall.", input="How tall is Everest?",
        contexts=["The Eiffel Tower is in Paris."],
    )  # fmt: skip
    notes = off_topic["details"]["trace"]["judge_notes"]
    assert notes["sentence_verdicts"] == {"a": "not_found"} and "contradictions" not in notes


def test_an_off_topic_passage_changes_no_outcome_of_the_judge(judge: OfflineJudge) -> None:
    """Item 3 as a property, through the whole judge: 30 benchmark cases (fixed seed), each with an off-topic
    passage appended, keep every sentence's verdict (supported / not found / contradicted)."""
    import random

    data = Path(__file__).resolve().parents[3] / "benchmarks" / "data"
    read = lambda name: [json.loads(line) for line in (data / name).read_text(encoding="utf-8").splitlines()]  # noqa: E731
    cases = [(p["question"], [p["context"]], p["response"]) for p in read("contradiction_pairs.jsonl")]
    cases += [(r["question"], r["contexts"], r["response"]) for r in read("contradiction_rag_cases.jsonl")]
    passages = [p["text"] for p in read("off_topic_passages.jsonl")]
    rng = random.Random(11)

    def verdicts(question: str, contexts: list[str], response: str) -> dict:
        sample = RagSample(question=question, contexts=contexts, response=response)
        return judge.trace_labels(sample).notes["sentence_verdicts"]

    changed = []
    for question, contexts, response in rng.sample(cases, 30):
        passage = rng.choice(passages)
        if verdicts(question, [*contexts, passage], response) != verdicts(question, contexts, response):
            changed.append((response, passage))
    assert changed == []


def test_offline_judges_share_cache_entries_only_with_the_same_model_params_and_adapter(tmp_path: Path) -> None:
    from rageval_lc.judges.resilient import judge_identity

    shipped = LocalParams.load(None)
    other = LocalParams(**{**shipped.__dict__, "adherence_threshold": shipped.adherence_threshold / 2})
    adapter = tmp_path / "nli"
    adapter.mkdir()
    (adapter / "adapter_model.safetensors").write_bytes(b"another adapter")
    assert judge_identity(OfflineJudge()) == judge_identity(OfflineJudge())
    assert judge_identity(OfflineJudge(params=other)) != judge_identity(OfflineJudge())
    with pytest.warns(CalibrationWarning):  # the shipped parameters were fitted on the shipped adapter
        assert judge_identity(OfflineJudge(nli=adapter)) != judge_identity(OfflineJudge())
    assert judge_identity(OfflineJudge("some/other-model")) != judge_identity(OfflineJudge())


def test_a_feature_row_is_built_by_column_name() -> None:
    from rageval_lc.judges.offline.features import _row

    values = {name: float(i) for i, name in enumerate(reversed(SUPPORT_FEATURES))}
    assert _row(SUPPORT_FEATURES, values) == tuple(values[name] for name in SUPPORT_FEATURES)
    assert len(set(DOCUMENT_FEATURES)) == len(DOCUMENT_FEATURES) == 31  # no name twice
    with pytest.raises(ValueError, match=r"missing \['hedges'\], unknown \['hedging'\]"):
        _row(SUPPORT_FEATURES, {**{k: v for k, v in values.items() if k != "hedges"}, "hedging": 0.0})
