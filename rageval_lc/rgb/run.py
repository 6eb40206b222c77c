"""Run the RGB benchmark against a system under test and score it.

The system is any of: a plain callable ``(question, documents) -> str``; a LangChain Runnable (a chat
model receives the benchmark's system prompt and user prompt as messages; any other Runnable receives a
dict with ``question``, ``documents``, ``context`` (the newline-joined documents), ``system`` and
``prompt``); or a DSPy program called with ``question=`` and ``documents=``. Its output may be a string,
a message, a dict (``answer``/``output``/``text``/``result``) or a ``dspy.Prediction``.

Each record's documents are built as the benchmark builds them (:func:`~rageval_lc.rgb.records.build_documents`)
at each noise ratio; ``en`` records are scored for noise robustness below ratio 1 and for negative rejection
at ratio 1, ``int`` records for information integration, ``fact`` records for counterfactual robustness.

Example:
    >>> from rageval_lc.rgb.records import RgbRecord
    >>> records = [RgbRecord(id=1, query="Who won?", answer="Ann", positive=["Ann won."], negative=["Rain."])]
    >>> run = run_rgb(lambda question, documents: "Ann won.", records, noise_ratios=[0.0], progress=False)
    >>> [(r.task_type, r.all_rate, r.rejection_rate) for r in run.results if r.noise_ratio is not None]
    [('noise_robustness_0%', 100.0, 0.0), ('negative_rejection_100%', 100.0, 0.0)]

    At ratio 1 the benchmark's figure (``all_rate``) counts a correct answer as well as a rejection;
    ``rejection_rate`` counts rejections only.
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from rageval_lc._lazy import import_dspy
from rageval_lc.rgb.records import RGB_SYSTEM_PROMPT, RgbRecord, build_documents, rgb_prompt
from rageval_lc.rgb.scoring import EvaluationResult, RgbJudgement, RgbMode, RgbRow, format_results, judge_row, score_rgb

__all__ = ["DEFAULT_NOISE_RATIOS", "RgbRun", "as_rgb_system", "load_system", "run_rgb"]

DEFAULT_NOISE_RATIOS: dict[str, tuple[float, ...]] = {
    "en": (0.0, 0.2, 0.4, 0.6, 0.8),
    "int": (0.0, 0.2, 0.4),
    "fact": (0.0,),
}
_TASK = {"int": "information_integration", "fact": "counterfactual_robustness"}
System = Callable[[str, list[str]], str]


def _text(output: Any) -> str:
    """The answer text in a system's output."""
    if isinstance(output, str):
        return output
    content = getattr(output, "content", None)
    if isinstance(content, str):
        return content
    if isinstance(output, dict):
        for key in ("answer", "output", "text", "result", "response"):
            if isinstance(output.get(key), str):
                return output[key]
    if hasattr(output, "keys") and hasattr(output, "get"):  # dspy.Prediction
        for key in ("answer", "response", *list(output.keys())):
            value = output.get(key)
            if isinstance(value, str):
                return value
    msg = f"Cannot read an answer from the system's output of type {type(output).__name__}."
    raise TypeError(msg)


def load_system(spec: str) -> Any:
    """The object ``module:attribute`` names (``rageval rgb run --system``), imported with the working directory
    first on the import path, as ``python -m`` and uvicorn have it: ``my_rag:chain`` finds ``my_rag.py`` in the
    folder the command runs in. The attribute may be dotted (``my_rag:app.chain``).

    Example:
        >>> load_system("os.path:join").__name__
        'join'

    Raises:
        ValueError: If ``spec`` is not ``module:attribute``, its module is not found (the message names the folder
            searched) or has no such attribute.
    """
    import importlib
    import os

    module_name, _, attribute = spec.partition(":")
    if not module_name or not attribute:
        raise ValueError(f"--system must look like module:attribute (e.g. my_rag:chain). Got {spec!r}.")
    here = os.getcwd()
    if here not in sys.path:
        sys.path.insert(0, here)
    try:
        found: Any = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name is None or not module_name.startswith(exc.name):
            raise  # a module the system's own code imports: its error as it is
        where = f"in the working directory ({here}) or the installed packages"
        msg = f"--system {spec}: no module named {exc.name!r} {where}."
        raise ValueError(msg) from exc
    path = module_name
    for name in attribute.split("."):
        if not hasattr(found, name):
            raise ValueError(f"--system {spec}: {path} has no attribute {name!r}.")
        found, path = getattr(found, name), f"{path}.{name}"
    return found


def as_rgb_system(system: Any) -> System:
    """Adapt a LangChain Runnable, a DSPy program or a callable to ``(question, documents) -> str``.

    Raises:
        TypeError: If ``system`` is none of these.
    """
    try:
        dspy = import_dspy()
        if isinstance(system, dspy.Module):
            return lambda question, documents: _text(system(question=question, documents=documents))
    except ImportError:  # pragma: no cover - a dependency
        pass
    if hasattr(system, "invoke") and hasattr(system, "batch"):
        from rageval_lc.judges.llm.langchain_lm import is_langchain_chat_model

        if is_langchain_chat_model(system):
            from langchain_core.messages import HumanMessage, SystemMessage

            def chat(question: str, documents: list[str]) -> str:
                messages = [
                    SystemMessage(content=RGB_SYSTEM_PROMPT),
                    HumanMessage(content=rgb_prompt(question, documents)),
                ]
                return _text(system.invoke(messages))

            return chat

        def chain(question: str, documents: list[str]) -> str:
            inputs = {
                "question": question,
                "documents": documents,
                "context": "\n".join(documents),
                "system": RGB_SYSTEM_PROMPT,
                "prompt": rgb_prompt(question, documents),
            }
            return _text(system.invoke(inputs))

        return chain
    if callable(system):
        try:
            parameters = inspect.signature(system).parameters
        except (TypeError, ValueError):
            parameters = {}
        if parameters and len(parameters) < 2:
            msg = "A callable system under test must take (question, documents)."
            raise TypeError(msg)
        return lambda question, documents: _text(system(question, documents))
    msg = (
        "The system under test must be a LangChain Runnable, a DSPy program or a callable "
        f"(question, documents) -> str. Got {type(system).__name__} instead."
    )
    raise TypeError(msg)


