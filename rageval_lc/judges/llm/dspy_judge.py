"""Any DSPy LM — or any LangChain chat model — as the judge for every judgement.

Example:
    >>> from dspy.utils import DummyLM
    >>> judge = DspyJudge(DummyLM([{"classification": "CORRECT", "reason": "Same answer."}]))
    >>> j = judge.classify_answer("Capital of France?", "Paris", "Paris.")
    >>> j.value.label, j.usage.calls
    ('CORRECT', 1)
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import dspy

from rageval_lc.judges.base import (
    CRITERIA,
    CRITERIA_DEFINITIONS,
    JUDGEMENTS,
    AnswerLabel,
    BaseJudge,
    ClaimVerdict,
    ContextVerdict,
    CriteriaDefinition,
    CriteriaScore,
    FactualAccuracyVerdict,
    FullAssessment,
    Judgement,
    ReferenceAssessment,
    RubricScore,
    StatementVerdict,
)
from rageval_lc.judges.checks import claim_verdicts_problem, context_verdicts_problem, trace_problem
from rageval_lc.judges.llm.langchain_lm import is_langchain_chat_model, langchain_lm
from rageval_lc.judges.llm.modules import JUDGE_MODULES, CriteriaJudge, run_judgement
from rageval_lc.schema import RagSample, TraceLabels
from rageval_lc.text import KeyedSentences

__all__ = [
    "DspyJudge",
    "as_dspy_lm",
    "criteria_inputs",
    "labels_from_prediction",
    "lm_identity",
    "render_documents",
    "render_numbered",
    "render_response",
]


def as_dspy_lm(
    lm: Any,
    *,
    api_base: str | None = None,
    api_key: str | None = None,
    temperature: float | None = 0.0,
    max_tokens: int | None = None,
    timeout_s: float | None = None,
) -> dspy.BaseLM:
    """Return a DSPy LM for a ``dspy.LM``, a LiteLLM model id (``"openai/gpt-4o-mini"``), or a LangChain chat model.

    An LM built here from a model id does not use DSPy's response cache: its key leaves out the server
    (``api_base``), so answers from one endpoint would be served for another. The judge cache of
    :class:`~rageval_lc.judges.resilient.ResilientJudge` (``--cache-dir``) is keyed by every setting instead.
    ``timeout_s`` is the transport timeout of each HTTP call.

    Raises:
        TypeError: For anything else.
    """
    if isinstance(lm, dspy.BaseLM):
        return lm
    if isinstance(lm, str):
        if not lm.strip():
            msg = "The judge model id must be a non-empty string such as 'openai/gpt-4o-mini'."
            raise ValueError(msg)
        settings = {"api_base": api_base, "api_key": api_key, "max_tokens": max_tokens, "timeout": timeout_s}
        extra: dict[str, Any] = {k: v for k, v in settings.items() if v}
        if api_base:
            # DSPy's native engine sends OpenAI's newer `max_completion_tokens`, which local OpenAI-compatible
            # servers (llama.cpp) ignore, so a small model may ramble for thousands of tokens; LiteLLM sends
            # `max_tokens`.
            extra["engine"] = "litellm"
        return dspy.LM(lm, temperature=temperature, cache=False, **extra)
    if is_langchain_chat_model(lm):
        return langchain_lm(lm)
    msg = (
        "A judge LM must be a dspy.LM, a LiteLLM model id string or a LangChain chat model. "
        f"Got {type(lm).__name__} instead."
    )
    raise TypeError(msg)


#: LM settings that change how a call travels, not what the model answers: left out of the cache key.
_TRANSPORT_SETTINGS = frozenset({"api_key", "timeout", "num_retries"})


def lm_identity(lm: Any) -> dict[str, Any]:
    """The LM's model and every setting that changes its answers (server, temperature, max tokens, a
    LangChain chat model's own settings), without secrets or transport settings."""
    settings = {k: v for k, v in (getattr(lm, "kwargs", None) or {}).items() if k not in _TRANSPORT_SETTINGS}
    identity = {
        "type": type(lm).__qualname__,
        "model": getattr(lm, "model", None),
        "model_type": getattr(lm, "model_type", None),
        "settings": settings,
    }
    engine = getattr(lm, "engine", None)
    if engine is not None and not isinstance(engine, str):  # a custom engine: a LangChain chat model
        identity["engine"] = getattr(engine, "identity", type(engine).__qualname__)
    return identity


