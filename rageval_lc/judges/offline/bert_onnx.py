"""The packaged MiniLM's forward pass as an ONNX graph run by onnxruntime: the offline judge's CPU runtime.

The same computation as :class:`~rageval_lc.judges.offline.bert_numpy.NumpyBert` (embeddings, post-norm encoder
layers with exact GELU, masked scaled dot-product attention, the pooler and the classification head), written as an
ONNX graph with ``onnx.helper`` over the weights already read, then run by onnxruntime, whose graph optimiser fuses
the layer norms, GELU and attention into its own multi-threaded kernels. It runs several times as fast as the
numpy pass on the same CPU and gives the same vectors and probabilities within float rounding
(``tests/judges/offline/test_onnx_runtime.py`` compares the two on real sentences and pairs). The graph is built in
memory each time a model loads (a fraction of a second): no exported file ships, nothing needs torch.

Example:
    >>> config = BertConfig(hidden_size=8, num_attention_heads=2, num_hidden_layers=1)
    >>> import numpy as np
    >>> from rageval_lc.judges.offline.bert_numpy import NumpyBert
    >>> rng = np.random.default_rng(0)
    >>> weights = {name: rng.normal(0, 0.2, _shape(name, config)).astype(np.float32)
    ...            for name in weight_names(config, classifier=False)}
    >>> ids, mask = [[1, 7, 2, 0]], [[1, 1, 1, 0]]  # the last one padding
    >>> ours = OnnxBert(weights, config).hidden_states(ids, mask)
    >>> theirs = NumpyBert(weights, config).hidden_states(ids, mask)
    >>> bool(np.abs(ours - theirs)[0, :3].max() < 1e-5)
    True
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import numpy as np

from rageval_lc.judges.offline.bert_config import BertConfig, weight_names

__all__ = ["OnnxBert", "onnx_available"]

_OPSET = 17  # LayerNormalization's first opset


def onnx_available() -> bool:
    """Whether onnxruntime and onnx import (both are dependencies; a trimmed install may lack them)."""
    from importlib.util import find_spec

    return find_spec("onnxruntime") is not None and find_spec("onnx") is not None


class OnnxBert:
    """A BERT's forward pass as an onnxruntime session over weights given by name (the names
    :class:`~rageval_lc.judges.offline.bert.BertForward` reads).

    Args:
        weights: the tensors by name (a ``bert.`` prefix dropped).
        config: the model's shape.
        classifier: whether the model has a pooler and a classification head (:meth:`logits`).
        threads: onnxruntime's intra-op threads (None: ``RAGEVAL_THREADS``, else onnxruntime's own choice, one per
            physical core).

    Raises:
        ValueError: If a tensor the forward pass reads is missing, or one it would leave unread is there.
    """

    device = "cpu"

    def __init__(
        self, weights: Mapping[str, Any], config: BertConfig, *, classifier: bool = False, threads: int | None = None
    ) -> None:
        import onnxruntime

        self.config = config
        self.classifier = classifier
        w = {name.removeprefix("bert."): value for name, value in weights.items()}
        w.pop("embeddings.position_ids", None)  # a buffer, not a weight
        if not classifier:
            w = {k: v for k, v in w.items() if not k.startswith("pooler.")}
        expected = weight_names(config, classifier=classifier)
        if set(w) != expected:
            missing, unread = sorted(expected - set(w)), sorted(set(w) - expected)
            msg = f"Not the weights of this BERT: missing {missing[:4]}, unread {unread[:4]}."
            raise ValueError(msg)
        model, self._weights = _graph(
            {k: np.asarray(v, dtype=np.float32) for k, v in w.items()}, config, classifier=classifier
        )
        options = onnxruntime.SessionOptions()
        options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
        threads = threads if threads is not None else int(os.environ.get("RAGEVAL_THREADS", "0") or 0)
        options.intra_op_num_threads = max(0, threads)
        options.inter_op_num_threads = 1
        options.log_severity_level = 3  # errors only
        names = list(self._weights)  # kept alive with the session, which reads them where they are
        options.add_external_initializers(
            names, [onnxruntime.OrtValue.ortvalue_from_numpy(self._weights[n]) for n in names]
        )
        self._session = onnxruntime.InferenceSession(
            model.SerializeToString(), options, providers=["CPUExecutionProvider"]
        )
        # the arena keeps the run fast (without it every tensor is a fresh mapping: twice the time); shrinking it
        # after each run hands a large batch's memory back instead of holding the largest batch's for good
        self._run_options = onnxruntime.RunOptions()
        self._run_options.add_run_config_entry("memory.enable_memory_arena_shrinkage", "cpu:0")

    def hidden_states(self, input_ids: Any, attention_mask: Any, token_type_ids: Any | None = None) -> np.ndarray:
        """The last layer's hidden states (batch × length × hidden, float32), as ``BertModel``'s."""
        return self._run("hidden", input_ids, attention_mask, token_type_ids)

    def logits(self, input_ids: Any, attention_mask: Any, token_type_ids: Any | None = None) -> np.ndarray:
        """The classification head's logits, as ``BertForSequenceClassification``'s."""
        if not self.classifier:
            msg = "This model has no classification head (built with classifier=False)."
            raise ValueError(msg)
        return self._run("logits", input_ids, attention_mask, token_type_ids)

    def _run(self, output: str, input_ids: Any, attention_mask: Any, token_type_ids: Any | None) -> np.ndarray:
        ids = np.asarray(input_ids, dtype=np.int64)
        types = np.zeros_like(ids) if token_type_ids is None else np.asarray(token_type_ids, dtype=np.int64)
        feed = {"input_ids": ids, "attention_mask": np.asarray(attention_mask, dtype=np.int64), "token_type_ids": types}
        return self._session.run([output], feed, self._run_options)[0]


def _shape(name: str, config: BertConfig) -> tuple[int, ...]:
    """A weight's shape (for the example and the tests: random weights of a small config)."""
    h, inner = config.hidden_size, 4 * config.hidden_size
    if name.startswith("embeddings.") and name.endswith("_embeddings.weight"):
        rows = {"word": 30, "position": config.max_position_embeddings, "token_type": 2}
        return (rows[name.split(".")[1].removesuffix("_embeddings")], h)
    if name.endswith("intermediate.dense.weight"):
        return (inner, h)
    if name.endswith("intermediate.dense.bias"):
        return (inner,)
    if name.endswith("output.dense.weight") and "attention" not in name:
        return (h, inner)
    if name == "classifier.weight":
        return (3, h)
    if name == "classifier.bias":
        return (3,)
    return (h, h) if name.endswith("weight") and "LayerNorm" not in name else (h,)


