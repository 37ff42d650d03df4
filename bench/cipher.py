"""Encryption cost per blob: cadre's ``BlobCipher`` against LangGraph's stock AES serializer.

In one process, for blobs of 64 B, 1 KiB and 16 KiB, measures the cost of one ``encrypt`` and one
``decrypt`` call of:

- ``cadre``: :class:`framework.persistence.cipher.BlobCipher` (AES-OCB, a new cipher object per
  blob, a random 15-byte nonce, the row identity and header as associated data);
- ``stock``: the cipher of ``EncryptedSerializer.from_pycryptodome_aes(key=...)`` (AES-EAX, a new
  cipher object per blob, no associated data); only its cipher is timed, not its msgpack serde.

Then, at 1 KiB, the raw pycryptodome AEAD modes cadre chose from (new cipher object per blob,
64 bytes of associated data), so the choice can be checked on another machine.

Each cell is the median over ``--repeats`` batches (interleaved across variants so drift hits all
alike) of the mean time per call in a batch. Every variant's round trip is checked first.
Target: encrypt and decrypt of a 1 KiB blob <= 25 µs each (``--strict`` exits 1 on a miss).

Run: ``python bench/cipher.py [--quick] [--repeats N] [--strict]`` (see
``docs/benchmarks/encryption.md``).
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from importlib import metadata
from typing import Any

from Crypto.Cipher import AES
from langgraph.checkpoint.serde.encrypted import EncryptedSerializer

from framework.persistence.cipher import MODE_NAME, BlobCipher, row_identity
from framework.persistence.keys import Keyring

SIZES = (64, 1024, 16 * 1024)
TARGET_US = 25.0
TARGET_SIZE = 1024
ROW = row_identity("checkpoint", "5f0c7a2e-9a51-4c1e-8f5e-0d6a1c2b3e4f", "", "1ef4c3a2-0b1c-6d2e")


@dataclass(frozen=True)
class Op:
    """One timed call: ``run()`` does it once."""

    name: str
    run: Callable[[], object]


def cadre_ops(size: int) -> tuple[Op, Op]:
    """Encrypt and decrypt of one ``size``-byte blob with cadre's cipher."""
    cipher = BlobCipher(Keyring.generate("bench"))
    plaintext = os.urandom(size)
    blob = cipher.encrypt(plaintext, ROW)
    assert cipher.decrypt(blob, ROW) == plaintext
    return (
        Op("encrypt", lambda: cipher.encrypt(plaintext, ROW)),
        Op("decrypt", lambda: cipher.decrypt(blob, ROW)),
    )


def stock_ops(size: int) -> tuple[Op, Op]:
    """Encrypt and decrypt with LangGraph's ``from_pycryptodome_aes`` cipher (AES-EAX)."""
    cipher = EncryptedSerializer.from_pycryptodome_aes(key=os.urandom(32)).cipher
    plaintext = os.urandom(size)
    name, blob = cipher.encrypt(plaintext)
    assert cipher.decrypt(name, blob) == plaintext
    return (
        Op("encrypt", lambda: cipher.encrypt(plaintext)),
        Op("decrypt", lambda: cipher.decrypt(name, blob)),
    )


def raw_mode_ops(mode: int, nonce_size: int, size: int) -> tuple[Op, Op]:
    """Encrypt and decrypt with a bare pycryptodome AEAD mode, a new cipher object per blob."""
    key, plaintext, associated = os.urandom(32), os.urandom(size), os.urandom(64)

    def encrypt() -> tuple[bytes, bytes, bytes]:
        nonce = os.urandom(nonce_size)
        cipher: Any = AES.new(key, mode, nonce=nonce)  # type: ignore[call-overload]  # mode is an int
        cipher.update(associated)
        ciphertext, tag = cipher.encrypt_and_digest(plaintext)
        return nonce, tag, ciphertext

    nonce, tag, ciphertext = encrypt()

    def decrypt() -> bytes:
        cipher: Any = AES.new(key, mode, nonce=nonce)  # type: ignore[call-overload]
        cipher.update(associated)
        plaintext_out: bytes = cipher.decrypt_and_verify(ciphertext, tag)
        return plaintext_out

    assert decrypt() == plaintext
    return Op("encrypt", encrypt), Op("decrypt", decrypt)


