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
    expand,
    question_share_row_features,
    share_row_features,
)

__all__ = [
    "MODELS",
    "STRENGTHS",
    "AlignItem",
    "balanced_threshold",
    "fit_aligned",
    "shrunk_linear",
    "shrunk_logistic",
]

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
    ``sentences``: the sample's keyed sentences (what TRACe scores are counted on); ``verdicts``: the NLI pass's
    verdicts on its response sentences, one each (beside the features, as the judge returns them).
    """

    features: Any  # SampleFeatures, the NLI pass's table included
    group: str
    verdicts: tuple[Any, ...] = ()  # SentenceNli
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


def balanced_threshold(scores: np.ndarray, truth: np.ndarray, current: float) -> float:
    """The threshold ``t`` (a row is positive when its score is at least ``t``) with the highest balanced accuracy
    against ``truth``: the midpoints between adjacent scores and ``current`` are tried; a tie goes to the one
    closest to ``current``, and so does one class only. A score of ``-inf`` is never positive (a verdict fixed
    whatever the threshold, such as a row a contradiction forces).

    Example:
        >>> balanced_threshold(np.array([0.2, 0.4, 0.6, 0.9]), np.array([False, False, True, True]), 0.8)
        0.5
    """
    scores, truth = np.asarray(scores, dtype=float), np.asarray(truth, dtype=bool)
    if truth.all() or not truth.any():
        return current
    finite = np.unique(scores[np.isfinite(scores)])
    candidates = np.append((finite[:-1] + finite[1:]) / 2, current)
    positive = scores[None, :] >= candidates[:, None]
    balanced = (positive[:, truth].mean(axis=1) + (~positive[:, ~truth]).mean(axis=1)) / 2
    best = np.flatnonzero(balanced >= balanced.max() - 1e-12)
    return float(candidates[min(best, key=lambda i: (abs(candidates[i] - current), candidates[i]))])


def _out_of_fold(
    fit: Callable[[np.ndarray], Any],
    predict: Callable[[Any, np.ndarray], np.ndarray],
    rows_of: np.ndarray,
    groups: Sequence[str],
    size: int,
) -> np.ndarray:
    """Each table row's prediction by a model fitted without its group's fold (``fit(train_mask)``,
    ``predict(model, test_mask)``); the model fitted on every row where the folds leave nothing to fit on."""
    out = np.zeros(size)
    folds = [fold[rows_of] for fold in _folds(groups)]
    for fold in folds:
        if fold.any():
            out[fold] = predict(fit(~fold) if (~fold).any() else fit(np.ones(size, dtype=bool)), fold)
    return out


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
    from rageval_lc.judges.offline.decision import context_decision

    context = context_decision(item.features, params, matched=False)
    return context.completeness_inputs(len(item.features.response_keys))


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


def _adjusted(item: AlignItem, p_unsupported: np.ndarray, params: LocalParams) -> tuple[np.ndarray, bool]:
    """One item's sentence probabilities after the NLI verdicts, as the judge computes them (a sentence that makes
    no claim is never unsupported), and whether a contradiction forces its row's verdict (unsupported, whatever the
    threshold)."""
    from rageval_lc.judges.offline.decision import claim_mask, closest_documents, nli_adjusted

    features = item.features
    if len(item.verdicts) != len(features.response_keys):
        msg = (
            f"An item of group {item.group!r} has {len(item.verdicts)} NLI verdicts for "
            f"{len(features.response_keys)} response sentences: give AlignItem the verdicts OfflineJudge.features "
            "returns beside the features."
        )
        raise ValueError(msg)
    adjusted, flags = nli_adjusted(
        p_unsupported, item.verdicts, params, closest_documents(features), claim_mask(features)
    )
    return adjusted, any(flags)


def _spread(p_claims: np.ndarray, claims: np.ndarray) -> np.ndarray:
    """Per sentence: the claims' probabilities in their places, 0 for a sentence that makes none."""
    out = np.zeros(len(claims))
    out[claims] = p_claims
    return out


