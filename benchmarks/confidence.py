"""The offline judge's confidence (issue 35): fit it, check its calibration, and measure the cascade it makes.

Run:  python benchmarks/confidence.py [--shared ../shared] [--confidence-out PATH] [--json PATH] [--svg PATH]

      (the figures in BENCHMARKS.md and docs/judges/cascade.md: ``--json benchmarks/data/confidence_figures.json
      --svg docs/judges/risk_coverage.svg``)

Rows: the RAGBench validation rows of the *held-out* fold (``benchmarks/ragbench_folds.py``) — rows the offline
judge was never fitted on, so its verdicts on them have the errors it makes on a user's rows — and the held-out
twins of real answers (``training/make_twins.py``, a twin keeps its original's fold). The confidence models
(:mod:`rageval_lc.judges.offline.confidence`) are fitted on them; every figure printed is *cross-fitted*: grouped
5-fold over questions, each row judged by models fitted on the other four folds. ``--confidence-out PATH`` then
fits on all of them and stores the models there with these figures in their metadata (``training/rebuild.py``
points it at the shipped ``rageval_lc/judges/offline/confidence.json``).

Figures (RAGBench rows only; rows weighted so that each label of the row verdict weighs half, as in a balanced
test set; a sentence weighs what its row weighs):

* risk–coverage: the error rate of the most confident (1 − b) share against the overall one, for b = 0.1, 0.2,
  0.3, 0.5, and the area under the risk–coverage curve; for sentence verdicts and row verdicts, beside the
  baselines the issue starts from (|P(unsupported) − 0.5| for a sentence, the adherence probability's distance
  from its threshold for a row);
* calibration: the reliability table (10 bins) and the expected calibration error of the confidence;
* the cascade: rows judged from their sentences' verdicts, the least confident share b of sentences sent to an
  LLM, (i) simulated (each sentence's released label flipped at random at 10 %, ``--draws`` draws) and (ii)
  RAGBench's recorded GPT-3.5 row verdicts (``gpt3_adherence``) on the rows that carry them; row balanced
  accuracy and AUROC with bootstrap intervals, the share of the gap between the offline judge and the LLM alone
  it closes, and its LLM calls and tokens per 1,000 rows against the all-LLM judge.

Needs the calibration's feature cache (``benchmarks/calibrate_local_judge.py`` builds it; ~20 minutes on 2 cores
the first time) and scikit-learn (the ``test`` extra).
"""

from __future__ import annotations

import argparse
import datetime
import functools
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from calibrate_local_judge import (  # noqa: E402
    _group,
    add_nli,
    featurise,
    featurise_twins,
    fit_logistic,
)
from sklearn.model_selection import GroupKFold  # noqa: E402

from rageval_lc.judges.offline.confidence import (  # noqa: E402
    CLAIM_FEATURES,
    CONFIDENCE_FILE,
    ROW_FEATURES,
    SENTENCE_FEATURES,
    _logit,
    claim_inputs,
    row_inputs,
    verdict_confidence,
)
from rageval_lc.judges.offline.decision import claim_mask, support_decision  # noqa: E402
from rageval_lc.judges.offline.labelling import confidence_inputs  # noqa: E402
from rageval_lc.judges.offline.model import LocalParams, Logistic  # noqa: E402
from rageval_lc.metrics.agreement import auroc  # noqa: E402
from rageval_lc.reports.summary import format_table  # noqa: E402

BUDGETS = (0.1, 0.2, 0.3, 0.5)
C_SENTENCE, C_ROW = 0.3, 0.3  # regularisation (chosen by the cross-fitted log loss among 0.03, 0.1, 0.3, 1, 3)
TWIN_WEIGHT = 0.5  # the held-out twins together weigh half the RAGBench rows in fitting the sentence models


