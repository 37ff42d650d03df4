"""Start-up benchmark: how long ``cadre`` commands take in fresh processes, and cold ingest.

Measures, each as the median of ``--repeats`` fresh processes (default 5):

- ``help``: ``cadre --help``;
- ``threads``: ``cadre threads`` on a home holding two threads, one finished and one paused at
  its plan review;
- ``show``: ``cadre show THREAD`` on the finished thread;
- ``reviews``: ``cadre reviews`` on that home (the paused thread's request);
- ``warm run``: ``cadre run`` over a small corpus (two files) whose index is unchanged, offline;
- ``ingest``: a fresh process that indexes this project's ``docs/`` into an empty in-memory
  store (the embedding model loaded inside the timed part): chunks per second.

Each command's CPU time (user and system, of the process) is reported beside its wall time: on
a machine with other work running beside it, the CPU time moves less.

The commands run as ``--command`` (default: this interpreter running cadre's console-script
entry point), so another checkout can be measured with the same script, for a before/after:
``PYTHONPATH=OTHER python bench/startup.py --command "python -c 'from framework.cli.app import
main; main()'"``. The reference corpus and home are made in a temporary folder.

Run: ``python bench/startup.py [--repeats K] [--markdown] [--json PATH] [--command CMD]``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_COMMAND = [
    sys.executable,
    "-c",
    "import sys; from framework.cli.main import main; sys.argv[0] = 'cadre'; main()",
]
CORPUS = {
    "retries.md": "# Retries\n\nWorkers retry transient errors such as timeouts up to three "
    "times, with exponential backoff between attempts.\n",
    "review.md": "# Human review\n\nA human reviewer approves, edits or rejects the plan while "
    "the run is paused at a review point.\n",
}
INGEST = (
    "import time\n"
    "start = time.perf_counter()\n"
    "from pathlib import Path\n"
    "from framework.memory import SemanticStore, ingest_corpus\n"
    "with SemanticStore(':memory:') as store:\n"
    "    report = ingest_corpus(Path({docs!r}), store)\n"
    "print(report.chunks_written, time.perf_counter() - start)\n"
)


def _cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _timed(command: list[str], env: dict[str, str], cpu: list[float] | None = None) -> float:
    """The wall seconds of ``command`` in a fresh process; its CPU seconds go to ``cpu``."""
    start, used = time.perf_counter(), _cpu()
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{shlex.join(command)} failed ({done.returncode}): {done.stderr}")
    if cpu is not None:
        cpu.append(_cpu() - used)
    return elapsed


def measure(cadre: list[str], repeats: int) -> dict[str, list[float]]:
    """Samples (seconds; chunks per second for ``ingest``) of every measured command, and of
    each command's CPU seconds (``NAME cpu``)."""
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    with tempfile.TemporaryDirectory(prefix="cadre-startup-") as scratch:
        corpus = Path(scratch) / "corpus"
        corpus.mkdir()
        for name, text in CORPUS.items():
            (corpus / name).write_text(text, encoding="utf-8")
        home = ["--home", str(Path(scratch) / "home")]
        run = [*cadre, "run", "How do workers retry?", "--corpus", str(corpus), *home]
        _timed([*run, "--thread", "bench", "--no-trace"], env)  # builds the index: untimed
        _timed([*run, "--thread", "paused", "--no-trace", "--review", "plan"], env)
        commands = {
            "help": [*cadre, "--help"],
            "threads": [*cadre, "threads", *home],
            "show": [*cadre, "show", "bench", *home],
            "reviews": [*cadre, "reviews", *home],
            "warm run": [*run, "--no-trace"],
        }
        samples: dict[str, list[float]] = {}
        for name, cmd in commands.items():
            cpu: list[float] = []
            samples[name] = [_timed(cmd, env, cpu) for _ in range(repeats)]
            samples[f"{name} cpu"] = cpu
        ingest = INGEST.format(docs=str(ROOT / "docs"))
        rates = []
        for _ in range(repeats):
            done = subprocess.run(
                [sys.executable, "-c", ingest], env=env, capture_output=True, text=True, check=True
            )
            chunks, seconds = done.stdout.split()
            rates.append(int(chunks) / float(seconds))
        samples["ingest"] = rates
    return samples


def report(samples: dict[str, list[float]], markdown: bool) -> str:
    """A table of medians (and the spread), with each command's median CPU time."""
    rows = []
    for name, values in samples.items():
        if name.endswith(" cpu"):
            continue
        unit = "chunks/s" if name == "ingest" else "s"
        median = statistics.median(values)
        cpu = samples.get(f"{name} cpu")
        used = f"{statistics.median(cpu):.2f} s" if cpu else "-"
        rows.append((name, f"{median:.2f} {unit}", f"{min(values):.2f}-{max(values):.2f}", used))
    if markdown:
        lines = ["| measure | median | range | CPU median |", "|---|---|---|---|"]
        return "\n".join([*lines, *(f"| {a} | {b} | {c} | {d} |" for a, b, c, d in rows)])
    return "\n".join(f"{a:<10} {b:>16}  ({c})  cpu {d}" for a, b, c, d in rows)


def main() -> None:
    """Parse the options, measure, print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--command", help="How to run cadre (default: this checkout's).")
    args = parser.parse_args()
    cadre = shlex.split(args.command) if args.command else DEFAULT_COMMAND
    samples = measure(cadre, args.repeats)
    print(report(samples, args.markdown))
    if args.json is not None:
        args.json.write_text(json.dumps(samples, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
