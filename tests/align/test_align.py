"""rageval align (issue 24): the label formats it reads, the shrunk refit, the held-out check that refuses a
worse judge, and an aligned judge loaded wherever a judge is accepted."""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path

import numpy as np
import pytest
from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever

from rageval_lc.align.offline import align_judge, split_by_question
from rageval_lc.align.refit import shrunk_linear, shrunk_logistic
from rageval_lc.cli import main
from rageval_lc.datasets.labelled import read_labelled
from rageval_lc.judges.offline.model import Linear, LocalParams, Logistic
from tests.floats import ABS, WORKERS_ABS

RAGBENCH = Path(__file__).resolve().parents[3] / "shared" / "data" / "ragbench" / "covidqa_validation.jsonl"

# -- label formats ------------------------------------------------------------------------------------------


def test_a_ragbench_row_gives_its_released_labels() -> None:
    row = json.loads(RAGBENCH.read_text(encoding="utf-8").splitlines()[2])
    (x,) = read_labelled([row])
    assert x.relevant == frozenset(row["all_relevant_sentence_keys"])
    assert x.utilized == frozenset(row["all_utilized_sentence_keys"])
    assert x.hallucinated is (not row["adherence_score"])
    assert x.scores == {
        "context_relevance": row["relevance_score"],
        "context_utilization": row["utilization_score"],
        "completeness": row["completeness_score"],
    }


def test_sentence_verdicts_as_a_list_or_by_key() -> None:
    base = {"question": "Q?", "contexts": ["Paris is in France."], "response": "Paris is big. It is in Spain."}
    by_list, by_key = read_labelled(
        [
            {**base, "sentence_verdicts": ["supported", "contradicted"]},
            {**base, "sentence_verdicts": {"a": "not_found", "b": "supported"}},
        ]
    )
    assert (by_list.unsupported, by_list.contradicted, by_list.hallucinated) == ({"b"}, {"b"}, True)
    assert (by_key.unsupported, by_key.contradicted, by_key.hallucinated) == ({"a"}, frozenset(), True)


def test_row_judgements_on_one_to_five_and_zero_to_one() -> None:
    base = {"question": "Q?", "contexts": ["C."], "response": "R."}
    five, other, faithful = read_labelled(
        [
            {**base, "human_scores": {"faithfulness": 2, "context_relevance": 5}},
            {**base, "human_scores": {"faithfulness": 4, "context_relevance": 1}},
            {**base, "faithful": True, "scores": {"completeness": 0.25}},
        ]
    )
    # a score above 1 somewhere in the file: that metric is 1-5 everywhere (2 -> 0.25, 4 -> 0.75, 1 -> 0)
    assert (five.hallucinated, five.scores) == (True, {"context_relevance": 1.0})
    assert (other.hallucinated, other.scores) == (False, {"context_relevance": 0.0})
    assert (faithful.hallucinated, faithful.unsupported, faithful.scores) == (  # no sentence labels given
        False,
        None,
        {"completeness": 0.25},
    )


def test_langsmith_runs_with_feedback() -> None:
    (x,) = read_labelled(
        [
            {
                "id": "run-1",
                "inputs": {"question": "Q?", "contexts": ["C is D."]},
                "outputs": {"output": "C is E."},
                "feedback": [{"key": "faithfulness", "score": 0}, {"key": "helpfulness", "score": 1}],
            }
        ]
    )
    assert (x.sample.id, x.sample.response, x.hallucinated) == ("run-1", "C is E.", True)


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ({}, "Row 0 carries no label"),
        (
            {"response": "It rains. It snows.", "sentence_verdicts": {"a": "supported"}},
            "no verdict for the response sentences ['b']",
        ),
        ({"sentence_verdicts": ["wrong"]}, "unknown sentence verdicts ['wrong']"),
        ({"sentence_verdicts": ["supported", "supported"]}, "2 verdicts for a response of 1 sentence"),
        ({"human_scores": {"faithfulness": 7}}, "outside 0–1 and 1–5"),
        ({"relevance_score": 4}, "relevance_score is 4: scores in this column are 0–1"),
        ({"completeness": 1.5}, "completeness is 1.5: scores in this column are 0–1"),
    ],
)
def test_unreadable_labels_name_the_row(extra: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]")):
        read_labelled([{"question": "Q?", "contexts": ["C."], "response": "R.", **extra}])


