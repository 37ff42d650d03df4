"""The blob cipher, the keyring and the key providers."""

from __future__ import annotations

import base64
import logging
import os
import sqlite3
import stat
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from framework.database.home import DataHome
from framework.errors import (
    ConfigError,
    CryptoError,
    PlaintextBlobError,
    RunError,
    TamperError,
    UnknownKeyError,
    UnsupportedFormatError,
    WrongKeyError,
)
from framework.memory import SemanticStore, StoreItem
from framework.persistence import _ocb
from framework.persistence.cipher import (
    FORMAT_VERSION,
    MAGIC,
    BlobCipher,
    key_id_of,
    row_identity,
)
from framework.persistence.keys import (
    KEY_FILE_NAME,
    CallableKeyProvider,
    EnvKeyProvider,
    FileKeyProvider,
    KeyProvider,
    Keyring,
    default_key_provider,
    key_check,
    retire,
    rotate,
)

ROW = row_identity("checkpoint", "thread-1", "", "ckpt-1")
KEY32 = "A" * 43 + "="  # 32 zero bytes in base64
SECRET = b'{"answer": "the launch code is 0451", "tasks": ["a", "b"]}'


def keyring(*ids: str, size: int = 32) -> Keyring:
    """A keyring with a fixed random key per id, the first primary."""
    return Keyring(primary=ids[0], keys={kid: os.urandom(size) for kid in ids})


def b64(key: bytes) -> str:
    return base64.b64encode(key).decode("ascii")


