"""LangGraph's own checkpointer conformance suite against cadre's SQLite saver, plain and
encrypted: every base capability (and every extended one it implements) must pass."""

from __future__ import annotations

import os
from collections.abc import AsyncGenerator
from pathlib import Path

import pytest
from langgraph.checkpoint.conformance import checkpointer_test, validate
from langgraph.checkpoint.conformance.capabilities import ALL_CAPABILITIES
from langgraph.checkpoint.conformance.report import CapabilityReport

from framework.persistence.cipher import BlobCipher
from framework.persistence.keys import Keyring
from framework.persistence.saver import CadreSaver


async def _conformance(tmp_path: Path, *, encrypted: bool) -> CapabilityReport:
    made: list[CadreSaver] = []

    async def factory() -> AsyncGenerator[CadreSaver, None]:
        cipher = BlobCipher(Keyring(primary="k1", keys={"k1": os.urandom(32)}))
        saver = CadreSaver(
            tmp_path / f"conformance-{len(made)}.sqlite", cipher if encrypted else None
        )
        made.append(saver)
        try:
            yield saver
        finally:
            saver.close()

    name = "CadreSaver" + (" (encrypted)" if encrypted else "")
    registered = checkpointer_test(name=name)(factory)
    return await validate(registered)


@pytest.mark.parametrize("encrypted", [False, True], ids=["plain", "encrypted"])
async def test_conformance_suite_passes_every_capability(tmp_path: Path, encrypted: bool) -> None:
    report = await _conformance(tmp_path, encrypted=encrypted)
    failures = {name: result.failures for name, result in report.results.items() if result.failures}
    assert not failures, failures
    assert report.passed_all_base()
    assert report.conformance_level() == "FULL"
    assert {name for name, result in report.results.items() if result.detected} == {
        capability.value for capability in ALL_CAPABILITIES
    }
    assert sum(result.tests_passed for result in report.results.values()) >= 80
