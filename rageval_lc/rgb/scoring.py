"""RGB scoring (Chen et al., AAAI 2024): noise robustness, negative rejection, information integration and
counterfactual robustness — pure rules, no model.

Two modes (docs/metrics/rgb.md, "Scoring predictions"):

* ``official`` (default) — the benchmark's own ``evalue.py``: a response containing ``insufficient
  information`` (case-sensitive) is a rejection, labelled ``[-1]``, before anything else; otherwise each
  top-level answer element gets 1 if it occurs in the lower-cased response (an element that is a list is
  satisfied by any one alternative) and 0 if not. A row is correct when its labels hold no 0 and at least
  one 1. ``factual errors`` (case-sensitive) marks error detection; a detected row whose labels hold no
  0 is corrected — a rejection included, as the script counts it. Error correction = corrected / detected.
* ``lenient`` — the rules of RGB's own evaluation script (Chen et al., AAAI 2024): normalised substring match
  both ways or 80 % token overlap, its rejection phrases and keywords, its error-detection keywords; every rate is
  over all samples.

Example:
    >>> official_labels("The winner was Novak Djokovic.", ["Novak Djokovic"])
    [1]
    >>> official_labels("Insufficient information in documents.", "Djokovic")  # capital I: not a rejection
    [0]
    >>> official_labels("I can not answer because of the insufficient information in documents.", "Djokovic")
    [-1]
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal, get_args

from rageval_lc._validation import check_choice

__all__ = [
    "RESULT_HEADERS",
    "RESULT_LEGEND",
    "RGB_MODES",
    "RGB_TASKS",
    "EvaluationResult",
    "RgbJudgement",
    "RgbMode",
    "RgbRow",
    "check_answer",
    "format_results",
    "judge_row",
    "lenient_corrects_error",
    "lenient_detects_error",
    "lenient_is_correct",
    "lenient_is_rejection",
    "normalize_answer",
    "official_labels",
    "result_rows",
    "score_rgb",
]

RgbMode = Literal["official", "lenient"]
RGB_MODES: tuple[str, ...] = get_args(RgbMode)
RGB_TASKS: tuple[str, ...] = (
    "noise_robustness",
    "negative_rejection",
    "information_integration",
    "counterfactual_robustness",
)
#: An RGB answer: a string, a list of required elements, each a string or a list of alternatives.
Answer = str | Sequence[str | Sequence[str]]

OFFICIAL_REJECTION = "insufficient information"
OFFICIAL_ERROR_DETECTION = "factual errors"

# --- official rules (evalue.py) ---------------------------------------------------------------------


def check_answer(prediction: str, answer: Answer) -> list[int]:
    """One label per top-level answer element: 1 if found in the lower-cased prediction, else 0.

    Example:
        >>> check_answer("It was on Jan 2, 2022 in Paris.", [["January 2 2022", "Jan 2, 2022"], "Paris"])
        [1, 1]
        >>> check_answer("In Paris.", ["Paris", "Lyon"])
        [1, 0]
    """
    prediction = prediction.lower()
    elements = [answer] if isinstance(answer, str) else list(answer)
    labels = []
    for element in elements:
        if isinstance(element, str):
            labels.append(int(element.lower() in prediction))
        else:
            labels.append(int(any(alternative.lower() in prediction for alternative in element)))
    return labels


def official_labels(prediction: str, answer: Answer) -> list[int]:
    """``[-1]`` for a rejection (checked first, case-sensitive), else :func:`check_answer`."""
    if OFFICIAL_REJECTION in prediction:
        return [-1]
    return check_answer(prediction, answer)


# --- lenient rules (RGB's own evaluation script) ----------------------------------------------------------------------

PRIMARY_REJECTION_PHRASES = (
    "i can not answer the question because of the insufficient information in documents",
    "insufficient information in documents",
    "can not answer",
    "cannot answer",
)
REJECTION_KEYWORDS = (
    "i don't know",
    "i cannot",
    "i can't",
    "unable to",
    "not able to",
    "insufficient information",
    "no information",
    "cannot determine",
    "cannot answer",
    "not enough information",
    "don't have enough",
    "unable to determine",
    "cannot find",
    "no relevant",
    "not mentioned",
    "not provided",
    "not specified",
    "unclear",
    "unknown",
    "i'm not sure",
    "i am not sure",
    "cannot be determined",
    "information is not available",
    "does not provide",
)
ERROR_DETECTION_KEYWORDS = (
    "incorrect",
    "wrong",
    "false",
    "error",
    "mistake",
    "inaccurate",
    "not true",
    "not correct",
    "factually incorrect",
    "contradicts",
    "actually",
    "in fact",
    "however",
    "but actually",
    "the correct answer",
    "should be",
)


def normalize_answer(text: str) -> str:
    """Lower-case, strip, drop trailing punctuation, collapse spaces.

    Example:
        >>> normalize_answer("  The capital is Paris!!! ")
        'the capital is paris'
    """
    text = re.sub(r"[.!?,;:]+$", "", text.lower().strip())
    return " ".join(text.split())


def _lenient_match(response: str, truth: str, *, strict: bool = False) -> bool:
    norm_response, norm_truth = normalize_answer(response), normalize_answer(truth)
    if not norm_response or not norm_truth:
        return False
    if strict:
        return norm_response == norm_truth
    if norm_truth in norm_response:
        return True
    if len(norm_response) < len(norm_truth) and norm_response in norm_truth:
        return True
    truth_tokens = set(norm_truth.split())
    overlap = len(truth_tokens & set(norm_response.split())) / len(truth_tokens)
    return overlap >= 0.8


def lenient_is_correct(response: str, answer: Answer, *, strict: bool = False) -> bool:
    """The reference's ``is_correct``; for list answers every element must match, alternatives any-of.

    Example:
        >>> lenient_is_correct("The capital of France is Paris.", "Paris")
        True
        >>> lenient_is_correct("Paris", "the city of Paris")  # the short answer inside the long one
        True
    """
    return all(bool(label) for label in lenient_labels(response, answer, strict=strict))


def lenient_labels(response: str, answer: Answer, *, strict: bool = False) -> list[int]:
    """Per top-level answer element, 1 if the lenient match succeeds (any alternative), else 0."""
    elements = [answer] if isinstance(answer, str) else list(answer)
    labels = []
    for element in elements:
        options = [element] if isinstance(element, str) else list(element)
        labels.append(int(any(_lenient_match(response, o, strict=strict) for o in options)))
    return labels


def lenient_is_rejection(response: str) -> bool:
    """The reference's ``is_rejection``: its primary phrases, then its keywords, in the lower-cased response."""
    text = response.lower().strip()
    return any(p in text for p in PRIMARY_REJECTION_PHRASES) or any(k in text for k in REJECTION_KEYWORDS)


