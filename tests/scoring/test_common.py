"""Registry-driven invariants (as sklearn's ``metrics/tests/test_common.py``): every metric of
:data:`~rageval_lc.scoring.registry.REGISTRY` in every scoring mode, with every judge that can make its
judgements, on four samples (contexts and reference; no reference; no contexts; "I don't know.").

For each combination:

1. the judgements a metric consumed (``details[metric]["judgements"]``) are within the plan
   (:func:`~rageval_lc.scoring.plan.metric_judgements`, :data:`~rageval_lc.scoring.plan.FALLBACKS` applied
   for a judge lacking a judgement), and what was made is what the dry run plans for the sample;
2. the dry run's calls (:func:`~rageval_lc.scoring.dry_run.plan_calls`) are the calls a counting judge
   received, per judgement and in total, and what ``details["judge_usage"]`` reports;
3. every score is in [0, 1] or None, and None comes with a reason and a status other than ``ok``;
4. a metric that needs a reference (contexts) is ``undetermined`` on a sample without one (any), and,
   with a judge giving valid verdicts, determined otherwise (every spec is classified);
5. the LangChain, LangSmith and DSPy views agree with :func:`evaluate_sample`.

Metrics of one's own go through the same checks: a criteria metric and a function metric
(:data:`CUSTOM`) are registered for this module's tests and unregistered after them
(:func:`~rageval_lc.scoring.custom.temporary_metrics`); the counting judge makes criteria judgements too,
the offline and labels judges leave criteria metrics undetermined.

:func:`test_the_suite_bites` shows the checks fail when a plan entry is removed.
"""

from __future__ import annotations

import warnings
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import pytest

from rageval_lc.adapters import RagEvaluator, dspy_metric, langsmith_evaluator
from rageval_lc.judges.base import JUDGEMENTS, Judge
from rageval_lc.judges.labels import LabelsJudge
from rageval_lc.schema import RagSample
from rageval_lc.scoring import plan
from rageval_lc.scoring.custom import criteria_metric, register_metric, temporary_metrics
from rageval_lc.scoring.dry_run import plan_calls
from rageval_lc.scoring.registry import REGISTRY
from rageval_lc.scoring.sample import SampleResult, evaluate_sample
from rageval_lc.verdicts import CRITERIA, CriteriaScore, Judgement, JudgeUsage, judgement_kind
from tests.fakes import CountingJudge, canned_trace_labels
from tests.floats import ABS, assert_close_structure, same_printed_line

QUESTION = "Where is the Eiffel Tower?"
CONTEXTS = [
    "The Eiffel Tower is in Paris. It opened in 1889.",
    "Berlin is the capital of Germany. It has many museums.",
]
RESPONSE = "The Eiffel Tower is in Paris. It is made of iron."
REFERENCE = "The Eiffel Tower stands in Paris. It was finished in 1889."


def _labelled(**fields: Any) -> RagSample:
    """A sample carrying TRACe labels (for the labels judge)."""
    return RagSample(**fields, labels=canned_trace_labels(RagSample(**fields)))


SAMPLES: dict[str, RagSample] = {
    "full": _labelled(question=QUESTION, contexts=CONTEXTS, response=RESPONSE, reference=REFERENCE),
    "no_reference": _labelled(question=QUESTION, contexts=CONTEXTS, response=RESPONSE),
    "no_contexts": _labelled(question=QUESTION, contexts=[], response=RESPONSE, reference=REFERENCE),
    "dont_know": _labelled(question=QUESTION, contexts=CONTEXTS, response="I don't know.", reference=REFERENCE),
}


def _reference_overlap(sample: RagSample) -> tuple[float, str]:
    """Share of the reference's words the response has (a function metric of one's own)."""
    reference = set(sample.reference.lower().split())  # type: ignore[union-attr]
    shared = reference & set(sample.response.lower().split())
    return len(shared) / len(reference), f"{len(shared)} of {len(reference)} reference words in the response."