def test_the_aligned_file_names_the_rows_by_their_texts_and_labels() -> None:
    from rageval_lc.align.offline import _rows_digest

    row = {"id": "1", "question": "Q?", "contexts": ["C is D."], "response": "C is D.", "faithful": True}
    digest = _rows_digest(read_labelled([row]))
    assert digest == _rows_digest(read_labelled([dict(row)]))  # the same rows, the same name
    assert digest != _rows_digest(read_labelled([{**row, "faithful": False}]))  # same id, another label
    assert digest != _rows_digest(read_labelled([{**row, "response": "C is E."}]))  # same id, another answer


# -- the shrunk refit ---------------------------------------------------------------------------------------


def _objective(beta: np.ndarray, z: np.ndarray, y: np.ndarray, centre: np.ndarray, penalty: np.ndarray) -> float:
    p = 1 / (1 + np.exp(-(z @ beta)))
    return float(-np.sum(y * np.log(p) + (1 - y) * np.log(1 - p)) + 0.5 * np.sum(penalty * (beta - centre) ** 2))


def test_the_shrunk_logistic_is_the_penalised_optimum_scipy_finds() -> None:
    from scipy.optimize import minimize

    rng = np.random.default_rng(3)
    x = rng.normal(size=(60, 2))
    y = (x[:, 0] + 0.5 * rng.normal(size=60) > 0).astype(float)
    prior = Logistic(mean=[0.0, 0.0], scale=[1.0, 1.0], coef=[-1.0, 0.5], intercept=0.2)
    fitted = shrunk_logistic(prior, x, y, strength=10.0)
    z = np.hstack([x, np.ones((60, 1))])
    centre, penalty = np.array([-1.0, 0.5, 0.2]), np.array([10.0, 10.0, 1.0])
    best = minimize(_objective, centre, args=(z, y, centre, penalty), method="BFGS", options={"gtol": 1e-10}).x
    assert np.allclose([*fitted.coef, fitted.intercept], best, atol=1e-4)
    # more belief in the prior: closer to it; none of the data's pull in the limit
    strong = shrunk_logistic(prior, x, y, strength=1e6)
    assert np.allclose(strong.coef, prior.coef, atol=1e-3)
    assert shrunk_logistic(prior, x, y, strength=math.inf) is prior


def test_the_shrunk_linear_is_ridge_toward_the_prior() -> None:
    x = np.array([[0.0], [1.0], [2.0]])
    y = np.array([0.0, 1.0, 2.0])
    prior = Linear(mean=[0.0], scale=[1.0], coef=[0.0], intercept=0.0)
    fitted = shrunk_linear(prior, x, y, strength=1.0)
    # by hand: minimise (sum (b0 + b1 x - y)^2 + b1^2 + 0.1 b0^2) / 2: (Z'Z + diag(1, 0.1)) [b1, b0] = Z'y,
    # Z'Z = [[5, 3], [3, 3]], Z'y = [5, 3]: b1 = (5 * 3.1 - 3 * 3) / (6 * 3.1 - 3 * 3) = 6.5 / 9.6
    b1, b0 = 6.5 / 9.6, (6 * 3 - 3 * 5) / 9.6
    assert fitted.coef[0] == pytest.approx(b1) and fitted.intercept == pytest.approx(b0)


# -- the held-out check, end to end -------------------------------------------------------------------------

