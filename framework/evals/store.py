"""Where evals are kept in the data home, sealed with the home's keys like its checkpoints.

An eval run is ``evals/RUN.eval``, rewritten after every finished case (an interrupted eval
keeps every finished case and goes on from there); a case's recorded model calls are
``cassettes/DATASET/CASE.cassette``. Each file is one blob sealed for its own name, so a file
moved or renamed does not open.
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

from framework.database.home import DataHome, write_aside
from framework.errors import CadreError, ConfigError
from framework.evals.results import EvalRun
from framework.persistence.cipher import BlobCipher

__all__ = ["EvalStore"]

_SAFE = re.compile(r"[^A-Za-z0-9._-]+")


def _safe(name: str) -> str:
    """A name usable as a file name (other characters become ``-``)."""
    return _SAFE.sub("-", name).strip("-.") or "x"


class EvalStore:
    """The eval runs and cassettes of one data home."""

    def __init__(self, home: DataHome, cipher: BlobCipher) -> None:
        self.home = home
        self.cipher = cipher
        self.runs = home.root / "evals"
        self.cassettes = home.root / "cassettes"

    def new_run_id(self, dataset: str) -> str:
        """A fresh run id: the dataset's name and the time (``docs-20261129-013000``)."""
        stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
        run_id, count = f"{_safe(dataset)}-{stamp}", 1
        while (self.runs / f"{run_id}.eval").exists():
            count += 1
            run_id = f"{_safe(dataset)}-{stamp}-{count}"
        return run_id

    def save(self, run: EvalRun) -> None:
        """Keep ``run`` (replacing what was kept under its id), atomically."""
        path = self.runs / f"{_safe(run.run_id)}.eval"
        self._write(path, run.model_dump_json().encode(), f"eval:{run.run_id}")

    def load(self, run_id: str) -> EvalRun:
        """The run kept under ``run_id``.

        Raises:
            ConfigError: No such run (the message lists the latest ones).
        """
        path = self.runs / f"{_safe(run_id)}.eval"
        if not path.is_file():
            known = ", ".join(self.run_ids()[-5:]) or "none yet"
            raise ConfigError(f"no eval run {run_id!r} in {self.home.root}: latest are {known}")
        data = self.cipher.decrypt(path.read_bytes(), f"eval:{run_id}".encode())
        return EvalRun.model_validate_json(data)

    def run_ids(self) -> list[str]:
        """Every kept run's id, oldest first."""
        if not self.runs.is_dir():
            return []
        paths = sorted(self.runs.glob("*.eval"), key=lambda p: (p.stat().st_mtime, p.name))
        return [path.stem for path in paths]

    def unfinished(self, like: EvalRun) -> EvalRun | None:
        """The latest run of the same data (its text and cases as resolved), mode and models
        as ``like``, when it was interrupted; a run that does not open is passed over."""
        for run_id in reversed(self.run_ids()):
            try:
                run = self.load(run_id)
            except CadreError:  # sealed under keys since retired, or damaged: not this one
                continue
            if run.dataset_digest == like.dataset_digest:
                same = (run.mode, run.model, run.judge_model) == (
                    like.mode,
                    like.model,
                    like.judge_model,
                )
                if same:
                    return None if run.finished_at else run
        return None

    def cassette_path(self, dataset: str, case_id: str) -> Path:
        """Where a case's recorded model calls are kept."""
        return self.cassettes / _safe(dataset) / f"{_safe(case_id)}.cassette"

    def save_cassette(self, dataset: str, case_id: str, data: bytes) -> None:
        """Keep a case's recording."""
        path = self.cassette_path(dataset, case_id)
        self._write(path, data, f"cassette:{dataset}/{case_id}")

    def load_cassette(self, dataset: str, case_id: str) -> bytes | None:
        """A case's recording (None: never recorded)."""
        path = self.cassette_path(dataset, case_id)
        if not path.is_file():
            return None
        return self.cipher.decrypt(path.read_bytes(), f"cassette:{dataset}/{case_id}".encode())

    def _write(self, path: Path, data: bytes, identity: str) -> None:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        os.replace(write_aside(path, self.cipher.encrypt(data, identity.encode())), path)
