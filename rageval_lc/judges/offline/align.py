"""Fit the offline judge to a user's labelled rows, shrunk toward the shipped parameters (pure numpy).

Each of the judge's small models (:mod:`~rageval_lc.judges.offline.model`) is refitted by penalised maximum
likelihood with its shipped coefficients as the centre of the penalty: ``strength`` is how many rows' worth of
belief the shipped model carries. Keeping the shipped standardiser, the refit only moves weights the new rows
give evidence for; with ``strength = inf`` nothing moves. :func:`fit_aligned` picks each model's strength by
grouped cross-validation on the rows it is given, so 30 rows move the judge a little and 300 move it more, and a
model whose rows do not help keeps its shipped weights.

Example:
    >>> prior = Logistic(mean=[0.0], scale=[1.0], coef=[0.0], intercept=0.0)
    >>> x, y = np.array([[-1.0], [1.0], [-1.0], [1.0]]), np.array([0, 1, 0, 1])
    >>> round(shrunk_logistic(prior, x, y, strength=math.inf).coef[0], 3)  # the prior, untouched
    0.0
    >>> shrunk_logistic(prior, x, y, strength=1.0).coef[0] > 0.5  # four rows say: larger x, more positive
    True
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from rageval_lc.judges.offline.model import (
    Linear,
    LocalParams,
    Logistic,
    adherence_row_features,
    completeness_row_features,
    expand,
    share_row_features,
)

__all__ = ["MODELS", "STRENGTHS", "AlignItem", "fit_aligned", "shrunk_linear", "shrunk_logistic"]

#: The strengths cross-validation chooses from (rows' worth of belief in the shipped model; inf: keep it).
STRENGTHS = (math.inf, 300.0, 100.0, 30.0, 10.0, 3.0)
_FOLDS = 5
_INTERCEPT_SHARE = 0.1  # the intercept is held 10 times more loosely: a domain's base rate moves first


@dataclass(frozen=True)
class AlignItem:
    """One labelled sample as the fitter reads it: the judge's feature tables and what the labels say.

    ``relevant`` / ``utilized``: the document sentence keys labelled so (None: not labelled); ``unsupported``: the
    response sentence keys labelled unsupported (None: not labelled); ``hallucinated``: the row-level verdict
    (None: not labelled); ``scores``: row-level 0–1 scores by name (``context_relevance``,
    ``context_utilization``, ``completeness``); ``group``: what keeps near-duplicates on one side of a split;
    ``sentences``: the sample's keyed sentences (what TRACe scores are counted on).
    """

    features: Any  # SampleFeatures, the NLI pass included
    group: str
    sentences: Any = None
    relevant: frozenset[str] | None = None
    utilized: frozenset[str] | None = None
    unsupported: frozenset[str] | None = None
    hallucinated: bool | None = None
    scores: dict[str, float] = dataclasses.field(default_factory=dict)


def _design(model: Logistic | Linear, x: np.ndarray) -> np.ndarray:
    """The standardised (and expanded) inputs the model's coefficients multiply."""
    x = np.atleast_2d(np.asarray(x, dtype=float))
    if model.columns is not None:
        x = x[:, model.columns]
    z = (x - np.asarray(model.mean)) / np.asarray(model.scale)
    return expand(z) if model.expanded else z


