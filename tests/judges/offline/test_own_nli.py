"""A grounding model of one's own (issue 32, item 4): any sequence-classification NLI or consistency model in place
of the packaged one, its labels read from its config, in the judge, the CLI and align.

The models are tiny BERTs made here with random weights (nothing downloaded), on the packaged MiniLM's tokenizer.
Those whose classifier weights are zero answer every pair alike: their probabilities are the softmax of the
classifier's bias, worked out by hand below.
"""

from __future__ import annotations

import dataclasses
import json
import math
import pickle
import warnings
from pathlib import Path

import numpy as np
import pytest
import torch

from rageval_lc.cli import main
from rageval_lc.judges.factory import make_judge, offline_options
from rageval_lc.judges.offline.cross_encoder import CalibrationWarning, CrossEncoderNli, label_map, load_nli
from rageval_lc.judges.offline.judge import OfflineJudge
from rageval_lc.judges.offline.model import LocalParams
from rageval_lc.judges.offline.nli import LABELS, NliModel, shipped_adapter_path
from rageval_lc.schema import RagSample

THREE_WAY = {0: "CONTRADICTION", 1: "NEUTRAL", 2: "ENTAILMENT"}  # not the packaged model's order
BINARY = {0: "Inconsistent", 1: "Consistent"}
# softmax(log 1, log 3, log 6) = (1, 3, 6) / 10 over (CONTRADICTION, NEUTRAL, ENTAILMENT): in LABELS order
THREE_WAY_BIAS, THREE_WAY_ROW = [0.0, math.log(3.0), math.log(6.0)], [0.6, 0.3, 0.1]
# softmax(0, log 4) = (1, 4) / 5: P(consistent) = 0.8 -> (0.8, 1 - 0.8, 0)
BINARY_BIAS, BINARY_ROW = [0.0, math.log(4.0)], [0.8, 0.2, 0.0]

PAIRS = [
    ("Mount Everest is 8,849 metres tall.", "Mount Everest is 6,120 metres tall."),
    ("A man is playing a guitar on stage.", "A person plays an instrument."),
    ("Paris is the capital of France. It lies on the Seine.", "Paris is in France."),
    ("The cat sat.", "A dog barked loudly at the postman every morning of the week."),
    ("Water boils at 100 degrees Celsius at sea level.", "Water boils at 40 degrees."),
]


def save_model(folder: Path, id2label: dict[int, str], bias: list[float] | None = None, *, head: bool = True) -> Path:
    """A 2-layer BERT (hidden size 32) classifying into ``id2label``, saved with the packaged tokenizer. With
    ``bias``, the classifier's weights are zero and its bias is ``bias``; without a ``head``, only the encoder."""
    from transformers import AutoTokenizer, BertConfig, BertForSequenceClassification, BertModel

    from rageval_lc.judges.offline.encoder import default_model_path

    tokenizer = AutoTokenizer.from_pretrained(str(default_model_path()))
    config = BertConfig(
        vocab_size=tokenizer.vocab_size,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        initializer_range=0.02 if bias is not None else 0.5,  # large random weights: answers vary with the pair
        num_labels=len(id2label),
        id2label=id2label,
        label2id={label: i for i, label in id2label.items()},
    )
    torch.manual_seed(0)
    if not head:
        BertModel(config).save_pretrained(folder)
    else:
        model = BertForSequenceClassification(config)
        with torch.no_grad():
            if bias is not None:
                model.classifier.weight.zero_()
                model.classifier.bias.copy_(torch.tensor(bias))
        model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("models")
    return {
        "three_way": save_model(root / "three_way", THREE_WAY, THREE_WAY_BIAS),
        "binary": save_model(root / "binary", BINARY, BINARY_BIAS),
        "varied": save_model(root / "varied", THREE_WAY),
    }


def quiet(make, *args, **kwargs):
    """Build a judge whose calibration warning is expected, checking that exactly one is raised."""
    with pytest.warns(CalibrationWarning) as record:
        built = make(*args, **kwargs)
    assert len([w for w in record if w.category is CalibrationWarning]) == 1
    return built


# -- the model -------------------------------------------------------------------------------------------------


def test_a_three_way_model_is_read_in_its_own_label_order(models: dict[str, Path]) -> None:
    nli = CrossEncoderNli(models["three_way"], device="cpu", precision="float32")
    assert (nli.labels.layout, nli.labels.columns) == ("three-way", (2, 1, 0))
    got = nli.predict(PAIRS)
    assert got.shape == (len(PAIRS), len(LABELS))
    np.testing.assert_allclose(got, [THREE_WAY_ROW] * len(PAIRS), atol=1e-5)