#: Metrics of one's own registered for this module's tests (:func:`custom_metrics`): the criteria metric reads
#: the contexts, the function metric the reference, so each meets a sample lacking what it needs.
CUSTOM: dict[str, Callable[[], Any]] = {
    "grounded_helpfulness": lambda: criteria_metric(
        "grounded_helpfulness",
        criteria="Does the response help with the question, as the contexts allow?",
        rubric={1: "no", 2: "a little", 3: "mostly", 4: "fully"},
        uses=("question", "contexts", "response"),
    ),
    "reference_overlap": lambda: register_metric(
        "reference_overlap", score=_reference_overlap, uses=("response", "reference")
    ),
}
CRITERIA_METRICS = ("grounded_helpfulness",)
METRICS = (*REGISTRY, *CUSTOM)
MODES = plan.SCORING_MODES
#: counting: a fake LLM judge making every judgement (one call each, counted); counting-no-questions: the
#: same without generate_questions (the plan's fallback); local: the offline judge; labels: the labels judge.
JUDGE_KINDS = ("counting", "counting-no-questions", "local", "labels")
COUNTING = ("counting", "counting-no-questions")
#: Scores a metric may report beyond its spec's ``scores`` (judge-dependent extras).
EXTRA_SCORES: Mapping[str, frozenset[str]] = {"trace": frozenset({"adherence_probability"})}

#: (check, metric, mode, judge kind) -> why it fails: library defects this suite found (strict xfails).
KNOWN_DEFECTS: dict[tuple[str, str, str, str], str] = {}


def _applies(kind: str, metric: str, mode: str) -> bool:
    """The labels judge makes TRACe labels only: it applies where the plan needs nothing else (a criteria
    metric is undetermined with it, not refused)."""
    if kind == "labels" and metric not in CUSTOM:
        return set(plan.metric_judgements(metric, mode)) <= LabelsJudge.supports
    return True


@pytest.fixture(scope="module", autouse=True)
def custom_metrics() -> Iterator[None]:
    """The metrics of one's own, registered for this module's tests only."""
    with temporary_metrics():
        for register in CUSTOM.values():
            register()
        yield


class CriteriaCountingJudge(CountingJudge):
    """The counting judge, making criteria judgements too (the rubric's second level, one call each)."""

    def __init__(self, *, questions: bool = True) -> None:
        super().__init__(questions=questions)
        self.supports = self.supports | {CRITERIA}

    def planned_calls(self, judgement: str) -> int:
        return 1 if judgement_kind(judgement) in self.supports else 0

    def criteria(self, definition: Any, sample: RagSample) -> Judgement[CriteriaScore]:
        self.calls[definition.judgement] += 1
        level = definition.levels[1]
        value = CriteriaScore(level=level, score=definition.score_of(level), reason="canned")
        usage = JudgeUsage(calls=1, prompt_tokens=10, completion_tokens=5, estimated_tokens=15)
        return Judgement(name=definition.judgement, value=value, attempts=1, usage=usage)


def combos(check: str, kinds: tuple[str, ...] = JUDGE_KINDS) -> list[Any]:
    """metric x mode x judge kind, where the judge applies; known defects marked strict xfail."""
    out = []
    for metric in METRICS:
        for mode in MODES:
            for kind in kinds:
                if not _applies(kind, metric, mode):
                    continue
                reason = KNOWN_DEFECTS.get((check, metric, mode, kind))
                marks = [pytest.mark.xfail(strict=True, raises=AssertionError, reason=reason)] if reason else []
                out.append(pytest.param(metric, mode, kind, id=f"{metric}-{mode}-{kind}", marks=marks))
    return out


# --- running a combination ------------------------------------------------------------------------


@dataclass
class Run:
    """Metrics scored together in one mode with one judge over :data:`SAMPLES`."""

    metrics: tuple[str, ...]
    mode: str
    judge: Judge
    results: dict[str, SampleResult]
    counts: dict[str, Counter] = field(default_factory=dict)  # per sample, for a counting judge


@dataclass
class Runner:
    """Judges, embeddings and a cache of runs shared by the module's tests."""

    local: Judge
    embeddings: Any
    cache: dict[tuple[str, str, str], Run] = field(default_factory=dict)

    def judge(self, kind: str) -> Judge:
        if kind == "local":
            return self.local
        if kind == "labels":
            return LabelsJudge()
        return CriteriaCountingJudge(questions=kind == "counting")

    def run(self, kind: str, metrics: str | tuple[str, ...], mode: str) -> Run:
        """Score every sample on ``metrics`` afresh (a new counting judge), counting each sample's calls."""
        metrics = (metrics,) if isinstance(metrics, str) else metrics
        judge = self.judge(kind)
        results: dict[str, SampleResult] = {}
        counts: dict[str, Counter] = {}
        for name, sample in SAMPLES.items():
            before = Counter(getattr(judge, "calls", {}))
            results[name] = evaluate_sample(
                sample, list(metrics), judge=judge, scoring_mode=mode, embeddings=self.embeddings
            )
            counts[name] = Counter(getattr(judge, "calls", {})) - before
        return Run(metrics, mode, judge, results, counts if kind in COUNTING else {})

    def cached(self, kind: str, metric: str, mode: str) -> Run:
        key = (kind, metric, mode)
        if key not in self.cache:
            self.cache[key] = self.run(kind, metric, mode)
        return self.cache[key]