def render_documents(sentences: KeyedSentences) -> str:
    """The documents as keyed sentences, one per line, under a header per document."""
    blocks = []
    for i, doc in enumerate(sentences.documents):
        lines = [f"Document {i}:"] + [f"{key}. {text}" for key, text in doc]
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def render_response(sentences: KeyedSentences) -> str:
    """The response as keyed sentences, one per line."""
    return "\n".join(f"{key}. {text}" for key, text in sentences.response)


def render_numbered(items: Sequence[str], *, label: str = "") -> str:
    """Items numbered from 1 (``[1] ...`` blocks for contexts, ``1. ...`` lines for claims)."""
    if label:
        return "\n\n".join(f"[{label} {i}] {text}" for i, text in enumerate(items, start=1))
    return "\n".join(f"{i}. {text}" for i, text in enumerate(items, start=1))


class DspyJudge(BaseJudge):
    """Every judgement through a DSPy module and an LM.

    Args:
        lm: a ``dspy.LM`` (any LiteLLM model, including OpenAI-compatible local servers), a model id
            string, or a LangChain chat model.
        max_retries: extra attempts when an answer cannot be parsed or is invalid (bounded).
        chain_of_thought: run the modules as ``ChainOfThought`` (adds a reasoning field, more tokens).
        modules: compiled modules to use instead of the defaults, by judgement name (a criteria metric's
            is ``criteria:<metric>``, once the metric is registered).
        api_base, api_key, temperature, max_tokens: used when ``lm`` is a model id.

    A judge built from a model id keeps DSPy's response cache off (see :func:`as_dspy_lm`); with a
    ``dspy.LM`` of your own, DSPy's cache is yours to set (its key ignores ``api_base``).

    It also judges every criteria metric (:func:`rageval_lc.criteria_metric`), each with a module of its own
    (``modules["criteria:<metric>"]``, made when first needed: see :meth:`criteria_module`).
    """

    supports = frozenset(JUDGEMENTS) | {CRITERIA}

    def __init__(
        self,
        lm: Any,
        *,
        max_retries: int = 2,
        chain_of_thought: bool = False,
        modules: dict[str, dspy.Module] | None = None,
        api_base: str | None = None,
        api_key: str | None = None,
        temperature: float | None = 0.0,
        max_tokens: int | None = None,
    ) -> None:
        if isinstance(max_retries, bool) or not isinstance(max_retries, int) or max_retries < 0:
            msg = f"The 'max_retries' parameter of DspyJudge must be an int >= 0. Got {max_retries!r} instead."
            raise ValueError(msg)
        self.lm = as_dspy_lm(lm, api_base=api_base, api_key=api_key, temperature=temperature, max_tokens=max_tokens)
        self._owns_lm = isinstance(lm, str)
        self.name = f"dspy:{self.lm.model}"
        self.max_retries = max_retries
        self.chain_of_thought = chain_of_thought
        self.modules: dict[str, dspy.Module] = {
            name: cls(chain_of_thought=chain_of_thought) for name, cls in JUDGE_MODULES.items()
        }
        known = set(JUDGEMENTS) | {f"{CRITERIA}:{name}" for name in CRITERIA_DEFINITIONS}
        unknown = set(modules or {}) - known
        if unknown:
            msg = f"Unknown judgement names in 'modules': {sorted(unknown)}. Known: {sorted(known)}."
            raise ValueError(msg)
        self.modules.update(modules or {})

    def planned_calls(self, judgement: str) -> int:
        """One model call per judgement per sample (a criteria metric's too), before retries."""
        return 1 if judgement in self.supports or judgement.startswith(CRITERIA + ":") else 0

    def criteria_module(self, metric: str | CriteriaDefinition) -> dspy.Module:
        """The module judging a criteria metric (a registered metric's name, or its definition): the one in
        :attr:`modules` when it was made for the same definition, else a new one put there. Compile it as any
        DSPy module and put the result back in ``modules["criteria:<metric>"]``; :meth:`save` keeps it.

        Raises:
            ValueError: If no criteria metric of that name is registered.
        """
        definition = _criteria_definition(metric)
        key = definition.judgement
        module = self.modules.get(key)
        if getattr(module, "definition", None) != definition:
            module = CriteriaJudge(definition, chain_of_thought=self.chain_of_thought)
            self.modules[key] = module
        return module

    def cache_identity(self) -> dict[str, Any]:
        """Everything that shapes this judge's answers: the LM's settings and each module's prompts and demos."""
        return {"lm": lm_identity(self.lm), "modules": {k: m.dump_state() for k, m in self.modules.items()}}

    def set_transport_timeout(self, seconds: float) -> None:
        """Give each HTTP call of an LM this judge built from a model id a timeout (unless it has one), so an
        abandoned call ends instead of holding its connection for LiteLLM's default 10 minutes. An LM passed
        in (a ``dspy.LM``, a LangChain chat model) keeps its own settings."""
        if self._owns_lm and isinstance(self.lm, dspy.LM) and not self.lm.kwargs.get("timeout"):
            self.lm = self.lm.copy(timeout=seconds)

    def _run(self, name: str, inputs: dict[str, Any], parse: Any) -> Judgement[Any]:
        return run_judgement(name, self.modules[name], inputs, lm=self.lm, parse=parse, max_retries=self.max_retries)

    # --- TRACe -----------------------------------------------------------------------------------

    @staticmethod
    def trace_inputs(sample: RagSample) -> dict[str, str]:
        """The TRACe labelling Signature's inputs for a sample."""
        return {
            "question": sample.question,
            "documents": render_documents(sample.sentences),
            "response": render_response(sample.sentences),
        }

    def estimate_prompt_tokens(self, judgement: str, sample: RagSample, n: int = 3) -> int | None:
        """Tokens (characters ÷ 4) of the prompt a judgement would send for a sample; None if unknown.

        ``verify_claims`` is estimated with the response sentences standing in for the claims.
        """
        contexts = render_numbered(sample.contexts, label="Context")
        reference = sample.reference or ""
        question, answer = sample.question, sample.response
        inputs: dict[str, dict[str, Any]] = {
            "trace_labels": self.trace_inputs(sample),
            "assess_all": {**self.trace_inputs(sample), "reference": reference or "none", "n": n},
            "extract_claims": {"question": question, "answer": answer},
            "verify_claims": {
                "context": contexts,
                "claims": render_numbered([t for _, t in sample.sentences.response]),
            },
            "context_relevance": {"question": question, "reference": reference or "none", "contexts": contexts},
            "attribute_reference": {"question": question, "reference": reference, "contexts": contexts},
            "generate_questions": {"answer": answer, "n": n},
            "rate_answer_relevance": {"question": question, "answer": answer},
            "factual_accuracy": {"question": question, "ground_truth": reference, "answer": answer},
            "classify_answer": {"question": question, "ground_truth": reference, "answer": answer},
            "assess_reference": {"question": question, "answer": answer, "reference": reference, "contexts": contexts},
        }
        if judgement.startswith(CRITERIA + ":") and judgement.split(":", 1)[1] in CRITERIA_DEFINITIONS:
            definition = CRITERIA_DEFINITIONS[judgement.split(":", 1)[1]]
            inputs[judgement] = criteria_inputs(definition, sample)
            self.criteria_module(definition)
        if judgement not in inputs or judgement not in self.modules:
            return None
        predictor = self.modules[judgement].predictors()[0]
        adapter = dspy.settings.adapter or dspy.ChatAdapter()
        messages = adapter.format(predictor.signature, predictor.demos, inputs[judgement])
        return sum(len(str(m.get("content", ""))) for m in messages) // 4

    def trace_labels(self, sample: RagSample) -> Judgement[TraceLabels]:
        """Label the sample's sentences for TRACe in one call."""
        sentences = sample.sentences

        def parse(prediction: dspy.Prediction) -> tuple[TraceLabels, dict[str, Any], str | None]:
            notes: dict[str, Any] = {}
            labels, problem = _parse_trace(prediction, sentences, notes)
            return labels, notes, problem

        return self._run("trace_labels", self.trace_inputs(sample), parse)

    # --- claims ----------------------------------------------------------------------------------

    def extract_claims(self, question: str, answer: str) -> Judgement[list[str]]:
        """The answer's atomic claims (no call for an empty answer)."""
        if not answer.strip():
            return Judgement(name="extract_claims", value=[], reason="The answer is empty.")

        def parse(prediction: dspy.Prediction) -> tuple[list[str], dict[str, Any], str | None]:
            return _clean_strings(prediction.claims), {}, None

        return self._run("extract_claims", {"question": question, "answer": answer}, parse)

    def verify_claims(self, claims: Sequence[str], contexts: Sequence[str]) -> Judgement[list[ClaimVerdict]]:
        """Verdicts for all claims in one call, in claim order (no call when there are no claims)."""
        if not claims:
            return Judgement(name="verify_claims", value=[], reason="There are no claims to verify.")

        def parse(prediction: dspy.Prediction) -> tuple[list[ClaimVerdict], dict[str, Any], str | None]:
            by_number, notes = _numbered(prediction.verdicts, "claim_number", len(claims))
            verdicts = [
                ClaimVerdict(claim=claims[i], supported=bool(item.supported), reason=item.reason or "")
                for i, item in sorted(by_number.items())
            ]
            missing = [i + 1 for i in range(len(claims)) if i not in by_number]
            if missing:
                notes["unjudged_claims"] = missing
            return verdicts, notes, claim_verdicts_problem(verdicts, claims)

        inputs = {"context": render_numbered(contexts, label="Context"), "claims": render_numbered(claims)}
        return self._run("verify_claims", inputs, parse)

    # --- contexts and references -----------------------------------------------------------------

    def context_relevance(
        self, question: str, contexts: Sequence[str], reference: str | None = None
    ) -> Judgement[list[ContextVerdict]]:
        """Relevance verdicts for all contexts in one call (no call when there are none)."""
        if not contexts:
            return Judgement(name="context_relevance", value=[], reason="There are no contexts.")

        def parse(prediction: dspy.Prediction) -> tuple[list[ContextVerdict], dict[str, Any], str | None]:
            by_number, notes = _numbered(prediction.verdicts, "context_number", len(contexts))
            verdicts = []
            for i, item in sorted(by_number.items()):
                score, clamped = _clamp(item.relevance_score, 0.0, 100.0)
                if clamped:
                    notes.setdefault("clamped", []).append(f"context {i + 1}: {item.relevance_score}")
                verdicts.append(
                    ContextVerdict(index=i, relevant=bool(item.is_relevant), score=score / 100, reason=item.reasoning)
                )
            missing = [i + 1 for i in range(len(contexts)) if i not in by_number]
            if missing:
                notes["unjudged_contexts"] = missing
            return verdicts, notes, context_verdicts_problem(verdicts, len(contexts))

        inputs = {
            "question": question,
            "reference": reference or "none",
            "contexts": render_numbered(contexts, label="Context"),
        }
        return self._run("context_relevance", inputs, parse)

    def attribute_reference(
        self, question: str, reference: str, contexts: Sequence[str]
    ) -> Judgement[list[StatementVerdict]]:
        """The reference's statements, each attributed (or not) to a context, in one call."""
        if not reference.strip():
            return Judgement(name="attribute_reference", value=[], reason="The reference is empty.")

        def parse(prediction: dspy.Prediction) -> tuple[list[StatementVerdict], dict[str, Any], str | None]:
            notes: dict[str, Any] = {}
            return _parse_statements(prediction.statements, len(contexts), notes), notes, None

        inputs = {"question": question, "reference": reference, "contexts": render_numbered(contexts, label="Context")}
        return self._run("attribute_reference", inputs, parse)

    # --- answers ---------------------------------------------------------------------------------

    def generate_questions(self, answer: str, n: int = 3) -> Judgement[list[str]]:
        """Up to ``n`` questions the answer would answer (no call for an empty answer)."""
        if not answer.strip():
            return Judgement(name="generate_questions", value=[], reason="The answer is empty.")

        def parse(prediction: dspy.Prediction) -> tuple[list[str], dict[str, Any], str | None]:
            notes: dict[str, Any] = {}
            return _parse_questions(prediction.questions, n, notes), notes, None

        return self._run("generate_questions", {"answer": answer, "n": n}, parse)

    def rate_answer_relevance(self, question: str, answer: str) -> Judgement[RubricScore]:
        """The direct 0-1 rubric score."""

        def parse(prediction: dspy.Prediction) -> tuple[RubricScore | None, dict[str, Any], str | None]:
            score = float(prediction.score)
            notes: dict[str, Any] = {}
            if 1.1 < score <= 100.0:
                notes["rescaled"] = f"{score} read as a percentage"
                score /= 100.0
            score, clamped = _clamp(score, 0.0, 1.0)
            if clamped:
                notes["clamped"] = prediction.score
            return RubricScore(score=score, reason=prediction.reasoning or ""), notes, None

        return self._run("rate_answer_relevance", {"question": question, "answer": answer}, parse)

    def factual_accuracy(self, question: str, answer: str, reference: str) -> Judgement[FactualAccuracyVerdict]:
        """GEval's three criteria, each 0-100 (out-of-range values are clamped and noted)."""

        def parse(prediction: dspy.Prediction) -> tuple[FactualAccuracyVerdict, dict[str, Any], str | None]:
            notes: dict[str, Any] = {}
            return _parse_geval(prediction, notes, overall=prediction.overall_reasoning or ""), notes, None

        inputs = {"question": question, "ground_truth": reference, "answer": answer}
        return self._run("factual_accuracy", inputs, parse)

    def classify_answer(self, question: str, answer: str, reference: str) -> Judgement[AnswerLabel]:
        """CORRECT or WRONG against the reference."""

        def parse(prediction: dspy.Prediction) -> tuple[AnswerLabel, dict[str, Any], str | None]:
            return _parse_label(prediction.classification, prediction.reason), {}, None

        inputs = {"question": question, "ground_truth": reference, "answer": answer}
        return self._run("classify_answer", inputs, parse)

    # --- fused judgements ------------------------------------------------------------------------

    def assess_reference(
        self, question: str, answer: str, reference: str, contexts: Sequence[str]
    ) -> Judgement[ReferenceAssessment]:
        """Reference statements with attribution, GEval's criteria and CORRECT/WRONG in one call."""

        def parse(prediction: dspy.Prediction) -> tuple[ReferenceAssessment, dict[str, Any], str | None]:
            notes: dict[str, Any] = {}
            value = ReferenceAssessment(
                statements=_parse_statements(prediction.statements, len(contexts), notes),
                accuracy=_parse_geval(prediction, notes),
                label=_parse_label(prediction.classification, prediction.classification_reason),
            )
            return value, notes, None

        inputs = {
            "question": question,
            "answer": answer,
            "reference": reference,
            "contexts": render_numbered(contexts, label="Context"),
        }
        return self._run("assess_reference", inputs, parse)

    def assess_all(self, sample: RagSample, n: int = 3) -> Judgement[FullAssessment]:
        """Every judgement of the sample in one call (the fused mode)."""
        sentences = sample.sentences
        has_reference = bool(sample.reference and sample.reference.strip())

        def parse(prediction: dspy.Prediction) -> tuple[FullAssessment, dict[str, Any], str | None]:
            notes: dict[str, Any] = {}
            labels, problem = _parse_trace(prediction, sentences, notes)
            if not sample.has_contexts:  # the TRACe part goes unused (the context metrics are undetermined)
                problem = None
            reference = None
            if has_reference:
                reference = ReferenceAssessment(
                    statements=_parse_statements(prediction.statements, len(sample.contexts), notes),
                    accuracy=_parse_geval(prediction, notes),
                    label=_parse_label(prediction.classification, ""),
                )
            questions = _parse_questions(prediction.questions, n, notes)
            return FullAssessment(trace=labels, reference=reference, questions=questions), notes, problem

        inputs = {**self.trace_inputs(sample), "reference": sample.reference or "none", "n": n}
        return self._run("assess_all", inputs, parse)

    # --- criteria metrics ------------------------------------------------------------------------

    def criteria(self, definition: CriteriaDefinition, sample: RagSample) -> Judgement[CriteriaScore]:
        """Judge the sample on a criteria metric's criteria in one call: a rubric level, its [0, 1] score and
        the model's reason. An answer naming no rubric level is retried, then ``undetermined``."""

        def parse(prediction: dspy.Prediction) -> tuple[CriteriaScore | None, dict[str, Any], str | None]:
            level = definition.level_of(prediction.score)
            if level is None:
                levels = ", ".join(f"{x:g}" for x in definition.levels)
                return None, {}, f"the score {prediction.score!r} is not one of the rubric's ({levels})"
            reason = str(prediction.reason or "").strip()
            return CriteriaScore(level=level, score=definition.score_of(level), reason=reason), {}, None

        module = self.criteria_module(definition)
        inputs = criteria_inputs(definition, sample)
        return run_judgement(
            definition.judgement, module, inputs, lm=self.lm, parse=parse, max_retries=self.max_retries
        )

    # --- compiled state --------------------------------------------------------------------------

    def save(self, path: str | Path) -> Path:
        """Save every module's state (demos, instructions) to one JSON file."""
        path = Path(path)
        state = {name: module.dump_state() for name, module in self.modules.items()}
        criteria = {
            name: module.definition.model_dump(mode="json")
            for name, module in self.modules.items()
            if isinstance(module, CriteriaJudge)
        }
        saved = {"rageval_lc_judge": 1, "modules": state, "criteria": criteria}
        path.write_text(json.dumps(saved, indent=1, default=str), encoding="utf-8")
        return path

    def load(self, path: str | Path) -> DspyJudge:
        """Load module states saved by :meth:`save` into this judge; returns the judge.

        A criteria metric's module loads into the metric registered under its name, which must have the
        criteria, rubric and fields it was saved with.

        Raises:
            ValueError: If the file is not a saved judge, or holds a criteria module whose metric is not
                registered or was registered with another definition.
        """
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        if not isinstance(data, dict) or "modules" not in data:
            msg = f"{path} is not a judge saved by DspyJudge.save."
            raise ValueError(msg)
        for name, saved in (data.get("criteria") or {}).items():
            metric = name.split(":", 1)[1]
            if metric not in CRITERIA_DEFINITIONS:
                msg = f"{path} holds the criteria metric {metric!r}: register it (criteria_metric) before loading."
                raise ValueError(msg)
            if CriteriaDefinition.model_validate(saved) != CRITERIA_DEFINITIONS[metric]:
                msg = f"{path} holds the criteria metric {metric!r} with another definition than the registered one."
                raise ValueError(msg)
            self.criteria_module(metric)
        for name, state in data["modules"].items():
            if name not in self.modules:
                msg = f"{path} holds an unknown judgement {name!r}."
                raise ValueError(msg)
            self.modules[name].load_state(state)
        return self