@dataclass
class Row:
    """One answer: its sentences' confidence inputs and labels, and what the row costs an LLM judge."""

    dataset: str
    group: str
    twin: bool
    x: np.ndarray  # sentence inputs (SENTENCE_FEATURES)
    marked: np.ndarray  # the offline judge marked the sentence unsupported
    unsupported: np.ndarray  # the released (or twin) label
    p_adjusted: np.ndarray  # the judge's P(unsupported) after the NLI pass (the baseline confidence)
    answer_supported: float
    supported: bool  # the offline row verdict
    forced: bool
    threshold: float
    gpt3: float | None
    sentences: list[str]
    doc_sentences: int
    prompt_chars: int  # the documents, the question and the response: what any LLM judgement of the row reads
    trace_prompt_tokens: int  # the DSPy judge's prompt labelling the whole row (trace_labels), as the dry run counts
    verify_prompt_tokens: int  # its prompt verifying every response sentence against the contexts (verify_claims)
    label_chars: int  # the released labels as JSON: what an LLM writes labelling the whole row
    explanation_chars: np.ndarray  # per sentence, the released explanation: what it writes verifying one

    @property
    def truth_supported(self) -> bool:
        return not self.unsupported.any()


def held_twins(cache: Path) -> Path:
    """The held-out twins of ``training/make_twins.py``'s file, in a file of their own (featurised alone)."""
    source = cache / "twins" / "twins.jsonl"
    rows = [line for line in source.read_text(encoding="utf-8").splitlines() if json.loads(line)["fold"] == "held"]
    path = cache / "twins" / "twins_held.jsonl"
    text = "".join(line + "\n" for line in rows)
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")
    return path


@functools.lru_cache(maxsize=1)
def _llm() -> Any:
    """A DSPy judge that is never called: it counts the prompts an LLM judge would be sent (as the dry run does)."""
    from dspy.utils import DummyLM

    from rageval_lc.judges.llm.dspy_judge import DspyJudge

    return DspyJudge(DummyLM([]))


def rows_of(items: list[dict], params: LocalParams, twins: bool = False) -> list[Row]:
    rows = []
    for it in items:
        if it["unsupported"] is None or not it["features"].response_keys:
            continue
        features, record = it["features"], it["record"]
        claims = claim_mask(features)  # a sentence that makes no claim has no verdict to be sure of
        if not claims.any():
            continue
        decision = support_decision(features, it["verdicts"], params)
        keys = [k for k, claim in zip(features.response_keys, claims, strict=True) if claim]
        marked = set(decision.marked)
        labels = record.labels
        sample = record.sample
        explanations = {s.response_sentence_key: s.explanation for s in labels.sentence_support_information}
        rows.append(
            Row(
                dataset=record.dataset,
                group=_group(it),
                twin=twins,
                x=confidence_inputs(features, it["verdicts"], decision, params)[claims],
                marked=np.array([k in marked for k in keys]),
                unsupported=np.array([k in it["unsupported"] for k in keys]),
                p_adjusted=np.asarray(decision.p_unsupported, dtype=float)[claims],
                answer_supported=decision.answer_supported,
                supported=decision.supported,
                forced=bool(decision.forced),
                threshold=params.adherence_threshold,
                gpt3=record.other_judges.get("gpt3_adherence") if not twins else None,
                sentences=[text for (_, text), claim in zip(sample.sentences.response, claims, strict=True) if claim],
                doc_sentences=len(sample.sentences.document_keys),
                trace_prompt_tokens=_llm().estimate_prompt_tokens("trace_labels", sample),
                verify_prompt_tokens=_llm().estimate_prompt_tokens("verify_claims", sample),
                prompt_chars=len(sample.question) + sum(len(c) for c in sample.contexts) + len(sample.response),
                label_chars=len(labels.model_dump_json()),
                explanation_chars=np.array([len(explanations.get(k, "")) for k in keys]),
            )
        )
    return rows


# --- fitting ------------------------------------------------------------------------------------------------


