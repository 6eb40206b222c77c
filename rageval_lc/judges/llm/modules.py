"""DSPy Modules that run the judgement Signatures, and the runner that makes them robust.

Each judgement is one ``dspy.Module`` (so it can be compiled, saved and loaded). :func:`run_judgement`
calls a module with an LM, counts calls and tokens, validates the output with a parser, retries a
bounded number of times on unparsable or invalid output (bypassing DSPy's cache), and returns a
:class:`~rageval_lc.verdicts.Judgement` — never raises for bad model output.

Example:
    >>> import dspy
    >>> from dspy.utils import DummyLM
    >>> lm = DummyLM([{"claims": '["Paris is in France."]'}])
    >>> j = run_judgement("extract_claims", JUDGE_MODULES["extract_claims"](), {"question": "Q?", "answer": "A."},
    ...                   lm=lm, parse=lambda p: (list(p.claims), {}, None))
    >>> j.value, j.usage.calls
    (['Paris is in France.'], 1)
"""

from __future__ import annotations

import json
import re
import threading
import weakref
from collections.abc import Callable
from typing import Any

import dspy
from dspy.utils.callback import BaseCallback
from dspy.utils.exceptions import AdapterParseError

from rageval_lc.judges.checks import cap_raw
from rageval_lc.judges.declarations import BUILT_IN_JUDGEMENTS, DECLARATIONS, Declaration
from rageval_lc.judges.llm import signatures
from rageval_lc.verdicts import Judgement, JudgeUsage

__all__ = [
    "JUDGE_MODULES",
    "CriteriaJudge",
    "Parser",
    "PredictJudge",
    "module_class",
    "run_judgement",
]

#: A parser returns (value, notes, problem): problem is None when the value is usable.
Parser = Callable[[dspy.Prediction], tuple[Any, dict[str, Any], str | None]]


class PredictJudge(dspy.Module):
    """A judgement run as one ``dspy.Predict`` (or ``ChainOfThought``) over the class's ``signature``."""

    signature: type[dspy.Signature]

    def __init__(self, *, chain_of_thought: bool = False) -> None:
        super().__init__()
        self.predict = dspy.ChainOfThought(self.signature) if chain_of_thought else dspy.Predict(self.signature)

    def forward(self, **inputs: Any) -> dspy.Prediction:
        return self.predict(**inputs)


class CriteriaJudge(dspy.Module):
    """A criteria metric's judgement (:func:`rageval_lc.criteria_metric`) as one ``dspy.Predict`` (or
    ``ChainOfThought``) over the Signature built from its definition: compiled, saved and loaded as the
    built-in judges' modules are.

    Example:
        >>> from rageval_lc.verdicts import CriteriaDefinition
        >>> d = CriteriaDefinition(name="polite", criteria="Polite?", rubric={0: "no", 1: "yes"}, uses=("response",))
        >>> module = CriteriaJudge(d)
        >>> module.definition.name, list(module.predict.signature.input_fields)
        ('polite', ['response'])
    """

    def __init__(self, definition: Any, *, chain_of_thought: bool = False) -> None:
        super().__init__()
        self.definition = definition
        signature = signatures.criteria_signature(definition)
        self.predict = dspy.ChainOfThought(signature) if chain_of_thought else dspy.Predict(signature)

    def forward(self, **inputs: Any) -> dspy.Prediction:
        return self.predict(**inputs)


_MODULE_CLASSES: dict[str, type[PredictJudge]] = {}


def module_class(declaration: Declaration[Any]) -> type[PredictJudge]:
    """The Module class of a declared judgement: a :class:`PredictJudge` subclass named as declared, over its
    Signature (made once per judgement, so that each is saved, loaded and compiled under its own name)."""
    made = _MODULE_CLASSES.get(declaration.name)
    if made is None or made.signature is not declaration.signature_class():
        attributes = {"signature": declaration.signature_class(), "__doc__": declaration.about, "__module__": __name__}
        made = _MODULE_CLASSES[declaration.name] = type(declaration.module, (PredictJudge,), attributes)
        globals()[declaration.module] = made  # found by name here, so that a judge holding one pickles
    return made