def criteria_inputs(definition: CriteriaDefinition, sample: RagSample) -> dict[str, str]:
    """A criteria Signature's inputs for a sample: the fields the definition uses, the contexts numbered."""
    values = {
        "question": sample.question,
        "contexts": render_numbered(sample.contexts, label="Context"),
        "response": sample.response,
        "reference": sample.reference or "",
    }
    return {name: values[name] for name in definition.uses}


def _criteria_definition(metric: str | CriteriaDefinition) -> CriteriaDefinition:
    if isinstance(metric, CriteriaDefinition):
        return metric
    if metric not in CRITERIA_DEFINITIONS:
        known = ", ".join(sorted(CRITERIA_DEFINITIONS)) or "none"
        msg = f"No criteria metric {metric!r} is registered (registered: {known})."
        raise ValueError(msg)
    return CRITERIA_DEFINITIONS[metric]


def labels_from_prediction(prediction: Any) -> TraceLabels:
    """The TRACe labels in a prediction of the TRACe labelling Signature."""
    support = [
        item.model_dump() if hasattr(item, "model_dump") else dict(item)
        for item in prediction.sentence_support_information
    ]
    return TraceLabels.from_mapping(
        {
            "relevance_explanation": prediction.relevance_explanation,
            "all_relevant_sentence_keys": prediction.all_relevant_sentence_keys,
            "overall_supported_explanation": prediction.overall_supported_explanation,
            "overall_supported": prediction.overall_supported,
            "sentence_support_information": support,
            "all_utilized_sentence_keys": prediction.all_utilized_sentence_keys,
        }
    )