def lenient_detects_error(response: str, counterfactual_answer: str | None) -> bool:
    """The reference's ``detects_error``: its keywords, or ``not X`` / ``X is wrong`` for the counterfactual X."""
    text = response.lower()
    if any(keyword in text for keyword in ERROR_DETECTION_KEYWORDS):
        return True
    if counterfactual_answer:
        cf = counterfactual_answer.lower()
        return f"not {cf}" in text or f"{cf} is wrong" in text
    return False


def lenient_corrects_error(response: str, answer: Answer, counterfactual_answer: str | None) -> bool:
    """The reference's ``corrects_error``: the correct answer given, and not only the counterfactual."""
    if not lenient_is_correct(response, answer):
        return False
    if counterfactual_answer:
        norm_response = normalize_answer(response)
        truths = (
            [answer]
            if isinstance(answer, str)
            else [a for element in answer for a in ([element] if isinstance(element, str) else element)]
        )
        correct_present = any(normalize_answer(t) in norm_response for t in truths)
        if normalize_answer(counterfactual_answer) in norm_response and not correct_present:
            return False
    return True


# --- rows, judgements, results ------------------------------------------------------------------------


@dataclass(frozen=True)
class RgbRow:
    """One scored prediction: the task, the noise ratio, the expected answer and the system's prediction."""

    prediction: str
    answer: Any
    task: str
    noise_ratio: float = 0.0
    counterfactual_answer: str | None = None
    id: str | None = None

    @classmethod
    def from_dict(cls, data: Any) -> RgbRow:
        """A row from its JSON object (``rageval rgb score`` input): ``prediction``, ``answer`` and ``task``
        required, ``noise_ratio`` (default 0), ``counterfactual_answer`` and ``id`` optional.

        Example:
            >>> RgbRow.from_dict({"prediction": "Paris.", "answer": "Paris", "task": "noise_robustness", "id": 3})
            RgbRow(prediction='Paris.', answer='Paris', task='noise_robustness', noise_ratio=0.0, \
counterfactual_answer=None, id='3')

        Raises:
            TypeError: If the row is not an object, ``prediction`` not a string or ``noise_ratio`` not a number.
            KeyError: If a required field is missing.
        """
        if not isinstance(data, dict):
            raise TypeError(f"a row must be a JSON object, got {type(data).__name__}")
        missing = [f for f in ("prediction", "answer", "task") if f not in data]
        if missing:
            raise KeyError(f"the row lacks {missing}")
        if not isinstance(data["prediction"], str):
            raise TypeError(f"'prediction' must be a string, got {type(data['prediction']).__name__}")
        ratio = data.get("noise_ratio", 0.0)
        if isinstance(ratio, bool) or not isinstance(ratio, (int, float)):
            raise TypeError(f"'noise_ratio' must be a number, got {ratio!r}")
        return cls(
            prediction=data["prediction"],
            answer=data["answer"],
            task=data["task"],
            noise_ratio=float(ratio),
            counterfactual_answer=data.get("counterfactual_answer"),
            id=None if data.get("id") is None else str(data["id"]),
        )


