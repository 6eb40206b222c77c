"""The packaged MiniLM's forward pass as an ONNX graph run by onnxruntime: the offline judge's CPU runtime.

The same computation as :class:`~rageval_lc.judges.offline.bert_numpy.NumpyBert` (embeddings, post-norm encoder
layers with exact GELU, masked scaled dot-product attention, the pooler and the classification head), written as an
ONNX graph with ``onnx.helper`` (standard operators only), then run by onnxruntime: its multi-threaded matrix
products and its own memory arena. On 100 RAGBench rows (trace and faithfulness, 2 cores) a run took 26 s where the
numpy pass took 100 s and torch's bfloat16 39 s, with the numpy pass's vectors and probabilities within float
rounding (``tests/judges/offline/test_cpu_runtimes.py`` compares every runtime with torch on real sentences and
pairs). The graph is written in memory each time a model loads, its weights handed to the session as external
initializers (about 0.2 s): no exported file ships, nothing needs torch. onnxruntime keeps its own copy of them
(overwriting the arrays afterwards changes no output), so the arrays kept here serve only to build the one-thread
session (:func:`one_thread`) when it is first asked for.

Example:
    >>> config = BertConfig(hidden_size=8, num_attention_heads=2, num_hidden_layers=1)
    >>> import numpy as np
    >>> from rageval_lc.judges.offline.bert_config import weight_names
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
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

import numpy as np

from rageval_lc.judges.offline.bert_config import BertConfig, checked_weights

__all__ = ["OnnxBert", "one_thread", "onnx_available"]

_OPSET = 17  # LayerNormalization's first opset
_THIS_THREAD = threading.local()


@contextmanager
def one_thread() -> Iterator[None]:
    """Within it, the forward passes this thread runs use one core (a second session of the same model, one
    thread, built from the same weights): for scoring in the background beside a chain, which keeps the other
    cores.

    Example:
        >>> with one_thread():
        ...     _one_thread_here()
        True
        >>> _one_thread_here()
        False
    """
    before = _one_thread_here()
    _THIS_THREAD.one = True
    try:
        yield
    finally:
        _THIS_THREAD.one = before


def _one_thread_here() -> bool:
    return bool(getattr(_THIS_THREAD, "one", False))


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
        w = checked_weights(weights, config, classifier=classifier)
        model, self._weights = _graph(
            {k: np.asarray(v, dtype=np.float32) for k, v in w.items()}, config, classifier=classifier
        )
        self._graph_bytes = model.SerializeToString()  # a few kilobytes: the weights are outside it
        threads = threads if threads is not None else int(os.environ.get("RAGEVAL_THREADS", "0") or 0)
        self._sessions = {"default": self._session(max(0, threads))}
        self._lock = threading.Lock()
        # the arena keeps the run fast (without it every tensor is a fresh mapping: twice the time); shrinking it
        # after each run hands a large batch's memory back instead of holding the largest batch's for good
        self._run_options = onnxruntime.RunOptions()
        self._run_options.add_run_config_entry("memory.enable_memory_arena_shrinkage", "cpu:0")

    def _session(self, threads: int) -> Any:
        """A session of the graph on ``threads`` threads (0: onnxruntime's choice, one per physical core)."""
        import onnxruntime

        options = onnxruntime.SessionOptions()
        options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.log_severity_level = 3  # errors only
        # threads sleep between runs instead of spinning: the judge often scores beside a chain (the callback
        # handler's worker); spinning cost a 20 ms chain 1.23x its latency where sleeping cost 1.07x, and inline
        # scoring 92 ms where sleeping took 68 ms, for the same rows/s on a file (26.4 s and 26.7 s for 100 rows)
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        names = list(self._weights)  # the session copies them; they are kept for a later one-thread session
        options.add_external_initializers(
            names, [onnxruntime.OrtValue.ortvalue_from_numpy(self._weights[n]) for n in names]
        )
        return onnxruntime.InferenceSession(self._graph_bytes, options, providers=["CPUExecutionProvider"])

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
        if _one_thread_here():
            with self._lock:
                if "one" not in self._sessions:
                    self._sessions["one"] = self._session(1)
            session = self._sessions["one"]
        else:
            session = self._sessions["default"]
        return session.run([output], feed, self._run_options)[0]


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


def _graph(w: Mapping[str, np.ndarray], config: BertConfig, *, classifier: bool) -> tuple[Any, dict[str, np.ndarray]]:
    """The forward pass as an ONNX model (inputs ``input_ids``, ``attention_mask``, ``token_type_ids``: int64,
    batch × length; outputs ``hidden`` and, for a classifier, ``logits``) and the weights it names as external data,
    by name, handed to the session apart from the graph."""
    from onnx import TensorProto, helper

    g = _Builder()
    heads, size, hidden = config.num_attention_heads, config.head_size, config.hidden_size

    def linear(x: str, prefix: str) -> str:
        product = g.op("MatMul", x, g.const(prefix + ".weight.T", w[prefix + ".weight"].T))
        return g.op("Add", product, g.const(prefix + ".bias", w[prefix + ".bias"]))

    def norm(x: str, prefix: str) -> str:
        gamma, beta = g.const(prefix + ".weight", w[prefix + ".weight"]), g.const(prefix + ".bias", w[prefix + ".bias"])
        return g.op("LayerNormalization", x, gamma, beta, axis=-1, epsilon=config.layer_norm_eps)

    # embeddings: word + token type + position (the first `length` rows of the position table), normalised
    length = g.op("Slice", g.op("Shape", "input_ids"), g.ints("one", [1]), g.ints("two", [2]))  # [length]
    words = g.op("Gather", g.const("word_embeddings", w["embeddings.word_embeddings.weight"]), "input_ids")
    types = g.op("Gather", g.const("type_embeddings", w["embeddings.token_type_embeddings.weight"]), "token_type_ids")
    table = g.const("position_embeddings", w["embeddings.position_embeddings.weight"])
    positions = g.op("Slice", table, g.ints("zero", [0]), length, "zero")
    x = norm(g.op("Add", g.op("Add", words, types), positions), "embeddings.LayerNorm")
    # attention bias, batch × 1 × 1 × length: 0 where a key may be attended to, float32's lowest at padding
    padding = g.op("Sub", g.floats("f_one", 1.0), g.op("Cast", "attention_mask", to=TensorProto.FLOAT))
    bias = g.op("Mul", padding, g.floats("lowest", float(np.finfo(np.float32).min)))
    bias = g.op("Unsqueeze", bias, g.ints("axes_1_2", [1, 2]))
    split_heads, merge_heads = g.ints("split_heads", [0, 0, heads, size]), g.ints("merge_heads", [0, 0, hidden])
    for i in range(config.num_hidden_layers):
        p = f"encoder.layer.{i}."

        def by_head(part: str, perm: list[int], x: str = x, p: str = p) -> str:  # batch × heads × length × size
            projected = linear(x, f"{p}attention.self.{part}")
            return g.op("Transpose", g.op("Reshape", projected, split_heads), perm=perm)

        q, k_t, v = by_head("query", [0, 2, 1, 3]), by_head("key", [0, 2, 3, 1]), by_head("value", [0, 2, 1, 3])
        scores = g.op("Add", g.op("Mul", g.op("MatMul", q, k_t), g.floats("scale", size**-0.5)), bias)
        context = g.op("MatMul", g.op("Softmax", scores, axis=-1), v)
        context = g.op("Reshape", g.op("Transpose", context, perm=[0, 2, 1, 3]), merge_heads)
        x = norm(g.op("Add", linear(context, p + "attention.output.dense"), x), p + "attention.output.LayerNorm")
        inner = linear(x, p + "intermediate.dense")  # then the exact GELU: x/2 · (1 + erf(x/√2))
        erf = g.op("Erf", g.op("Mul", inner, g.floats("root_half", 0.5**0.5)))
        gelu = g.op("Mul", g.op("Mul", inner, g.floats("half", 0.5)), g.op("Add", erf, "f_one"))
        x = norm(g.op("Add", linear(gelu, p + "output.dense"), x), p + "output.LayerNorm")
    g.output("hidden", x, ["batch", "length", hidden])
    if classifier:
        pooled = g.op("Tanh", linear(g.op("Gather", x, g.ints("first", 0), axis=1), "pooler.dense"))
        g.output("logits", linear(pooled, "classifier"), ["batch", len(w["classifier.bias"])])
    inputs = [
        helper.make_tensor_value_info(name, TensorProto.INT64, ["batch", "length"])
        for name in ("input_ids", "attention_mask", "token_type_ids")
    ]
    graph = helper.make_graph(g.nodes, "bert", inputs, g.outputs, g.initializers)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", _OPSET)], ir_version=9), g.weights


class _Builder:
    """An ONNX graph written node by node: each :meth:`op` names its one output after its place in the graph."""

    def __init__(self) -> None:
        self.nodes: list[Any] = []
        self.initializers: list[Any] = []
        self.outputs: list[Any] = []
        self.weights: dict[str, np.ndarray] = {}

    def op(self, kind: str, *inputs: str, **attributes: Any) -> str:
        from onnx import helper

        name = f"{kind}_{len(self.nodes)}"
        self.nodes.append(helper.make_node(kind, list(inputs), [name], name=name, **attributes))
        return name

    def ints(self, name: str, value: Any) -> str:
        """A small int64 constant in the graph."""
        from onnx import numpy_helper

        self.initializers.append(numpy_helper.from_array(np.array(value, dtype=np.int64), name))
        return name

    def floats(self, name: str, value: float) -> str:
        """A float32 scalar in the graph (used again by its name)."""
        from onnx import numpy_helper

        self.initializers.append(numpy_helper.from_array(np.array(value, dtype=np.float32), name))
        return name

    def const(self, name: str, value: np.ndarray) -> str:
        """A weight: the graph names it as external data, handed to the session with onnxruntime's
        ``add_external_initializers`` (the graph stays a few kilobytes; the session copies the array)."""
        from onnx import TensorProto

        self.weights[name] = np.ascontiguousarray(value, dtype=np.float32)
        tensor = TensorProto(name=name, data_type=TensorProto.FLOAT, dims=value.shape)
        tensor.data_location = TensorProto.EXTERNAL
        for key, entry in (("location", "in-memory"), ("offset", "0"), ("length", str(self.weights[name].nbytes))):
            tensor.external_data.add(key=key, value=entry)
        self.initializers.append(tensor)
        return name

    def output(self, name: str, value: str, shape: list[Any]) -> None:
        from onnx import TensorProto, helper

        self.nodes.append(helper.make_node("Identity", [value], [name], name=name))
        self.outputs.append(helper.make_tensor_value_info(name, TensorProto.FLOAT, shape))