@dataclass
class RgbRun:
    """A benchmark run: the scores, and per row the documents, prediction, judgement and any error."""

    results: list[EvaluationResult] = field(default_factory=list)
    rows: list[dict[str, Any]] = field(default_factory=list)
    failures: int = 0
    mode: RgbMode = "official"
    model_name: str = ""

    def report(self) -> str:
        """A readable table of the results, then what its figures are (``scoring.format_results``)."""
        return format_results(self.results)

    def to_html(self, title: str = "RGB run") -> str:
        """The run as a self-contained HTML page: accuracy against noise ratio with its intervals, every task,
        the wrong answers (:func:`~rageval_lc.rgb.report.render_rgb_html`)."""
        from rageval_lc.rgb.report import render_rgb_html

        return render_rgb_html(self.rows, title=title, mode=self.mode, model_name=self.model_name)


def run_rgb(
    system: Any,
    records: Iterable[RgbRecord],
    *,
    noise_ratios: Sequence[float] | None = None,
    include_rejection: bool = True,
    mode: RgbMode = "official",
    model_name: str = "",
    passage_num: int = 5,
    fill: bool = True,
    progress: bool | None = None,
    on_row: Callable[[dict[str, Any]], None] | None = None,
) -> RgbRun:
    """Ask the system every question at every noise ratio and score the answers.

    Args:
        system: the system under test (see the module docstring).
        records: RGB records (any mix of kinds).
        noise_ratios: the ratios to run; default per kind (:data:`DEFAULT_NOISE_RATIOS`).
        include_rejection: also run ``en`` records at ratio 1 (negative rejection).
        mode: ``official`` or ``lenient`` scoring.
        model_name: recorded in the results.
        passage_num: documents per question (5 in the benchmark).
        fill: fill with negatives when a question's positives run short, as the benchmark does; False: send
            fewer documents (:func:`~rageval_lc.rgb.records.build_documents`), for testbeds with few positives.
        progress: show a progress bar on stderr (default: when stderr is a terminal).
        on_row: called with each finished row, judgement included (to stream results as they come).

    A call that raises is recorded with its error and an empty prediction, and the run goes on.
    """
    ask = as_rgb_system(system)
    plan: list[tuple[RgbRecord, float, str]] = []
    for record in records:
        ratios = list(noise_ratios) if noise_ratios is not None else list(DEFAULT_NOISE_RATIOS[record.kind])
        if record.kind == "en":
            plan += [(record, r, "negative_rejection" if r == 1.0 else "noise_robustness") for r in ratios]
            if include_rejection and 1.0 not in ratios:
                plan.append((record, 1.0, "negative_rejection"))
        else:
            plan += [(record, r, _TASK[record.kind]) for r in ratios]
    show = sys.stderr.isatty() if progress is None else progress
    bar = None
    if show:
        from tqdm import tqdm

        bar = tqdm(total=len(plan), unit="question", file=sys.stderr, desc="RGB")
    run = RgbRun(mode=mode, model_name=model_name)
    scored: list[RgbRow] = []
    try:
        for record, ratio, task in plan:
            documents = build_documents(record, ratio, passage_num=passage_num, fill=fill)
            error = None
            try:
                prediction = ask(record.query, documents)
            except Exception as exc:  # one failing call must not end the benchmark
                prediction, error = "", f"{type(exc).__name__}: {exc}"
                run.failures += 1
            row = RgbRow(
                prediction=prediction,
                answer=record.answer,
                task=task,
                noise_ratio=ratio,
                counterfactual_answer=record.fakeanswer,
                id=f"{record.kind}:{record.id}@{ratio:g}",
            )
            scored.append(row)
            entry = {
                "id": row.id,
                "task": task,
                "noise_ratio": ratio,
                "query": record.query,
                "answer": record.answer,
                "counterfactual_answer": record.fakeanswer,
                "documents": documents,
                "noise_share": _noise_share(documents, record),
                "filled": fill,
                "prediction": prediction,
                "error": error,
                "judgement": _judgement_dict(judge_row(row, mode=mode)),
            }
            run.rows.append(entry)
            if bar is not None:
                bar.update(1)
            if on_row is not None:
                on_row(entry)
    finally:
        if bar is not None:
            bar.close()
    run.results, _ = score_rgb(scored, mode=mode, model_name=model_name)
    return run


def _judgement_dict(judgement: RgbJudgement) -> dict[str, Any]:
    data = judgement.to_dict()
    data.pop("id")
    return data


def _noise_share(documents: list[str], record: RgbRecord) -> float | None:
    """The share of the documents given that are the record's negatives (None when none was given)."""
    if not documents:
        return None
    negatives = set(record.negative)
    return sum(d in negatives for d in documents) / len(documents)
