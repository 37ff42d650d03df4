"""A full disk, for real (a small tmpfs, see :mod:`tests.small_disk`): every write path ends in
the one line of docs/persistence.md's fault table, naming the file and what to do, and the run
goes on with ``cadre resume`` once space is freed."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.a2a_agents import free_port
from tests.conftest import SMALL_CORPUS, write_corpus
from tests.small_disk import Step, on_a_small_disk, why_no_small_disk

pytestmark = pytest.mark.skipif(why_no_small_disk() is not None, reason=str(why_no_small_disk()))

DATASET = """\
name: small
team: research
corpus: docs
cases:
  - id: ocb
    question: How are checkpoints encrypted?
    facts: [OCB]
"""

_SCRIPT = """
H=$DISK/home
Q="How are runs checkpointed?"
cadre run "$Q" --corpus "$DOCS" --home "$H" --thread done >/dev/null 2>&1 || exit 91
cadre run "$Q" --corpus "$DOCS" --home "$H" --thread paused --review plan >/dev/null 2>&1 \
    || exit 92
"$PYTHON" -c 'from framework.cli.main import main; main()' serve --no-auth --home "$H" \
    --port "$PORT" > "$OUT/serve.log" 2>&1 &
served=$!
trap 'kill -KILL $served 2>/dev/null; wait $served' EXIT
"$PYTHON" - <<'PY' || exit 93
import os, time, httpx
deadline = time.monotonic() + 120
while time.monotonic() < deadline:
    try:
        if httpx.get(f"http://127.0.0.1:{os.environ['PORT']}/ok").status_code == 200:
            break
    except httpx.HTTPError:
        time.sleep(0.2)
else:
    raise SystemExit("the server never answered")
PY
fill 150; step run run "How are checkpoints encrypted?" --corpus "$DOCS" --home "$H" --thread t1
fill 150; step resume resume t1 --home "$H"
fill 150; step approve approve paused --home "$H" --reviewer ann
fill 150; step ingest run "$Q" --corpus "$BIG_DOCS" --home "$H" --thread t2 --no-trace
fill 150; step eval eval "$DATASET" --home "$H"
fill 0; step rotate keys rotate --home "$H"
fill 150; "$PYTHON" - > "$OUT/served.json" <<'PY'
import os, httpx
with httpx.Client(base_url=f"http://127.0.0.1:{os.environ['PORT']}", timeout=300) as http:
    thread = http.post("/threads", json={}).json()["thread_id"]
    answer = http.post(
        f"/threads/{thread}/runs/wait",
        json={"assistant_id": "research", "input": {"question": "How are retries done?"}},
    )
print(answer.text)
PY
fill 8; "$PYTHON" - > "$OUT/spans.out" 2> "$OUT/spans.err" <<'PY'
import logging, os
from pathlib import Path
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from telemetry.export import JsonLinesSpanExporter
logging.basicConfig(format="%(message)s")
provider = TracerProvider()
provider.add_span_processor(SimpleSpanProcessor(JsonLinesSpanExporter(
    Path(os.environ["DISK"]) / "home" / "traces" / "spans.jsonl")))
tracer = provider.get_tracer("full-disk")
for size in (20_000, 20_000, 10):  # two spans that do not fit, then one after space is freed
    if size == 10:
        os.remove(Path(os.environ["DISK"]) / ".filler")
    with tracer.start_as_current_span("span", attributes={"text": "x" * size}):
        pass
PY
cp "$H/traces/spans.jsonl" "$OUT/spans.jsonl"
unfill; step resumed resume t1 --home "$H"
"""


@pytest.fixture(scope="module")
def filled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The steps of one home: each write path tried with the disk full (module-scoped: the
    runs that set the home up take most of the time)."""
    root = tmp_path_factory.mktemp("small_disk")
    docs = write_corpus(root / "docs", SMALL_CORPUS)
    big = write_corpus(
        root / "big_docs",
        {
            f"part{n}.md": f"# Part {n}\n\n" + f"Section {n} of the manual. " * 4000
            for n in range(8)
        },
    )
    (root / "small.yaml").write_text(DATASET)
    script = (
        f"DOCS={docs}; BIG_DOCS={big}; DATASET={root / 'small.yaml'}; export PORT={free_port()}\n"
        + _SCRIPT
    )
    return on_a_small_disk(script, root)


def _one_line_naming_a_file(step: Step, home: Path) -> str:
    """The last line: no space, a file of the home, what to do; never "unexpected"."""
    assert step.code == 1, step.lines
    assert not any("Traceback" in line or "unexpected" in line for line in step.lines)
    prefix = f"error: no space left on the device holding {home}/"
    assert step.last.startswith(prefix), step.lines
    assert "free space there and try again (what was committed is kept)" in step.last
    assert re.search(r"; [\d.]+ (bytes|KiB|MiB) free\): free space there", step.last), step.last
    return step.last.removeprefix(prefix).split(" ", 1)[0]


@pytest.mark.parametrize("name", ["run", "resume", "approve"])
def test_a_run_on_a_full_disk_names_the_file_and_the_resume(filled: Path, name: str) -> None:
    home = filled.parent / "disk" / "home"
    thread = "paused" if name == "approve" else "t1"
    _one_line_naming_a_file(Step(filled, name), home)
    assert Step(filled, name).last.endswith(
        f"; then `cadre resume {thread} --home {home}` goes on from its last checkpoint"
    )


def test_space_freed_the_run_goes_on_with_resume(filled: Path) -> None:
    assert Step(filled, "resumed").code == 0, Step(filled, "resumed").lines


def test_an_ingest_on_a_full_disk_names_the_memory_store(filled: Path) -> None:
    home = filled.parent / "disk" / "home"
    assert _one_line_naming_a_file(Step(filled, "ingest"), home) == "memory.sqlite"


def test_an_eval_on_a_full_disk_is_one_line_naming_the_file(filled: Path) -> None:
    _one_line_naming_a_file(Step(filled, "eval"), filled.parent / "disk" / "home")


def test_a_key_rotation_on_a_full_disk_names_the_file(filled: Path) -> None:
    _one_line_naming_a_file(Step(filled, "rotate"), filled.parent / "disk" / "home")


def test_a_served_run_on_a_full_disk_answers_its_error_naming_the_file(filled: Path) -> None:
    home = filled.parent / "disk" / "home"
    error = json.loads((filled / "served.json").read_text())["__error__"]
    assert error["error"] == "StorageFullError"
    assert error["message"].startswith(f"no space left on the device holding {home}/")
    log = (filled / "serve.log").read_text()
    assert "Traceback" not in log and "never retrieved" not in log, log


def test_spans_that_do_not_fit_are_said_once_and_leave_no_torn_line(filled: Path) -> None:
    home = filled.parent / "disk" / "home"
    spans = home / "traces" / "spans.jsonl"
    said = (filled / "spans.err").read_text().strip().splitlines()
    assert said == [
        f"cadre: spans are not saved, and are dropped until this is mended: no space left on the "
        f"device holding {spans} (No space left on device; " + said[0].split("; ", 1)[1],
        f"cadre: spans are saved to {spans} again",
    ], said
    assert said[0].endswith(" free): free space there and try again (what was committed is kept)")
    lines = (filled / "spans.jsonl").read_bytes().splitlines()  # the disk is gone: its copy
    assert all(json.loads(line) for line in lines)  # the cut appends were undone
    assert json.loads(lines[-1])["attributes"]["text"] == "x" * 10