FACTS = [
    ("Mount Everest", "8,849 metres tall", "6,120 metres tall"),
    ("The Eiffel Tower", "in Paris", "in Rome"),
    ("The Nile", "in Africa", "in South America"),
    ("Water", "boils at 100 degrees Celsius at sea level", "boils at 40 degrees Celsius at sea level"),
    ("The Moon", "orbits the Earth", "orbits Mars"),
    ("Canberra", "the capital of Australia", "the capital of Canada"),
    ("Penicillin", "an antibiotic discovered by Alexander Fleming", "a vaccine discovered by Louis Pasteur"),
    ("The Titanic", "sank in 1912", "sank in 1955"),
    ("Tokyo", "the capital of Japan", "the capital of China"),
    ("The Amazon", "a river in South America", "a river in Europe"),
    ("Jupiter", "the largest planet of the Solar System", "the smallest planet of the Solar System"),
    ("Shakespeare", "wrote Hamlet", "wrote Don Quixote"),
    ("The Berlin Wall", "fell in 1989", "fell in 1961"),
    ("Insulin", "is made by the pancreas", "is made by the lungs"),
    ("Mercury", "the planet closest to the Sun", "the planet farthest from the Sun"),
    ("The Great Wall", "in China", "in India"),
    ("Oxygen", "has the atomic number 8", "has the atomic number 20"),
    ("Mozart", "was born in Salzburg", "was born in London"),
    ("The Pacific", "the largest ocean on Earth", "the smallest ocean on Earth"),
    ("Aspirin", "is not recommended for children", "is recommended for children"),
]


def fact_rows(flip: set[str] | None = None) -> list[dict]:
    """Two answers per fact (faithful, contradicting), labelled; questions in ``flip`` get the wrong labels."""
    rows = []
    for i, (subject, true, false) in enumerate(FACTS):
        question = f"What do you know about {subject}?"
        context = [f"{subject} is {true}. It is well known.", "Bananas are a good source of potassium."]
        for j, (fact, faithful) in enumerate(((true, True), (false, False))):
            label = faithful != (flip is not None and question in flip)
            rows.append(
                {
                    "id": f"{i}-{j}",
                    "question": question,
                    "contexts": context,
                    "response": f"{subject} is {fact}.",
                    "faithful": label,
                }
            )
    return rows


def test_a_judge_fitted_on_wrong_labels_is_refused(tmp_path: Path) -> None:
    rows = fact_rows()
    fitted, _ = split_by_question([r["question"] for r in rows], held_out=0.3, seed=0)
    wrong = fact_rows(flip={rows[i]["question"] for i in fitted})  # the fitted part's labels are inverted
    out = tmp_path / "judge.json"
    report = align_judge(wrong, metrics="faithfulness", out=out, seed=0)
    figures = {f.name: f for f in report.figures}
    assert figures["hallucination_auroc"].after < figures["hallucination_auroc"].before - 0.01
    assert report.worse and report.written is None and not out.exists()
    # the CLI says so with exit status 1, and --force writes it anyway
    source = tmp_path / "wrong.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in wrong), encoding="utf-8")
    page = tmp_path / "report.html"
    args = ["align", str(source), "--metrics", "faithfulness", "--out", str(out), "--html", str(page)]
    assert main(args) == 1 and not out.exists()
    html = page.read_text(encoding="utf-8")  # the same report, drawn: the verdict, each figure and its interval
    auroc = figures["hallucination_auroc"]
    assert f"Refused: the aligned judge is worse on held-out rows ({', '.join(f.name for f in report.worse)})" in html
    assert "row_verdict_accuracy" in {f.name for f in report.worse}  # the verdicts the user reads, worse
    assert f"{auroc.before:.3f}</td><td class='num'>{auroc.after:.3f}" in html
    assert f"[{auroc.ci_low:+.3f}, {auroc.ci_high:+.3f}]" in html and "<script" not in html
    assert main(["align", str(source), "--metrics", "faithfulness", "--out", str(out), "--force"]) == 0
    assert LocalParams.load(out).metadata["aligned"]["rows"] == 40


