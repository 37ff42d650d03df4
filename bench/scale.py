"""The fleet under load: runs of the ``fleety`` team (8 tasks, each a scripted 200 ms model
call) submitted at once to ``cadre worker`` processes on one PostgreSQL database.

Scenarios (each on a new database of the PostgreSQL server ``--postgres``):

1. *scaling*: ``--runs`` runs with 1, 2 and 4 workers (``--concurrency`` runs each): runs per
   minute, scaling efficiency against one worker, p50/p99 from submit to start (DBOS's
   enqueue and dequeue times), and database transactions per run (``pg_stat_database``,
   the queue's polling included);
2. *kills*: ``--kill-runs`` runs (long enough for several kills) with one worker SIGKILLed
   every ``--kill-every`` seconds and a new one started in its place: every run must finish,
   no saved task may run again; the time from each kill to the first model call of one of
   its runs elsewhere is its recovery time;
3. *rate*: 4 workers share a provider limit of ``--rate`` requests per minute (the policy
   file's ``rate_limits``): the peak of calls in any 60 s window must be <= the rate.

Run: ``.venv/bin/python bench/scale.py --postgres URL [--runs 400] [--kill-every 30]
[--rate 60] [--only scaling,kills,rate]``; prints Markdown and exits 1 when a run was lost,
a saved task ran again, or the rate was exceeded.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

import psycopg

from bench.fleet_lab import FleetLab, peak_in_window

TASKS = 8
DELAY_S = 0.2
DEAD_AFTER_S = 10.0
"""``cadre worker``'s default: a worker silent this long is taken for dead."""


def fresh_database(server_url: str) -> str:
    """A new, empty database on the PostgreSQL server of ``server_url``; its URL."""
    name = f"cadre_scale_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(server_url, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    return f"{server_url.rsplit('/', 1)[0]}/{name}"


def _transactions(url: str) -> int:
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("SELECT pg_stat_clear_snapshot()")
        row = conn.execute(
            "SELECT xact_commit + xact_rollback FROM pg_stat_database"
            " WHERE datname = current_database()"
        ).fetchone()
    return int(row[0]) if row else 0


def _queue_times(url: str) -> list[tuple[float, float, float]]:
    """(enqueued, started, ended) of each run's workflow, seconds."""
    with psycopg.connect(url, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT created_at, started_at_epoch_ms, updated_at FROM cadre_fleet.workflow_status"
            " WHERE queue_name = 'cadre_runs' AND status = 'SUCCESS'"
        ).fetchall()
    return [(c / 1000, (s or c) / 1000, u / 1000) for c, s, u in rows]


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else 0.0


@dataclass
class Scaling:
    workers: int
    runs_per_minute: float
    start_p50: float
    start_p99: float
    transactions_per_run: float
    lost: int
    submit_s: float


def scaling(server: str, root: Path, workers: int, runs: int, concurrency: int) -> Scaling:
    """``runs`` runs on ``workers`` workers."""
    url = fresh_database(server)
    lab = FleetLab(root / f"scaling-{workers}", url, tasks=TASKS, delay=DELAY_S)
    try:
        for _ in range(workers):
            lab.start_worker(concurrency=concurrency)
        lab.submit(1)  # the queue's tables, the team loaded: not part of the timing
        lab.wait_all(timeout=300)
        lab.runs.clear()
        time.sleep(1.0)
        before = _transactions(url)
        started = time.monotonic()
        lab.submit(runs)
        submitted = time.monotonic() - started
        statuses = lab.wait_all(timeout=3600)
        elapsed = time.monotonic() - started
        time.sleep(1.0)  # statistics reach pg_stat_database within a second
        used = _transactions(url) - before
        times = sorted(_queue_times(url))[1:]  # the warm-up run first
        waits = [s - c for c, s, _ in times]
        return Scaling(
            workers=workers,
            runs_per_minute=statuses.get("success", 0) / elapsed * 60,
            start_p50=_percentile(waits, 0.5),
            start_p99=_percentile(waits, 0.99),
            transactions_per_run=used / runs,
            lost=runs - statuses.get("success", 0),
            submit_s=submitted,
        )
    finally:
        lab.stop_all()
        lab.close()


@dataclass
class Kills:
    runs: int
    finished: int
    kills: int
    duplicates: int
    redone: int
    lags: list[float]
    recoveries: list[float]
    elapsed: float
    held: list[int]