@pytest.fixture(params=["openssl", "pycryptodome"])
def cipher(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> BlobCipher:
    """A cipher on each AES-OCB: OpenSSL's, and pycryptodome's (used where OpenSSL lacks OCB)."""
    if request.param == "pycryptodome":
        monkeypatch.setattr(_ocb, "_openssl_has_ocb", lambda: False)
    return BlobCipher(keyring("k1"))


def test_each_ocb_opens_what_the_other_sealed(monkeypatch: pytest.MonkeyPatch) -> None:
    ring = keyring("k1")
    openssl = BlobCipher(ring)
    monkeypatch.setattr(_ocb, "_openssl_has_ocb", lambda: False)
    pycryptodome = BlobCipher(ring)
    assert type(openssl._ring.primary.ocb) is not type(pycryptodome._ring.primary.ocb)
    for size in (0, 15, 16, 17, 1024):
        plain = os.urandom(size)
        assert pycryptodome.decrypt(openssl.encrypt(plain, ROW), ROW) == plain
        assert openssl.decrypt(pycryptodome.encrypt(plain, ROW), ROW) == plain
    with pytest.raises(TamperError):
        pycryptodome.decrypt(openssl.encrypt(SECRET, ROW), ROW + b"x")


# -- sealing and opening ---------------------------------------------------------------------


@pytest.mark.parametrize("size", [0, 1, 15, 16, 17, 1024, 70_000])
def test_round_trip(cipher: BlobCipher, size: int) -> None:
    plaintext = os.urandom(size)
    blob = cipher.encrypt(plaintext, ROW)
    assert blob.startswith(MAGIC + bytes((FORMAT_VERSION,)))
    assert cipher.decrypt(blob, ROW) == plaintext
    assert key_id_of(blob) == "k1"


def test_blob_hides_plaintext_and_nonce_is_fresh(cipher: BlobCipher) -> None:
    first, second = cipher.encrypt(SECRET, ROW), cipher.encrypt(SECRET, ROW)
    assert first != second
    assert b"launch" not in first
    assert SECRET not in first


@pytest.mark.parametrize(
    "other_row",
    [
        row_identity("checkpoint", "thread-2", "", "ckpt-1"),  # another thread
        row_identity("checkpoint", "thread-1", "", "ckpt-2"),  # another checkpoint
        row_identity("checkpoint", "thread-1", "child:1", "ckpt-1"),  # another namespace
        row_identity("write", "thread-1", "", "ckpt-1"),  # another kind of row
        row_identity("checkpoint", "thread-1", "", "ckpt-1", "messages"),  # another channel
        b"",
    ],
)
def test_blob_moved_to_another_row_is_tamper(cipher: BlobCipher, other_row: bytes) -> None:
    blob = cipher.encrypt(SECRET, ROW)
    with pytest.raises(TamperError, match="does not belong at this row"):
        cipher.decrypt(blob, other_row)


def test_associated_data_trailing_bytes_are_not_ignored(cipher: BlobCipher) -> None:
    # the block padding must not make "x" and "x\0" (or "x\x80") the same row
    for ad in (b"x", b"x" * 15, b"x" * 16):
        blob = cipher.encrypt(SECRET, ad)
        for other in (ad + b"\x00", ad + b"\x80", ad[:-1]):
            with pytest.raises(TamperError):
                cipher.decrypt(blob, other)


def test_row_identity_is_unambiguous() -> None:
    assert row_identity("a:b", "c") != row_identity("a", "b:c")
    assert row_identity("ab", "") != row_identity("a", "b")
    assert row_identity("t", 1) == row_identity("t", "1") == row_identity("t", b"1")


def test_every_flipped_bit_is_refused(cipher: BlobCipher) -> None:
    blob = cipher.encrypt(os.urandom(100), ROW)
    header_end = len(MAGIC) + 2 + len("k1") + 4
    for index in range(len(blob)):
        for bit in range(8):
            edited = bytearray(blob)
            edited[index] ^= 1 << bit
            with pytest.raises(CryptoError) as caught:
                cipher.decrypt(bytes(edited), ROW)
            if index >= header_end:  # nonce, tag, ciphertext
                assert type(caught.value) is TamperError, (index, bit)


@pytest.mark.parametrize(
    ("index", "expected"),
    [
        (0, PlaintextBlobError),  # magic
        (len(MAGIC), UnsupportedFormatError),  # version
        (len(MAGIC) + 2, UnknownKeyError),  # key id
        (len(MAGIC) + 4, WrongKeyError),  # key check
        (len(MAGIC) + 8, TamperError),  # nonce
        (len(MAGIC) + 8 + 15, TamperError),  # tag
        (-1, TamperError),  # ciphertext
    ],
)
def test_flipped_bit_by_field(cipher: BlobCipher, index: int, expected: type[CryptoError]) -> None:
    edited = bytearray(cipher.encrypt(SECRET, ROW))
    edited[index] ^= 0x01
    with pytest.raises(expected):
        cipher.decrypt(bytes(edited), ROW)


def test_truncated_blob_is_tamper(cipher: BlobCipher) -> None:
    blob = cipher.encrypt(SECRET, ROW)
    for length in range(1, len(blob)):
        with pytest.raises(TamperError):
            cipher.decrypt(blob[:length], ROW)
    with pytest.raises(TamperError, match="altered or truncated"):
        cipher.decrypt(blob[:-1], ROW)


@pytest.mark.parametrize("plain", [SECRET, b"", b"\x82\xa1a\x01", b"null", "é".encode()])
def test_plaintext_blob_is_refused(cipher: BlobCipher, plain: bytes) -> None:
    with pytest.raises(PlaintextBlobError, match="no cadre encryption header"):
        cipher.decrypt(plain, ROW)
    with pytest.raises(PlaintextBlobError):
        key_id_of(plain)


def test_newer_format_version_is_refused(cipher: BlobCipher) -> None:
    blob = bytearray(cipher.encrypt(SECRET, ROW))
    blob[len(MAGIC)] = 2
    with pytest.raises(UnsupportedFormatError, match="version 2"):
        cipher.decrypt(bytes(blob), ROW)


def test_errors_are_run_errors() -> None:
    for error in (TamperError, UnknownKeyError, WrongKeyError, PlaintextBlobError):
        assert issubclass(error, CryptoError)
        assert issubclass(error, RunError)


# -- keys ------------------------------------------------------------------------------------


def test_unknown_key_id_is_named() -> None:
    blob = BlobCipher(keyring("k-old")).encrypt(SECRET, ROW)
    with pytest.raises(UnknownKeyError, match="'k-old'") as caught:
        BlobCipher(keyring("k-new")).decrypt(blob, ROW)
    assert "k-new" in str(caught.value)


def test_wrong_key_is_not_tamper() -> None:
    blob = BlobCipher(keyring("k1")).encrypt(SECRET, ROW)
    with pytest.raises(WrongKeyError, match="'k1'") as caught:
        BlobCipher(keyring("k1")).decrypt(blob, ROW)  # same id, another key
    assert not isinstance(caught.value, TamperError)


def test_key_check_is_short_and_keyed() -> None:
    key = os.urandom(32)
    assert key_check(key) == key_check(key)
    assert len(key_check(key)) == 4
    assert key_check(key) != key_check(os.urandom(32))


def test_rotate_keeps_old_keys_for_reading() -> None:
    old = keyring("k1")
    blob = BlobCipher(old).encrypt(SECRET, ROW)
    new = rotate(old, "k2")
    assert new.primary == "k2"
    assert new.ids == ("k2", "k1")
    assert len(new.primary_key) == 32
    assert new.keys["k1"] == old.keys["k1"]
    rotated = BlobCipher(new)
    assert rotated.decrypt(blob, ROW) == SECRET
    assert key_id_of(rotated.encrypt(SECRET, ROW)) == "k2"
    with pytest.raises(ConfigError, match="already holds"):
        rotate(new, "k1")
    assert rotate(new).primary not in {"k1", "k2"}


def test_reencrypt_moves_blob_to_primary() -> None:
    old = keyring("k1")
    blob = BlobCipher(old).encrypt(SECRET, ROW)
    cipher = BlobCipher(rotate(old, "k2"))
    moved = cipher.reencrypt(blob, ROW)
    assert key_id_of(moved) == "k2"
    assert cipher.reencrypt(moved, ROW) is moved
    only_new = BlobCipher(retire(cipher.keyring, "k1"))
    assert only_new.decrypt(moved, ROW) == SECRET
    with pytest.raises(UnknownKeyError, match="'k1'"):
        only_new.decrypt(blob, ROW)
    with pytest.raises(TamperError):
        cipher.reencrypt(blob, b"another row")


def test_retire() -> None:
    ring = rotate(keyring("k1"), "k2")
    with pytest.raises(ConfigError, match="primary"):
        retire(ring, "k2")
    with pytest.raises(ConfigError, match="holds"):
        retire(ring, "k9")
    assert retire(ring, "k1").ids == ("k2",)


@pytest.mark.parametrize("size", [0, 8, 15, 20, 31, 33, 64])
def test_wrong_key_length_refused_when_built(size: int) -> None:
    with pytest.raises(ConfigError, match=rf"'k1' is {size} bytes long"):
        Keyring(primary="k1", keys={"k1": os.urandom(size)})


@pytest.mark.parametrize("size", [16, 24, 32])
def test_aes_key_lengths(size: int) -> None:
    cipher = BlobCipher(keyring("k1", size=size))
    assert cipher.decrypt(cipher.encrypt(SECRET, ROW), ROW) == SECRET


@pytest.mark.parametrize("key_id", ["", "a:b", "a,b", "a b", "-a", "x" * 65, "é"])
def test_bad_key_ids_refused(key_id: str) -> None:
    with pytest.raises(ConfigError, match="key id"):
        Keyring(primary=key_id, keys={key_id: os.urandom(32)})


def test_keyring_needs_its_primary_and_hides_keys() -> None:
    with pytest.raises(ConfigError, match="primary key id 'k2'"):
        Keyring(primary="k2", keys={"k1": os.urandom(32)})
    ring = keyring("k1")
    assert repr(ring) == "Keyring(primary='k1', ids=('k1',))"
    assert b64(ring.primary_key) not in repr(BlobCipher(ring))
    with pytest.raises(TypeError):
        ring.keys["k2"] = os.urandom(32)  # type: ignore[index]


# -- providers -------------------------------------------------------------------------------


def test_env_provider_reads_primary_first() -> None:
    k1, k2 = os.urandom(32), os.urandom(16)
    provider = EnvKeyProvider(environ={"CADRE_KEYS": f"k2:{b64(k2)}, k1:{b64(k1)}"})
    assert isinstance(provider, KeyProvider)
    ring = provider.load()
    assert ring.primary == "k2"
    assert dict(ring.keys) == {"k2": k2, "k1": k1}


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("", "not set"),
        ("   ", "not set"),
        ("c2VjcmV0a2V5c2VjcmV0a2V5c2VjcmV0a2V5MTI=", "entry 1 is not 'ID:BASE64KEY'"),
        ("k1:", "entry 1 is not 'ID:BASE64KEY'"),
        (":c2VjcmV0", "entry 1 is not 'ID:BASE64KEY'"),
        (f"k1:{KEY32},", "entry 2 is not 'ID:BASE64KEY'"),
        ("k1:not*base64!", "not valid base64"),
        (f"k 1:{KEY32}", "key id 'k 1' is not valid"),
        (f"k1:{KEY32},k1:{KEY32}", "appears twice"),
        (f"k1:{b64(b'short')}", "'k1' is 5 bytes long"),
    ],
)
def test_env_provider_errors(value: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message) as caught:
        EnvKeyProvider(environ={"CADRE_KEYS": value}).load()
    text = str(caught.value)
    if "ID:BASE64KEY" in message or message == "not set":
        assert "CADRE_KEYS must read 'ID:BASE64KEY[,ID:BASE64KEY...]'" in text
    assert "c2VjcmV0" not in text  # key material is never echoed


