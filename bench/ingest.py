"""Ingest benchmark: a big text corpus indexed with progress, and a killed ingest resumed.

Generates a corpus of ``--mb`` megabytes (default 50) of Markdown prose in files of
``--file-mb`` (default 5; the size limit per file is raised to fit) in a temporary folder, then:

1. **full**: a fresh process ingests it into a new SQLite store with the packaged model (the
   model load is timed apart), printing progress; reported: chunks, seconds, chunks per second,
   peak RSS (``ru_maxrss``), and the seconds between the last two progress lines.
2. **kill and resume**: a fresh process ingests it into another new store and is killed with
   SIGKILL once ``--kill-after`` batches are committed; a second process runs the ingest again.
   Reported: chunks committed before the kill, chunks the rerun embedded, and how many of them
   were re-embedded (embedded by the rerun although committed before: the target is 0).

Run: ``python bench/ingest.py [--mb 50] [--file-mb 5] [--kill-after 8] [--skip-full]
[--json PATH]``. A quick run: ``--mb 2 --file-mb 1 --kill-after 2``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from itertools import pairwise
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
WORDS = (
    "the a checkpoint worker planner reviewer corpus store batch chunk vector answer question "
    "team node graph run thread retry timeout budget memory evidence claim source line file "
    "model token embedding search index commit transaction progress resume kill process "
    "durable encrypted cipher key rotation schema version reducer state message plan task "
    "result review human approve reject edit pause fan out dispatch barrier aggregate format"
).split()


def write_corpus(root: Path, megabytes: float, file_mb: float, seed: int = 7) -> int:
    """Write ``megabytes`` of Markdown prose under ``root`` in files of ``file_mb``; bytes."""
    rng = random.Random(seed)
    total, target, number = 0, int(megabytes * 1024 * 1024), 0
    per_file = int(file_mb * 1024 * 1024)
    while total < target:
        number += 1
        parts, size = [], 0
        while size < min(per_file, target - total):
            heading = " ".join(rng.choices(WORDS, k=3)).capitalize()
            paragraphs = [_paragraph(rng) for _ in range(rng.randint(2, 6))]
            part = f"## {heading}\n\n" + "\n\n".join(paragraphs) + "\n\n"
            parts.append(part)
            size += len(part)
        (root / f"part-{number:03d}.md").write_text("".join(parts), encoding="utf-8")
        total += size
    return total


def _paragraph(rng: random.Random) -> str:
    sentences = []
    for _ in range(rng.randint(2, 9)):
        words = rng.choices(WORDS, k=rng.randint(6, 22))
        sentences.append(" ".join(words).capitalize() + ".")
    return " ".join(sentences)


CHILD = """
import json, resource, sys, time
from pathlib import Path
start = time.perf_counter()
from framework.memory import SemanticStore, default_embedder
from framework.memory.corpus import ingest_corpus
from framework.memory.embeddings import embedder_name

class Counting:
    def __init__(self, inner):
        self.inner, self.embedded = inner, 0
        self.name, self.dim = embedder_name(inner), inner.dim
    def embed(self, texts):
        self.embedded += len(texts)
        return self.inner.embed(texts)

embedder = Counting(default_embedder())
embedder.inner.embed(["warm up"])
loaded = time.perf_counter()
def progress(p):
    print(json.dumps({"progress": [p.path, p.chunks_done, p.chunks_total, p.files_done,
                                   p.files_total], "t": time.perf_counter() - loaded}), flush=True)
with SemanticStore(sys.argv[2], embedder=embedder) as store:
    before = store.count(("corpus",))
    embedder.embedded = 0
    report = ingest_corpus(Path(sys.argv[1]), store, on_progress=progress)
    after = store.count(("corpus",))
done = time.perf_counter()
print(json.dumps({"before": before, "after": after, "embedded": embedder.embedded,
                  "written": report.chunks_written, "resumed": report.files_resumed,
                  "load_s": loaded - start, "ingest_s": done - loaded,
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}),
      flush=True)
