"""The cascade judge: the offline judge's least confident verdicts re-judged by an LLM (DSPy's DummyLM answering
from the prompt: tests.fakes.VerifyingLM), with a budget kept exactly on a file, a threshold in the callback
handler, who decided each verdict, the fallback when the LLM fails, and a resumed run that asks nothing twice."""

from __future__ import annotations

import json
import zlib
from pathlib import Path
from typing import Any

import pytest

from rageval_lc import evaluate
from rageval_lc.cli import common, main
from rageval_lc.judges import BaseJudge, DspyJudge
from rageval_lc.judges.cascade import CascadeJudge
from rageval_lc.judges.factory import make_judge
from rageval_lc.schema import RagSample, TraceLabels
from rageval_lc.text import is_claim
from rageval_lc.verdicts import ClaimVerdict, ContextVerdict, Judgement
from tests.fakes import VerifyingLM


def confidence_of(text: str) -> float:
    """A fixed, made-up confidence per sentence (0.5-0.999), the same in the judge and in the expectations."""
    return round(0.5 + (zlib.crc32(text.encode()) % 500) / 1000, 4)


class ConfidentJudge(BaseJudge):
    """An offline judge that calls every sentence, claim and context supported / relevant, each with
    :func:`confidence_of` its text as its confidence (as the offline judge's notes give it)."""

    name = "confident"
    supports = frozenset({"trace_labels", "extract_claims", "verify_claims", "context_relevance"})

    def extract_claims(self, question: str, answer: str) -> Judgement[list[str]]:
        return Judgement(
            name="extract_claims",
            value=[t for _, t in RagSample(question=question, contexts=[], response=answer).sentences.response],
        )

    def trace_labels(self, sample: RagSample) -> Judgement[TraceLabels]:
        keyed = sample.sentences.response
        support = [
            {"response_sentence_key": k, "supporting_sentence_keys": ["0a"], "fully_supported": True} for k, _ in keyed
        ]
        labels = TraceLabels.from_mapping(
            {
                "all_relevant_sentence_keys": ["0a"],
                "sentence_support_information": support,
                "unsupported_response_sentence_keys": [],
            }
        )
        notes = {
            "sentence_confidence": {k: confidence_of(t) for k, t in keyed},
            "sentence_verdicts": {k: "supported" for k, _ in keyed},
        }
        return Judgement(name="trace_labels", value=labels, notes=notes, reason="Offline.")

    def verify_claims(self, claims: list[str], contexts: list[str]) -> Judgement[list[ClaimVerdict]]:
        verdicts = [ClaimVerdict(claim=c, supported=True, reason="offline") for c in claims]
        return Judgement(
            name="verify_claims", value=verdicts, notes={"claim_confidence": [confidence_of(c) for c in claims]}
        )

    def context_relevance(self, question: str, contexts: list[str], reference: str | None = None) -> Judgement[Any]:
        verdicts = [ContextVerdict(index=i, relevant=True, score=0.9) for i in range(len(contexts))]
        notes = {"context_confidence": [confidence_of(c) for c in contexts]}
        return Judgement(name="context_relevance", value=verdicts, notes=notes)


def rows(n: int = 10) -> list[dict[str, Any]]:
    """``n`` rows of 1-4 sentences; every third sentence speaks of the moon (the fake LLM finds it unsupported)."""
    out = []
    for i in range(n):
        sentences = [
            f"Row {i} says fact {j} about the {'moon' if (i + j) % 3 == 0 else 'sun'}." for j in range(1 + i % 4)
        ]
        out.append(
            {
                "id": f"r{i}",
                "question": f"What about row {i}?",
                "contexts": [f"Row {i} has facts."],
                "response": " ".join(sentences),
            }
        )
    return out


def sentences_of(rows_: list[dict[str, Any]]) -> list[tuple[str, int, str]]:
    """(row id, sentence index, text) of every response sentence, in file order."""
    return [
        (r["id"], j, RagSample(**r).sentences.response[j][1])
        for r in rows_
        for j in range(len(RagSample(**r).sentences.response))
    ]