def test_a_binary_consistency_model_gives_entailment_and_neutral_never_contradiction(models: dict[str, Path]) -> None:
    nli = CrossEncoderNli(models["binary"], device="cpu", precision="float32")
    assert (nli.labels.layout, nli.labels.columns) == ("binary", (1,))
    np.testing.assert_allclose(nli.predict(PAIRS), [BINARY_ROW] * len(PAIRS), atol=1e-5)


def test_rows_are_the_models_own_softmax_reordered_whatever_the_batch(models: dict[str, Path]) -> None:
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    folder = models["varied"]
    tokenizer = AutoTokenizer.from_pretrained(folder)
    model = AutoModelForSequenceClassification.from_pretrained(folder).eval()
    with torch.no_grad():  # one pair at a time, no padding: the model's own answer
        raw = np.vstack(
            [torch.softmax(model(**tokenizer(p, h, return_tensors="pt")).logits, -1).numpy() for p, h in PAIRS]
        )
    expected = raw[:, [2, 1, 0]]  # ENTAILMENT, NEUTRAL, CONTRADICTION
    assert np.ptp(expected[:, 0]) > 0.05  # the pairs do get different answers
    for batch_size in (2, 64):
        got = CrossEncoderNli(folder, device="cpu", precision="float32", batch_size=batch_size).predict(PAIRS)
        np.testing.assert_allclose(got, expected, atol=1e-5)


def test_labels_read_from_a_config() -> None:
    vitaminc = label_map({0: "SUPPORTS", 1: "REFUTES", 2: "NOT ENOUGH INFO"})
    assert (vitaminc.layout, vitaminc.columns) == ("three-way", (0, 2, 1))
    two = label_map({0: "entailment", 1: "not_entailment"})
    assert (two.layout, two.columns) == ("binary", (0,))
    logits = np.array([[math.log(3.0)]])  # sigmoid(log 3) = 3 / 4
    np.testing.assert_allclose(label_map({0: "LABEL_0"}).probabilities(logits), [[0.75, 0.25, 0.0]], atol=1e-6)
    np.testing.assert_allclose(label_map({0: "hallucinated"}).probabilities(logits), [[0.25, 0.75, 0.0]], atol=1e-6)
    for labels in ({0: "LABEL_0", 1: "LABEL_1"}, {0: "positive", 1: "neutral", 2: "negative"}, {0: "a", 1: "b"}):
        with pytest.raises(ValueError, match=r"Cannot read the NLI model's labels \[") as error:
            label_map(labels)
        assert all(repr(name) in str(error.value) for name in labels.values())
    with pytest.raises(ValueError, match="entailment"):
        label_map({0: "entailment", 1: "entailment", 2: "contradiction"})


def test_a_model_travels_by_pickle_without_its_weights(models: dict[str, Path]) -> None:
    nli = CrossEncoderNli(models["varied"], device="cpu", precision="float32", batch_size=3)
    before = nli.predict(PAIRS)
    moved = pickle.loads(pickle.dumps(nli))
    assert moved._loaded is None and len(moved._cache) == 0
    assert (moved.source, moved.labels, moved.batch_size) == (str(models["varied"].resolve()), nli.labels, 3)
    np.testing.assert_allclose(moved.predict(PAIRS), before, atol=1e-6)


def test_the_device_and_precision_follow_the_judge(models: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)
    nli = CrossEncoderNli(models["binary"])  # nothing is loaded: the device is only chosen
    assert (nli.device, nli.autocast_dtype()) == ("cuda", torch.float16)
    judge = quiet(OfflineJudge, device="cuda", nli=str(models["binary"]))
    assert (judge.nli.device, judge.encoder.encoder.device) == ("cuda", "cuda")
    assert CrossEncoderNli(models["binary"], device="cpu", precision="float32").autocast_dtype() is None


def test_what_is_not_a_usable_model_is_a_clear_error(models: dict[str, Path], tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ValueError, match=r"the folder has no config\.json"):
        CrossEncoderNli(empty)
    with pytest.raises(ValueError, match="is a file; give the NLI model's folder"):
        CrossEncoderNli(models["binary"] / "config.json")
    with pytest.raises(ValueError, match="No NLI model folder at"):
        CrossEncoderNli(tmp_path / "missing")
    unnamed = save_model(tmp_path / "unnamed", {0: "LABEL_0", 1: "LABEL_1"}, [0.0, 0.0])
    with pytest.raises(ValueError, match=r"labels \['LABEL_0', 'LABEL_1'\].*config.json \(id2label\)"):
        CrossEncoderNli(unnamed)
    encoder_only = save_model(tmp_path / "encoder_only", THREE_WAY, head=False)
    with pytest.raises(ValueError, match=r"lacks trained weights for classifier\.bias, classifier\.weight"):
        CrossEncoderNli(encoder_only, device="cpu").predict(PAIRS[:1])
    with pytest.raises(ValueError, match="No NLI model folder at"):
        make_judge(f"offline:nli={tmp_path / 'missing'}")
    with pytest.raises(ValueError, match="empty option 'nli'"):
        make_judge("offline:nli=")
    with pytest.raises(ValueError, match="repeated option 'nli'"):
        make_judge(f"offline:nli={models['binary']},nli={models['three_way']}")


