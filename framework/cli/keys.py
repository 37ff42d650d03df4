"""``cadre keys``: which keys seal the home's data, rotation, re-encryption, retirement.

Key changes and running processes: ``rotate`` and ``retire`` change the key file under its lock
(blobs being sealed are committed first, none is sealed meanwhile), and every process reloads
the file before it seals again, so it writes under the new primary and never under a retired
key. ``retire`` is refused while another process holds a thread of the home; ``reencrypt``
leaves such threads for a later run.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from framework.cli.common import HomeOption, fail
from framework.database.home import DataHome, resolve_home
from framework.errors import CadreError, ConfigError
from framework.persistence.keys import (
    EnvKeyProvider,
    FileKeyProvider,
    default_key_provider,
    retire,
    rotate,
)

if TYPE_CHECKING:
    from framework.memory.store import SemanticStore
    from framework.persistence.cipher import BlobCipher
    from framework.persistence.saver import CadreSaver

__all__ = ["keys_app"]

keys_app = typer.Typer(help="Encryption keys: status, rotate, reencrypt, retire.")


@contextmanager
def _saver(home: Path | None, *, check: bool = True) -> Iterator[tuple[DataHome, CadreSaver]]:
    from framework.runs.stores import open_checkpointer

    data_home = resolve_home(home)
    with open_checkpointer(data_home, check=check) as saver:
        yield data_home, saver


@contextmanager
def _memory(data_home: DataHome, cipher: BlobCipher | None) -> Iterator[SemanticStore | None]:
    """The home's semantic store, when it may hold anything and its keys are saved (opening a
    store may seal, which would make a key)."""
    from framework.runs.stores import home_store

    provider = default_key_provider(data_home)
    saved = not isinstance(provider, FileKeyProvider) or provider.exists()
    if cipher is None or not saved or not data_home.has_memory():
        yield None
        return
    with home_store(data_home, cipher) as store:
        yield store


def _usage(saver: CadreSaver, store: SemanticStore | None) -> Counter[str]:
    """Blobs per key id: the checkpoints' and the semantic store's sealed values."""
    from framework.persistence.cipher import key_id_of
    from framework.persistence.saver import key_usage

    usage: Counter[str] = Counter(key_usage(saver))
    if store is not None:
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
    if not provider.exists():
        from framework.persistence.home_keys import HomeKeys

        HomeKeys(data_home, provider.path).refuse_new_key()  # the data needs the lost file
        raise ConfigError(
            f"no key file {provider.path} yet: the first `cadre run` under {data_home.root} "
            "makes one"
        )
    return provider


@keys_app.command("status")
def status(home: HomeOption = None) -> None:
    """Which key ids seal the home's blobs (checkpoints and stored texts), how many each;
    works without the keys (those the data needs and the keyring lacks are 'missing')."""
    from framework.persistence.home_keys import HomeKeys

    try:
        with (
            _saver(home, check=False) as (data_home, saver),
            _memory(data_home, saver.cipher) as store,
        ):
            usage = _usage(saver, store)
            assert saver.cipher is not None  # home checkpointers are encrypted
            keyring = saver.cipher.keyring
            provider = default_key_provider(data_home)
            saved = not isinstance(provider, FileKeyProvider) or provider.exists()
            recorded = HomeKeys(data_home, None).needed()
    except CadreError as error:
        fail(error)
    ids = [*keyring.ids] if saved else []
    for key_id in dict.fromkeys([*ids, *sorted(recorded), *usage]):
        role = "primary" if key_id == keyring.primary else "loaded"
        role = role if key_id in ids else "missing"
        typer.echo(f"{key_id:<24} {usage.get(key_id, 0):>8} blob(s)  {role}".rstrip())


@keys_app.command("rotate")
def rotate_key(home: HomeOption = None) -> None:
    """Make a new primary key in the home's key file; older keys still read their blobs, and
    running processes write under the new one from their next blob on."""
    from framework.persistence.home_keys import HomeKeys

    try:
        data_home = resolve_home(home)
        provider = _key_file(data_home)
        HomeKeys(data_home, provider.path).check(provider.load())
        with provider.changing():
            rotated = rotate(provider.load())
            provider.save(rotated)
    except CadreError as error:
        fail(error)
    typer.echo(f"new primary key {rotated.primary}; run `cadre keys reencrypt` to move old blobs")


@keys_app.command("reencrypt")
def reencrypt(home: HomeOption = None) -> None:
    """Rewrite every checkpoint blob and stored text under the primary key (resumable; safe
    to kill: each batch is one transaction). Threads busy in another process are left alone."""
    from framework.persistence.cipher import key_id_of
    from framework.persistence.saver import reencrypt_threads

    try:
        with _saver(home) as (data_home, saver), _memory(data_home, saver.cipher) as store:
            done = reencrypt_threads(saver)
            count = done.rewritten
            if store is not None:
                assert saver.cipher is not None
                primary = saver.cipher.primary_key_id
                count += store.reseal(stale=lambda blob: key_id_of(blob) != primary)
            usage = _usage(saver, store)
    except CadreError as error:
        fail(error)
    line = f"rewrote {count} blob(s); now {', '.join(f'{k}: {n}' for k, n in usage.items())}"
    if done.busy:
        line += (
            f"; skipped {len(done.busy)} busy thread(s): {', '.join(done.busy)} (run `cadre "
            "keys reencrypt` again once they finish)"
        )
    typer.echo(line)


@keys_app.command("retire")
def retire_key(key_id: str, home: HomeOption = None) -> None:
    """Drop KEY_ID from the key file, once nothing stored is sealed under it and no other
    process holds a thread of the home."""
    try:
        data_home = resolve_home(home)
        provider = _key_file(data_home)
        retire(provider.load(), key_id)  # refuses the primary key or an unknown one
        with _saver(home) as (data_home, saver), _memory(data_home, saver.cipher) as store:
            _retire_unused(key_id, provider, saver, store)
    except CadreError as error:
        fail(error)
    typer.echo(f"retired key {key_id}")


def _retire_unused(
    key_id: str, provider: FileKeyProvider, saver: CadreSaver, store: SemanticStore | None
) -> None:
    """Retire ``key_id`` under the key file's lock: no blob is sealed until the file is
    written, and none is left under the key (nor can a held thread add one)."""
    from framework.persistence.saver import busy_threads, forget_key

    with provider.changing():
        busy = busy_threads(saver)
        if busy:
            raise ConfigError(
                f"cannot retire key {key_id!r} while thread(s) {', '.join(busy)} are busy in "
                "another process, which may still seal under it: wait until they finish or "
                "pause for review, then try again"
            )
        still = _usage(saver, store).get(key_id, 0)
        if still:
            raise ConfigError(
                f"{still} blob(s) are still sealed under {key_id!r}: run `cadre keys reencrypt`"
            )
        forget_key(saver, key_id)
        provider.save(retire(provider.load(), key_id))