def least_confident(rows_: list[dict[str, Any]], share: float) -> set[tuple[str, int]]:
    """The round(share × sentences) least confident sentences (ties in file order), worked out here."""
    every = sentences_of(rows_)
    count = round(share * len(every))
    ordered = sorted(range(len(every)), key=lambda i: (confidence_of(every[i][2]), i))
    return {every[i][:2] for i in ordered[:count]}


def evaluate_argv(source: Path, out: Path) -> list[str]:
    """``rageval evaluate`` of ``source`` into ``out`` with a cascade and a budget of 0.2."""
    judge = ["--judge", "cascade:offline,dspy:fake", "--escalate", "0.2"]
    return ["evaluate", str(source), *judge, "--out", str(out), "--no-progress", "--bootstrap", "0"]


def cascade(lm: Any = None, **budget: float) -> CascadeJudge:
    return CascadeJudge(ConfidentJudge(), DspyJudge(lm if lm is not None else VerifyingLM()), **budget)


def decided(result_details: dict[str, Any]) -> dict[str, str]:
    return result_details["trace"]["judge_notes"]["decided_by"]


def test_the_budget_is_kept_exactly_on_a_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    data = rows(10)
    source = tmp_path / "rows.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in data))
    lm = VerifyingLM()
    monkeypatch.setattr(common, "judge_from_args", lambda args: cascade(lm, escalate=args.escalate))
    out = tmp_path / "out.jsonl"
    argv = evaluate_argv(source, out)
    assert main(argv) == 0
    expected = least_confident(data, 0.2)
    total = len(sentences_of(data))
    assert len(expected) == round(0.2 * total) == 5  # 23 sentences: 1, 2, 3, 4, 1, 2, 3, 4, 1, 2
    written = [json.loads(line) for line in out.read_text().splitlines()]
    by_llm = {
        (row["id"], list(decided(row["details"])).index(key))
        for row in written
        for key, by in decided(row["details"]).items()
        if by == "dspy:dummy"
    }
    assert by_llm == expected
    assert all(by in ("confident", "dspy:dummy") for row in written for by in decided(row["details"]).values())
    # one LLM call per row with an escalated sentence, asking exactly those sentences
    assert len(lm.asked) == len({row for row, _ in expected})
    texts = {t for r, j, t in sentences_of(data) if (r, j) in expected}
    assert {t for call in lm.asked for t in call} == texts
    assert "cascade: 5 of 23 verdicts (22%) go to dspy:dummy, in 4 of" in capsys.readouterr().err
    # the LLM's verdicts are the ones scored: an escalated "moon" sentence is unsupported, so its row not adherent
    for row in written:
        moon = any(
            by == "dspy:dummy" and "moon" in t
            for (r, j, t), by in zip(
                [s for s in sentences_of(data) if s[0] == row["id"]], decided(row["details"]).values(), strict=True
            )
        )
        assert row["scores"]["adherence"] == (0.0 if moon else 1.0)