def fit_aligned(
    items: Sequence[AlignItem], shipped: LocalParams, models: Sequence[str] = MODELS
) -> tuple[LocalParams, dict[str, float]]:
    """``shipped`` refitted on ``items``: each of ``models`` the labels speak to, with the strength grouped
    cross-validation chooses (:data:`STRENGTHS`); the rest stay as shipped. A refitted probability model takes
    its decision threshold with it (the support model ``support_threshold``; the support or hallucination model
    ``adherence_threshold``): the one with the best balanced accuracy on the items' out-of-fold predictions
    (:func:`balanced_threshold`), so the verdicts the aligned judge gives match the probabilities it computes.
    The other thresholds stay as shipped.

    Returns the parameters and the chosen strength per refitted model (inf: kept).
    """
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
                question_share_row_features(model.predict(it.features.documents), it.features.documents)
                if name == "relevance"  # relevance belongs to the question (SPEC §6), as the judge reads it
                else share_row_features(
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
    # the sentences that make a claim (the judge never calls another unsupported): the model and its threshold
    # are fitted on them alone, as the calibration fits the shipped ones
    from rageval_lc.judges.offline.decision import claim_mask

    claims = {i: claim_mask(items[i].features) for i in range(len(items)) if unsupported[i] is not None}
    labelled = [i for i in claims if claims[i].any()]
    if labelled and "support" in models:
        x = np.vstack([items[i].features.support_inputs[claims[i]] for i in labelled])
        y = np.array(
            [
                k in unsupported[i]
                for i in labelled
                for k, claim in zip(items[i].features.response_keys, claims[i], strict=True)
                if claim
            ]
        )
        of = np.concatenate([np.full(int(claims[i].sum()), j) for j, i in enumerate(labelled)])
        sub_groups = [groups[i] for i in labelled]
        strength = _choose(
            lambda s, m: shrunk_logistic(shipped.support, x[m], y[m], strength=s),
            lambda model, m: _log_loss(model.predict(x[m]), y[m]),
            of,
            sub_groups,
        )
        chosen["support"] = strength
        params = dataclasses.replace(params, support=shrunk_logistic(shipped.support, x, y, strength=strength))
        if not math.isinf(strength):  # the sentence threshold, refitted with the model on predictions out of fold
            raw = _out_of_fold(
                lambda m: shrunk_logistic(shipped.support, x[m], y[m], strength=strength),
                lambda model, m: model.predict(x[m]),
                of,
                sub_groups,
                len(y),
            )
            adjusted = np.concatenate(
                [
                    _adjusted(items[i], _spread(raw[of == j], claims[i]), params)[0][claims[i]]
                    for j, i in enumerate(labelled)
                ]
            )
            params = dataclasses.replace(
                params, support_threshold=balanced_threshold(adjusted, y, shipped.support_threshold)
            )
    rows = [it for it in items if it.hallucinated is not None and len(it.features.response_keys)]
    if rows and "hallucination" in models:
        adjusted_rows = [_adjusted(it, params.support.predict(it.features.support_inputs), params) for it in rows]
        from rageval_lc.judges.offline.decision import answer_inputs  # the row model's inputs, as the judge reads them

        x = np.array(
            [answer_inputs(it.features, adj, params) for it, (adj, _) in zip(rows, adjusted_rows, strict=True)]
        )
        y = np.array([it.hallucinated for it in rows], dtype=float)
        row_groups = [it.group for it in rows]
        strength = _choose(
            lambda s, m: shrunk_logistic(shipped.hallucination, x[m], y[m], strength=s),
            lambda model, m: _log_loss(model.predict(x[m]), y[m]),
            np.arange(len(rows)),
            row_groups,
        )
        chosen["hallucination"] = strength
        params = dataclasses.replace(
            params, hallucination=shrunk_logistic(shipped.hallucination, x, y, strength=strength)
        )
        if not (math.isinf(strength) and math.isinf(chosen.get("support", math.inf))):
            # a refitted probability moves its decision threshold with it: chosen on the fitted rows, each row's
            # probability from a model that did not see it (out of fold), a contradiction forcing its verdict
            p_hallucinated = _out_of_fold(
                lambda m: shrunk_logistic(shipped.hallucination, x[m], y[m], strength=strength),
                lambda model, m: model.predict(x[m]),
                np.arange(len(rows)),
                row_groups,
                len(y),
            )
            adherent = np.array(
                [-np.inf if forced else 1.0 - p for p, (_, forced) in zip(p_hallucinated, adjusted_rows, strict=True)]
            )
            threshold = balanced_threshold(adherent, y == 0, shipped.adherence_threshold)
            params = dataclasses.replace(params, adherence_threshold=threshold)
    return params, chosen