@dataclass(frozen=True)
class RgbJudgement:
    """Per-row verdicts: the labels and the four booleans behind every rate."""

    id: str | None
    labels: list[int]
    rejected: bool
    correct: bool
    error_detected: bool
    error_corrected: bool

    def to_dict(self) -> dict[str, Any]:
        """The fields as JSON-ready data (``rageval rgb score --out`` lines)."""
        return asdict(self)


def judge_row(row: RgbRow, *, mode: RgbMode = "official") -> RgbJudgement:
    """Apply one mode's rules to one row.

    Example (the official quirk: detecting the error and rejecting counts as a correction):
        >>> j = judge_row(RgbRow("There are factual errors in the provided documents. I can not answer because "
        ...                      "of the insufficient information in documents.", "Paris",
        ...                      "counterfactual_robustness", counterfactual_answer="London"))
        >>> j.labels, j.error_detected, j.error_corrected, j.correct
        ([-1], True, True, False)
    """
    check_choice(mode, RGB_MODES, name="mode", caller="judge_row")
    if mode == "official":
        labels = official_labels(row.prediction, row.answer)
        rejected = labels == [-1]
        correct = 0 not in labels and 1 in labels
        detected = OFFICIAL_ERROR_DETECTION in row.prediction
        corrected = detected and 0 not in labels
        return RgbJudgement(row.id, labels, rejected, correct, detected, corrected)
    labels = lenient_labels(row.prediction, row.answer)  # mode == "lenient" (checked above)
    rejected = lenient_is_rejection(row.prediction)
    detected = lenient_detects_error(row.prediction, row.counterfactual_answer)
    corrected = lenient_corrects_error(row.prediction, row.answer, row.counterfactual_answer)
    # the reference counts a counterfactual row correct when it is corrected
    correct = corrected if row.task == "counterfactual_robustness" else all(labels)
    return RgbJudgement(row.id, labels, rejected, correct, detected, corrected)