#: Judgement name → Module class, for every built-in judgement.
JUDGE_MODULES: dict[str, type[PredictJudge]] = {
    name: module_class(d) for name, d in DECLARATIONS.items() if name in BUILT_IN_JUDGEMENTS
}


class _CallCounter(BaseCallback):
    """Counts LM calls and characters in one judgement; keeps the last raw output.

    A call counts from its start; one that raises without output (no key, no connection) is taken
    back out, prompt characters included, so only calls made are counted.
    """

    def __init__(self) -> None:
        self.calls = 0
        self.chars = 0
        self.last_output: str | None = None
        self._prompt_chars: dict[str, int] = {}

    def on_lm_start(self, call_id: str, instance: Any, inputs: dict[str, Any]) -> None:
        chars = len(_text_of(inputs.get("messages") or inputs.get("prompt") or ""))
        self._prompt_chars[call_id] = chars
        self.calls += 1
        self.chars += chars

    def on_lm_end(self, call_id: str, outputs: Any, exception: BaseException | None = None) -> None:
        prompt_chars = self._prompt_chars.pop(call_id, None)
        if outputs is None:
            if exception is not None and prompt_chars is not None:  # the call was never made
                self.calls -= 1
                self.chars -= prompt_chars
            return
        text = _text_of(outputs)
        self.chars += len(text)
        self.last_output = text


def _text_of(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list) and len(value) == 1:
        return _text_of(value[0])
    if isinstance(value, dict) and "text" in value:
        return str(value["text"])
    try:
        return json.dumps(value, default=str, ensure_ascii=False)
    except (TypeError, ValueError):
        return str(value)


def _reported_tokens(tracker: Any) -> tuple[int | None, int | None]:
    prompt = completion = None
    for usage in tracker.get_total_tokens().values():
        if isinstance(usage.get("prompt_tokens"), int):
            prompt = (prompt or 0) + usage["prompt_tokens"]
        if isinstance(usage.get("completion_tokens"), int):
            completion = (completion or 0) + usage["completion_tokens"]
    return prompt, completion