@pytest.fixture(scope="module")
def runner() -> Iterator[Runner]:
    """The offline judge on the packaged model, built once; its encoder gives every judge the embedding
    metrics (BERTScore needs a sentence-transformers model)."""
    from rageval_lc.judges.offline.embeddings import EmbeddingScorer
    from rageval_lc.judges.offline.judge import OfflineJudge

    local = OfflineJudge()
    yield Runner(local=local, embeddings=EmbeddingScorer(encoder=local.encoder))


# --- the checks (they read the plan when called, so a patched plan is what they check against) -----


def planned_for(metric: str, mode: str, judge: Judge) -> set[str]:
    """The judgements ``metric`` may consume in ``mode`` with ``judge``: the plan's, with its fallbacks."""
    return set(plan.verdict_judgements(plan.METRIC_VERDICTS[metric], mode, judge.supports))


def _where(run: Run, name: str, what: str = "") -> str:
    return f"{what or ','.join(run.metrics)} / {run.mode} / {run.judge.name} on {name!r}"


def check_consumed_within_plan(run: Run) -> None:
    """1. What each metric consumed on each sample is in its plan, and the sample's judgements made are
    those consumed."""
    for name, result in run.results.items():
        consumed: set[str] = set()
        for metric in run.metrics:
            allowed = planned_for(metric, run.mode, run.judge)
            used = result.details[metric]["judgements"]
            assert set(used) <= allowed, (
                f"{_where(run, name, metric)}: consumed {used}, the plan allows {sorted(allowed)}"
            )
            consumed |= set(used)
        made = result.details["judge_usage"]["by_judgement"]
        assert set(made) == consumed, (
            f"{_where(run, name)}: made {sorted(made)}, recorded as consumed {sorted(consumed)}"
        )


def check_dry_run(run: Run) -> None:
    """2. The dry run plans the judgements made on each sample and, for a counting judge, their calls."""
    metrics = list(run.metrics)
    for name, sample in SAMPLES.items():
        plans = plan_calls([sample], metrics, run.judge, scoring_mode=run.mode)
        by_judgement = run.results[name].details["judge_usage"]["by_judgement"]
        planned = {p.judgement for p in plans if p.samples}
        assert set(by_judgement) == planned, (
            f"{_where(run, name)}: made {sorted(by_judgement)}, the dry run plans {sorted(planned)}"
        )
        if run.counts:
            expected = {p.judgement: p.calls for p in plans if p.calls}
            counted = dict(run.counts[name])
            assert counted == expected, f"{_where(run, name)}: calls {counted}, planned {expected}"
            reported = {j: u["calls"] for j, u in by_judgement.items() if u["calls"]}
            assert reported == expected, f"{_where(run, name)}: judge_usage reports {reported}, planned {expected}"
    if run.counts:
        total = sum(p.calls for p in plan_calls(SAMPLES.values(), metrics, run.judge, scoring_mode=run.mode))
        assert total == sum(sum(c.values()) for c in run.counts.values())


def check_scores(run: Run) -> None:
    """3. Each declared score is reported; in [0, 1] when ok, else None with a reason."""
    declared = {name for metric in run.metrics for name in REGISTRY[metric].scores}
    extras = {name for metric in run.metrics for name in EXTRA_SCORES.get(metric, ())}
    for name, result in run.results.items():
        reported = set(result.results)
        assert declared <= reported, f"{_where(run, name)}: missing {sorted(declared - reported)}"
        assert reported <= declared | extras, f"{_where(run, name)}: undeclared {sorted(reported - declared)}"
        for score_name, r in result.results.items():
            where = _where(run, name, score_name)
            if r.score is None:
                assert r.status != "ok" and r.reason.strip(), f"{where}: None with status {r.status!r}, {r.reason!r}"
            else:
                assert r.status == "ok" and 0.0 <= r.score <= 1.0, f"{where}: {r.score!r} ({r.status})"


