"""Hierarchical budgets: tokens, model calls, tool calls, cost and wall time per run, per team
and per worker task, enforced without races across parallel workers.

Every model call reserves, before it runs, a bound of its input tokens plus
``max_output_tokens`` (and their cost) in its task, its team and the run at once, under one lock;
the call is refused when any of them would go over. After the call, the reservation is replaced
by what it really used. So ten parallel workers each seeing 900 of 1000 tokens left cannot
together spend more than 1000. The input bound is the UTF-8 bytes of everything sent (messages,
bound tools, schemas) plus a few tokens per message: no byte-level tokenizer counts more, so
the bound holds without knowing the model's tokenizer, at the price of refusing a call near
the end that would in fact have fitted. The output bound is ``max_output_tokens``: give the
model the same limit (``max_tokens``); a model that writes more is counted, not stopped, and
the excess shows in :meth:`Budget.used`. Tool calls and model calls count one each.

When the run's budget is spent, workers are no longer run (their tasks fail with the reason)
and the answer says the budget ran out; a worker's model or tool call refused fails its task
the same way (a tool worker's model is not handed the refusal). With ``on_exhausted="ask"`` a
human is asked instead, and an approval grants ``grant`` times the run's limits again
(recorded in the usage, so a resumed run keeps it). Usage lives in the thread's state and is
taken up again on resume.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Literal

from framework.errors import ConfigError
from framework.policy import ALLOW, Call, Policy, UsageRecord, Verdict, ask, deny, modify
from framework.policy.usage import input_bound

__all__ = ["Budget", "Limits", "Price"]

Metric = Literal["tokens", "model_calls", "tool_calls", "cost"]
_METRICS: tuple[Metric, ...] = ("tokens", "model_calls", "tool_calls", "cost")
_GRANT = "budget_grant:"


@dataclass(frozen=True, kw_only=True)
class Limits:
    """Limits of one account; None is unlimited."""

    tokens: int | None = None
    model_calls: int | None = None
    tool_calls: int | None = None
    cost: float | None = None
    wall_s: float | None = None

    def __post_init__(self) -> None:
        for item in fields(self):
            value = getattr(self, item.name)
            if value is not None and value < 0:
                raise ConfigError(f"budget limit {item.name} must be >= 0, got {value}")


@dataclass(frozen=True, kw_only=True)
class Price:
    """A model's price per million tokens, in the budget's currency."""

    input: float = 0.0
    output: float = 0.0


AccountKey = tuple[str, ...]
"""An account of a budget: ``("run",)``, or ``("task", ...)`` followed by the chain of task ids
a task runs under."""


def _limits_text(limits: Limits) -> str:
    """``tokens 20000, cost 2.5``: the metrics ``limits`` limits ('' for none)."""
    return ", ".join(f"{k} {v:g}" for k, v in vars(limits).items() if v is not None)


def _caps(limits: Limits) -> dict[Metric, float]:
    """The metrics ``limits`` limits, and their limits."""
    return {
        metric: float(getattr(limits, metric))
        for metric in _METRICS
        if getattr(limits, metric) is not None
    }


class _Account:
    """What one account (the run, a team, a task) used and holds reserved, per metric, against
    its caps (the run's grow by what humans granted)."""

    __slots__ = ("caps", "key", "reserved", "used")

    def __init__(self, key: AccountKey, caps: Mapping[Metric, float]) -> None:
        self.key = key
        self.caps = caps
        self.used: dict[Metric, float] = dict.fromkeys(_METRICS, 0.0)
        self.reserved: dict[Metric, float] = dict.fromkeys(_METRICS, 0.0)


class _Ledger:
    """One thread's accounts by key, its reservations by call, and its grants."""

    def __init__(self, run_caps: Mapping[Metric, float]) -> None:
        self.run = _Account(("run",), run_caps)
        self.accounts: dict[AccountKey, _Account] = {self.run.key: self.run}
        self.holds: dict[int, tuple[list[_Account], dict[Metric, float]]] = {}
        self.granted: dict[Metric, float] = dict.fromkeys(_METRICS, 0.0)
        self.started = time.monotonic()
        self.exhausted = ""

    def account(self, key: AccountKey, caps: Mapping[Metric, float]) -> _Account:
        """The account of ``key``, opened with ``caps`` on first use."""
        found = self.accounts.get(key)
        if found is None:
            found = self.accounts[key] = _Account(key, caps)
        return found

    def limit(self, account: _Account, metric: Metric) -> float | None:
        """``account``'s cap of ``metric`` (None: unlimited), with the grants on the run's."""
        cap = account.caps.get(metric)
        if cap is None or account is not self.run:
            return cap
        return cap + self.granted[metric]


class Budget(Policy):
    """Limits what runs, teams and worker tasks may use.

    Args:
        run: Limits of the whole run (every team in it).
        teams: Limits per team name (the nodes of that team, its workers included).
        task: Limits of each worker task.
        prices: ``provider:model`` (or the name the model reports) -> price; a model without a
            price costs nothing.
        max_output_tokens: The output a model call reserves before it runs.
        on_exhausted: ``stop`` (finish with what is there) or ``ask`` a human to grant more.
        grant: What an approval adds, as a multiple of the run's limits.

    Raises:
        ConfigError: A bad setting.
    """

    name = "budget"

    def __init__(
        self,
        *,
        run: Limits | None = None,
        teams: Mapping[str, Limits] | None = None,
        task: Limits | None = None,
        prices: Mapping[str, Price] | None = None,
        max_output_tokens: int = 1024,
        on_exhausted: Literal["stop", "ask"] = "stop",
        grant: float = 1.0,
    ) -> None:
        if on_exhausted not in ("stop", "ask"):
            raise ConfigError(f"on_exhausted {on_exhausted!r}: use stop or ask")
        if max_output_tokens < 1 or grant <= 0:
            raise ConfigError("max_output_tokens must be >= 1 and grant > 0")
        self.run_limits = run or Limits()
        self.team_limits = dict(teams or {})
        self.task_limits = task or Limits()
        self.prices = dict(prices or {})
        self.max_output_tokens = max_output_tokens
        self.on_exhausted = on_exhausted
        self.grant = grant
        self._run_caps = _caps(self.run_limits)
        self._ledgers: dict[str, _Ledger] = {}
        self._lock = threading.Lock()
        self._team_caps = {name: _caps(limits) for name, limits in self.team_limits.items()}
        self._task_caps = _caps(self.task_limits)

    @property
    def may_ask(self) -> bool:  # type: ignore[override]
        """Whether a spent budget asks a human."""
        return self.on_exhausted == "ask"

    def describe(self) -> str:
        """Every limit (the run's, each team's, each task's), the output bound sent with each
        model call, and what happens when a limit is spent."""
        parts = [f"run {_limits_text(self.run_limits) or 'unlimited'}"]
        parts += [
            f"team {name} {_limits_text(limits)}"
            for name, limits in sorted(self.team_limits.items())
            if _limits_text(limits)
        ]
        if shown := _limits_text(self.task_limits):
            parts.append(f"each task {shown}")
        parts.append(f"max_output_tokens {self.max_output_tokens}")
        return f"{'; '.join(parts)}; when spent: {self.on_exhausted}"

    # -- what a call charges -----------------------------------------------------------------

    def _ledger(self, thread_id: str | None) -> _Ledger:
        """The ledger of a thread (opened on first use); call under the lock."""
        key = thread_id or ""
        found = self._ledgers.get(key)
        if found is None:
            found = self._ledgers[key] = _Ledger(self._run_caps)
        return found

    def _accounts(self, call: Call, ledger: _Ledger) -> list[_Account]:
        """The accounts a call is charged to: the run, its team and its tasks (those limited)."""
        accounts = [ledger.run]
        team = self._team_caps.get(call.team)
        if team is not None:
            accounts.append(ledger.account(("team", call.team), team))
        if self._task_caps:
            for key in _task_accounts(call.within, call.task_id):
                accounts.append(ledger.account(key, self._task_caps))
        return accounts

    def _cost(self, model: str, tokens_in: float, tokens_out: float) -> float:
        price = self.prices.get(model) if self.prices else None
        if price is None:
            return 0.0
        return (tokens_in * price.input + tokens_out * price.output) / 1_000_000

    def _reserve(self, call: Call, amounts: dict[Metric, float], hold: bool) -> str:
        """Reserve ``amounts`` in every account of ``call``; the reason it cannot be, or "".

        Calls outside worker tasks (a team's planner, reviewer, formatter: what finishes it,
        also in a nested team) are counted but never refused; no task starts once the run's
        budget is spent (:meth:`before_node`), so no subteam starts either."""
        with self._lock:
            ledger = self._ledger(call.thread_id)
            accounts = self._accounts(call, ledger)
            reason = "" if call.task_id is None else self._over(amounts, accounts, ledger)
            if reason:
                return reason
            for account in accounts:
                counter = account.reserved if hold else account.used
                for metric, amount in amounts.items():
                    counter[metric] += amount
            if hold:
                ledger.holds[call.call_id] = (accounts, amounts)
        return ""

    def _over(
        self, amounts: Mapping[Metric, float], accounts: Sequence[_Account], ledger: _Ledger
    ) -> str:
        """Why ``amounts`` do not fit in ``accounts`` (or the run's wall time is over); ""."""
        wall = self.run_limits.wall_s
        if wall is not None and time.monotonic() - ledger.started > wall:
            return self._spent(ledger, f"run wall time {wall:g} s is over")
        for account in accounts:
            if not account.caps:
                continue
            used, reserved = account.used, account.reserved
            for metric, amount in amounts.items():
                limit = ledger.limit(account, metric)
                if limit is not None and used[metric] + reserved[metric] + amount > limit:
                    return self._spent(
                        ledger,
                        f"{' '.join(account.key)} {metric}: {used[metric]:g} of {limit:g} used",
                    )
        return ""

    @staticmethod
    def _spent(ledger: _Ledger, reason: str) -> str:
        ledger.exhausted = ledger.exhausted or reason
        return reason

    def _refusal(self, reason: str) -> Verdict:
        """Refuse the call and its worker task (a tool worker does not hand the refusal to its
        model to work around: the task fails with it)."""
        if self.on_exhausted == "ask":
            question = f"budget exhausted ({reason}): approve to grant {self.grant:g}x more"
            return ask(question, ends_task=True)
        return deny(f"budget exhausted ({reason})", ends_task=True)

    # -- hooks -------------------------------------------------------------------------------

    def before_node(self, call: Call) -> Verdict:
        """Run no more workers once the run's budget (or its wall time) is spent."""
        if call.node != "worker":
            return ALLOW
        with self._lock:
            ledger = self._ledger(call.thread_id)
            reason = self._over({}, (), ledger)
            run = ledger.run
            for metric in run.caps:
                if reason:
                    break
                limit = ledger.limit(run, metric)
                if limit is not None and run.used[metric] + run.reserved[metric] >= limit:
                    used = run.used[metric]
                    reason = self._spent(ledger, f"run {metric}: {used:g} of {limit:g} used")
        return self._refusal(reason) if reason else ALLOW

    def before_model(self, call: Call) -> Verdict:
        """Reserve the call's tokens, its cost and one model call, or refuse it."""
        messages = call.value if isinstance(call.value, Sequence) else ()
        tokens_in = call.usage.get("input_bound") or input_bound(messages)
        amounts: dict[Metric, float] = {
            "tokens": tokens_in + self.max_output_tokens,
            "model_calls": 1,
            "cost": self._cost(call.target, tokens_in, self.max_output_tokens),
        }
        reason = self._reserve(call, amounts, hold=True)
        return self._refusal(reason) if reason else ALLOW

    def after_model(self, call: Call) -> Verdict:
        """Replace the call's reservation by what it used."""
        tokens_in = call.usage.get("input_tokens", 0)
        tokens_out = call.usage.get("output_tokens", 0)
        actual: dict[Metric, float] = {
            "tokens": tokens_in + tokens_out,
            "model_calls": 1,
            "cost": self._cost(call.target, tokens_in, tokens_out),
        }
        with self._lock:
            accounts, held = self._ledger(call.thread_id).holds.pop(call.call_id, ((), {}))
            for account in accounts:
                for metric, amount in held.items():
                    account.reserved[metric] -= amount
                    account.used[metric] += actual[metric]
        return ALLOW

    def output_limit(self) -> int | None:
        """``max_output_tokens``: what a call reserves is what the provider may write."""
        return self.max_output_tokens

    def model_failed(self, call: Call) -> Verdict:
        """Give back what a failed call reserved, and charge what its provider billed for it
        (``call.usage``: an answer that did not parse was still written; none when nothing
        came back); it counts as a model call."""
        tokens_in = call.usage.get("input_tokens", 0)
        tokens_out = call.usage.get("output_tokens", 0)
        with self._lock:
            accounts, held = self._ledger(call.thread_id).holds.pop(call.call_id, ((), {}))
            for account in accounts:
                for metric, amount in held.items():
                    account.reserved[metric] -= amount
                account.used["model_calls"] += 1
                account.used["tokens"] += tokens_in + tokens_out
                account.used["cost"] += self._cost(call.target, tokens_in, tokens_out)
        return ALLOW

    def before_tool(self, call: Call) -> Verdict:
        """Count one tool call, or refuse it."""
        reason = self._reserve(call, {"tool_calls": 1}, hold=False)
        return self._refusal(reason) if reason else ALLOW

    def after_tool(self, call: Call) -> Verdict:
        """Charge what a tool reported it used (a remote agent's model calls and tokens): a
        remote level of the tree spends this run's budget, and the next call is refused once
        it is spent."""
        if call.usage:
            tokens = call.usage.get("input_tokens", 0) + call.usage.get("output_tokens", 0)
            amounts: dict[Metric, float] = {
                "tokens": tokens,
                "model_calls": call.usage.get("model_calls", 0),
                "tool_calls": call.usage.get("tool_calls", 0),
            }
            with self._lock:
                for account in self._accounts(call, self._ledger(call.thread_id)):
                    for metric, amount in amounts.items():
                        account.used[metric] += amount
        return ALLOW

    def answer(self, call: Call) -> Verdict:
        """Say in the answer that the budget ran out, when it did."""
        ledger = self._ledgers.get(call.thread_id or "")
        if ledger is None or not ledger.exhausted or not isinstance(call.value, str):
            return ALLOW
        note = (
            f"\n\nNote: the run's budget ran out ({ledger.exhausted}); this answer rests on the "
            "work done before that."
        )
        return modify(call.value + note, "noted that the budget ran out")

    def approved(self, call: Call, reviewer: str) -> Mapping[str, float]:
        """Grant the run ``grant`` times its limits again; recorded in the usage."""
        granted: dict[str, float] = {}
        with self._lock:
            ledger = self._ledger(call.thread_id)
            for metric in _METRICS:
                limit = getattr(self.run_limits, metric)
                if limit is not None:
                    ledger.granted[metric] += limit * self.grant
                    granted[f"{_GRANT}{metric}"] = limit * self.grant
            ledger.exhausted = ""
        return granted

    def restore(self, thread_id: str, usage: Sequence[UsageRecord]) -> None:
        """Take up what a thread used (and was granted) before this process ran it."""
        ledger = _Ledger(self._run_caps)
        for record in usage:
            counts = record.counts
            amounts: dict[Metric, float] = {
                "tokens": counts.get("input_tokens", 0) + counts.get("output_tokens", 0),
                "model_calls": counts.get("model_calls", 0),
                "tool_calls": counts.get("tool_calls", 0),
                "cost": self._recorded_cost(counts),
            }
            team_caps = self._team_caps.get(record.team, {})
            accounts = [ledger.run, ledger.account(("team", record.team), team_caps)]
            for key in _task_accounts(tuple(record.within), record.task_id):
                accounts.append(ledger.account(key, self._task_caps))
            for account in accounts:
                for metric, amount in amounts.items():
                    account.used[metric] += amount
            for metric in _METRICS:
                ledger.granted[metric] += counts.get(f"{_GRANT}{metric}", 0)
        with self._lock:
            self._ledgers[thread_id] = ledger

    def forget(self, thread_id: str) -> None:
        """Drop the thread's ledger: its run ended, and its usage is in its state."""
        with self._lock:
            self._ledgers.pop(thread_id, None)

    def _recorded_cost(self, counts: Mapping[str, float]) -> float:
        total = 0.0
        for key, amount in counts.items():
            if key.startswith("input_tokens@"):
                total += self._cost(key.partition("@")[2], amount, 0)
            elif key.startswith("output_tokens@"):
                total += self._cost(key.partition("@")[2], 0, amount)
        return total

    def used(self, thread_id: str) -> dict[str, float]:
        """What the run of ``thread_id`` used, per ``account/metric`` (reservations settled)."""
        ledger = self._ledgers.get(thread_id)
        if ledger is None:
            return {}
        with self._lock:
            return {
                f"{'/'.join(account.key)}/{metric}": amount
                for account in ledger.accounts.values()
                for metric, amount in account.used.items()
                if amount
            }


def _task_accounts(within: tuple[str, ...], task_id: str | None) -> list[AccountKey]:
    """The task accounts of a call: each task it runs in, down to its own, each named by its
    chain of task ids (``q0`` of the subteam in task ``q1`` is ``("task", "q1", "q0")``)."""
    chain = (*within, task_id) if task_id is not None else within
    return [("task", *chain[: depth + 1]) for depth in range(len(chain))]