def test_file_provider_creates_private_key_file_with_one_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "home" / KEY_FILE_NAME
    provider = FileKeyProvider(path)
    with caplog.at_level(logging.WARNING, logger="cadre.keys"):
        first = provider.load()
        second = provider.load()
        third = FileKeyProvider(path).load()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert first == second == third
    assert len(first.primary_key) == 32
    warnings = [record for record in caplog.records if record.name == "cadre.keys"]
    assert len(warnings) == 1
    assert "\n" not in warnings[0].getMessage()
    assert "next to the data" in warnings[0].getMessage()
    assert str(path) in warnings[0].getMessage()


def test_file_provider_created_private_whatever_the_umask(tmp_path: Path) -> None:
    old = os.umask(0o000)
    try:
        FileKeyProvider(tmp_path / KEY_FILE_NAME).load()
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / KEY_FILE_NAME).stat().st_mode) == 0o600


@pytest.mark.parametrize("mode", [0o644, 0o640, 0o604, 0o660, 0o602])
def test_file_provider_refuses_open_key_file(tmp_path: Path, mode: int) -> None:
    path = tmp_path / KEY_FILE_NAME
    FileKeyProvider(path).load()
    path.chmod(mode)
    with pytest.raises(ConfigError, match=rf"chmod 600 {path}"):
        FileKeyProvider(path).load()