def check_missing_evidence(run: Run, *, valid_verdicts: bool) -> None:
    """4. Undetermined (not error, not 0.0) without the reference / contexts a metric needs; with a judge
    giving valid verdicts, determined whenever it has what its spec says it needs."""
    for metric in run.metrics:
        spec = REGISTRY[metric]
        for name, sample in SAMPLES.items():
            lacks = (spec.needs_reference and not (sample.reference or "").strip()) or (
                spec.needs_contexts and not sample.has_contexts
            )
            for score_name in spec.scores:
                r = run.results[name].results[score_name]
                where = _where(run, name, score_name)
                if lacks:
                    assert r.status == "undetermined" and r.score is None and r.reason, f"{where}: {r!r}"
                elif valid_verdicts:
                    assert r.status == "ok", f"{where}: {r.status} ({r.reason}) though the spec's needs are met"


def check_all(run: Run, *, valid_verdicts: bool) -> None:
    check_consumed_within_plan(run)
    check_dry_run(run)
    check_scores(run)
    check_missing_evidence(run, valid_verdicts=valid_verdicts)


# --- the plan covers the registry -----------------------------------------------------------------


def test_the_plan_covers_the_registry() -> None:
    assert set(plan.METRIC_VERDICTS) == set(REGISTRY) == set(METRICS)
    assert {v for verdicts in plan.METRIC_VERDICTS.values() for v in verdicts} <= set(plan.ROUTES)
    for verdict, modes in plan.ROUTES.items():
        assert set(modes) == set(MODES), verdict
        for judgements in modes.values():
            assert judgements and {judgement_kind(j) for j in judgements} <= set(JUDGEMENTS) | {CRITERIA}, verdict
    assert set(plan.FALLBACKS) | set(plan.FALLBACKS.values()) <= set(JUDGEMENTS)
    assert (plan.REFERENCE_JUDGEMENTS | plan.CONTEXT_JUDGEMENTS).issubset(JUDGEMENTS)


@pytest.mark.parametrize("metric", METRICS)
def test_every_spec_is_classified(metric: str) -> None:
    """A spec's verdicts are the plan's, and a metric whose judgements all need a reference (contexts)
    says it needs one."""
    spec = REGISTRY[metric]
    assert plan.METRIC_VERDICTS[metric] == spec.reads  # the plan reads what the spec declares
    assert spec.single in spec.scores and set(spec.headlines) <= set(spec.scores)
    separate = set(plan.metric_judgements(metric, "separate"))
    if separate and separate <= plan.REFERENCE_JUDGEMENTS:
        assert spec.needs_reference
    if separate and separate <= plan.CONTEXT_JUDGEMENTS:
        assert spec.needs_contexts


@pytest.mark.parametrize(("metric", "mode"), [(m, mode) for m in METRICS for mode in MODES])
def test_a_judge_lacking_a_planned_judgement_is_refused(metric: str, mode: str) -> None:
    """The labels judge is refused up front exactly where the plan needs more than TRACe labels."""
    if _applies("labels", metric, mode):
        plan_calls(SAMPLES.values(), [metric], LabelsJudge(), scoring_mode=mode)
        return
    with pytest.raises(ValueError, match="cannot make"):
        plan_calls(SAMPLES.values(), [metric], LabelsJudge(), scoring_mode=mode)
    with pytest.raises(ValueError, match="cannot make"):
        evaluate_sample(SAMPLES["full"], [metric], judge=LabelsJudge(), scoring_mode=mode)


# --- 1-4 per combination ----------------------------------------------------------------------------


@pytest.mark.parametrize(("metric", "mode", "kind"), combos("plan"))
def test_consumed_judgements_are_planned(runner: Runner, metric: str, mode: str, kind: str) -> None:
    check_consumed_within_plan(runner.cached(kind, metric, mode))


@pytest.mark.parametrize(("metric", "mode", "kind"), combos("dry_run"))
def test_dry_run_matches_the_calls(runner: Runner, metric: str, mode: str, kind: str) -> None:
    check_dry_run(runner.cached(kind, metric, mode))