def _graph(w: Mapping[str, np.ndarray], config: BertConfig, *, classifier: bool) -> Any:
    """The forward pass as an ONNX model: inputs ``input_ids``, ``attention_mask``, ``token_type_ids`` (int64,
    batch × length); outputs ``hidden`` and, for a classifier, ``logits``."""
    from onnx import TensorProto, helper, numpy_helper

    nodes: list[Any] = []
    initializers: list[Any] = []
    weights: dict[str, np.ndarray] = {}

    def const(name: str, value: np.ndarray) -> str:
        if value.size <= 16:  # a small constant, in the graph
            initializers.append(numpy_helper.from_array(np.ascontiguousarray(value), name))
            return name
        # a weight: the graph names it as external data, and the session reads the array itself
        # (onnxruntime's add_external_initializers): nothing copied into the graph or serialised
        weights[name] = np.ascontiguousarray(value)
        tensor = TensorProto(name=name, data_type=TensorProto.FLOAT, dims=value.shape)
        tensor.data_location = TensorProto.EXTERNAL
        for key, entry in (("location", "in-memory"), ("offset", "0"), ("length", str(value.nbytes))):
            tensor.external_data.add(key=key, value=entry)
        initializers.append(tensor)
        return name

    def node(op: str, inputs: list[str], name: str, **attributes: Any) -> str:
        nodes.append(helper.make_node(op, inputs, [name], name=name, **attributes))
        return name

    def linear(x: str, prefix: str, out: str) -> str:
        weight = const(prefix + ".weight.T", w[prefix + ".weight"].T)
        return node(
            "Add", [node("MatMul", [x, weight], out + ".mm"), const(prefix + ".bias", w[prefix + ".bias"])], out
        )

    def norm(x: str, prefix: str, out: str) -> str:
        gamma, beta = const(prefix + ".weight", w[prefix + ".weight"]), const(prefix + ".bias", w[prefix + ".bias"])
        return node("LayerNormalization", [x, gamma, beta], out, axis=-1, epsilon=config.layer_norm_eps)

    heads, size, hidden = config.num_attention_heads, config.head_size, config.hidden_size
    # embeddings: word + token type + position (the first `length` rows of the position table), normalised
    length = node(
        "Slice",
        [
            node("Shape", ["input_ids"], "shape"),
            const("i.1", np.array([1], np.int64)),
            const("i.2", np.array([2], np.int64)),
        ],
        "length",
    )  # 1-D: [length]
    table = const("embeddings.position", w["embeddings.position_embeddings.weight"])
    words = node("Gather", [const("embeddings.word", w["embeddings.word_embeddings.weight"]), "input_ids"], "emb.word")
    types = node(
        "Gather", [const("embeddings.type", w["embeddings.token_type_embeddings.weight"]), "token_type_ids"], "emb.type"
    )
    positions = node("Slice", [table, const("i.0", np.array([0], np.int64)), length, "i.0"], "emb.position")
    x = norm(node("Add", [node("Add", [words, types], "emb.sum"), positions], "emb.all"), "embeddings.LayerNorm", "emb")
    # attention bias: 0 where a key may be attended to, float32's lowest where it is padding (exp gives 0 there)
    pad = node(
        "Sub",
        [const("f.one", np.array(1.0, np.float32)), node("Cast", ["attention_mask"], "mask", to=TensorProto.FLOAT)],
        "pad",
    )
    bias = node("Mul", [pad, const("f.lowest", np.array(np.finfo(np.float32).min, np.float32))], "pad.low")
    bias = node("Unsqueeze", [bias, const("axes.1.2", np.array([1, 2], np.int64))], "bias")  # batch × 1 × 1 × length
    split_heads = const("shape.heads", np.array([0, 0, heads, size], np.int64))
    merge_heads = const("shape.merged", np.array([0, 0, hidden], np.int64))
    scale = const("scale", np.array(size**-0.5, np.float32))
    half, root_half = const("f.half", np.array(0.5, np.float32)), const("f.root_half", np.array(0.5**0.5, np.float32))
    for i in range(config.num_hidden_layers):
        p = f"encoder.layer.{i}."
        q, k, v = (
            node(
                "Transpose",
                [
                    node(
                        "Reshape",
                        [linear(x, f"{p}attention.self.{part}", f"l{i}.{part}"), split_heads],
                        f"l{i}.{part}.heads",
                    )
                ],
                f"l{i}.{part}.t",
                perm=perm,
            )
            for part, perm in (("query", [0, 2, 1, 3]), ("key", [0, 2, 3, 1]), ("value", [0, 2, 1, 3]))
        )
        scores = node(
            "Add", [node("Mul", [node("MatMul", [q, k], f"l{i}.qk"), scale], f"l{i}.scaled"), bias], f"l{i}.masked"
        )
        context = node("MatMul", [node("Softmax", [scores], f"l{i}.probs", axis=-1), v], f"l{i}.ctx")
        context = node(
            "Reshape", [node("Transpose", [context], f"l{i}.ctx.t", perm=[0, 2, 1, 3]), merge_heads], f"l{i}.ctx.merged"
        )
        attended = node("Add", [linear(context, p + "attention.output.dense", f"l{i}.ao"), x], f"l{i}.ao.res")
        x = norm(attended, p + "attention.output.LayerNorm", f"l{i}.an")
        inner = linear(x, p + "intermediate.dense", f"l{i}.in")  # exact GELU: x/2 · (1 + erf(x/√2))
        erf = node(
            "Add", [node("Erf", [node("Mul", [inner, root_half], f"l{i}.in.s")], f"l{i}.erf"), "f.one"], f"l{i}.erf1"
        )
        gelu = node("Mul", [node("Mul", [inner, half], f"l{i}.in.h"), erf], f"l{i}.gelu")
        output = node("Add", [linear(gelu, p + "output.dense", f"l{i}.out"), x], f"l{i}.out.res")
        x = norm(output, p + "output.LayerNorm", f"l{i}.on")
    outputs = [helper.make_tensor_value_info("hidden", TensorProto.FLOAT, ["batch", "length", hidden])]
    nodes.append(helper.make_node("Identity", [x], ["hidden"], name="hidden"))
    if classifier:
        first = node("Gather", [x, const("zero", np.array(0, np.int64))], "first", axis=1)
        pooled = node("Tanh", [linear(first, "pooler.dense", "pool")], "pooled")
        nodes.append(helper.make_node("Identity", [linear(pooled, "classifier", "head")], ["logits"], name="logits"))
        outputs.append(helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", len(w["classifier.bias"])]))
    inputs = [
        helper.make_tensor_value_info(name, TensorProto.INT64, ["batch", "length"])
        for name in ("input_ids", "attention_mask", "token_type_ids")
    ]
    graph = helper.make_graph(nodes, "bert", inputs, outputs, initializers)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", _OPSET)], ir_version=9), weights