RAW_MODES: dict[str, tuple[int, int]] = {
    "AES-OCB": (AES.MODE_OCB, 15),
    "AES-GCM": (AES.MODE_GCM, 12),
    "AES-CCM": (AES.MODE_CCM, 11),
    "AES-EAX": (AES.MODE_EAX, 16),
    "AES-SIV": (AES.MODE_SIV, 16),
}


def time_us(ops: dict[str, Op], repeats: int, calls: int) -> dict[str, float]:
    """Median over ``repeats`` interleaved batches of the µs per call of each op."""
    for op in ops.values():  # warm-up
        for _ in range(calls // 10 + 1):
            op.run()
    samples: dict[str, list[float]] = {key: [] for key in ops}
    gc.collect()
    for _ in range(repeats):
        for key, op in ops.items():
            run = op.run
            start = time.perf_counter_ns()
            for _ in range(calls):
                run()
            samples[key].append((time.perf_counter_ns() - start) / calls / 1000)
    return {key: statistics.median(values) for key, values in samples.items()}


def calls_for(size: int, quick: bool) -> int:
    """Calls per batch: about 5-30 ms of work per batch."""
    calls = 1000 if size <= 1024 else 250
    return calls // 5 if quick else calls


def main(argv: list[str] | None = None) -> int:
    """Run the bench and print the tables; return 1 under ``--strict`` when a target is missed."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer, shorter batches")
    parser.add_argument("--repeats", type=int, default=None, help="batches per cell (21)")
    parser.add_argument("--strict", action="store_true", help="exit 1 if the target is missed")
    args = parser.parse_args(argv)
    repeats = args.repeats or (7 if args.quick else 21)

    print(
        f"Python {platform.python_version()}, pycryptodome {metadata.version('pycryptodome')}, "
        f"langgraph {metadata.version('langgraph')}, {platform.machine()}, "
        f"{os.cpu_count()} CPUs; median of {repeats} batches\n"
    )
    print(
        f"| blob | cadre {MODE_NAME} encrypt µs | cadre decrypt µs | stock AES-EAX encrypt µs "
        f"| stock decrypt µs | stock/cadre | target <= {TARGET_US:g} µs |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|")
    missed = False
    for size in SIZES:
        cadre_enc, cadre_dec = cadre_ops(size)
        stock_enc, stock_dec = stock_ops(size)
        ops = {"ce": cadre_enc, "cd": cadre_dec, "se": stock_enc, "sd": stock_dec}
        us = time_us(ops, repeats, calls_for(size, args.quick))
        verdict = ""
        if size == TARGET_SIZE:
            ok = max(us["ce"], us["cd"]) <= TARGET_US
            missed |= not ok
            verdict = "PASS" if ok else "**MISS**"
        ratio = (us["se"] + us["sd"]) / (us["ce"] + us["cd"])
        print(
            f"| {_size(size)} | {us['ce']:.1f} | {us['cd']:.1f} | {us['se']:.1f} | "
            f"{us['sd']:.1f} | {ratio:.1f}x | {verdict} |"
        )

    print(f"\nBare pycryptodome modes, {_size(TARGET_SIZE)}, new cipher object per blob:\n")
    print("| mode | encrypt µs | decrypt µs |")
    print("|---|---:|---:|")
    for name, (mode, nonce_size) in RAW_MODES.items():
        enc, dec = raw_mode_ops(mode, nonce_size, TARGET_SIZE)
        us = time_us({"e": enc, "d": dec}, repeats, calls_for(TARGET_SIZE, args.quick))
        print(f"| {name} | {us['e']:.1f} | {us['d']:.1f} |")
    return 1 if missed and args.strict else 0


def _size(size: int) -> str:
    return f"{size // 1024} KiB" if size >= 1024 else f"{size} B"


if __name__ == "__main__":
    sys.exit(main())