@pytest.mark.parametrize(("metric", "mode", "kind"), combos("scores"))
def test_scores_are_bounded_and_none_is_explained(runner: Runner, metric: str, mode: str, kind: str) -> None:
    check_scores(runner.cached(kind, metric, mode))


@pytest.mark.parametrize(("metric", "mode", "kind"), combos("evidence"))
def test_missing_evidence_is_undetermined(runner: Runner, metric: str, mode: str, kind: str) -> None:
    check_missing_evidence(runner.cached(kind, metric, mode), valid_verdicts=kind in COUNTING)


@pytest.mark.parametrize(
    ("mode", "kind"),
    [
        pytest.param(mode, kind, id=f"{mode}-{kind}")
        for mode in MODES
        for kind in ("counting", "counting-no-questions", "local")
    ],
)
def test_the_whole_registry_at_once(runner: Runner, mode: str, kind: str) -> None:
    """Every metric together: judgements shared, each made once, and the dry run still counts them."""
    run = runner.run(kind, METRICS, mode)
    check_all(run, valid_verdicts=kind in COUNTING)
    if kind in COUNTING:  # the plan's promise: at most 3 calls a sample when shared, 1 when fused
        # (each criteria metric adds its own call)
        most = {"shared": 3, "fused": 1, "separate": len(JUDGEMENTS)}[mode] + len(CRITERIA_METRICS)
        if kind == "counting-no-questions" and mode == "fused":
            most += 1  # its fused call writes no questions: answer relevance adds the rubric call
        assert all(sum(c.values()) <= most for c in run.counts.values()), run.counts


@pytest.mark.parametrize("kind", ["local", "labels"])
def test_a_judge_without_criteria_leaves_criteria_metrics_undetermined(runner: Runner, kind: str) -> None:
    """Not refused, not 0.0: undetermined, saying an LLM judge is needed; no call planned or made."""
    for metric in CRITERIA_METRICS:
        run = runner.cached(kind, metric, "shared")
        for name, result in run.results.items():
            r = result.results[metric]
            assert (r.status, r.score) == ("undetermined", None), (name, r)
            assert "needs an LLM judge" in r.reason or "contexts" in r.reason, (name, r.reason)
        assert plan_calls(SAMPLES.values(), [metric], run.judge) == []


# --- 5. the integrations' views ---------------------------------------------------------------------


def _langchain(runner: Runner, run: Run, kind: str) -> None:
    spec = REGISTRY[run.metrics[0]]
    evaluator = RagEvaluator(
        run.metrics[0], judge=runner.judge(kind), scoring_mode=run.mode, embeddings=runner.embeddings
    )
    for name, sample in SAMPLES.items():
        expected = run.results[name].results
        kwargs = {"prediction": sample.response, "reference": sample.reference, "input": QUESTION}
        if sample.reference is None and spec.needs_reference:  # the evaluator's requires_reference contract
            with pytest.raises(ValueError, match="requires a reference"):
                evaluator.evaluate_strings(**kwargs, contexts=sample.contexts)
            continue
        out = evaluator.evaluate_strings(**kwargs, contexts=sample.contexts)
        single = expected[spec.single]
        assert_close_structure((out["score"], out["status"]), (single.score, single.status), where=name)
        assert_close_structure(out["scores"], {n: r.score for n, r in expected.items()}, where=name)
        assert {n: r["status"] for n, r in out["results"].items()} == {n: r.status for n, r in expected.items()}


def _langsmith(runner: Runner, run: Run, kind: str) -> None:
    spec = REGISTRY[run.metrics[0]]
    evaluator = langsmith_evaluator(
        run.metrics[0], judge=runner.judge(kind), scoring_mode=run.mode, embeddings=runner.embeddings
    )
    for name, sample in SAMPLES.items():
        expected = run.results[name].results
        reference = None if sample.reference is None else {"reference": sample.reference}
        out = evaluator({"question": QUESTION}, {"answer": sample.response, "contexts": sample.contexts}, reference)
        items = out.get("results", [out])
        assert [i["key"] for i in items] == list(spec.headlines), name
        for item in items:
            r = expected[item["key"]]
            assert_close_structure(item["score"], r.score, where=f"{name} {item}")
            said = r.reason if r.status == "ok" else f"{r.status}: {r.reason}"
            assert same_printed_line(said, item["comment"]), (name, item)  # figures in reasons: to the last digit