@dataclass
class EvaluationResult:
    """The reference's ``EvaluationResult``: counts, ``accuracy_by_noise``, and the rates as percentages.

    ``all_rate`` is the benchmark script's headline figure: accuracy below noise ratio 1; at ratio 1 it
    counts rejections and correct answers together, while ``rejection_rate`` counts rejections only.
    ``error_correction_rate`` is over detected rows in ``official`` mode and over all rows in ``lenient``.
    """

    task_type: str
    model_name: str = ""
    total_samples: int = 0
    correct: int = 0
    incorrect: int = 0
    rejected: int = 0
    errors_detected: int = 0
    errors_corrected: int = 0
    accuracy_by_noise: dict[int, float] = field(default_factory=dict)
    mode: str = "official"
    noise_ratio: float | None = None

    @property
    def accuracy(self) -> float:
        return 100.0 * self.correct / self.total_samples if self.total_samples else 0.0

    @property
    def rejection_rate(self) -> float:
        return 100.0 * self.rejected / self.total_samples if self.total_samples else 0.0

    @property
    def error_detection_rate(self) -> float:
        return 100.0 * self.errors_detected / self.total_samples if self.total_samples else 0.0

    @property
    def error_correction_rate(self) -> float:
        base = self.errors_detected if self.mode == "official" else self.total_samples
        return 100.0 * self.errors_corrected / base if base else 0.0

    @property
    def all_rate(self) -> float:
        if self.noise_ratio == 1.0 and self.mode == "official":
            both = self.rejected + self.correct
            return 100.0 * both / self.total_samples if self.total_samples else 0.0
        return self.accuracy

    def to_dict(self) -> dict[str, Any]:
        """Counts and rates as JSON-ready data (:data:`_RESULT_KEYS` in order, then ``accuracy_by_noise``)."""
        figures = {key: getattr(self, key) for key in _RESULT_KEYS}
        return {**figures, "accuracy_by_noise": {str(k): v for k, v in self.accuracy_by_noise.items()}}


#: What :meth:`EvaluationResult.to_dict` writes before ``accuracy_by_noise``, in this order.
_RESULT_KEYS = (
    *("task_type", "model_name", "mode", "noise_ratio", "total_samples", "correct", "incorrect", "rejected"),
    *("errors_detected", "errors_corrected", "accuracy", "all_rate", "rejection_rate", "error_detection_rate"),
    "error_correction_rate",
)


def score_rgb(
    rows: Iterable[RgbRow], *, mode: RgbMode = "official", model_name: str = ""
) -> tuple[list[EvaluationResult], list[RgbJudgement]]:
    """Score rows: one :class:`EvaluationResult` per (task, noise ratio), plus one per task over all its
    ratios (``noise_ratio`` None) carrying ``accuracy_by_noise``; and the per-row judgements in input order.

    Raises:
        ValueError: For an unknown mode or task, or a noise ratio outside [0, 1].
    """
    check_choice(mode, RGB_MODES, name="mode", caller="score_rgb")
    judgements: list[RgbJudgement] = []
    groups: dict[tuple[str, float], list[RgbJudgement]] = {}
    for row in rows:
        if row.task not in RGB_TASKS:
            msg = f"Unknown RGB task {row.task!r} (row {row.id!r}). Known tasks: {', '.join(RGB_TASKS)}."
            raise ValueError(msg)
        if not 0.0 <= row.noise_ratio <= 1.0:
            msg = f"The noise_ratio of row {row.id!r} must be in [0, 1]. Got {row.noise_ratio!r} instead."
            raise ValueError(msg)
        judgement = judge_row(row, mode=mode)
        judgements.append(judgement)
        groups.setdefault((row.task, row.noise_ratio), []).append(judgement)
    results = []
    for task in RGB_TASKS:
        ratios = sorted(ratio for t, ratio in groups if t == task)
        if not ratios:
            continue
        per_ratio = [_result(task, ratio, groups[(task, ratio)], mode, model_name) for ratio in ratios]
        overall = _result(task, None, [j for ratio in ratios for j in groups[(task, ratio)]], mode, model_name)
        overall.accuracy_by_noise = {round(100 * r.noise_ratio): r.all_rate for r in per_ratio}  # type: ignore[operator]
        results.extend([*per_ratio, overall])
    return results, judgements


