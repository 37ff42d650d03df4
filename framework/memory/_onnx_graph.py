"""The ONNX graph of a BERT sentence encoder, written from its weights with the ``onnx`` helpers.

It computes what sentence-transformers computes for all-MiniLM-L6-v2 (a Hugging Face
``BertModel``, mean pooling over the attention mask, L2 normalisation) with standard ONNX
operators only; ONNX Runtime fuses them (LayerNorm, Gelu, attention) when it loads the graph.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    from onnx import NodeProto, TensorProto

__all__ = ["BertShape", "bert_sentence_graph"]


@dataclass(frozen=True, kw_only=True)
class BertShape:
    """The sizes of a BERT sentence encoder, read from its config files."""

    hidden: int
    heads: int
    layers: int
    eps: float
    max_seq_length: int
    pad_id: int


def bert_sentence_graph(
    weights: Mapping[str, npt.NDArray[Any]], shape: BertShape, *, opset: int, ir_version: int
) -> bytes:
    """Serialise the graph ``(input_ids, attention_mask) -> sentence_embedding``.

    Args:
        weights: The ``BertModel`` state dict (a leading ``bert.`` is dropped from the names).
        shape: Sizes and epsilon from the model's config.
        opset: The ONNX opset to declare (17 or later: ``LayerNormalization``).
        ir_version: The ONNX IR version to declare.

    Raises:
        KeyError: A weight is missing.
        ValueError: A weight has the wrong shape.
    """
    from onnx import TensorProto, helper  # noqa: PLC0415 - needed only to build the graph

    weights = {name.removeprefix("bert."): array for name, array in weights.items()}
    writer = _Writer(weights, shape)
    hidden = writer.encoder()
    pooled = writer.pooled(hidden)
    graph = helper.make_graph(
        writer.nodes,
        "cadre-minilm",
        [
            helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "seq"]),
            helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "seq"]),
        ],
        [helper.make_tensor_value_info(pooled, TensorProto.FLOAT, ["batch", shape.hidden])],
        writer.initializers,
    )
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", opset)], producer_name="cadre"
    )
    model.ir_version = ir_version
    return bytes(model.SerializeToString())


class _Writer:
    """Collects the nodes and initializers of the graph as it is written."""

    def __init__(self, weights: Mapping[str, npt.NDArray[Any]], shape: BertShape) -> None:
        from onnx import numpy_helper  # noqa: PLC0415

        self._weights = weights
        self._shape = shape
        self._from_array = numpy_helper.from_array
        self.nodes: list[NodeProto] = []
        self.initializers: list[TensorProto] = []

    def const(self, name: str, value: npt.ArrayLike, dtype: type[np.generic]) -> str:
        """Add an initializer; returns its name."""
        array = np.ascontiguousarray(np.asarray(value, dtype=dtype))
        self.initializers.append(self._from_array(array, name))
        return name

    def weight(
        self, name: str, *, transpose: bool = False, size: tuple[int, ...], scale: float = 1.0
    ) -> str:
        """Add the weight ``name`` (transposed for MatMul, scaled) after checking its shape."""
        array = np.asarray(self._weights[name], dtype=np.float32)
        if transpose:
            array = array.T
        if scale != 1.0:
            array = array * np.float32(scale)
        if array.shape != size:
            raise ValueError(f"weight {name} has shape {array.shape}, expected {size}")
        return self.const(name, array, np.float32)

    def op(self, kind: str, inputs: list[str], output: str, **attributes: Any) -> str:
        """Add a node; returns the name of its output."""
        from onnx import helper  # noqa: PLC0415

        self.nodes.append(helper.make_node(kind, inputs, [output], name=output, **attributes))
        return output

    def linear(self, x: str, prefix: str, size_in: int, size_out: int, scale: float = 1.0) -> str:
        """``(x @ W.T + b) * scale`` for the torch ``Linear`` at ``prefix``."""
        weight = self.weight(
            f"{prefix}.weight", transpose=True, size=(size_in, size_out), scale=scale
        )
        bias = self.weight(f"{prefix}.bias", size=(size_out,), scale=scale)
        return self.op("Add", [self.op("MatMul", [x, weight], f"{prefix}/mm"), bias], prefix)

    def layer_norm(self, x: str, prefix: str) -> str:
        """LayerNorm over the last axis with the model's epsilon."""
        size = (self._shape.hidden,)
        gamma = self.weight(f"{prefix}.weight", size=size)
        beta = self.weight(f"{prefix}.bias", size=size)
        return self.op(
            "LayerNormalization", [x, gamma, beta], prefix, axis=-1, epsilon=self._shape.eps
        )

    def encoder(self) -> str:
        """Embeddings and the transformer layers; returns the last hidden state ``[B, S, H]``."""
        hidden = self._shape.hidden
        word = self.weight("embeddings.word_embeddings.weight", size=self._table_size("word"))
        table = np.asarray(self._weights["embeddings.position_embeddings.weight"], np.float32)
        token_type = np.asarray(self._weights["embeddings.token_type_embeddings.weight"])
        # Every text is segment 0: fold that row of the token-type table into the positions.
        positions = self.const("positions", table + token_type[0], np.float32)
        seq = self.op("Shape", ["input_ids"], "seq", start=1, end=2)
        zero = self.const("zero", [0], np.int64)
        sliced = self.op("Slice", [positions, zero, seq, zero], "positions/sliced")
        words = self.op("Gather", [word, "input_ids"], "words")
        x = self.layer_norm(self.op("Add", [words, sliced], "embedded"), "embeddings.LayerNorm")
        mask = self.op("Cast", ["attention_mask"], "mask", to=1)  # FLOAT
        wide = self.op("Unsqueeze", [mask, self.const("axes12", [1, 2], np.int64)], "mask/wide")
        one = self.const("one", 1.0, np.float32)
        low = self.const("low", np.finfo(np.float32).min, np.float32)
        bias = self.op("Mul", [self.op("Sub", [one, wide], "mask/off"), low], "mask/bias")
        self.const("heads_shape", [0, 0, self._shape.heads, hidden // self._shape.heads], np.int64)
        self.const("hidden_shape", [0, 0, hidden], np.int64)
        for index in range(self._shape.layers):
            x = self.layer(x, f"encoder.layer.{index}", bias)
        return x

    def layer(self, x: str, prefix: str, bias: str) -> str:
        """One transformer layer: self-attention and the feed-forward block, post-norm."""
        hidden = self._shape.hidden
        attended = self.attention(x, f"{prefix}.attention.self", bias)
        out = self.linear(attended, f"{prefix}.attention.output.dense", hidden, hidden)
        x = self.layer_norm(
            self.op("Add", [out, x], f"{prefix}/residual1"), f"{prefix}.attention.output.LayerNorm"
        )
        inner = self._inner_size()
        up = self.linear(x, f"{prefix}.intermediate.dense", hidden, inner)
        down = self.linear(self.gelu(up, f"{prefix}/gelu"), f"{prefix}.output.dense", inner, hidden)
        return self.layer_norm(
            self.op("Add", [down, x], f"{prefix}/residual2"), f"{prefix}.output.LayerNorm"
        )

    def attention(self, x: str, prefix: str, bias: str) -> str:
        """Multi-head scaled dot-product self-attention with the additive padding mask."""
        hidden, heads = self._shape.hidden, self._shape.heads
        projected = {}
        # The 1/sqrt(head size) of the scores is folded into the query projection.
        scales = {"query": 1.0 / float(np.sqrt(hidden // heads)), "key": 1.0, "value": 1.0}
        for name in ("query", "key", "value"):
            flat = self.linear(x, f"{prefix}.{name}", hidden, hidden, scales[name])
            split = self.op("Reshape", [flat, "heads_shape"], f"{prefix}.{name}/split")
            perm = [0, 2, 3, 1] if name == "key" else [0, 2, 1, 3]
            projected[name] = self.op("Transpose", [split], f"{prefix}.{name}/heads", perm=perm)
        scores = self.op("MatMul", [projected["query"], projected["key"]], f"{prefix}/scores")
        masked = self.op("Add", [scores, bias], f"{prefix}/masked")
        probs = self.op("Softmax", [masked], f"{prefix}/probs", axis=-1)
        context = self.op("MatMul", [probs, projected["value"]], f"{prefix}/context")
        merged = self.op("Transpose", [context], f"{prefix}/merged", perm=[0, 2, 1, 3])
        return self.op("Reshape", [merged, "hidden_shape"], f"{prefix}/out")

    def gelu(self, x: str, prefix: str) -> str:
        """Exact (erf) GELU, as ``hidden_act: gelu`` in Hugging Face BERT.

        Written ``x * (1 + erf(x / sqrt(2))) * 0.5``, the shape ONNX Runtime fuses into one op.
        """
        root = self.const(f"{prefix}/sqrt2", np.sqrt(2.0), np.float32)
        half = self.const(f"{prefix}/half", 0.5, np.float32)
        one = self.const(f"{prefix}/one", 1.0, np.float32)
        erf = self.op("Erf", [self.op("Div", [x, root], f"{prefix}/scaled")], f"{prefix}/erf")
        shifted = self.op("Add", [erf, one], f"{prefix}/shifted")
        return self.op("Mul", [self.op("Mul", [x, shifted], f"{prefix}/x_erf"), half], prefix)

    def pooled(self, hidden: str) -> str:
        """Mean over the unmasked tokens, then L2 normalisation (sentence-transformers' eps)."""
        mask = self.op("Unsqueeze", ["mask", self.const("axis2", [2], np.int64)], "pool/mask")
        axis = self.const("axis1", [1], np.int64)
        kept = self.op("Mul", [hidden, mask], "pool/kept")
        total = self.op("ReduceSum", [kept, axis], "pool/sum", keepdims=0)
        count = self.op("ReduceSum", [mask, axis], "pool/count", keepdims=0)
        floor = self.const("pool/floor", 1e-9, np.float32)
        mean = self.op(
            "Div", [total, self.op("Max", [count, floor], "pool/count_min")], "pool/mean"
        )
        norm = self.op("ReduceL2", [mean], "pool/norm", axes=[1], keepdims=1)
        eps = self.const("pool/eps", 1e-12, np.float32)
        return self.op(
            "Div", [mean, self.op("Max", [norm, eps], "pool/norm_min")], "sentence_embedding"
        )

    def _table_size(self, name: str) -> tuple[int, int]:
        rows = np.shape(self._weights[f"embeddings.{name}_embeddings.weight"])[0]
        return (int(rows), self._shape.hidden)

    def _inner_size(self) -> int:
        return int(np.shape(self._weights["encoder.layer.0.intermediate.dense.weight"])[0])