def _dspy(runner: Runner, run: Run, kind: str) -> None:
    import dspy

    spec = REGISTRY[run.metrics[0]]
    options = {"judge": runner.judge(kind), "scoring_mode": run.mode, "embeddings": runner.embeddings}
    as_float = dspy_metric(run.metrics[0], **options)
    with_feedback = dspy_metric(run.metrics[0], feedback=True, **options)
    for name, sample in SAMPLES.items():
        r = run.results[name].results[spec.single]
        gold = {"question": QUESTION} | ({} if sample.reference is None else {"reference": sample.reference})
        example, prediction = dspy.Example(**gold), dspy.Prediction(answer=sample.response, contexts=sample.contexts)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            value = as_float(example, prediction)
        said = [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)]
        if r.status == "ok":
            assert value == pytest.approx(r.score, abs=ABS) and not said, (name, value, said)
        else:
            assert value == 0.0 and any(s.startswith(f"{spec.single} {r.status}: ") for s in said), (name, said)
        out = with_feedback(example, prediction)
        assert out.score == pytest.approx(value, abs=ABS), name
        said = r.reason if r.status == "ok" else f"{spec.single} {r.status}: {r.reason}"
        assert same_printed_line(said, out.feedback), (name, out.feedback)


VIEWS: dict[str, Callable[[Runner, Run, str], None]] = {"langchain": _langchain, "langsmith": _langsmith, "dspy": _dspy}


@pytest.mark.parametrize("view", list(VIEWS))
@pytest.mark.parametrize(("metric", "mode", "kind"), combos("views", kinds=("counting", "local")))
def test_integration_views_agree(runner: Runner, metric: str, mode: str, kind: str, view: str) -> None:
    """The views of the same sample and judge report evaluate_sample's scores (within tests.floats.ABS: the
    offline judge's are a model's) and statuses (the adapters carry no TRACe labels, so the labels judge has no
    view)."""
    VIEWS[view](runner, runner.cached(kind, metric, mode), kind)


# --- the suite bites ----------------------------------------------------------------------------------


def _without(mapping: Mapping[str, Any], key: str) -> dict[str, Any]:
    return {k: v for k, v in mapping.items() if k != key}


def test_the_suite_bites(runner: Runner, monkeypatch: pytest.MonkeyPatch) -> None:
    """With a plan entry removed the checks fail: a metric without an entry, a metric that lost one
    verdict, a route that lost one judgement."""
    for check in (check_consumed_within_plan, check_dry_run):  # the unpatched plan passes
        check(runner.run("counting", "ragas_score", "separate"))
        check(runner.run("counting", "faithfulness", "separate"))

    with monkeypatch.context() as patch:  # faithfulness's entry removed
        patch.setattr(plan, "METRIC_VERDICTS", _without(plan.METRIC_VERDICTS, "faithfulness"))
        with pytest.raises(KeyError, match="faithfulness"):
            check_all(runner.run("counting", "faithfulness", "shared"), valid_verdicts=True)
        with pytest.raises(KeyError, match="faithfulness"):
            planned_for("faithfulness", "shared", CountingJudge())

    with monkeypatch.context() as patch:  # ragas_score no longer reads the generated questions
        patch.setitem(plan.METRIC_VERDICTS, "ragas_score", ("claims", "contexts", "statements"))
        run = runner.run("counting", "ragas_score", "separate")
        for check in (check_consumed_within_plan, check_dry_run):
            with pytest.raises(AssertionError, match="generate_questions"):
                check(run)

    with monkeypatch.context() as patch:  # the criteria metric's verdict left out of its plan entry
        patch.setitem(plan.METRIC_VERDICTS, "grounded_helpfulness", ())
        run = runner.run("counting", "grounded_helpfulness", "shared")
        for check in (check_consumed_within_plan, check_dry_run):
            with pytest.raises(AssertionError, match="criteria:grounded_helpfulness"):
                check(run)

    with monkeypatch.context() as patch:  # the separate route of claims lost verify_claims
        routes = dict(plan.ROUTES)
        routes["claims"] = {**plan.ROUTES["claims"], "separate": ("extract_claims",)}
        patch.setattr(plan, "ROUTES", routes)
        run = runner.run("counting", "faithfulness", "separate")
        for check in (check_consumed_within_plan, check_dry_run):
            with pytest.raises(AssertionError, match="verify_claims"):
                check(run)