def test_a_name_picks_the_packaged_model_an_adapter_or_a_model_of_ones_own(models: dict[str, Path]) -> None:
    assert type(load_nli(None)) is NliModel and (load_nli(None).source, load_nli(None).record()) == (None, None)
    assert type(load_nli(shipped_adapter_path())) is NliModel  # an adapter folder
    assert load_nli(shipped_adapter_path()).record() is None  # the shipped one: nothing to record
    own = load_nli(str(models["binary"]))
    assert type(own) is CrossEncoderNli and own.source == str(models["binary"].resolve())
    assert offline_options("nli=a,b,judge=c.json") == {"nli": "a,b", "judge": "c.json"}
    assert offline_options(" my_judge.json ") == {"judge": "my_judge.json"}


# -- in the judge ----------------------------------------------------------------------------------------------

SAMPLE = RagSample(
    question="How tall is Mount Everest?",
    contexts=["Mount Everest is 8,849 metres tall. It lies in the Himalayas."],
    response="Mount Everest is 6,120 metres tall. It lies in the Himalayas.",
)


def test_the_judge_runs_trace_on_a_three_way_model_and_warns_once(models: dict[str, Path]) -> None:
    judge = quiet(OfflineJudge, nli=str(models["three_way"]), device="cpu")
    assert isinstance(judge.nli, CrossEncoderNli)
    labels = judge.trace_labels(SAMPLE)
    assert labels.value is not None and len(labels.value.sentence_support_information) == 2
    scored = np.array(list(judge.nli._cache.values()))
    assert len(scored) > 0
    # every pair went through it; precision "auto" runs bfloat16 on a CPU with native bfloat16 (8 bits of mantissa:
    # 0.6 comes back as 0.5988), float32 elsewhere — the tolerance holds on both
    np.testing.assert_allclose(scored, [THREE_WAY_ROW] * len(scored), atol=5e-3)
    _, verdicts = judge.features(SAMPLE.question, SAMPLE.sentences, SAMPLE.response)
    assert [v.entailment for v in verdicts] == pytest.approx([0.6, 0.6], abs=5e-3)  # as above
    copy = pickle.loads(pickle.dumps(judge))  # to a worker: same model, nothing loaded, no second warning
    assert (copy.nli.source, copy.nli._loaded) == (judge.nli.source, None)
    packaged = OfflineJudge(device="cpu")
    assert judge.cache_identity()["nli"] != packaged.cache_identity()["nli"]


def test_with_a_binary_model_contradictions_come_from_the_slot_checks(models: dict[str, Path]) -> None:
    # numbers force a verdict here (by default only the kinds precise to 0.9 on real answers do: negation)
    params = dataclasses.replace(LocalParams.load(), forcing_kinds=["number"])
    judge = quiet(OfflineJudge, nli=models["binary"], device="cpu", params=params)
    notes = judge.trace_labels(SAMPLE).notes
    _, verdicts = judge.features(SAMPLE.question, SAMPLE.sentences, SAMPLE.response)
    assert [v.contradiction for v in verdicts] == [0.0, 0.0]  # the model never says contradicted
    assert notes["sentence_verdicts"]["a"] == "contradicted"  # 6,120 against 8,849 metres: a slot check
    assert [c["kind"] for c in notes["contradictions"]] == ["number"]


def test_the_cli_evaluates_with_a_model_of_ones_own(models: dict[str, Path], tmp_path: Path) -> None:
    from rageval_lc import evaluate

    rows = tmp_path / "rows.jsonl"
    rows.write_text(json.dumps({"id": "s", **SAMPLE.model_dump(include={"question", "contexts", "response"})}) + "\n")
    out = tmp_path / "out.jsonl"
    spec = f"offline:nli={models['three_way']}"
    args = ["evaluate", str(rows), "--metrics", "trace", "--judge", spec, "--out", str(out), "--no-progress"]
    assert quiet(main, [*args, "--device", "cpu"]) == 0
    (row,) = [json.loads(line) for line in out.read_text().splitlines()]
    judge = quiet(make_judge, spec, device="cpu")
    python = evaluate([SAMPLE], "trace", judge=judge).results[0].results
    assert row["scores"]["adherence_probability"] == pytest.approx(python["adherence_probability"].score, abs=1e-6)