def _penalised_problem(
    prior: Logistic | Linear, x: np.ndarray, y: np.ndarray, w: np.ndarray | None, strength: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """What both refits solve: the design with an intercept column, the weights (summing to the row count), the
    prior's coefficients and intercept (the centre), and each one's penalty (the intercept's a tenth)."""
    z = np.hstack([_design(prior, x), np.ones((len(y), 1))])
    w = np.ones(len(y)) if w is None else np.asarray(w, dtype=float) * len(y) / np.sum(w)
    centre = np.append(np.asarray(prior.coef, dtype=float), prior.intercept)
    penalty = np.full(len(centre), strength)
    penalty[-1] *= _INTERCEPT_SHARE
    return z, w, centre, penalty


def shrunk_logistic(
    prior: Logistic, x: np.ndarray, y: np.ndarray, w: np.ndarray | None = None, *, strength: float
) -> Logistic:
    """``prior`` refitted on ``(x, y)`` (sample weights ``w``, summing to the row count by default): the
    log-likelihood plus ``strength / 2 · |coef − prior.coef|²`` (the intercept at a tenth of it), by Newton's
    method with step halving (the penalised objective never rises, so it converges from the prior however far
    the rows pull). ``strength = inf`` (or no rows, or one class only) returns ``prior``."""
    y = np.asarray(y, dtype=float)
    if math.isinf(strength) or len(y) == 0 or y.min() == y.max():
        return prior
    z, w, centre, penalty = _penalised_problem(prior, x, y, w, strength)

    def objective(b: np.ndarray) -> float:
        s = z @ b  # -log-likelihood, computed without overflow: log(1 + e^s) - y s
        return float(np.sum(w * (np.logaddexp(0.0, s) - y * s)) + 0.5 * np.sum(penalty * (b - centre) ** 2))

    beta, value = centre.copy(), objective(centre)
    for _ in range(100):
        p = 0.5 * (1.0 + np.tanh(0.5 * (z @ beta)))  # the logistic function, stable for any score
        gradient = z.T @ (w * (p - y)) + penalty * (beta - centre)
        hessian = (z * (w * p * (1 - p))[:, None]).T @ z + np.diag(penalty)
        step = np.linalg.solve(hessian, gradient)
        scale = 1.0
        while objective(beta - scale * step) > value and scale > 1e-6:  # damped: never a step uphill
            scale /= 2
        if scale <= 1e-6:
            break
        beta, value = beta - scale * step, objective(beta - scale * step)
        if np.abs(scale * step).max() < 1e-8:
            break
    return dataclasses.replace(prior, coef=beta[:-1].tolist(), intercept=float(beta[-1]))


def shrunk_linear(
    prior: Linear, x: np.ndarray, y: np.ndarray, w: np.ndarray | None = None, *, strength: float
) -> Linear:
    """``prior`` refitted on ``(x, y)`` by ridge regression toward its own coefficients (closed form); the
    penalty as :func:`shrunk_logistic`'s. ``strength = inf`` (or no rows) returns ``prior``."""
    y = np.asarray(y, dtype=float)
    if math.isinf(strength) or len(y) == 0:
        return prior
    z, w, centre, penalty = _penalised_problem(prior, x, y, w, strength)
    lhs = (z * w[:, None]).T @ z + np.diag(penalty)
    beta = np.linalg.solve(lhs, (z * w[:, None]).T @ y + penalty * centre)
    return dataclasses.replace(prior, coef=beta[:-1].tolist(), intercept=float(beta[-1]))


def _folds(groups: Sequence[str], count: int = _FOLDS) -> list[np.ndarray]:
    """Each group's fold (0 … count − 1), groups dealt round-robin in a fixed order: a group never splits."""
    order = {g: i % count for i, g in enumerate(sorted(set(groups)))}
    return [np.array([order[g] == k for g in groups]) for k in range(count)]


def _log_loss(p: np.ndarray, y: np.ndarray) -> np.ndarray:
    p = np.clip(p, 1e-6, 1 - 1e-6)
    return -(y * np.log(p) + (1 - y) * np.log(1 - p))


def _choose(
    fit: Callable[[float, np.ndarray], object],
    loss: Callable[[object, np.ndarray], np.ndarray],
    rows_of: np.ndarray,
    groups: Sequence[str],
) -> float:
    """The strength grouped cross-validation chooses (``fit(strength, train_mask)``; ``loss(model, test_mask)``:
    the loss of each test row; masks over the table's rows, whose samples are ``rows_of``), by the one-standard-
    error rule: the strongest pull toward the shipped model whose held-out loss is within one standard error
    (of the paired difference, per sample) of the least. Few rows and a noisy gain keep the shipped model."""
    folds = [fold[rows_of] for fold in _folds(groups)]
    folds = [fold for fold in folds if fold.any() and (~fold).any()]
    if len(folds) < 2:
        return math.inf
    losses = {}
    for s in STRENGTHS:
        per_row = np.zeros(len(rows_of))
        for fold in folds:
            per_row[fold] = loss(fit(s, ~fold), fold)
        samples = np.unique(rows_of)
        losses[s] = np.array([per_row[rows_of == i].sum() for i in samples])  # per sample: samples are the units
    best = min(STRENGTHS, key=lambda s: losses[s].sum())
    if len(losses[best]) < 2:
        return best
    for s in STRENGTHS:  # strongest first
        diff = losses[s] - losses[best]
        if diff.mean() <= diff.std(ddof=1) / math.sqrt(len(diff)):
            return s
    return best


def _completeness_row(item: AlignItem, params: LocalParams) -> np.ndarray:
    """The completeness model's inputs for one sample, from the key sets ``params`` choose (as the judge does)."""
    from rageval_lc.judges.offline.judge import _top_keys

    f = item.features
    m = len(f.response_keys)
    p_rel, p_use = params.relevance.predict(f.documents), params.utilization.predict(f.documents)
    share_rel = float(params.relevance_share.predict(share_row_features(p_rel, f.documents, m))[0])
    share_use = float(params.utilization_share.predict(share_row_features(p_use, f.documents, m))[0])
    relevant = set(_top_keys(f.document_keys, p_rel, share_rel))
    utilized = set(_top_keys(f.document_keys, p_use, share_use))
    return completeness_row_features(p_rel, p_use, len(relevant), len(utilized), len(relevant & utilized), m)


#: The models :func:`fit_aligned` may refit.
MODELS = (
    "relevance",
    "utilization",
    "relevance_share",
    "utilization_share",
    "completeness",
    "support",
    "hallucination",
)


def fit_aligned(
    items: Sequence[AlignItem], shipped: LocalParams, models: Sequence[str] = MODELS
) -> tuple[LocalParams, dict[str, float]]:
    """``shipped`` refitted on ``items``: each of ``models`` the labels speak to, with the strength grouped
    cross-validation chooses (:data:`STRENGTHS`); the rest, and every threshold, stay as shipped.

    Returns the parameters and the chosen strength per refitted model (inf: kept).
    """
    from rageval_lc.judges.offline.judge import closest_documents, nli_adjusted

    groups = [it.group for it in items]
    chosen: dict[str, float] = {}
    params = shipped
    # relevance / utilization of each document sentence, then the shares built on them
    for name, attr in (("relevance", "relevant"), ("utilization", "utilized")):
        labelled = [i for i, it in enumerate(items) if getattr(it, attr) is not None]
        if not labelled or name not in models:
            continue
        x = np.vstack([items[i].features.documents for i in labelled])
        y = np.array([k in getattr(items[i], attr) for i in labelled for k in items[i].features.document_keys])
        of = np.concatenate([np.full(len(items[i].features.document_keys), j) for j, i in enumerate(labelled)])
        sub_groups = [groups[i] for i in labelled]
        prior = getattr(shipped, name)
        strength = _choose(
            lambda s, m, x=x, y=y, prior=prior: shrunk_logistic(prior, x[m], y[m], strength=s),
            lambda model, m, x=x, y=y: _log_loss(model.predict(x[m]), y[m]),
            of,
            sub_groups,
        )
        chosen[name] = strength
        params = dataclasses.replace(params, **{name: shrunk_logistic(prior, x, y, strength=strength)})
    for name, score in (("relevance", "context_relevance"), ("utilization", "context_utilization")):
        labelled = [it for it in items if score in it.scores and len(it.features.document_keys)]
        if not labelled or f"{name}_share" not in models:
            continue
        model = getattr(params, name)
        x = np.array(
            [
                share_row_features(
                    model.predict(it.features.documents), it.features.documents, len(it.features.response_keys)
                )
                for it in labelled
            ]
        )
        y = np.array([it.scores[score] for it in labelled])
        prior = getattr(shipped, f"{name}_share")
        strength = _choose(
            lambda s, m, x=x, y=y, prior=prior: shrunk_linear(prior, x[m], y[m], strength=s),
            lambda model, m, x=x, y=y: (np.clip(model.predict(x[m]), 0, 1) - y[m]) ** 2,
            np.arange(len(labelled)),
            [it.group for it in labelled],
        )
        chosen[f"{name}_share"] = strength
        params = dataclasses.replace(params, **{f"{name}_share": shrunk_linear(prior, x, y, strength=strength)})
    # completeness from the (possibly refitted) relevance and utilization predictions, as the judge computes it
    labelled_rows = [it for it in items if "completeness" in it.scores and len(it.features.document_keys)]
    if labelled_rows and "completeness" in models and shipped.completeness is not None:
        x = np.array([_completeness_row(it, params) for it in labelled_rows])
        y = np.array([it.scores["completeness"] for it in labelled_rows])
        prior = shipped.completeness
        strength = _choose(
            lambda s, m: shrunk_linear(prior, x[m], y[m], strength=s),
            lambda model, m: (np.clip(model.predict(x[m]), 0, 1) - y[m]) ** 2,
            np.arange(len(labelled_rows)),
            [it.group for it in labelled_rows],
        )
        chosen["completeness"] = strength
        params = dataclasses.replace(params, completeness=shrunk_linear(prior, x, y, strength=strength))
    # support of each response sentence, then P(hallucinated) from the sentences' adjusted probabilities
    unsupported = [
        it.unsupported if it.unsupported is not None else (frozenset() if it.hallucinated is False else None)
        for it in items
    ]  # a faithful row: every sentence supported
    labelled = [i for i, it in enumerate(items) if unsupported[i] is not None and len(it.features.response_keys)]
    if labelled and "support" in models:
        x = np.vstack([items[i].features.support_inputs for i in labelled])
        y = np.array([k in unsupported[i] for i in labelled for k in items[i].features.response_keys])
        of = np.concatenate([np.full(len(items[i].features.response_keys), j) for j, i in enumerate(labelled)])
        strength = _choose(
            lambda s, m: shrunk_logistic(shipped.support, x[m], y[m], strength=s),
            lambda model, m: _log_loss(model.predict(x[m]), y[m]),
            of,
            [groups[i] for i in labelled],
        )
        chosen["support"] = strength
        params = dataclasses.replace(params, support=shrunk_logistic(shipped.support, x, y, strength=strength))
    rows = [it for it in items if it.hallucinated is not None and len(it.features.response_keys)]
    if rows and "hallucination" in models:

        def row_features(it: AlignItem) -> np.ndarray:
            p = params.support.predict(it.features.support_inputs)
            adjusted = nli_adjusted(p, it.features.nli_verdicts, params, closest_documents(it.features))[0]
            return adherence_row_features(adjusted)

        x = np.array([row_features(it) for it in rows])
        y = np.array([it.hallucinated for it in rows], dtype=float)
        strength = _choose(
            lambda s, m: shrunk_logistic(shipped.hallucination, x[m], y[m], strength=s),
            lambda model, m: _log_loss(model.predict(x[m]), y[m]),
            np.arange(len(rows)),
            [it.group for it in rows],
        )
        chosen["hallucination"] = strength
        params = dataclasses.replace(
            params, hallucination=shrunk_logistic(shipped.hallucination, x, y, strength=strength)
        )
    return params, chosen