def test_a_resumed_run_asks_nothing_already_decided(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = rows(10)
    source = tmp_path / "rows.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in data))
    out = tmp_path / "out.jsonl"
    first = VerifyingLM()
    monkeypatch.setattr(common, "judge_from_args", lambda args: cascade(first, escalate=0.2))
    argv = evaluate_argv(source, out)
    assert main(argv) == 0
    lines = out.read_text().splitlines()
    out.write_text("\n".join(lines[:6]) + "\n")  # a run stopped after six rows
    kept_ids = {json.loads(line)["id"] for line in lines[:6]}
    second = VerifyingLM()
    monkeypatch.setattr(common, "judge_from_args", lambda args: cascade(second, escalate=0.2))
    assert main([*argv, "--resume"]) == 0
    expected = least_confident(data, 0.2)  # the same budget of the whole file
    asked_rows = {r for r, _ in expected if r not in kept_ids}
    assert len(second.asked) == len(asked_rows)
    texts = {t for r, j, t in sentences_of(data) if (r, j) in expected and r not in kept_ids}
    assert {t for call in second.asked for t in call} == texts
    assert len(out.read_text().splitlines()) == 10


def test_every_verdict_records_who_decided_it() -> None:
    sample = {
        "question": "What about the moon?",
        "contexts": ["The sun is a star.", "The moon orbits."],
        "response": "The sun is a star. The moon is cheese.",
    }
    run = evaluate(
        [sample], "trace,faithfulness,context_precision", judge=cascade(escalate_below=1.0), scoring_mode="separate"
    )
    details = run.results[0].details
    assert decided(details) == {"a": "dspy:dummy", "b": "dspy:dummy"}
    claims = details["faithfulness"]["judge_notes"]["decided_by"]
    assert claims == ["dspy:dummy", "dspy:dummy"]
    contexts = details["context_precision"]["judge_notes"]["decided_by"]
    assert contexts == ["dspy:dummy", "dspy:dummy"]
    assert run.results[0].scores()["faithfulness"] == pytest.approx(0.5, abs=1e-9)
    assert run.results[0].scores()["context_precision"] == pytest.approx(0.5, abs=1e-9)
    frame = run.to_pandas(confidence=True)
    texts = ["The sun is a star.", "The moon is cheese.", "The moon orbits."]
    assert frame["decided_by_llm"].tolist() == [6]  # 2 sentences, 2 claims, 2 contexts
    assert frame["confidence.least"].tolist() == pytest.approx([min(confidence_of(t) for t in texts)], abs=1e-12)
    assert frame["confidence.adherence"].isna().all()  # this offline judge gives the row none
    nothing = evaluate([sample], "trace", judge=cascade(escalate_below=0.0))
    assert decided(nothing.results[0].details) == {"a": "confident", "b": "confident"}


def test_an_llm_failure_leaves_the_offline_verdicts_and_says_so() -> None:
    sample = {"question": "Q?", "contexts": ["The moon orbits."], "response": "The moon is cheese."}
    lm = VerifyingLM(fail="AuthenticationError: invalid API key")
    run = evaluate([sample], "trace", judge=cascade(lm, escalate_below=1.0), retries=0)
    result = run.results[0]
    notes = result.details["trace"]["judge_notes"]
    assert notes["decided_by"] == {"a": "confident"}
    assert notes["escalation"]["status"] == "error"
    assert "invalid API key" in notes["escalation"]["reason"]
    assert "the offline verdicts stand" in notes["escalation"]["reason"]
    assert result.results["adherence"].status == "ok"
    assert result.scores()["adherence"] == 1.0  # the offline verdict (supported), not a failure


def test_the_threshold_form_in_the_callback_handler() -> None:
    from langchain_core.language_models.fake_chat_models import FakeListChatModel
    from langchain_core.output_parsers import StrOutputParser
    from langchain_core.runnables import RunnableLambda, RunnableParallel, RunnablePassthrough

    from rageval_lc.adapters import MemorySink, RagEvalCallbackHandler
    from tests.adapters.test_callback_handler import TopicRetriever

    answer = "Cats sleep a lot. The moon is cheese."
    threshold = sorted([confidence_of("Cats sleep a lot."), confidence_of("The moon is cheese.")])[1]
    lm = VerifyingLM()
    sink = MemorySink()
    judge = cascade(lm, escalate_below=threshold)  # only the less confident sentence is escalated
    handler = RagEvalCallbackHandler(["trace"], judge=judge, sinks=[sink], background=False)
    chain = (
        RunnableParallel(question=RunnablePassthrough(), docs=TopicRetriever())
        | RunnableLambda(lambda p: p["question"])
        | FakeListChatModel(responses=[answer])
        | StrOutputParser()
    )
    chain.invoke("Q0", config={"callbacks": [handler]})
    assert handler.wait(timeout=60)
    least = min(["Cats sleep a lot.", "The moon is cheese."], key=confidence_of)
    assert lm.asked == [[least]]
    record = sink.records[0]
    assert record["scores"]["adherence"] == (0.0 if "moon" in least else 1.0)


def test_the_cli_names_and_checks_a_cascade() -> None:
    judge = make_judge("cascade:offline,dspy:openai/gpt-4o-mini", escalate=0.2)
    assert isinstance(judge, CascadeJudge)
    assert judge.name == "cascade:offline,dspy:openai/gpt-4o-mini"
    old = make_judge("cascade:local,dspy:openai/gpt-4o-mini", escalate=0.2)  # the offline judge's old name
    assert isinstance(old, CascadeJudge) and old.name == judge.name
    with pytest.raises(ValueError, match="needs a budget"):
        make_judge("cascade:offline,dspy:openai/gpt-4o-mini")
    with pytest.raises(ValueError, match="for a cascade judge"):
        make_judge("offline", escalate=0.2)
    with pytest.raises(ValueError, match="must be a number from 0 to 1"):
        CascadeJudge(ConfidentJudge(), ConfidentJudge(), escalate=1.5)
    with pytest.raises(ValueError, match="one of escalate"):
        CascadeJudge(ConfidentJudge(), ConfidentJudge(), escalate=0.2, escalate_below=0.8)
    with pytest.raises(ValueError, match="cascade:<offline judge>,dspy:<model id>"):
        make_judge("cascade:labels,dspy:openai/x", escalate=0.2)


def test_the_dry_run_counts_the_calls_the_budget_allows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    data = rows(10)
    source = tmp_path / "rows.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in data))
    monkeypatch.setattr(common, "judge_from_args", lambda args: cascade(escalate=args.escalate))
    judge = ["--judge", "cascade:offline,dspy:fake", "--escalate", "0.2"]
    assert main(["evaluate", str(source), *judge, "--dry-run"]) == 0
    out = capsys.readouterr().out
    # 23 sentences, a budget of 5 verdicts: at most 5 calls (one per row with an escalated verdict)
    assert "\n5 model calls before retries" in out


def test_without_a_plan_a_budget_keeps_its_share_over_a_stream() -> None:
    from rageval_lc import evaluate_sample

    lm = VerifyingLM()
    judge = cascade(lm, escalate=0.2)
    data = rows(40)
    for row in data:  # one at a time, as an evaluator or the callback handler scores: the running quantile
        evaluate_sample(row, "trace", judge=judge)
    asked = sum(len(call) for call in lm.asked)
    total = len(sentences_of(data))
    assert abs(asked - 0.2 * total) <= 0.1 * total  # near the share once enough verdicts were seen


def test_the_guide_shows_what_the_dry_run_prints(monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    from tests.test_docs import ROOT, printed_blocks, shown_in_order

    command, *shown = next(
        lines
        for first, lines in printed_blocks().items()
        if first.startswith("$ rageval evaluate") and "cascade" in first
    )
    monkeypatch.chdir(ROOT)
    assert main(command.removeprefix("$ rageval ").split()) == 0
    printed = capsys.readouterr()
    shown_in_order(shown, (printed.out + printed.err).splitlines())


def test_the_guide_s_python_example_runs_with_an_llm(monkeypatch: pytest.MonkeyPatch) -> None:
    """The guide's block that needs an LLM, run with the fake one in its place."""
    import dspy

    from tests.test_docs import ROOT, python_blocks

    code = next(p.values[0] for p in python_blocks() if p.values[0].startswith("# needs: an LLM"))
    lm = VerifyingLM()
    monkeypatch.setattr(dspy, "LM", lambda *args, **kwargs: lm)
    monkeypatch.chdir(ROOT)
    printed: list[str] = []
    exec(
        compile(code, "guide", "exec"),
        {"__name__": "__guide__", "print": lambda *v: printed.append(" ".join(map(str, v)))},
    )
    from rageval_lc.datasets.inputs import read_samples

    rows_ = [json.loads(line) for line in (ROOT / "rageval_lc/data/quickstart_ragbench.jsonl").open()]
    samples = read_samples(rows_)
    # the sentences that make a claim: one that makes none ("Here is how:") is never escalated
    verdicts = sum(is_claim(text) for s in samples for _, text in s.sentences.response)
    assert printed == [f"{round(0.2 * verdicts)} verdicts decided by the LLM"]
    assert sum(len(call) for call in lm.asked) == round(0.2 * verdicts)


def test_the_budget_holds_in_worker_processes() -> None:
    data = rows(10)
    run = evaluate(data, "trace", judge=cascade(escalate=0.2), workers=2)
    by_llm = {
        (result.id, list(decided(result.details)).index(key))
        for result in run.results
        for key, by in decided(result.details).items()
        if by == "dspy:dummy"
    }
    assert by_llm == least_confident(data, 0.2)


def test_the_langchain_evaluator_and_the_dspy_metric_take_a_cascade() -> None:
    import dspy

    from rageval_lc.adapters import RagEvaluator, dspy_metric

    contexts = ["The sun is a star."]
    lm = VerifyingLM()
    evaluator = RagEvaluator("faithfulness", judge=cascade(lm, escalate_below=1.0))
    out = evaluator.evaluate_strings(prediction="The moon is cheese.", input="What is the moon?", contexts=contexts)
    assert out["score"] == 0.0  # the offline judge said supported; the LLM, asked, said not
    assert lm.asked == [["The moon is cheese."]]
    lm = VerifyingLM()
    metric = dspy_metric("faithfulness", judge=cascade(lm, escalate_below=0.0), threshold=0.5)
    example = dspy.Example(question="What is the moon?", contexts=contexts)
    assert metric(example, dspy.Prediction(answer="The moon is cheese.")) == 1.0  # nothing escalated
    assert lm.asked == []


def test_the_llm_s_answers_are_cached_as_any_judge_s(tmp_path: Path) -> None:
    data = rows(6)
    first, second = VerifyingLM(), VerifyingLM()
    one = evaluate(data, "trace", judge=cascade(first, escalate=0.3), cache_dir=tmp_path / "cache")
    two = evaluate(data, "trace", judge=cascade(second, escalate=0.3), cache_dir=tmp_path / "cache")
    assert first.asked and second.asked == []  # the second run read every LLM answer back
    assert [decided(r.details) for r in one.results] == [decided(r.details) for r in two.results]
    assert [r.scores() for r in one.results] == [r.scores() for r in two.results]


def test_only_the_llm_s_calls_are_rate_limited_and_retried() -> None:
    from rageval_lc.engine.batch import make_resilient
    from rageval_lc.judges.resilient import ResilientJudge

    lm = VerifyingLM(fail="503 Service Unavailable")
    judge = cascade(lm, escalate_below=1.0)
    wrapped = make_resilient(judge, requests_per_minute=600, retries=2, backoff_s=0.01)
    assert isinstance(wrapped, CascadeJudge) and isinstance(wrapped.llm, ResilientJudge)
    assert wrapped.limiter is wrapped.llm.limiter is not None and judge.llm is not wrapped.llm  # a copy
    sample = {"question": "Q?", "contexts": ["The moon orbits."], "response": "The moon is cheese."}
    run = evaluate([sample], "trace", judge=wrapped)
    assert lm.calls == 3  # a transient failure: the call and two retries, the offline judge once
    escalation = run.results[0].details["trace"]["judge_notes"]["escalation"]
    assert escalation["status"] == "error" and "503" in escalation["reason"]


class ClaimFreeJudge(ConfidentJudge):
    """:class:`ConfidentJudge`, with a sentence ending in ":" called claim-free (as the offline judge's
    ``sentence_verdicts`` note says of "Here is how:")."""

    def trace_labels(self, sample: RagSample) -> Judgement[TraceLabels]:
        made = super().trace_labels(sample)
        verdicts = {k: "no_claim" if t.endswith(":") else "supported" for k, t in sample.sentences.response}
        return made.model_copy(update={"notes": {**made.notes, "sentence_verdicts": verdicts}})


def test_a_sentence_that_makes_no_claim_is_never_escalated() -> None:
    sample = {"question": "How?", "contexts": ["Turn it off."], "response": "Here is how:\n\nTurn it off."}
    assert [t for _, t in RagSample(**sample).sentences.response] == ["Here is how:", "Turn it off."]
    for budget in ({"escalate_below": 1.0}, {"escalate": 1.0}):
        judge = CascadeJudge(ClaimFreeJudge(), DspyJudge(VerifyingLM()), **budget)
        run = evaluate([sample], "trace", judge=judge)
        assert decided(run.results[0].details) == {"a": "confident", "b": "dspy:dummy"}