def test_too_few_rows_or_an_llm_judge_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(ValueError, match="too few"):
        align_judge(fact_rows()[:2])
    one_question = [{**row, "question": "Same?"} for row in fact_rows()[:12]]
    with pytest.raises(ValueError, match="12 labelled rows on 1 distinct questions are too few"):
        align_judge(one_question)
    source = tmp_path / "rows.jsonl"
    source.write_text(json.dumps(fact_rows()[0]) + "\n", encoding="utf-8")
    assert main(["align", str(source), "--judge", "labels"]) == 2
    assert main(["align", str(source), "--dry-run"]) == 2
    assert main(["align", str(source), "--checkpoint", str(tmp_path / "cp")]) == 2
    err = capsys.readouterr().err
    assert "--checkpoint resumes an LLM judge's compile" in err
    assert "the offline judge makes none" in err
    assert "aligns the offline judge (offline, offline:FILE) or dspy:<model>" in err


# -- an aligned judge wherever a judge is accepted ----------------------------------------------------------


@pytest.fixture(scope="module")
def aligned_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Shipped parameters with the support and hallucination intercepts raised by 2 (worked out: every
    P(unsupported) and P(hallucinated) rises), written as ``rageval align`` writes a judge."""
    shipped = LocalParams.load()
    moved = dataclasses.replace(
        shipped,
        support=dataclasses.replace(shipped.support, intercept=shipped.support.intercept + 2.0),
        hallucination=dataclasses.replace(shipped.hallucination, intercept=shipped.hallucination.intercept + 2.0),
    )
    path = tmp_path_factory.mktemp("aligned") / "judge.json"
    path.write_text(moved.to_json(), encoding="utf-8")
    return path


SAMPLE = {
    "question": "How tall is Mount Everest?",
    "contexts": ["Mount Everest is 8,849 metres tall. It lies in the Himalayas."],
    "response": "Mount Everest is 8,849 metres tall.",
}


def test_an_aligned_judge_gives_its_own_scores_in_every_entry_point(aligned_file: Path, tmp_path: Path) -> None:
    from langchain_core.runnables import RunnableLambda, RunnablePassthrough

    from rageval_lc import evaluate
    from rageval_lc.adapters import MemorySink, RagEvalCallbackHandler
    from rageval_lc.adapters.dspy_metrics import dspy_metric
    from rageval_lc.adapters.langchain import RagEvaluator
    from rageval_lc.judges.factory import make_judge

    spec = f"offline:{aligned_file}"
    shipped = evaluate([SAMPLE], "trace").results[0].results
    aligned = evaluate([SAMPLE], "trace", judge=spec).results[0].results
    python = aligned["adherence_probability"].score
    assert python < shipped["adherence_probability"].score - 0.05  # the raised intercepts: less probably adherent
    assert (shipped["adherence"].score, aligned["adherence"].score) == (1.0, 0.0)
    assert make_judge(spec).params.hallucination.intercept == LocalParams.load(aligned_file).hallucination.intercept
    # the CLI, one process and two workers
    source = tmp_path / "in.jsonl"
    source.write_text(json.dumps({**SAMPLE, "id": "s"}) + "\n" + json.dumps({**SAMPLE, "id": "t"}) + "\n")
    for workers in ("1", "2"):
        out = tmp_path / f"out{workers}.jsonl"
        args = ["evaluate", str(source), "--metrics", "trace", "--judge", spec, "--out", str(out), "--no-progress"]
        assert main([*args, "--workers", workers]) == 0
        rows = [json.loads(line) for line in out.read_text().splitlines()]
        assert [r["scores"]["adherence_probability"] for r in rows] == pytest.approx([python] * 2, abs=WORKERS_ABS)
    # LangChain, DSPy, the callback handler
    evaluator = RagEvaluator("trace", judge=spec)
    result = evaluator.evaluate_strings(
        input=SAMPLE["question"], prediction=SAMPLE["response"], reference=None, contexts=SAMPLE["contexts"]
    )
    assert result["scores"]["adherence_probability"] == pytest.approx(python, abs=ABS)  # one row, not a batch
    import dspy

    metric = dspy_metric("trace", judge=spec, score="adherence")
    example = dspy.Example(question=SAMPLE["question"], contexts=SAMPLE["contexts"]).with_inputs("question")
    assert metric(example, dspy.Prediction(response=SAMPLE["response"])) == 0.0  # the shipped judge: 1.0
    sink = MemorySink()
    handler = RagEvalCallbackHandler(["trace"], judge=spec, sinks=[sink], background=False)
    chain = {"docs": EverestRetriever(), "question": RunnablePassthrough()} | RunnableLambda(
        lambda _: SAMPLE["response"]
    )
    chain.invoke(SAMPLE["question"], config={"callbacks": [handler]})
    assert sink.records[0]["contexts"] == SAMPLE["contexts"]
    assert sink.records[0]["scores"]["adherence"] == 0.0  # the shipped judge: 1.0


class EverestRetriever(BaseRetriever):
    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        return [Document(page_content=text) for text in SAMPLE["contexts"]]


def test_the_refit_converges_when_the_rows_contradict_the_prior() -> None:
    """Labels opposite to a confident prior: plain Newton steps overshoot; the damped refit reaches the optimum
    (scipy, same objective) and is far better than the prior on it."""
    from scipy.optimize import minimize

    rng = np.random.default_rng(5)
    x = rng.normal(size=(300, 1))
    y = (x[:, 0] < 0).astype(float)  # the prior says: larger x, more positive
    prior = Logistic(mean=[0.0], scale=[1.0], coef=[4.0], intercept=3.0)
    fitted = shrunk_logistic(prior, x, y, strength=3.0)
    z = np.hstack([x, np.ones((300, 1))])
    centre, penalty = np.array([4.0, 3.0]), np.array([3.0, 0.3])
    best = minimize(_objective, centre, args=(z, y, centre, penalty), method="BFGS", options={"gtol": 1e-9}).x
    beta = np.array([*fitted.coef, fitted.intercept])
    assert np.allclose(beta, best, atol=1e-3)
    assert _objective(beta, z, y, centre, penalty) < _objective(centre, z, y, centre, penalty) / 3


def test_an_item_without_the_nli_verdicts_is_a_clear_error() -> None:
    """The verdicts come beside the features (issue 47): an item built without them names what is missing; with
    them the support model refits on items whose heading ("Here is how:") makes no claim."""
    from rageval_lc.align.refit import AlignItem, fit_aligned
    from rageval_lc.judges.offline.judge import OfflineJudge
    from rageval_lc.schema import RagSample

    judge = OfflineJudge(device="cpu")
    items = []
    for i, (answer, wrong) in enumerate([("finished in 1889", False), ("finished in 1999", True)] * 3):
        sample = RagSample(question="When?", contexts=["The tower was finished in 1889."],
                           response=f"Here is how:\n\nThe tower was {answer}.")  # fmt: skip
        features, verdicts = judge.features(sample.question, sample.sentences, sample.response)
        unsupported = frozenset({features.response_keys[1]} if wrong else ())
        items.append(AlignItem(features, f"g{i}", verdicts, unsupported=unsupported, hallucinated=wrong))
    shipped = LocalParams.load()
    with pytest.raises(ValueError, match=r"give AlignItem the verdicts OfflineJudge\.features returns"):
        fit_aligned([dataclasses.replace(it, verdicts=()) for it in items], shipped, models=("support",))
    assert [kind is None for kind in items[0].features.claim_free] == [False, True]  # the heading makes no claim
    params, chosen = fit_aligned(items, shipped, models=("support",))
    assert set(chosen) == {"support"}
    assert 0.0 < params.support_threshold < 1.0


# -- issue 33: align never hands back a worse judge ---------------------------------------------------------

SUBSETS = sorted(RAGBENCH.parent.glob("*.jsonl"))
#: Rows whose released sentence keys include one that names no sentence (read as ``None`` before issue 33).
ODD_KEYS = {"emanual_train": 1, "msmarco_validation": 2}


def _odd(row: dict) -> bool:
    from rageval_lc.text import normalize_key

    keys = (row.get("all_relevant_sentence_keys") or []) + (row.get("all_utilized_sentence_keys") or [])
    return any(normalize_key(k) is None for k in keys)


@pytest.mark.parametrize("path", SUBSETS, ids=lambda p: p.stem)
def test_align_runs_on_every_ragbench_subset(path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Each subset file of ../shared/data/ragbench: its rows with odd keys and its shortest rows (10 in all, to
    keep the test quick) go through ``rageval align`` to a report, written or refused with its reason."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    odd = [r for r in rows if _odd(r)]
    assert len(odd) == ODD_KEYS.get(path.stem, 0)
    rest = sorted((r for r in rows if not _odd(r)), key=lambda r: len(json.dumps(r)))
    source, out = tmp_path / "rows.jsonl", tmp_path / "judge.json"
    source.write_text("".join(json.dumps(r) + "\n" for r in odd + rest[: 10 - len(odd)]), encoding="utf-8")
    code = main(["align", str(source), "--out", str(out), "--json"])
    report = json.loads(capsys.readouterr().out)
    assert (code, out.exists()) == ((0, True) if report["written"] else (1, False))
    assert report["written"] or report["refusal"]
    labelled = read_labelled(source)
    assert all(isinstance(k, str) for x in labelled for keys in (x.relevant, x.utilized) if keys for k in keys)


def test_a_digest_never_sorts_values_of_mixed_types() -> None:
    from rageval_lc.align.offline import _rows_digest
    from rageval_lc.datasets.labelled import LabelledSample

    (x,) = read_labelled([{"id": "1", "question": "Q?", "contexts": ["C."], "response": "C.", "faithful": True}])
    mixed = LabelledSample(x.sample, relevant=frozenset({"0a", None}), utilized=frozenset({1, "0b"}))
    assert _rows_digest([mixed]) == _rows_digest([mixed])  # computed, and the same each time


def test_the_first_use_trial_is_refused_or_no_worse(tmp_path: Path) -> None:
    """Issue 33's trial: 36 rows of one's own (18 faithful, 18 with one wrong fact). Before, align refitted the
    hallucination model, kept the adherence threshold and wrote a judge that called every faithful answer
    unfaithful, on a held-out AUROC at its ceiling. Now the threshold moves with the model, the check reads the
    verdicts, and the judge is written only when the held-out rows can show it is no worse."""
    from tests.align_trial import right_verdicts, trial_rows

    trial, other = trial_rows(18), trial_rows(18, start=18)
    out = tmp_path / "judge.json"
    report = align_judge(trial, metrics="faithfulness", out=out, force=True)  # forced: to read it either way
    figures = {f.name: f for f in report.figures}
    assert {"row_verdict_accuracy", "row_balanced_accuracy"} <= set(figures)
    assert report.held_out_kinds == {"faithful": 6, "unfaithful": 6}
    if not math.isinf(report.strengths["hallucination"]):
        assert report.thresholds["adherence"][0] == LocalParams.load().adherence_threshold
        assert LocalParams.load(out).adherence_threshold == report.thresholds["adherence"][1]
    shipped, aligned = right_verdicts("offline", other), right_verdicts(f"offline:{out}", other)
    if report.usable:
        assert aligned >= shipped
    else:  # 6 held-out rows of a kind are too few to exclude a loss: refused, with what to add
        assert report.refusal.startswith(  # which of the two reasons depends on the shipped judge's verdicts
            (
                "the 12 held-out rows are too few to exclude a loss beyond 0.01",
                "nothing measured on the held-out rows could show a change",
            )
        )
        assert report.advice.startswith("Add about 31 more labelled rows (67 in all;")
    assert aligned >= shipped  # and the forced judge is no worse on questions it never saw


def test_a_figure_that_cannot_move_is_no_evidence() -> None:
    from rageval_lc.align.report import AlignReport, FigureChange

    ceiling = FigureChange("row_verdict_accuracy", 12, 1.0, 1.0, 0.0, 0.0, True)
    flat = FigureChange("hallucination_auroc", 12, 0.8, 0.8, 0.0, 0.0, True)
    kinds = {"faithful": 6, "unfaithful": 6}
    report = AlignReport(24, 12, {}, [ceiling, flat], 0.01, held_out_kinds=kinds)
    assert (ceiling.stuck, flat.stuck, report.evidence) == ("at its ceiling before", "an interval of zero width", [])
    assert not report.usable and not report.worse
    assert report.refusal == (
        "nothing measured on the held-out rows could show a change (row_verdict_accuracy: at its ceiling before; "
        "hallucination_auroc: an interval of zero width)"
    )
    # 2 x 10 held-out rows of a kind at a 0.3 share: 66.7 -> 67 rows in all, 31 more than the 36
    assert report.advice.startswith("Add about 31 more labelled rows (67 in all; the held-out part holds 6 faithful")
    # an RMSE that could move (and moved the right way) is evidence; the verdicts, unchanged, lost nothing
    rmse = FigureChange("context_relevance_rmse", 20, 0.2, 0.15, -0.08, -0.01, False)
    enough = {"faithful": 10, "unfaithful": 10}
    assert AlignReport(46, 20, {}, [ceiling, rmse], 0.01, held_out_kinds=enough).usable
    # a verdict figure at its ceiling that may have dropped: no longer "no loss", so refused for want of rows
    dropped = FigureChange("row_verdict_accuracy", 20, 1.0, 0.95, -0.15, 0.0, True)
    refused = AlignReport(46, 20, {}, [dropped, rmse], 0.01, held_out_kinds=enough)
    assert (refused.usable, refused.worse) == (False, [])
    assert refused.refusal == (
        "the 20 held-out rows are too few to exclude a loss beyond 0.01 "
        "(lower end of the change's interval: row_verdict_accuracy -0.150)"
    )


def test_a_reason_never_reads_against_its_verdict(aligned_file: Path) -> None:
    """The aligned file's raised intercepts put the answer below the adherence threshold while its one sentence
    reads as supported (entailment 0.96): the reasons say that the answer's verdict flags it, and by what figure."""
    from rageval_lc import evaluate

    row = evaluate([SAMPLE], "trace,faithfulness", judge=f"offline:{aligned_file}").results[0].results
    threshold = LocalParams.load(aligned_file).adherence_threshold
    probability = row["adherence_probability"].score
    assert row["adherence"].score == 0.0 and probability < threshold
    because = (
        f"Not shown to be supported: the answer as a whole is judged not fully supported (probability "
        f"{probability:.3f}, below the threshold {threshold:.3f}) and this is its most doubtful sentence"
    )
    assert because in row["adherence"].reason and because in row["faithfulness"].reason
    assert "Not found in the documents" not in row["adherence"].reason
    assert f"supported: {probability:.3f} (below the threshold {threshold:.3f})." in row["adherence"].reason


def test_the_threshold_is_the_best_balanced_one() -> None:
    from rageval_lc.align.refit import balanced_threshold

    scores = np.array([0.1, 0.3, 0.35, 0.6, 0.8, -np.inf])
    truth = np.array([False, False, True, True, True, False])
    # by hand: between 0.3 and 0.35 every row is right (the -inf row is never positive): 0.325
    assert balanced_threshold(scores, truth, 0.9) == pytest.approx(0.325, abs=1e-12)
    assert balanced_threshold(scores, np.ones(6, dtype=bool), 0.9) == pytest.approx(0.9, abs=1e-12)  # one class
    # a tie (0.2 and 0.475 both give a balanced accuracy of 5/6 on these labels): the one nearer the current 0.0
    tie = np.array([False, True, False, True, True, False])
    assert balanced_threshold(scores, tie, 0.0) == pytest.approx(0.2, abs=1e-12)
