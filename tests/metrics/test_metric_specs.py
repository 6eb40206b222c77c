"""Every metric's declaration, swept over the registry (as sklearn's common tests sweep its metrics): each built-in
metric is one module of ``rageval_lc.metrics`` defining ``METRIC``, gathered in order; names and scores are unique;
range and direction are declared; the verdicts and parts it declares are the plan's; a sample lacking a field it
needs is undetermined without a judge call; no metric module imports the layers above it."""

from __future__ import annotations

import ast
import importlib
import pkgutil
from pathlib import Path
from typing import Any

import pytest

import rageval_lc.metrics
from rageval_lc.judges.labels import LabelsJudge
from rageval_lc.metrics import METRIC_MODULES
from rageval_lc.metrics.spec import Judgements, MetricSpec, score_metric
from rageval_lc.reports.attention import HIGHER_IS_WORSE
from rageval_lc.schema import RagSample
from rageval_lc.scoring import plan
from rageval_lc.scoring.judgements import SampleJudgements, ScoringOptions
from rageval_lc.scoring.registry import BUILT_IN_METRICS, REGISTRY

SPECS = [REGISTRY[name] for name in METRIC_MODULES]
FULL = RagSample(
    question="Where is Paris?", contexts=["Paris is in France."], response="In France.", reference="France."
)
#: The layers above the metrics: a metric module imports none of them (the scoring layer gathers the metrics).
ABOVE = (
    "rageval_lc.scoring",
    "rageval_lc.engine",
    "rageval_lc.reports",
    "rageval_lc.align",
    "rageval_lc.rgb",
    "rageval_lc.adapters",
    "rageval_lc.cli",
)


class NoCallJudge(LabelsJudge):
    """A judge that fails the test if asked for any judgement."""

    def make(self, declaration: Any, inputs: Any) -> Any:
        raise AssertionError(f"a judge call was made: {declaration.name}")


def test_the_registry_gathers_the_metric_modules_in_order() -> None:
    defining = sorted(
        info.name
        for info in pkgutil.iter_modules(rageval_lc.metrics.__path__)
        if isinstance(getattr(importlib.import_module(f"rageval_lc.metrics.{info.name}"), "METRIC", None), MetricSpec)
    )
    assert sorted(METRIC_MODULES) == defining  # a module defining METRIC that the registry misses fails here
    assert tuple(REGISTRY)[: len(METRIC_MODULES)] == METRIC_MODULES and set(METRIC_MODULES) == BUILT_IN_METRICS
    for name in METRIC_MODULES:
        assert importlib.import_module(f"rageval_lc.metrics.{name}").METRIC is REGISTRY[name]


def test_names_and_scores_are_unique() -> None:
    scores = [score for spec in SPECS for score in spec.scores]
    assert len(scores) == len(set(scores))  # no score is reported by two metrics
    for spec in SPECS:  # nor named as another metric
        assert not [other.name for other in SPECS if other is not spec and other.name in spec.scores]


@pytest.mark.parametrize("spec", SPECS, ids=METRIC_MODULES)
def test_each_spec_declares_its_contract(spec: MetricSpec) -> None:
    assert spec.scores and len(set(spec.scores)) == len(spec.scores) and spec.description.strip()
    assert spec.single in spec.scores and set(spec.headlines) <= set(spec.scores)
    low, high = spec.bounds
    assert (low, high) == (0.0, 1.0)
    assert set(spec.lower_is_better) <= set(spec.scores)
    assert all(isinstance(spec.higher_is_better(score), bool) for score in spec.scores)
    assert set(spec.verdicts) <= set(plan.VERDICTS)
    assert all(REGISTRY[part.name] is part for part in spec.parts)
    assert plan.METRIC_VERDICTS[spec.name] == spec.reads
    assert plan.COMPOSITES.get(spec.name, ()) == tuple(part.name for part in spec.parts)


def test_the_reports_rank_by_the_declared_direction() -> None:
    assert frozenset(score for spec in SPECS for score in spec.lower_is_better) == HIGHER_IS_WORSE


@pytest.mark.parametrize("spec", SPECS, ids=METRIC_MODULES)
@pytest.mark.parametrize("lacking", ["reference", "contexts"])
def test_a_sample_lacking_a_needed_field_is_undetermined_without_a_call(spec: MetricSpec, lacking: str) -> None:
    if not (spec.needs_reference if lacking == "reference" else spec.needs_contexts):
        return  # it does not need it
    sample = FULL.model_copy(update={lacking: None if lacking == "reference" else []})
    results, details = score_metric(spec, SampleJudgements(sample, ScoringOptions(judge=NoCallJudge())))
    assert set(results) == set(spec.scores)
    for result in results.values():
        assert (result.status, result.score) == ("undetermined", None) and result.reason
    assert details["judgements"] == []


def test_the_shared_judgements_are_what_a_score_function_reads() -> None:
    assert isinstance(SampleJudgements(FULL, ScoringOptions()), Judgements)


@pytest.mark.parametrize("name", METRIC_MODULES)
def test_a_metric_module_imports_no_layer_above_it(name: str) -> None:
    path = Path(importlib.import_module(f"rageval_lc.metrics.{name}").__file__ or "")
    imported: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            imported.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module)
    assert not [module for module in imported if module.startswith(ABOVE)]