def _result(
    task: str, ratio: float | None, judgements: list[RgbJudgement], mode: str, model_name: str
) -> EvaluationResult:
    suffix = "" if ratio is None else f"_{round(100 * ratio)}%"
    result = EvaluationResult(task_type=f"{task}{suffix}", model_name=model_name, mode=mode, noise_ratio=ratio)
    for j in judgements:
        result.total_samples += 1
        result.rejected += j.rejected
        result.errors_detected += j.error_detected
        result.errors_corrected += j.error_corrected
        if task == "negative_rejection" and mode == "lenient":
            result.incorrect += not j.rejected  # the reference: rejected, or else incorrect
        elif task == "negative_rejection":
            result.correct += j.correct  # answered correctly anyway: the official script counts these too
            result.incorrect += not (j.rejected or j.correct)
        else:
            result.correct += j.correct
            result.incorrect += not j.correct
    return result


#: The columns of a run's table (:func:`result_rows`), printed by :func:`format_results` and drawn by the run's
#: HTML page; :data:`RESULT_LEGEND` says what each figure is.
RESULT_HEADERS = ("task", "rows", "right %", "rejected %", "error detection %", "error correction %")
#: What the figures of :data:`RESULT_HEADERS` are, printed under the table.
RESULT_LEGEND = (
    "Figures per 100 rows of the line. right %: answers right (negative_rejection: rejected or right, RGB's "
    "all_rate, the same on its ratio line and its task line); rejected %: answers that decline; error detection % "
    "and error correction % (official rules: per 100 detected rows): counterfactual rows only. A task's line without "
    "a ratio counts the rows of all its ratios."
)


def result_rows(results: Sequence[EvaluationResult]) -> list[list[Any]]:
    """A row per result, in :data:`RESULT_HEADERS`' order: the share of right answers (for negative rejection,
    rejected or right: RGB's ``all_rate`` at ratio 1, on the task's line too), rejections, and error detection and
    correction on counterfactual tasks only (None elsewhere); every figure in percent.

    Example:
        >>> result_rows([EvaluationResult("noise_robustness_0%", total_samples=4, correct=3, noise_ratio=0.0),
        ...              EvaluationResult("negative_rejection", total_samples=4, rejected=1)])
        [['noise_robustness_0%', 4, 75.0, 0.0, None, None], ['negative_rejection', 4, 25.0, 25.0, None, None]]
    """
    rows = []
    for r in results:
        counterfactual = "counterfactual" in r.task_type
        right = r.accuracy
        if r.task_type.startswith("negative_rejection") and r.total_samples:  # declining is the right answer
            right = 100.0 * (r.rejected + r.correct) / r.total_samples
        rows.append(
            [
                *(r.task_type, r.total_samples, right, r.rejection_rate),
                r.error_detection_rate if counterfactual else None,
                r.error_correction_rate if counterfactual else None,
            ]
        )
    return rows


def format_results(results: Sequence[EvaluationResult]) -> str:
    """The results as a readable table (:data:`RESULT_HEADERS`, :func:`result_rows`), then what its figures are
    (:data:`RESULT_LEGEND`): what :meth:`~rageval_lc.rgb.run.RgbRun.report` prints."""
    import textwrap

    from rageval_lc.reports.summary import format_table

    legend = textwrap.fill(RESULT_LEGEND, width=100)
    return f"{format_table(list(RESULT_HEADERS), result_rows(results))}\n{legend}"