def _stack(rows: list[Row]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every sentence's inputs, label and weight: a RAGBench sentence weighs what its row weighs when each label of
    the row verdict weighs half (:func:`row_weights`: the balanced population the figures are measured on); the
    twins together weigh :data:`TWIN_WEIGHT` of the RAGBench sentences."""
    real = [r for r in rows if not r.twin]
    weight = dict(zip(map(id, real), row_weights(real), strict=True)) if real else {}
    x = np.vstack([r.x for r in rows])
    y = np.concatenate([r.unsupported for r in rows]).astype(int)
    n_real = sum(len(r.unsupported) for r in real) or 1
    n_twin = sum(len(r.unsupported) for r in rows if r.twin) or 1
    w = np.concatenate(
        [np.full(len(r.unsupported), TWIN_WEIGHT * n_real / n_twin if r.twin else weight[id(r)]) for r in rows]
    )
    return x, y, w


def fit_sentence_models(rows: list[Row]) -> tuple[Logistic, Logistic]:
    x, y, w = _stack(rows)
    return fit_logistic(x, y, w, c=C_SENTENCE), fit_logistic(claim_inputs(x), y, w, c=C_SENTENCE)


def row_table(rows: list[Row], q: list[np.ndarray]) -> np.ndarray:
    return np.vstack(
        [
            row_inputs(r.answer_supported, r.supported, r.forced, qi, int(r.marked.sum()))
            for r, qi in zip(rows, q, strict=True)
        ]
    )


def fit_row_model(rows: list[Row], q: list[np.ndarray]) -> Logistic:
    """P(the answer is fully supported), fitted on the RAGBench rows (the twins' rows are edits of answers labelled
    supported, not answers as written), each label weighing half."""
    real = [(r, qi) for r, qi in zip(rows, q, strict=True) if not r.twin]
    y = np.array([r.truth_supported for r, _ in real], dtype=int)
    table = row_table([r for r, _ in real], [qi for _, qi in real])
    return fit_logistic(table, y, row_weights([r for r, _ in real]), c=C_ROW)


def cross_fit(rows: list[Row], folds: int = 5) -> tuple[list[np.ndarray], list[np.ndarray], np.ndarray]:
    """Out-of-fold P(unsupported) per sentence (sentence and claim models) and P(fully supported) per row."""
    groups = np.array([r.group for r in rows])
    q_sentence: list[np.ndarray] = [np.zeros(0)] * len(rows)
    q_claim: list[np.ndarray] = [np.zeros(0)] * len(rows)
    p_row = np.zeros(len(rows))
    for train, test in GroupKFold(folds).split(np.arange(len(rows)), groups=groups):
        fit = [rows[i] for i in train]
        sentence, claim = fit_sentence_models(fit)
        # the row model learns from out-of-fold sentence probabilities of its own training rows
        inner_q = _inner_oof(fit)
        row = fit_row_model(fit, inner_q)
        for i in test:
            q_sentence[i] = sentence.predict(rows[i].x)
            q_claim[i] = claim.predict(claim_inputs(rows[i].x))
        p_row[test] = row.predict(row_table([rows[i] for i in test], [q_sentence[i] for i in test]))
    return q_sentence, q_claim, p_row


def _inner_oof(rows: list[Row], folds: int = 5) -> list[np.ndarray]:
    groups = np.array([r.group for r in rows])
    q: list[np.ndarray] = [np.zeros(0)] * len(rows)
    for train, test in GroupKFold(folds).split(np.arange(len(rows)), groups=groups):
        sentence, _ = fit_sentence_models([rows[i] for i in train])
        for i in test:
            q[i] = sentence.predict(rows[i].x)
    return q


# --- figures ------------------------------------------------------------------------------------------------


def row_weights(rows: list[Row]) -> np.ndarray:
    """Each label of the row verdict weighs half (a balanced test set)."""
    truth = np.array([r.truth_supported for r in rows])
    pos = truth.sum()
    neg = len(rows) - pos
    return np.where(truth, 0.5 / max(pos, 1), 0.5 / max(neg, 1)) * len(rows)


def risk_coverage(confidence: np.ndarray, wrong: np.ndarray, weight: np.ndarray) -> dict:
    """Error rates of the most confident shares, their ratio to the overall rate, and the area under the curve."""
    order = np.argsort(-confidence, kind="stable")
    c, e, w = confidence[order], wrong[order].astype(float), weight[order]
    cum_w, cum_e = np.cumsum(w), np.cumsum(w * e)
    overall = cum_e[-1] / cum_w[-1]
    out = {"overall_error": round(float(overall), 4)}
    for b in BUDGETS:
        k = max(1, round((1 - b) * len(c)))
        rate = cum_e[k - 1] / cum_w[k - 1]
        out[f"error_top_{round(100 * (1 - b))}"] = round(float(rate), 4)
        out[f"ratio_top_{round(100 * (1 - b))}"] = round(float(rate / overall), 3)
    risks = cum_e / cum_w
    out["aurc"] = round(float(np.sum(risks * w) / cum_w[-1]), 4)
    coverage = cum_w / cum_w[-1]
    out["curve"] = [
        [round(c, 2), round(float(risks[np.searchsorted(coverage, c - 1e-9)]), 4)] for c in np.linspace(0.05, 1.0, 20)
    ]
    return out


def risk_coverage_svg(figures: dict) -> str:
    """The risk-coverage curves (sentence and row verdicts, the confidence against the baseline) as an SVG."""
    width, height, pad = 300, 220, 40
    panels = []
    for n, kind in enumerate(("sentence", "row")):
        x0 = n * (width + 20)
        top = max(max(r for _, r in figures[kind][name]["curve"]) for name in ("confidence", "baseline"))
        top = float(np.ceil(top * 10) / 10)

        def point(c: float, r: float, x0: float = x0, top: float = top) -> str:
            return f"{x0 + pad + c * (width - pad - 10):.1f},{height - pad - r / top * (height - pad - 20):.1f}"

        lines = [
            f'<text x="{x0 + pad}" y="14" font-size="12">{kind} verdicts (balanced by row label)</text>',
            f'<line x1="{x0 + pad}" y1="{height - pad}" x2="{x0 + width - 10}" y2="{height - pad}" stroke="#444"/>',
            f'<line x1="{x0 + pad}" y1="20" x2="{x0 + pad}" y2="{height - pad}" stroke="#444"/>',
            f'<text x="{x0 + pad}" y="{height - 8}" font-size="10">coverage: the most confident share kept</text>',
            f'<text x="{x0 + 2}" y="24" font-size="10">{top:.1f}</text>',
            f'<text x="{x0 + 2}" y="{height - pad}" font-size="10">0</text>',
        ]
        for name, colour in (("baseline", "#999"), ("confidence", "#1f6fb2")):
            pts = " ".join(point(c, r) for c, r in figures[kind][name]["curve"])
            lines.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2" points="{pts}"/>')
        lines.append(
            f'<text x="{x0 + width - 120}" y="{height - pad - 8}" font-size="10" fill="#1f6fb2">confidence</text>'
        )
        lines.append(f'<text x="{x0 + width - 120}" y="{height - pad - 20}" font-size="10" fill="#999">baseline</text>')
        panels += lines
    body = "\n".join(panels)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{2 * width + 20}" height="{height}" '
        f'font-family="sans-serif">\n<title>Error rate (risk) of the most confident verdicts against coverage'
        f"</title>\n{body}\n</svg>\n"
    )


def reliability(confidence: np.ndarray, right: np.ndarray, weight: np.ndarray, bins: int = 10) -> dict:
    """The reliability table (equal-width bins of confidence) and the expected calibration error."""
    edges = np.linspace(0.0, 1.0, bins + 1)
    index = np.clip(np.digitize(confidence, edges[1:-1]), 0, bins - 1)
    table, ece = [], 0.0
    for b in range(bins):
        sel = index == b
        if not sel.any():
            continue
        w = weight[sel]
        conf = float(np.average(confidence[sel], weights=w))
        acc = float(np.average(right[sel], weights=w))
        share = float(w.sum() / weight.sum())
        ece += share * abs(acc - conf)
        table.append(
            {
                "bin": f"{edges[b]:.1f}-{edges[b + 1]:.1f}",
                "share": round(share, 3),
                "confidence": round(conf, 3),
                "right": round(acc, 3),
            }
        )
    return {"ece": round(ece, 4), "table": table}


def verdict_figures(confidence: np.ndarray, baseline: np.ndarray, wrong: np.ndarray, weight: np.ndarray) -> dict:
    """Risk-coverage of the confidence and of the baseline, and the confidence's reliability, each weighted
    (``weight``) and as the verdicts come."""
    out = {}
    for suffix, w in (("", weight), ("_unweighted", np.ones_like(weight))):
        out[f"confidence{suffix}"] = risk_coverage(confidence, wrong, w)
        out[f"baseline{suffix}"] = risk_coverage(baseline, wrong, w)
        out[f"calibration{suffix}"] = reliability(confidence, (~wrong).astype(float), w)
    return out


def balanced_accuracy_w(pred_supported: np.ndarray, truth_supported: np.ndarray) -> float:
    rates = [np.mean(pred_supported[truth_supported == label] == label) for label in (True, False)]
    return float(np.mean(rates))


def bootstrap(statistic, n: int, resamples: int = 1000, seed: int = 0) -> tuple[float, float]:
    rng = np.random.default_rng(seed)
    values = [statistic(rng.integers(0, n, n)) for _ in range(resamples)]
    return float(np.quantile(values, 0.025)), float(np.quantile(values, 0.975))


def escalated_rows(rows: list[Row], row_confidence: np.ndarray, share: float) -> list[np.ndarray]:
    """The row unit, for comparison: the ``share`` least confident rows, every sentence of each."""
    chosen = np.zeros(len(rows), dtype=bool)
    chosen[np.argsort(row_confidence, kind="stable")[: round(share * len(rows))]] = True
    return [np.full(len(r.sentences), c) for r, c in zip(rows, chosen, strict=True)]


def escalated_sets(rows: list[Row], confidence: list[np.ndarray], share: float) -> list[np.ndarray]:
    """Per row, which sentences the cascade sends to the LLM: the ``share`` least confident of all sentences."""
    flat = np.concatenate(confidence)
    k = round(share * flat.size)
    chosen = np.zeros(flat.size, dtype=bool)
    chosen[np.argsort(flat, kind="stable")[:k]] = True
    out, start = [], 0
    for c in confidence:
        out.append(chosen[start : start + c.size])
        start += c.size
    return out


def cascade_rows(rows: list[Row], escalated: list[np.ndarray], llm_unsupported: list[np.ndarray]) -> np.ndarray:
    """The cascade's row verdict (fully supported or not) from the offline and the LLM's sentence verdicts."""
    out = []
    for r, e, llm in zip(rows, escalated, llm_unsupported, strict=True):
        unsupported = np.where(e, llm, r.marked)
        out.append(not unsupported.any())
    return np.array(out)


def cascade_scores(rows: list[Row], escalated: list[np.ndarray], llm_unsupported: list[np.ndarray]) -> np.ndarray:
    """A hallucination score per row for AUROC: the share of unsupported sentences, ties broken by the offline
    judge's answer probability."""
    out = []
    for r, e, llm in zip(rows, escalated, llm_unsupported, strict=True):
        unsupported = np.where(e, llm, r.marked)
        out.append(float(unsupported.any()) + 0.5 * float(unsupported.mean()) + 0.01 * (1 - r.answer_supported))
    return np.array(out)


def token_costs(rows: list[Row], escalated: list[np.ndarray]) -> dict:
    """LLM calls and tokens per 1,000 rows. Prompts as the dry run counts them (the DSPy judge's prompts, characters
    ÷ 4): the all-LLM judge labels each row in one call (``trace_labels``); the cascade verifies a row's escalated
    sentences in one call (``verify_claims``: the contexts and those sentences). Answers estimated from RAGBench's
    own labels (characters ÷ 4): the whole labels for the all-LLM judge, the escalated sentences' explanations and
    ~10 tokens of verdict each for the cascade."""
    n = len(rows)
    all_prompt = sum(r.trace_prompt_tokens for r in rows)
    all_answer = sum(r.label_chars for r in rows) / 4
    calls = prompt = answer = 0.0
    for r, e in zip(rows, escalated, strict=True):
        if not e.any():
            continue
        calls += 1
        left_out = sum(len(sentence) + 4 for sentence, x in zip(r.sentences, e, strict=True) if not x) / 4
        prompt += r.verify_prompt_tokens - left_out
        answer += (r.explanation_chars[e].sum() + 40 * e.sum()) / 4
    per = 1000 / n
    return {
        "calls": round(calls * per),
        "prompt_tokens": round(prompt * per),
        "completion_tokens": round(answer * per),
        "all_llm_calls": 1000,
        "all_llm_prompt_tokens": round(all_prompt * per),
        "all_llm_completion_tokens": round(all_answer * per),
    }


def simulate(
    rows: list[Row], confidence: list[np.ndarray] | np.ndarray, draws: int, accuracy: float = 0.9
) -> list[dict]:
    """The cascade with a simulated LLM; ``confidence`` per sentence (the sentence unit) or per row (the row
    unit: every sentence of an escalated row)."""
    truth = np.array([r.truth_supported for r in rows])
    rng = np.random.default_rng(35)
    llm_draws = [
        [np.where(rng.random(r.unsupported.size) < accuracy, r.unsupported, ~r.unsupported) for r in rows]
        for _ in range(draws)
    ]
    offline = np.array([r.supported for r in rows])
    table = []
    for share in (0.0, *BUDGETS, 1.0):
        if isinstance(confidence, np.ndarray):
            escalated = escalated_rows(rows, confidence, share)
        else:
            escalated = escalated_sets(rows, confidence, share)
        verdicts = [cascade_rows(rows, escalated, llm) for llm in llm_draws]
        scores = [cascade_scores(rows, escalated, llm) for llm in llm_draws]
        ba = float(np.mean([balanced_accuracy_w(v, truth) for v in verdicts]))
        au = float(np.mean([auroc((~truth).astype(int).tolist(), s.tolist()) for s in scores]))

        def statistic(idx: np.ndarray, vs: list = verdicts) -> float:
            return float(np.mean([balanced_accuracy_w(v[idx], truth[idx]) for v in vs[:5]]))

        ci = bootstrap(statistic, len(rows))
        table.append(
            {
                "share": share,
                "balanced_accuracy": round(ba, 4),
                "ci": [round(ci[0], 4), round(ci[1], 4)],
                "auroc": round(au, 4),
                **token_costs(rows, escalated),
            }
        )
    off = balanced_accuracy_w(offline, truth)
    llm = table[-1]["balanced_accuracy"]
    for t in table:
        t["gap_closed"] = round((t["balanced_accuracy"] - off) / (llm - off), 3) if llm != off else None
    return table


def with_gpt3(rows: list[Row], confidence: list[np.ndarray]) -> list[dict]:
    """The cascade with RAGBench's recorded GPT-3.5 judgements as the LLM (rows that carry ``gpt3_adherence``): a
    row with an escalated sentence takes GPT-3.5's row verdict for its escalated sentences (all supported when it
    judged the row adherent, all unsupported when not) and keeps the offline verdicts of the others."""
    keep = [i for i, r in enumerate(rows) if r.gpt3 is not None]
    rows = [rows[i] for i in keep]
    confidence = [confidence[i] for i in keep]
    truth = np.array([r.truth_supported for r in rows])
    llm = [np.full(r.unsupported.size, r.gpt3 < 0.5) for r in rows]
    offline = balanced_accuracy_w(np.array([r.supported for r in rows]), truth)
    table = []
    for share in (0.0, *BUDGETS, 1.0):
        escalated = escalated_sets(rows, confidence, share)
        verdict = cascade_rows(rows, escalated, llm)
        ci = bootstrap(lambda idx, v=verdict: balanced_accuracy_w(v[idx], truth[idx]), len(rows))
        table.append(
            {
                "share": share,
                "balanced_accuracy": round(balanced_accuracy_w(verdict, truth), 4),
                "ci": [round(ci[0], 4), round(ci[1], 4)],
                "auroc": round(auroc((~truth).astype(int).tolist(), cascade_scores(rows, escalated, llm).tolist()), 4),
                **token_costs(rows, escalated),
            }
        )
    top = table[-1]["balanced_accuracy"]
    for t in table:
        t["gap_closed"] = round((t["balanced_accuracy"] - offline) / (top - offline), 3) if top != offline else None
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared")
    parser.add_argument("--cache", type=Path, default=ROOT / ".cache")
    parser.add_argument(
        "--confidence-out",
        type=Path,
        help=f"write the fitted models here (training/rebuild.py: the shipped {CONFIDENCE_FILE})",
    )
    parser.add_argument("--json", type=Path, help="write every figure here")
    parser.add_argument("--svg", type=Path, help="draw the risk-coverage curves here")
    parser.add_argument("--draws", type=int, default=20, help="draws of the simulated LLM")
    args = parser.parse_args()

    params = LocalParams.load()
    items = add_nli(featurise(args.shared, args.cache), args.cache, "ragbench")
    held = [it for it in items if it["fold"] == "held" and not it["record"].dataset.startswith("aux")]
    rows = rows_of(held, params)
    twin_items = add_nli(featurise_twins(args.cache, held_twins(args.cache)), args.cache, "twins_held")
    twins = rows_of(twin_items, params, twins=True)
    everything = rows + twins
    print(f"{len(rows)} held-out RAGBench rows ({sum(len(r.sentences) for r in rows)} sentences), {len(twins)} twins")

    q_sentence, _q_claim, p_row = cross_fit(everything)
    real = [i for i, r in enumerate(everything) if not r.twin]
    weights = row_weights(rows)
    s_w = np.concatenate([np.full(len(rows[i].sentences), weights[i]) for i in range(len(rows))])
    marked = np.concatenate([rows[i].marked for i in range(len(rows))])
    truth_s = np.concatenate([rows[i].unsupported for i in range(len(rows))])
    q = [q_sentence[i] for i in real]
    conf_s = np.concatenate([verdict_confidence(qi, r.marked) for qi, r in zip(q, rows, strict=True)])
    base_s = np.concatenate([np.abs(r.p_adjusted - 0.5) for r in rows])
    wrong_s = marked != truth_s
    truth_r = np.array([r.truth_supported for r in rows])
    said_r = np.array([r.supported for r in rows])
    conf_r = verdict_confidence(p_row[real], said_r)
    base_r = np.array([abs(float(_logit(r.answer_supported)) - float(_logit(r.threshold))) for r in rows])
    wrong_r = said_r != truth_r
    figures = {
        "rows": len(rows),
        "sentences": int(marked.size),
        "twins": len(twins),
        "sentence": verdict_figures(conf_s, base_s, wrong_s, s_w),
        "row": verdict_figures(conf_r, base_r, wrong_r, weights),
    }
    conf_lists = [verdict_confidence(qi, r.marked) for qi, r in zip(q, rows, strict=True)]
    figures["cascade_simulated"] = simulate(rows, conf_lists, args.draws)
    figures["cascade_gpt35"] = with_gpt3(rows, conf_lists)
    base_lists = [np.abs(r.p_adjusted - 0.5) for r in rows]
    figures["cascade_simulated_baseline"] = simulate(rows, base_lists, args.draws)
    figures["cascade_simulated_rows"] = simulate(rows, conf_r, args.draws)
    report(figures)
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1), encoding="utf-8")
    if args.svg:
        args.svg.write_text(risk_coverage_svg(figures), encoding="utf-8")
    if args.confidence_out:
        sentence, claim = fit_sentence_models(everything)
        row = fit_row_model(everything, _inner_oof(everything))
        out = args.confidence_out
        meta = {
            "written": datetime.date.today().isoformat(),
            "by": "training/rebuild.py (benchmarks/confidence.py --confidence-out)",
            "fitted_on": f"{len(rows)} held-out RAGBench rows and {len(twins)} held-out twins",
            "features": {"sentence": SENTENCE_FEATURES, "claim": CLAIM_FEATURES, "row": ROW_FEATURES},
            "held_out": {k: figures[k] for k in ("sentence", "row")},
        }
        data = {"sentence": sentence.__dict__, "claim": claim.__dict__, "row": row.__dict__, "metadata": meta}
        out.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {out}")