def test_file_provider_save_rotates_atomically(tmp_path: Path) -> None:
    path = tmp_path / KEY_FILE_NAME
    provider = FileKeyProvider(path)
    ring = provider.load()
    blob = BlobCipher(ring).encrypt(SECRET, ROW)
    provider.save(rotate(ring, "k2"))
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert [p.name for p in tmp_path.iterdir()] == [KEY_FILE_NAME]  # no temp file left
    reloaded = provider.load()
    assert reloaded.primary == "k2"
    assert BlobCipher(reloaded).decrypt(blob, ROW) == SECRET


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("not json", "cannot be read as JSON"),
        ('{"primary": "k1", "keys": {}}', "not a cadre key file"),
        ('{"version": 1, "keys": {}}', "lacks 'primary'"),
        ('{"version": 1, "primary": "k2", "keys": {"k1": "' + KEY32 + '"}}', "'k2' is not"),
        ('{"version": 1, "primary": "k1", "keys": {"k1": "QUFB"}}', "'k1' is 3 bytes long"),
        ('{"version": 1, "primary": "k1", "keys": {"k1": "**"}}', "not valid base64"),
    ],
)
def test_file_provider_malformed(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / KEY_FILE_NAME
    path.write_text(content)
    path.chmod(0o600)
    with pytest.raises(ConfigError, match=message):
        FileKeyProvider(path).load()


def test_callable_provider_called_once_per_load() -> None:
    ring = keyring("kms-1")
    calls: list[int] = []

    def fetch() -> Keyring:
        calls.append(1)
        return ring

    provider = CallableKeyProvider(fetch)
    cipher = BlobCipher.from_provider(provider)
    assert len(calls) == 1
    assert cipher.primary_key_id == "kms-1"
    provider.load()
    assert len(calls) == 2


def test_callable_provider_mapping_checked_at_load() -> None:
    key = os.urandom(24)
    assert CallableKeyProvider(lambda: {"a": key, "b": os.urandom(32)}).load().primary == "a"
    with pytest.raises(ConfigError, match="'a' is 7 bytes long"):
        CallableKeyProvider(lambda: {"a": b"x" * 7}).load()
    with pytest.raises(ConfigError, match="non-empty mapping"):
        CallableKeyProvider(lambda: {}).load()


def test_default_key_provider(tmp_path: Path) -> None:
    home = DataHome(root=tmp_path)
    env = {"CADRE_KEYS": f"k1:{b64(os.urandom(32))}"}
    assert isinstance(default_key_provider(home, environ=env), EnvKeyProvider)
    from_file = default_key_provider(home, environ={})
    assert isinstance(from_file, FileKeyProvider)
    assert from_file.path == tmp_path / "keys.json"


# -- a store's value codec -------------------------------------------------------------------


class TinyEmbedder:
    """Deterministic 8-dimensional unit vectors; no model needed."""

    dim = 8
    name = "tiny"

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        rows = [list(text.encode().ljust(8, b"_")[:8]) for text in texts]
        vectors: npt.NDArray[np.float32] = np.asarray(rows, dtype=np.float32) + 1.0
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        return vectors


def test_store_codec_round_trip_leaves_no_plaintext_on_disk(tmp_path: Path) -> None:
    path = tmp_path / "memory.sqlite"
    cipher = BlobCipher(keyring("k1"))
    codec = cipher.bind(row_identity("store", str(path)))
    text = "The launch code is 0451 and lives in the blue binder."
    with SemanticStore(path, embedder=TinyEmbedder(), codec=codec) as store:
        store.put(
            ("memory", "user-1"),
            StoreItem(key="fact-1", text=text, metadata={"who": "ada-lovelace-1815"}),
        )
    with SemanticStore(path, embedder=TinyEmbedder(), codec=codec) as store:
        item = store.get(("memory", "user-1"), "fact-1")
        assert item is not None
        assert item.text == text
        assert item.metadata == {"who": "ada-lovelace-1815"}
    sqlite3.connect(path).execute("PRAGMA wal_checkpoint(TRUNCATE)").close()
    on_disk = b"".join(p.read_bytes() for p in tmp_path.iterdir() if p.is_file())
    for secret in (b"launch code", b"0451", b"blue binder", b"lovelace"):
        assert secret not in on_disk
    other = BlobCipher(keyring("k1")).bind(row_identity("store", str(path)))
    with (
        SemanticStore(path, embedder=TinyEmbedder(), codec=other) as store,
        pytest.raises(WrongKeyError),
    ):
        store.get(("memory", "user-1"), "fact-1")