def kills(server: str, root: Path, runs: int, concurrency: int, every: float) -> Kills:
    """``runs`` runs on 3 workers, one SIGKILLed every ``every`` seconds (and replaced)."""
    url = fresh_database(server)
    lab = FleetLab(root / "kills", url, tasks=TASKS, delay=DELAY_S, max_parallel=2)
    try:
        for _ in range(3):
            lab.start_worker(concurrency=concurrency, dead_after=DEAD_AFTER_S)
        started = time.monotonic()
        lab.submit(runs)
        next_kill = started + every
        victim = 0
        while any(s in ("pending", "running") for s in lab.statuses()):
            if time.monotonic() >= next_kill:
                live = [w for w in lab.workers if w.alive()]
                lab.kill(live[victim % len(live)])
                victim += 1
                lab.start_worker(concurrency=concurrency, dead_after=DEAD_AFTER_S)
                next_kill += every
            time.sleep(0.25)
        elapsed = time.monotonic() - started
        statuses = lab.statuses()
        recoveries = lab.recoveries()
        return Kills(
            runs=runs,
            finished=statuses.get("success", 0),
            kills=victim,
            duplicates=lab.duplicates(),
            redone=lab.redone(),
            lags=lab.redo_lags(),
            recoveries=recoveries,
            elapsed=elapsed,
            held=[len(w.held) for w in lab.workers if w.killed_at is not None],
        )
    finally:
        lab.stop_all()
        lab.close()


def rate(server: str, root: Path, per_minute: float, runs: int) -> tuple[int, int, float]:
    """4 workers, a shared limit of ``per_minute`` model calls: (calls, peak in 60 s,
    mean calls per minute)."""
    url = fresh_database(server)
    policy = f'rate_limits:\n  "model:scripted:*": {{requests_per_minute: {per_minute:g}}}\n'
    lab = FleetLab(root / "rate", url, tasks=TASKS, delay=DELAY_S, policy=policy)
    try:
        for _ in range(4):
            lab.start_worker(concurrency=2)
        lab.submit(runs)
        lab.wait_all(timeout=3600)
        starts = [c.started for c in lab.calls()]
        span = max(starts) - min(starts)
        mean = (len(starts) - 1) / span * 60 if span else 0.0
        return len(starts), peak_in_window(starts, 60.0), mean
    finally:
        lab.stop_all()
        lab.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--postgres", required=True, help="postgresql://USER@HOST:PORT/DB")
    parser.add_argument("--runs", type=int, default=400)
    parser.add_argument("--concurrency", type=int, default=8, help="runs per worker at once")
    parser.add_argument("--kill-every", type=float, default=30.0)
    parser.add_argument("--kill-runs", type=int, default=1200, help="runs of the kill scenario")
    parser.add_argument("--rate", type=float, default=60.0)
    parser.add_argument("--rate-runs", type=int, default=10, help="runs of the rate scenario")
    parser.add_argument("--only", default="scaling,kills,rate")
    args = parser.parse_args()
    wanted = set(args.only.split(","))
    failed = False
    with tempfile.TemporaryDirectory(prefix="cadre-scale-") as folder:
        root = Path(folder)
        if "scaling" in wanted:
            print(
                "| workers | runs/min | efficiency | submit->start p50 | p99 | db tx/run |"
                " submitting took |"
            )
            print("|---|---|---|---|---|---|---|")
            base = None
            for count in (1, 2, 4):
                got = scaling(args.postgres, root, count, args.runs, args.concurrency)
                base = base or got.runs_per_minute
                efficiency = got.runs_per_minute / (base * count)
                print(
                    f"| {count} | {got.runs_per_minute:.0f} | {efficiency:.2f} |"
                    f" {got.start_p50:.2f} s | {got.start_p99:.2f} s |"
                    f" {got.transactions_per_run:.0f} | {got.submit_s:.1f} s |",
                    flush=True,
                )
                failed |= got.lost > 0
        if "kills" in wanted:
            got_kills = kills(
                args.postgres, root, args.kill_runs, args.concurrency, args.kill_every
            )
            recoveries = got_kills.recoveries
            print(
                f"\nkills: {got_kills.finished}/{got_kills.runs} runs finished in"
                f" {got_kills.elapsed:.0f} s, {got_kills.kills} workers killed"
                f" (holding {got_kills.held} runs),"
                f" {got_kills.duplicates} saved tasks run again"
                f" ({got_kills.redone} executions redone, each ended"
                f" {max(got_kills.lags, default=0) * 1000:.0f} ms or less before a kill);"
                f" recovery"
                f" {min(recoveries, default=0):.1f}-{max(recoveries, default=0):.1f} s"
                f" (median {statistics.median(recoveries) if recoveries else 0:.1f} s)",
                flush=True,
            )
            failed |= got_kills.finished != got_kills.runs or got_kills.duplicates > 0
        if "rate" in wanted:
            calls, peak, mean = rate(args.postgres, root, args.rate, args.rate_runs)
            print(
                f"\nrate: {calls} calls by 4 workers under {args.rate:g}/min:"
                f" peak {peak} in any 60 s, mean {mean:.1f}/min"
            )
            failed |= peak > args.rate
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