def _parse_trace(prediction: Any, sentences: KeyedSentences, notes: dict[str, Any]) -> tuple[TraceLabels, str | None]:
    """TRACe labels from a prediction, and the problems that make them unusable (unknown keys, missing verdicts)."""
    labels = labels_from_prediction(prediction)
    return labels, trace_problem(labels, sentences, notes)


def _parse_statements(items: Any, n_contexts: int, notes: dict[str, Any]) -> list[StatementVerdict]:
    """Statement verdicts; a supporting-context number outside 1..n is noted and dropped."""
    verdicts = []
    for item in items or []:
        text = (item.statement or "").strip()
        if not text:
            continue
        index = item.supporting_context
        if index is not None and not 1 <= index <= n_contexts:
            notes.setdefault("unknown_context_numbers", []).append(index)
            index = None
        verdicts.append(
            StatementVerdict(
                statement=text,
                attributed=bool(item.attributed),
                context_index=None if index is None else index - 1,
                reason=item.reason or "",
            )
        )
    return verdicts


def _parse_geval(prediction: Any, notes: dict[str, Any], *, overall: str = "") -> FactualAccuracyVerdict:
    """GEval's criteria from a prediction: overshoots clamped (noted), values far off the scale invalid."""
    values = {}
    for criterion in ("correctness", "completeness", "consistency"):
        raw = float(getattr(prediction, criterion))
        values[criterion], clamped = _clamp(raw, 0.0, 100.0)
        if clamped:
            notes.setdefault("clamped", {})[criterion] = raw
    return FactualAccuracyVerdict(
        **values,
        correctness_reason=getattr(prediction, "correctness_reasoning", "") or "",
        completeness_reason=getattr(prediction, "completeness_reasoning", "") or "",
        consistency_reason=getattr(prediction, "consistency_reasoning", "") or "",
        overall_reason=overall,
    )