class CachingChatAdapter(dspy.ChatAdapter):
    """DSPy's ChatAdapter with the system message cached per Signature class.

    The system message (field descriptions, field structure, instructions) depends on the Signature
    alone, yet building it dominates the adapter's CPU time (pydantic schemas for every typed field).
    A compiled Signature with new instructions is a new class, hence a new entry.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._system_messages: weakref.WeakKeyDictionary[type, str] = weakref.WeakKeyDictionary()
        self._lock = threading.Lock()

    def format_system_message(self, signature: type[dspy.Signature]) -> str:
        with self._lock:
            cached = self._system_messages.get(signature)
        if cached is None:
            cached = super().format_system_message(signature)
            with self._lock:
                self._system_messages[signature] = cached
        return cached


_ADAPTER = CachingChatAdapter()


def run_judgement(
    name: str,
    module: dspy.Module,
    inputs: dict[str, Any],
    *,
    lm: Any,
    parse: Parser,
    max_retries: int = 2,
    retry_temperature: float | None = 0.7,
) -> Judgement[Any]:
    """Run one judgement robustly.

    Args:
        name: the judgement's name (for the result and messages).
        module: the DSPy module to call with ``inputs``.
        inputs: the Signature's input fields.
        lm: the DSPy LM to use.
        parse: validates a prediction; returns (value, notes, problem). A problem (unknown keys, missing
            verdicts, numbers far out of range) triggers a retry like an unparsable answer does; when the
            retries run out the judgement is ``undetermined``, with the raw output (cut to its head and
            tail beyond :data:`~rageval_lc.judges.checks.MAX_RAW_CHARS`) and the last notes.
        max_retries: extra attempts after the first (bounded; 0 disables retries).
        retry_temperature: temperature for retries (None keeps the LM's own); retries always use a new
            ``rollout_id`` so DSPy's cache does not return the same answer.

    Returns:
        The judgement: ``ok`` with the value, ``undetermined`` with the reason and raw output, or
        ``error`` when the LM itself failed (network, authentication, ...).
    """
    usage = JudgeUsage()
    problem = "no attempt was made"
    raw: str | None = None
    notes: dict[str, Any] = {}
    attempts = 0
    for attempt in range(max_retries + 1):
        attempts += 1
        counter = _CallCounter()
        config: dict[str, Any] = {}
        if attempt:
            config["rollout_id"] = attempt
            if retry_temperature is not None:
                config["temperature"] = retry_temperature
        callbacks = [*(dspy.settings.get("callbacks") or []), counter]
        failure: Exception | None = None
        prediction = None
        adapter = dspy.settings.adapter or _ADAPTER  # a user's own adapter wins
        with dspy.context(lm=lm, callbacks=callbacks, adapter=adapter), dspy.track_usage() as tracker:
            try:
                prediction = module(**inputs, config=config) if config else module(**inputs)
            except AdapterParseError as exc:
                raw = exc.lm_response or counter.last_output
                problem = f"the model's answer could not be parsed ({_first_line(exc)})"
            except (ValueError, TypeError, KeyError) as exc:  # pydantic validation inside the adapter
                raw = counter.last_output
                problem = f"the model's answer was invalid ({_first_line(exc)})"
            except Exception as exc:  # the LM call itself failed: no retry here (the LM retries transients)
                failure = exc
        prompt_tokens, completion_tokens = _reported_tokens(tracker)
        usage = usage + JudgeUsage(
            calls=counter.calls,
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            estimated_tokens=counter.chars // 4,
        )
        if failure is not None:
            reason = f"The judge model could not be called: {type(failure).__name__}: {_first_line(failure)}"
            return Judgement(name=name, status="error", reason=reason, attempts=attempts, usage=usage)
        if prediction is None:
            continue
        raw = counter.last_output
        try:
            value, notes, problem_found = parse(prediction)
        except (ValueError, TypeError, KeyError, AttributeError) as exc:
            value, notes, problem_found = None, {}, f"the model's answer was invalid ({_first_line(exc)})"
        cut = _cut_off_field(raw)
        if cut is not None and problem_found is None:
            problem_found = f"the model's answer was cut off ({cut} never closes)"
        if problem_found is None and value is not None:
            return Judgement(name=name, value=value, attempts=attempts, usage=usage, notes=notes)
        problem = problem_found or "the model's answer held no usable value"
    return Judgement(
        name=name,
        status="undetermined",
        reason=f"No usable answer after {attempts} attempt{'s' if attempts > 1 else ''}: {problem}.",
        raw=cap_raw(raw),
        attempts=attempts,
        usage=usage,
        notes=notes,
    )


_FIELD = re.compile(r"\[\[ ## (\w+) ## \]\]")
_CLOSING = {"[": "]", "{": "}"}


def _cut_off_field(raw: str | None) -> str | None:
    r"""The first field whose JSON value opens a bracket it never closes (output cut off), else None.

    DSPy repairs such JSON silently (``["Paris is`` would become the claim "Paris is"); a verdict read from
    a truncated answer is not a verdict.

    Example:
        >>> _cut_off_field('[[ ## claims ## ]]\n["Paris is'), _cut_off_field('[[ ## claims ## ]]\n["A."]')
        ('claims', None)
    """
    if not raw:
        return None
    parts = _FIELD.split(raw)
    values = list(zip(parts[1::2], parts[2::2], strict=True)) if len(parts) > 1 else [("the answer", raw)]
    for name, value in values:
        text = value.strip()
        if text[:1] in _CLOSING and not text.endswith(_CLOSING[text[0]]):
            return name
    return None


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0][:300] if text else type(exc).__name__
