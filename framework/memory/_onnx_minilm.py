"""all-MiniLM-L6-v2 without torch: ONNX Runtime for the encoder, ``tokenizers`` for the text.

The ONNX graph is written once from the packaged ``model.safetensors`` with the ``onnx`` helper
API (a BERT encoder, mean pooling over the attention mask, L2 normalisation: the model's
``modules.json``) and cached in :func:`cache_dir`, named by the sha256 of the weights and the
graph version, so a new package version or a new graph rebuilds it. Later processes load the
cached file in a fraction of a second and never import ``onnx``.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import numpy.typing as npt

from framework.memory._onnx_graph import BertShape, bert_sentence_graph

if TYPE_CHECKING:
    from tokenizers import Tokenizer

__all__ = [
    "CACHE_VARIABLE",
    "GRAPH_VERSION",
    "TOKEN_BUDGET",
    "OnnxMiniLM",
    "OnnxUnavailable",
    "cache_dir",
    "graph_path",
    "load_onnx_minilm",
    "read_shape",
]

logger = logging.getLogger("cadre.embeddings")

CACHE_VARIABLE = "CADRE_CACHE"
"""Environment variable naming the cache folder (else ``$XDG_CACHE_HOME/cadre``)."""

GRAPH_VERSION = "g2"
"""Bumped whenever :func:`_build_graph` changes, so stale cached graphs are rebuilt."""

_OPSET = 17  # LayerNormalization; ONNX Runtime >= 1.14 runs it
_IR_VERSION = 8  # the IR of opset 17, readable by older ONNX Runtime builds too
_WEIGHTS = "model.safetensors"
_EXPECTED_MODULES = (
    "sentence_transformers.models.Transformer",
    "sentence_transformers.models.Pooling",
    "sentence_transformers.models.Normalize",
)
_LOAD_ERRORS = (ImportError, OSError, ValueError, KeyError, TypeError, RuntimeError)

CHARS_PER_TOKEN = 64
"""How many characters a text is read for per token of the model's window: a token spans at
least one character that is neither space nor control, so only a text padded with thousands of
those embeds differently from its whole."""

TOKEN_BUDGET = 2048
"""Most padded tokens in one forward pass: long texts run in small batches (less padding, less
attention memory), short ones in batches of ``batch_size``."""


class OnnxUnavailable(Exception):  # noqa: N818 - reads as a state, like a status
    """The ONNX path cannot be used here; the message says why."""


def cache_dir() -> Path:
    """``$CADRE_CACHE``, else ``$XDG_CACHE_HOME/cadre``, else ``~/.cache/cadre``."""
    if os.environ.get(CACHE_VARIABLE):
        return Path(os.environ[CACHE_VARIABLE])
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "cadre"


def read_shape(model_dir: Path) -> BertShape:
    """Read and check the model's configs: a BERT with mean pooling and normalisation.

    Raises:
        OnnxUnavailable: The folder holds another kind of model than the graph implements.
    """
    try:
        config = _json(model_dir / "config.json")
        sbert = _json(model_dir / "sentence_bert_config.json")
        pooling = _json(model_dir / "1_Pooling" / "config.json")
        modules = tuple(str(module["type"]) for module in _json(model_dir / "modules.json"))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise OnnxUnavailable(f"cannot read the model configs in {model_dir}: {exc}") from exc
    means = {key: value for key, value in pooling.items() if key.startswith("pooling_mode_")}
    checks = {
        "model_type": config.get("model_type") == "bert",
        "hidden_act": config.get("hidden_act") == "gelu",
        "position_embedding_type": config.get("position_embedding_type", "absolute") == "absolute",
        "modules": modules == _EXPECTED_MODULES,
        "pooling": means.pop("pooling_mode_mean_tokens", False) and not any(means.values()),
        "do_lower_case": not sbert.get("do_lower_case", False),
    }
    unsupported = [name for name, ok in checks.items() if not ok]
    if unsupported:
        raise OnnxUnavailable(f"{model_dir} is not a mean-pooled BERT ({', '.join(unsupported)})")
    return BertShape(
        hidden=int(config["hidden_size"]),
        heads=int(config["num_attention_heads"]),
        layers=int(config["num_hidden_layers"]),
        eps=float(config.get("layer_norm_eps", 1e-12)),
        max_seq_length=int(sbert["max_seq_length"]),
        pad_id=int(config.get("pad_token_id", 0)),
    )


def graph_path(model_dir: Path, cache: Path | None = None) -> Path:
    """Where the graph for the weights in ``model_dir`` is cached (sha256 of the weights)."""
    digest = hashlib.sha256()
    with (model_dir / _WEIGHTS).open("rb") as file:
        hashlib.file_digest(file, lambda: digest)
    folder = cache if cache is not None else cache_dir()
    return folder / f"minilm-{GRAPH_VERSION}-{digest.hexdigest()[:24]}.onnx"


class OnnxMiniLM:
    """The encoder on ONNX Runtime: texts in, L2-normalised float32 rows out.

    Not safe to share between threads: the caller serialises :meth:`encode`.

    Args:
        session: An ``onnxruntime.InferenceSession`` of the graph.
        tokenizer: The model's fast tokenizer, truncating at ``max_seq_length``.
        dim: Width of the vectors the graph returns.
        source: The cached graph file, or None when the graph lives only in memory.
        pad_id: The padding token's id.
    """

    backend: Literal["onnxruntime"] = "onnxruntime"

    def __init__(
        self, session: Any, tokenizer: Tokenizer, dim: int, source: Path | None, pad_id: int = 0
    ) -> None:
        self._session = session
        self._pad_id = pad_id
        self._tokenizer = tokenizer
        self.dim = dim
        self.source = source

    def encode(self, texts: list[str], batch_size: int) -> npt.NDArray[np.float32]:
        """Embed ``texts``: tokenised at once (each read up to :data:`CHARS_PER_TOKEN` characters
        per token the model reads, so a huge text costs no more than its first window), run
        longest first in batches of at most ``batch_size`` texts and :data:`TOKEN_BUDGET` padded
        tokens (little padding)."""
        window = self._tokenizer.truncation
        limit = CHARS_PER_TOKEN * window["max_length"] if window else None
        encodings = self._tokenizer.encode_batch([text.strip()[:limit] for text in texts])
        lengths = np.array([len(encoding.ids) for encoding in encodings])
        order = np.argsort(-lengths, kind="stable")
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        start = 0
        while start < len(texts):
            width = int(lengths[order[start]])
            rows = order[start : start + max(1, min(batch_size, TOKEN_BUDGET // width))]
            ids = np.full((len(rows), width), self._pad_id, dtype=np.int64)
            mask = np.zeros((len(rows), width), dtype=np.int64)
            for row, index in enumerate(rows):
                size = int(lengths[index])
                ids[row, :size] = encodings[index].ids
                mask[row, :size] = 1
            try:
                out[rows] = self._session.run(None, {"input_ids": ids, "attention_mask": mask})[0]
            except Exception as exc:  # onnxruntime raises bare Exception subclasses
                raise RuntimeError(f"onnxruntime: {exc}") from exc
            start += len(rows)
        return out


def load_onnx_minilm(model_dir: Path, cache: Path | None = None) -> OnnxMiniLM:
    """Load the encoder, building and caching its graph on first use.

    A cached graph that ONNX Runtime cannot read is rebuilt; a cache folder that cannot be
    written only costs the cache (the graph is used from memory).

    Raises:
        OnnxUnavailable: onnxruntime, tokenizers (or, to build, onnx and safetensors) are
            missing, or the model cannot be read or run this way.
    """
    try:
        import onnxruntime  # noqa: PLC0415 - imported only when embeddings are needed

        shape = read_shape(model_dir)
        tokenizer = _tokenizer(model_dir, shape)
        path = graph_path(model_dir, cache)
    except OnnxUnavailable:
        raise
    except _LOAD_ERRORS as exc:
        raise OnnxUnavailable(f"{type(exc).__name__}: {exc}") from exc
    options = onnxruntime.SessionOptions()
    options.log_severity_level = 3  # errors only: no optimizer notes on stderr
    # Idle pool threads sleep rather than spin: on a busy machine spinning cost about 5% of
    # throughput (measured on 2 cores) and burns CPU the rest of the process could use.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")

    def session(model: str | bytes) -> Any:
        return onnxruntime.InferenceSession(model, options, providers=["CPUExecutionProvider"])

    if path.is_file():
        try:
            return OnnxMiniLM(session(str(path)), tokenizer, shape.hidden, path, shape.pad_id)
        except Exception as exc:  # onnxruntime raises bare Exception subclasses
            logger.warning("cached embedding graph %s is unreadable (%s); rebuilding it", path, exc)
    return _built(model_dir, shape, path, tokenizer, session)


def _built(
    model_dir: Path,
    shape: BertShape,
    path: Path,
    tokenizer: Tokenizer,
    session: Callable[[str | bytes], Any],
) -> OnnxMiniLM:
    """Build the graph, cache it atomically and open it."""
    try:
        from safetensors.numpy import load_file  # noqa: PLC0415 - only to build the graph

        data = _build_graph(load_file(str(model_dir / _WEIGHTS)), shape)
    except _LOAD_ERRORS as exc:
        raise OnnxUnavailable(f"cannot build the ONNX graph: {type(exc).__name__}: {exc}") from exc
    source: Path | None = path
    try:
        _write_atomically(path, data)
    except OSError as exc:
        logger.warning("cannot cache the embedding graph in %s (%s)", path.parent, exc)
        source = None
    else:
        _remove_stale(path)
    try:
        return OnnxMiniLM(session(data), tokenizer, shape.hidden, source, shape.pad_id)
    except Exception as exc:  # onnxruntime raises bare Exception subclasses
        raise OnnxUnavailable(f"onnxruntime cannot run the graph: {exc}") from exc


def _tokenizer(model_dir: Path, shape: BertShape) -> Tokenizer:
    """The fast tokenizer, truncating as sentence-transformers (``max_seq_length`` tokens with
    ``[CLS]`` and ``[SEP]``); :meth:`OnnxMiniLM.encode` pads."""
    from tokenizers import Tokenizer  # noqa: PLC0415

    tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_length=shape.max_seq_length)
    return tokenizer


def _write_atomically(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same folder."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _remove_stale(current: Path) -> None:
    """Delete the graphs of other weights or graph versions next to ``current`` (best effort:
    a cache holds one graph, about 90 MB)."""
    for other in current.parent.glob("minilm-*.onnx"):
        if other != current:
            try:
                other.unlink()
            except OSError as exc:
                logger.debug("cannot remove the stale graph %s: %s", other, exc)


def _json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def _build_graph(weights: Mapping[str, npt.NDArray[Any]], shape: BertShape) -> bytes:
    """The serialised ONNX graph: ``(input_ids, attention_mask) -> sentence_embedding``."""
    return bert_sentence_graph(weights, shape, opset=_OPSET, ir_version=_IR_VERSION)
