"""``cadre keys``: which keys seal the home's checkpoints, rotation, re-encryption, retirement."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from framework.cli._common import HomeOption, fail
from framework.errors import CadreError, ConfigError
from framework.home import DataHome, resolve_home
from framework.persistence.cipher import key_id_of
from framework.persistence.keys import (
    EnvKeyProvider,
    FileKeyProvider,
    default_key_provider,
    retire,
    rotate,
)

if TYPE_CHECKING:
    from framework.persistence.saver import CadreSaver

__all__ = ["keys_app"]

keys_app = typer.Typer(help="Encryption keys: status, rotate, reencrypt, retire.")


@contextmanager
def _saver(home: Path | None) -> Iterator[tuple[DataHome, CadreSaver]]:
    from framework.stores import open_checkpointer

    data_home = resolve_home(home)
    with open_checkpointer(data_home) as saver:
        yield data_home, saver


def _usage(data_home: DataHome, saver: CadreSaver) -> Counter[str]:
    """Blobs per key id: the checkpoints' and the semantic store's sealed values."""
    from framework.persistence.saver import key_usage
    from framework.stores import home_store

    usage: Counter[str] = Counter(key_usage(saver))
    if data_home.has_memory():
        assert saver.cipher is not None  # home checkpointers are encrypted
        with home_store(data_home, saver.cipher) as store:
            usage.update(key_id_of(blob) for blob in store.sealed_values())
    return usage


def _key_file(data_home: DataHome) -> FileKeyProvider:
    provider = default_key_provider(data_home)
    if isinstance(provider, EnvKeyProvider):
        raise ConfigError(
            "the keys come from $CADRE_KEYS: change the variable (put the new key first) "
            "instead of the key file"
        )
    assert isinstance(provider, FileKeyProvider)  # the only other default
    return provider


@keys_app.command("status")
def status(home: HomeOption = None) -> None:
    """Which key ids seal the home's blobs (checkpoints and stored texts), how many each."""
    try:
        with _saver(home) as (data_home, saver):
            usage = _usage(data_home, saver)
            assert saver.cipher is not None  # home checkpointers are encrypted
            keyring = saver.cipher.keyring
    except CadreError as error:
        fail(error)
    for key_id in dict.fromkeys([*keyring.ids, *usage]):
        role = "primary" if key_id == keyring.primary else "loaded" if key_id in keyring.ids else ""
        typer.echo(f"{key_id:<24} {usage.get(key_id, 0):>8} blob(s)  {role}".rstrip())


@keys_app.command("rotate")
def rotate_key(home: HomeOption = None) -> None:
    """Make a new primary key in the home's key file; older keys still read their blobs."""
    try:
        provider = _key_file(resolve_home(home))
        rotated = rotate(provider.load())
        provider.save(rotated)
    except CadreError as error:
        fail(error)
    typer.echo(f"new primary key {rotated.primary}; run `cadre keys reencrypt` to move old blobs")


@keys_app.command("reencrypt")
def reencrypt(home: HomeOption = None) -> None:
    """Rewrite every checkpoint blob and stored text under the primary key (resumable; safe
    to kill: each batch is one transaction)."""
    from framework.persistence.saver import reencrypt_all
    from framework.stores import home_store

    try:
        with _saver(home) as (data_home, saver):
            count = reencrypt_all(saver)
            if data_home.has_memory():
                assert saver.cipher is not None
                with home_store(data_home, saver.cipher) as store:
                    primary = saver.cipher.primary_key_id
                    count += 2 * store.reseal(stale=lambda blob: key_id_of(blob) != primary)
            usage = _usage(data_home, saver)
    except CadreError as error:
        fail(error)
    typer.echo(f"rewrote {count} blob(s); now {', '.join(f'{k}: {n}' for k, n in usage.items())}")


@keys_app.command("retire")
def retire_key(key_id: str, home: HomeOption = None) -> None:
    """Drop KEY_ID from the key file, once nothing stored is sealed under it."""
    try:
        with _saver(home) as (data_home, saver):
            still = _usage(data_home, saver).get(key_id, 0)
        if still:
            raise ConfigError(
                f"{still} blob(s) are still sealed under {key_id!r}: run `cadre keys reencrypt`"
            )
        provider = _key_file(data_home)
        provider.save(retire(provider.load(), key_id))
    except CadreError as error:
        fail(error)
    typer.echo(f"retired key {key_id}")
