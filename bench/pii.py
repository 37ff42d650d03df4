"""PII detection quality and speed: per-kind precision and recall on cadre's labelled corpus,
and throughput.

The corpus (``bench/pii_corpus.tsv``, written for cadre: ``label<TAB>text``, labels the kinds a
line holds or ``none``) mixes sentences holding e-mail addresses, phone numbers, cards, IBANs,
SSNs, NINOs, IP addresses and secrets with technical prose that must not trigger (versions,
dates, times, prices, hashes, UUIDs, ports, invoice numbers). A line counts a kind as found when
any span of that kind is found in it.

Run: ``python bench/pii.py [--markdown] [--megabytes N]``.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from policies.pii import KINDS, Redactor

CORPUS = Path(__file__).with_name("pii_corpus.tsv")


@dataclass(frozen=True)
class Quality:
    """Line-level counts of one kind."""

    kind: str
    true_positive: int
    false_positive: int
    false_negative: int

    @property
    def precision(self) -> float:
        found = self.true_positive + self.false_positive
        return self.true_positive / found if found else 1.0

    @property
    def recall(self) -> float:
        present = self.true_positive + self.false_negative
        return self.true_positive / present if present else 1.0


def corpus(path: Path = CORPUS) -> list[tuple[frozenset[str], str]]:
    """(labels, text) of each line of the corpus."""
    lines = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line or line.startswith("#"):
            continue
        label, text = line.split("\t", 1)
        lines.append((frozenset() if label == "none" else frozenset(label.split(",")), text))
    return lines


def evaluate(path: Path = CORPUS) -> dict[str, Quality]:
    """Per-kind line-level quality of the built-in detectors on the corpus."""
    redactor = Redactor(dict.fromkeys(KINDS, "redact"))
    counts: Counter[tuple[str, str]] = Counter()
    for labels, text in corpus(path):
        found = {span.kind for span in redactor.find(text)}
        for kind in KINDS:
            if kind in found and kind in labels:
                counts[(kind, "tp")] += 1
            elif kind in found:
                counts[(kind, "fp")] += 1
            elif kind in labels:
                counts[(kind, "fn")] += 1
    return {
        kind: Quality(kind, counts[(kind, "tp")], counts[(kind, "fp")], counts[(kind, "fn")])
        for kind in KINDS
    }


def throughput(megabytes: float) -> float:
    """MB/s of redacting the corpus text repeated to about ``megabytes``."""
    text = "\n".join(text for _, text in corpus())
    big = text * max(1, int(megabytes * 1e6 / len(text)))
    redactor = Redactor(dict.fromkeys(KINDS, "redact"))
    started = time.perf_counter()
    redactor.redact(big)
    return len(big.encode()) / 1e6 / (time.perf_counter() - started)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--megabytes", type=float, default=10.0)
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args()
    rows = evaluate()
    print("| kind | TP | FP | FN | precision | recall |")
    print("|---|---:|---:|---:|---:|---:|")
    for q in rows.values():
        print(
            f"| {q.kind} | {q.true_positive} | {q.false_positive} | {q.false_negative} | "
            f"{q.precision:.3f} | {q.recall:.3f} |"
        )
    lines = corpus()
    print(f"\n{len(lines)} lines, {sum(1 for labels, _ in lines if not labels)} without PII")
    print(f"throughput: {throughput(args.megabytes):.2f} MB/s on {args.megabytes:g} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