def report(figures: dict) -> None:
    for kind in ("sentence", "row"):
        rows = []
        for name in ("baseline", "confidence", "baseline_unweighted", "confidence_unweighted"):
            f = figures[kind][name]
            rows.append(
                [
                    name,
                    f["overall_error"],
                    *(
                        f"{f[f'error_top_{round(100 * (1 - b))}']:.3f} ({f[f'ratio_top_{round(100 * (1 - b))}']:.2f}x)"
                        for b in BUDGETS
                    ),
                    f["aurc"],
                ]
            )
        head = ["confidence", "error, all", *(f"top {round(100 * (1 - b))} %" for b in BUDGETS), "AURC"]
        print(f"\n{kind} verdicts (balanced by row label; _unweighted: as the rows come)\n" + format_table(head, rows))
        cal = figures[kind]["calibration"]
        print(f"ECE {cal['ece']} (unweighted {figures[kind]['calibration_unweighted']['ece']})")
        print(format_table(["bin", "share", "confidence", "right"], [list(t.values()) for t in cal["table"]]))
    for name in ("cascade_simulated", "cascade_simulated_baseline", "cascade_simulated_rows", "cascade_gpt35"):
        print(f"\n{name}")
        print(
            format_table(
                [
                    "escalated",
                    "row bal. acc.",
                    "95% CI",
                    "AUROC",
                    "gap closed",
                    "calls/1k",
                    "tokens/1k",
                    "all-LLM tokens/1k",
                ],
                [
                    [
                        t["share"],
                        t["balanced_accuracy"],
                        f"{t['ci'][0]:.3f}-{t['ci'][1]:.3f}",
                        t["auroc"],
                        t["gap_closed"],
                        t["calls"],
                        t["prompt_tokens"] + t["completion_tokens"],
                        t["all_llm_prompt_tokens"] + t["all_llm_completion_tokens"],
                    ]
                    for t in figures[name]
                ],
            )
        )


if __name__ == "__main__":
    main()