"""


def _child(corpus: Path, store: Path, env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", CHILD, str(corpus), str(store)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        text=True,
    )


def _lines(process: subprocess.Popen[str]) -> Iterator[dict[str, Any]]:
    assert process.stdout is not None
    for line in process.stdout:
        yield json.loads(line)


def _shown(message: dict[str, Any]) -> bool:
    """Print a progress message on stderr (True), or leave a summary alone (False)."""
    if "progress" not in message:
        return False
    path, done, total, files, files_total = message["progress"]
    print(f"  indexing {path}: {done}/{total} chunks, {files}/{files_total} files", file=sys.stderr)
    return True


def full(corpus: Path, store: Path, env: dict[str, str]) -> dict[str, Any]:
    """Ingest the whole corpus in a fresh process; its summary, with the progress gaps."""
    process = _child(corpus, store, env)
    times, summary = [], {}
    for message in _lines(process):
        if _shown(message):
            times.append(message["t"])
        else:
            summary = message
    if process.wait() != 0:
        raise SystemExit(f"the ingest failed ({process.returncode})")
    gaps = [b - a for a, b in pairwise(times)]
    summary["batches"] = len(times)
    summary["max_gap_s"] = max(gaps, default=0.0)
    summary["chunks_per_s"] = summary["after"] / summary["ingest_s"]
    return summary


def kill_and_resume(
    corpus: Path, store: Path, env: dict[str, str], kill_after: int
) -> dict[str, Any]:
    """Kill an ingest after ``kill_after`` committed batches, rerun it; what each did."""
    process = _child(corpus, store, env)
    batches = 0
    for message in _lines(process):
        batches += _shown(message)
        if batches >= kill_after:
            process.send_signal(signal.SIGKILL)
            break
    process.wait()
    if process.returncode != -signal.SIGKILL:
        raise SystemExit(f"the ingest ended ({process.returncode}) before {kill_after} batches")
    rerun = _child(corpus, store, env)
    print("  killed; running it again", file=sys.stderr)
    summary = [m for m in _lines(rerun) if not _shown(m)][-1]
    if rerun.wait() != 0:
        raise SystemExit(f"the resumed ingest failed ({rerun.returncode})")
    missing = summary["after"] - summary["before"]
    return {
        "killed_after_batches": batches,
        "committed_before_kill": summary["before"],
        "total": summary["after"],
        "embedded_on_resume": summary["embedded"],
        "re_embedded": summary["embedded"] - missing,
        "files_resumed": summary["resumed"],
        "resume_s": summary["ingest_s"],
        "resume_chunks_per_s": missing / summary["ingest_s"],
        "resume_peak_rss_mb": summary["peak_rss_mb"],
    }


def main(argv: Sequence[str] | None = None) -> None:
    """Parse the options, build the corpus, measure, print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=50.0, help="corpus size (MB)")
    parser.add_argument("--file-mb", type=float, default=5.0, help="size of each file (MB)")
    parser.add_argument("--kill-after", type=int, default=8, help="batches before the kill")
    parser.add_argument("--skip-full", action="store_true", help="only kill and resume")
    parser.add_argument("--json", type=Path, help="write the results here too")
    args = parser.parse_args(argv)
    env = {
        **os.environ,
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "CADRE_MAX_FILE_MB": str(max(10.0, args.file_mb * 1.1)),
    }
    results: dict[str, Any] = {"mb": args.mb, "file_mb": args.file_mb}
    with tempfile.TemporaryDirectory(prefix="cadre-ingest-") as scratch:
        corpus = Path(scratch) / "corpus"
        corpus.mkdir()
        results["bytes"] = write_corpus(corpus, args.mb, args.file_mb)
        results["files"] = len(list(corpus.iterdir()))
        if not args.skip_full:
            results["full"] = full(corpus, Path(scratch) / "full.sqlite", env)
            print(json.dumps(results["full"]), file=sys.stderr)
        killed = kill_and_resume(corpus, Path(scratch) / "killed.sqlite", env, args.kill_after)
        results["kill_and_resume"] = killed
    results["cpus"] = os.cpu_count()
    results["parent_peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(results, indent=2))
    if args.json is not None:
        args.json.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    if killed["re_embedded"] != 0:
        raise SystemExit(f"{killed['re_embedded']} committed chunks were embedded again")


if __name__ == "__main__":
    main()