def _parse_label(classification: Any, reason: Any) -> AnswerLabel:
    return AnswerLabel(label=str(classification).strip().upper(), reason=reason or "")  # type: ignore[arg-type]


def _parse_questions(items: Any, n: int, notes: dict[str, Any]) -> list[str]:
    questions = _clean_strings(items)
    if len(questions) > n:
        notes["extra_questions_dropped"] = len(questions) - n
    return questions[:n]


def _clean_strings(items: Any) -> list[str]:
    out: list[str] = []
    for item in items or []:
        text = str(item).strip()
        if text and text not in out:
            out.append(text)
    return out


def _numbered(items: Any, field: str, count: int) -> tuple[dict[int, Any], dict[str, Any]]:
    """Index items by their 1-based ``field`` (0-based keys); note out-of-range and repeated numbers."""
    notes: dict[str, Any] = {}
    by_number: dict[int, Any] = {}
    for item in items or []:
        number = getattr(item, field, None)
        if not isinstance(number, int) or not 1 <= number <= count:
            notes.setdefault("unknown_numbers", []).append(number)
            continue
        if number - 1 in by_number:
            notes.setdefault("repeated_numbers", []).append(number)
            continue
        by_number[number - 1] = item
    return by_number, notes


def _clamp(value: float, low: float, high: float) -> tuple[float, bool]:
    """Clamp a value overshooting its scale by at most 10 %; beyond that it is invalid (ValueError)."""
    value = float(value)
    slack = 0.1 * (high - low)
    if not math.isfinite(value) or not low - slack <= value <= high + slack:
        msg = f"{value!r} is outside the scale {low:g}-{high:g}"
        raise ValueError(msg)
    clamped = min(high, max(low, value))
    return clamped, clamped != value
