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
a machine with other work running beside it, the CPU time moves less. Commands run as an
installed cadre does: with bytecode (written to a temporary cache in an untimed first round,
``PYTHONDONTWRITEBYTECODE`` unset).

``--baseline OTHER`` measures another checkout in the same run, for a before/after: each
command runs with ``PYTHONPATH=OTHER`` right after this checkout's, round by round, so both see
the same load. The commands run as ``--command`` (default: this interpreter running cadre's
console-script entry point), in the temporary folder where the reference corpus and home are
made, with ``PYTHONPATH`` naming the checkout measured (this one, or the baseline).

``--only help,threads`` takes only the measures named.

Run: ``python bench/startup.py [--repeats K] [--markdown] [--json PATH] [--command CMD]
[--baseline OTHER] [--only NAMES]``.
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


def _timed(
    command: list[str], env: dict[str, str], cwd: Path, cpu: list[float] | None = None
) -> float:
    """The wall seconds of ``command`` in a fresh process; its CPU seconds go to ``cpu``."""
    start, used = time.perf_counter(), _cpu()
    done = subprocess.run(command, env=env, cwd=cwd, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{shlex.join(command)} failed ({done.returncode}): {done.stderr}")
    if cpu is not None:
        cpu.append(_cpu() - used)
    return elapsed


def _ingest_rate(env: dict[str, str], cwd: Path) -> float:
    ingest = INGEST.format(docs=str(ROOT / "docs"))
    done = subprocess.run(
        [sys.executable, "-c", ingest], env=env, cwd=cwd, capture_output=True, text=True, check=True
    )
    chunks, seconds = done.stdout.split()
    return int(chunks) / float(seconds)


def measure(
    cadre: list[str], repeats: int, baseline: Path | None = None, only: set[str] | None = None
) -> dict[str, list[float]]:
    """Samples (seconds; chunks per second for ``ingest``) of every measured command (or of
    those named in ``only``), each command's CPU seconds (``NAME cpu``), and with a
    ``baseline`` checkout the same of its commands (``NAME baseline``, ``NAME baseline cpu``),
    run right after this checkout's."""
    offline = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    offline.pop("PYTHONDONTWRITEBYTECODE", None)  # as installed: modules compiled once

    def importing(checkout: Path, scratch: Path) -> dict[str, str]:
        paths = [str(checkout.resolve()), *filter(None, [offline.get("PYTHONPATH")])]
        cache = scratch / f"bytecode-{checkout.resolve().name}"
        return {**offline, "PYTHONPATH": os.pathsep.join(paths), "PYTHONPYCACHEPREFIX": str(cache)}

    with tempfile.TemporaryDirectory(prefix="cadre-startup-") as folder:
        scratch = Path(folder)
        env = importing(ROOT, scratch)
        variants = {"": env}
        if baseline is not None:
            variants[" baseline"] = importing(baseline, scratch)
        corpus = scratch / "corpus"
        corpus.mkdir()
        for name, text in CORPUS.items():
            (corpus / name).write_text(text, encoding="utf-8")
        home = ["--home", str(scratch / "home")]
        run = [*cadre, "run", "How do workers retry?", "--corpus", str(corpus), *home]
        _timed([*run, "--thread", "bench", "--no-trace"], env, scratch)  # the index: untimed
        _timed([*run, "--thread", "paused", "--no-trace", "--review", "plan"], env, scratch)
        commands = {
            "help": [*cadre, "--help"],
            "threads": [*cadre, "threads", *home],
            "show": [*cadre, "show", "bench", *home],
            "reviews": [*cadre, "reviews", *home],
            "warm run": [*run, "--no-trace"],
        }
        measured = only if only is not None else {*commands, "ingest"}
        commands = {name: cmd for name, cmd in commands.items() if name in measured}
        samples: dict[str, list[float]] = {
            f"{name}{variant}{cpu}": []
            for name in [*commands, *({"ingest"} & measured)]
            for variant in variants
            for cpu in ("", " cpu")
            if not (name == "ingest" and cpu)
        }
        _rounds(commands, variants, scratch, repeats, samples)
        for _ in range(repeats if "ingest" in measured else 0):
            for variant, variant_env in variants.items():
                samples[f"ingest{variant}"].append(_ingest_rate(variant_env, scratch))
    return samples


def _rounds(
    commands: dict[str, list[str]],
    variants: dict[str, dict[str, str]],
    scratch: Path,
    repeats: int,
    samples: dict[str, list[float]],
) -> None:
    """One untimed round (every module's bytecode written), then ``repeats`` timed rounds of
    every command, each variant right after the other."""
    for cmd in commands.values():
        for variant_env in variants.values():
            _timed(cmd, variant_env, scratch)
    for _ in range(repeats):
        for name, cmd in commands.items():
            for variant, variant_env in variants.items():
                cpu = samples[f"{name}{variant} cpu"]
                samples[f"{name}{variant}"].append(_timed(cmd, variant_env, scratch, cpu))


def _median(values: list[float] | None, unit: str) -> str:
    return f"{statistics.median(values):.2f} {unit}" if values else "-"


def report(samples: dict[str, list[float]], markdown: bool) -> str:
    """A table of medians (and the spread), with each command's median CPU time, and the
    baseline's medians when there is one."""
    baseline = any(name.endswith(" baseline") for name in samples)
    header = ["measure", "median", "range", "CPU median"]
    header += ["baseline median", "baseline CPU median"] if baseline else []
    rows = []
    for name, values in samples.items():
        if name.endswith((" cpu", " baseline")):
            continue
        unit = "chunks/s" if name == "ingest" else "s"
        row = [
            name,
            _median(values, unit),
            f"{min(values):.2f}-{max(values):.2f}",
            _median(samples.get(f"{name} cpu"), "s"),
        ]
        if baseline:
            row += [
                _median(samples.get(f"{name} baseline"), unit),
                _median(samples.get(f"{name} baseline cpu"), "s"),
            ]
        rows.append(row)
    if markdown:
        lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        return "\n".join([*lines, *("| " + " | ".join(row) + " |" for row in rows)])
    return "\n".join("  ".join(f"{cell:<16}" for cell in row).rstrip() for row in [header, *rows])


def main() -> None:
    """Parse the options, measure, print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--command", help="How to run cadre (default: this checkout's).")
    parser.add_argument(
        "--baseline", type=Path, help="Another checkout to measure in the same rounds."
    )
    parser.add_argument(
        "--only",
        help="Comma-separated measures to take (help, threads, show, reviews, warm run, "
        "ingest; default: all).",
    )
    args = parser.parse_args()
    cadre = shlex.split(args.command) if args.command else DEFAULT_COMMAND
    only = {name.strip() for name in args.only.split(",")} if args.only else None
    samples = measure(cadre, args.repeats, args.baseline, only)
    print(report(samples, args.markdown))
    if args.json is not None:
        args.json.write_text(json.dumps(samples, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
