"""Memory under huge questions: does a process that runs questions of about 880 kB keep
growing, or level off?

One process compiles the offline ``research`` team over this project's ``docs/`` (a fresh
data home), runs one short question (the baseline: the embedding model and the team loaded),
then ``--runs`` questions of ``--kb`` kB each (a long text after a short question), one after
another on new threads, and prints the resident memory after each. The ratio is the growth
over the baseline: what the huge questions left behind.

Run: ``.venv/bin/python bench/large_questions.py [--runs 10] [--kb 880]`` (see
``docs/benchmarks/server.md``).
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
from pathlib import Path

from framework.database.home import DataHome
from framework.runs.launch import LaunchRequest, launch
from framework.runs.runner import arun_team
from framework.runs.spec import RunSpec

ROOT = Path(__file__).resolve().parent.parent
FILLER = "The shipping policy says orders ship in five days and refunds take ten days. "


def _rss_mb() -> float:
    """This process's resident memory in MiB."""
    pages = int(Path("/proc/self/statm").read_text().split()[1])
    return pages * 4096 / 2**20


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--kb", type=int, default=880)
    args = parser.parse_args()
    question = "What is the refund period? " + FILLER * (args.kb * 1000 // len(FILLER))
    with tempfile.TemporaryDirectory() as folder:
        spec = RunSpec(team="research", corpus=str(ROOT / "docs"))
        with launch(LaunchRequest(spec=spec, home=DataHome(root=Path(folder)))) as launched:
            asyncio.run(arun_team(launched.app, {"question": "What is the refund period?"}, "0"))
            baseline = _rss_mb()
            print("| run | RSS MiB | over baseline |\n|---|---|---|")
            print(f"| short | {baseline:.0f} | 1.00 |")
            for run in range(1, args.runs + 1):
                asyncio.run(arun_team(launched.app, {"question": question}, str(run)))
                rss = _rss_mb()
                print(f"| {args.kb} kB #{run} | {rss:.0f} | {rss / baseline:.2f} |", flush=True)


if __name__ == "__main__":
    main()
