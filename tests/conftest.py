"""Shared fixtures: offline settings for every test."""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

# -- a small corpus for the research team tests ---------------------------------------------

import uuid
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import psycopg
import pytest

from framework.memory import (
    Corpus,
    MiniLMEmbedder,
    SemanticStore,
    default_embedder,
    ingest_corpus,
)
from tests.postgres_server import REQUIRE_VARIABLE, find_bin_dir, postgres_server

SMALL_CORPUS = {
    "checkpoints.md": "# Checkpoints\n\nEvery run is checkpointed after each step. "
    "Checkpoints are encrypted at rest with AES in OCB mode.\n",
    "retries.md": "# Retries\n\nWorkers retry transient errors such as timeouts up to three "
    "times, with exponential backoff between attempts.\n",
    "review.md": "# Human review\n\nA human reviewer approves, edits or rejects the plan "
    "while the run is paused at a review point.\n",
}
"""Three documents, one paragraph each at line 3: their sources read ``docs/<name>:3``."""


@pytest.fixture(scope="session")
def embedder() -> MiniLMEmbedder:
    """The packaged MiniLM model, shared by the whole test session (it loads in seconds)."""
    return default_embedder()


def write_corpus(root: Path, files: Mapping[str, str]) -> Path:
    """Write ``files`` (name -> text) into a new folder ``root`` and return it."""
    root.mkdir()
    for name, text in files.items():
        (root / name).write_text(text, encoding="utf-8")
    return root


@pytest.fixture
def small_corpus(tmp_path: Path, embedder: MiniLMEmbedder) -> Iterator[Corpus]:
    """:data:`SMALL_CORPUS` under ``docs/``, ingested into an in-memory store (``.store``)."""
    root = write_corpus(tmp_path / "docs", SMALL_CORPUS)
    with SemanticStore(":memory:", embedder=embedder) as store:
        ingest_corpus(root, store)
        yield Corpus(store)


def one_line_error(result: Any) -> str:
    """The one line a refused ``cadre`` command printed (exit 2, nothing on stdout)."""
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: ")
    return str(lines[0])


# -- a real PostgreSQL server, started once per session ---------------------------------------


@pytest.fixture(scope="session")
def postgres_server_url() -> Iterator[str]:
    """The URL of a throwaway PostgreSQL server's ``postgres`` database (see
    :mod:`tests.postgres_server`); skipped where PostgreSQL is not installed, unless
    ``CADRE_REQUIRE_POSTGRES=1``."""
    bin_dir = find_bin_dir()
    if bin_dir is None:
        if os.environ.get(REQUIRE_VARIABLE) == "1":
            pytest.fail("PostgreSQL is required but not installed (apt-get install postgresql)")
        pytest.skip("PostgreSQL is not installed (Debian: apt-get install postgresql)")
    with postgres_server(bin_dir) as url:
        yield url


@pytest.fixture
def postgres_url(postgres_server_url: str) -> str:
    """A new, empty database on the session's server."""
    return new_database(postgres_server_url)


def new_database(server_url: str) -> str:
    """Create an empty database on the server of ``server_url``; its URL."""
    name = f"cadre_{uuid.uuid4().hex[:16]}"
    with psycopg.connect(server_url, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    return f"{server_url.rsplit('/', 1)[0]}/{name}"


@pytest.fixture
def store(embedder: MiniLMEmbedder) -> Iterator[SemanticStore]:
    """An in-memory semantic store on the shared embedder."""
    with SemanticStore(":memory:", embedder=embedder) as opened:
        yield opened
