"""LangGraph's own checkpointer conformance suite against cadre's saver on SQLite and on a real
PostgreSQL server, plain and encrypted: every base capability (and every extended one it
implements) must pass."""

from __future__ import annotations

import os
from collections.abc import AsyncGenerator, Callable
from pathlib import Path

import pytest
from langgraph.checkpoint.conformance import checkpointer_test, validate
from langgraph.checkpoint.conformance.capabilities import ALL_CAPABILITIES

from framework.persistence.cipher import BlobCipher
from framework.persistence.keys import Keyring
from framework.persistence.saver import CadreSaver
from tests.conftest import new_database


@pytest.fixture(params=["sqlite", "postgresql"])
def new_target(request: pytest.FixtureRequest, tmp_path: Path) -> Callable[[], str | Path]:
    """Makes an empty database for each saver the suite asks for: a file, or a PostgreSQL
    database on the session's server."""
    if request.param == "sqlite":
        made = iter(range(10_000))
        return lambda: tmp_path / f"conformance-{next(made)}.sqlite"
    server: str = request.getfixturevalue("postgres_server_url")
    return lambda: new_database(server)


@pytest.mark.parametrize("encrypted", [False, True], ids=["plain", "encrypted"])
async def test_conformance_suite_passes_every_capability(
    new_target: Callable[[], str | Path], encrypted: bool
) -> None:
    async def factory() -> AsyncGenerator[CadreSaver, None]:
        cipher = BlobCipher(Keyring(primary="k1", keys={"k1": os.urandom(32)}))
        saver = CadreSaver(new_target(), cipher if encrypted else None)
        try:
            yield saver
        finally:
            saver.close()

    name = "CadreSaver" + (" (encrypted)" if encrypted else "")
    report = await validate(checkpointer_test(name=name)(factory))
    failures = {name: result.failures for name, result in report.results.items() if result.failures}
    assert not failures, failures
    assert report.passed_all_base()
    assert report.conformance_level() == "FULL"
    assert {name for name, result in report.results.items() if result.detected} == {
        capability.value for capability in ALL_CAPABILITIES
    }
    assert sum(result.tests_passed for result in report.results.values()) >= 80