FACTS = [
    ("Mount Everest", "8,849 metres tall", "6,120 metres tall"),
    ("The Eiffel Tower", "in Paris", "in Rome"),
    ("The Nile", "in Africa", "in South America"),
    ("The Moon", "orbiting the Earth", "orbiting Mars"),
    ("Canberra", "the capital of Australia", "the capital of Canada"),
    ("The Titanic", "a ship that sank in 1912", "a ship that sank in 1955"),
    ("Tokyo", "the capital of Japan", "the capital of China"),
    ("Jupiter", "the largest planet of the Solar System", "the smallest planet of the Solar System"),
    ("Mercury", "the planet closest to the Sun", "the planet farthest from the Sun"),
    ("The Pacific", "the largest ocean on Earth", "the smallest ocean on Earth"),
]


def test_align_refits_on_the_model_and_the_judge_file_loads_it_again(models: dict[str, Path], tmp_path: Path) -> None:
    rows = tmp_path / "labelled.jsonl"
    with rows.open("w", encoding="utf-8") as handle:
        for i, (subject, true, false) in enumerate(FACTS):
            context = [f"{subject} is {true}. It is well known."]
            for j, (fact, faithful) in enumerate(((true, True), (false, False))):
                row = {"id": f"{i}-{j}", "question": f"What is {subject}?", "contexts": context}
                handle.write(json.dumps({**row, "response": f"{subject} is {fact}.", "faithful": faithful}) + "\n")
    out = tmp_path / "judge.json"
    folder = models["three_way"]
    args = ["align", str(rows), "--judge", f"offline:nli={folder}", "--metrics", "faithfulness", "--out", str(out)]
    assert quiet(main, [*args, "--force"]) == 0
    metadata = LocalParams.load(out).metadata
    assert metadata["nli_model"] == {
        "model": str(folder.resolve()),
        "layout": "three-way",
        "labels": ["CONTRADICTION", "NEUTRAL", "ENTAILMENT"],
    }
    with warnings.catch_warnings():
        warnings.simplefilter("error", CalibrationWarning)  # fitted on this model: nothing to warn about
        for judge in (make_judge(f"offline:{out}"), make_judge(f"offline:judge={out}"), OfflineJudge(params=str(out))):
            assert isinstance(judge.nli, CrossEncoderNli) and judge.nli.source == str(folder.resolve())
    other = quiet(make_judge, f"offline:nli={models['binary']},judge={out}")  # explicitly another: it is used, warned
    assert other.nli.source == str(models["binary"].resolve())
    assert other.params.support == LocalParams.load(out).support
    with pytest.warns(CalibrationWarning, match=f"fitted on the NLI model '{folder.resolve()}', not on the packaged"):
        OfflineJudge(params=str(out), nli=shipped_adapter_path())
    again = tmp_path / "again.json"  # aligned again from that file on the packaged model: the record goes
    packaged = f"offline:nli={shipped_adapter_path()},judge={out}"
    aligned_again = ["align", str(rows), "--judge", packaged, "--metrics", "faithfulness", "--out", str(again)]
    assert quiet(main, [*aligned_again, "--force"]) == 0  # 32 rows: too few to pass the check, written all the same
    assert "nli_model" not in LocalParams.load(again).metadata
    with warnings.catch_warnings():
        warnings.simplefilter("error", CalibrationWarning)
        assert make_judge(f"offline:{again}").nli.source is None


def test_a_judge_file_whose_model_moved_says_where_to_give_it(models: dict[str, Path], tmp_path: Path) -> None:
    import dataclasses

    gone = tmp_path / "gone"
    shipped = LocalParams.load()
    record = {"model": str(gone), "layout": "three-way", "labels": list(THREE_WAY.values())}
    path = tmp_path / "judge.json"
    path.write_text(dataclasses.replace(shipped, metadata={"nli_model": record}).to_json(), encoding="utf-8")
    with pytest.raises(ValueError, match=r"aligned with the NLI model '.*gone', which cannot be read here"):
        make_judge(f"offline:{path}")
    moved = quiet(make_judge, f"offline:nli={models['three_way']},judge={path}")  # another path: warned, as any other
    assert moved.nli.source == str(models["three_way"].resolve())
