"""API keys: ``docgraph keys create|list|revoke``, kept hashed in ``<home>/keys.json``.

A key reads ``dgk_<id>_<secret>``: the id finds its record, and only the SHA-256 of the whole key is
stored (a key is 32 random bytes, so a fast hash is enough; nothing guessable is kept). A reader may
ask, retrieve, run read-only Cypher and list; a writer may also upload, delete, reembed and relink.
Once any key is active, every request to a server needs one.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import secrets
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal, get_args

from docgraph.app.file_locks import file_lock
from docgraph.errors import ConfigError, NotFoundError

Role = Literal["reader", "writer"]
ROLES: tuple[Role, ...] = get_args(Role)
PREFIX = "dgk"
_KEY = re.compile(rf"^{PREFIX}_([0-9a-f]{{8}})_[A-Za-z0-9_-]{{43}}$")
KEYS_FILE = "keys.json"


@dataclass(frozen=True, slots=True)
class ApiKey:
    """The stored record of a key: never the key itself."""

    key_id: str
    role: Role
    name: str
    created_at: str
    sha256: str
    revoked_at: str = ""

    @property
    def active(self) -> bool:
        return not self.revoked_at

    def allows(self, role: Role) -> bool:
        """Whether this key may act as ``role`` (a writer may do what a reader may)."""
        return self.active and (self.role == "writer" or role == "reader")

    def to_json(self) -> dict[str, str | bool]:
        """The record as ``keys list --json`` shows it (the hash left out)."""
        shown: dict[str, str | bool] = {k: v for k, v in asdict(self).items() if k != "sha256"}
        shown["active"] = self.active
        return shown


class KeyStore:
    """The keys of one data home. Reads are cached by the file's modification time, so a revocation
    made by another process takes effect at the next request."""

    def __init__(self, home: Path) -> None:
        self.path = home / KEYS_FILE
        self._lock = threading.Lock()
        self._cached: tuple[tuple[int, int, int], list[ApiKey]] | None = None

    def records(self) -> list[ApiKey]:
        try:
            found = self.path.stat()
        except FileNotFoundError:
            return []
        # Each change is a new file, its size changed: two changes within the clock's tick share
        # a modification time, and a revocation must not be hidden behind the change before it.
        version = (found.st_ino, found.st_mtime_ns, found.st_size)
        with self._lock:
            if self._cached is None or self._cached[0] != version:
                self._cached = (version, self._read())
            return list(self._cached[1])

    def any_active(self) -> bool:
        return any(key.active for key in self.records())

    def in_use(self) -> bool:
        """Whether keys guard the servers: once one was made, whether or not any is still active, so
        that revoking the last key locks the servers rather than opening them to everyone."""
        return bool(self.records())

    def create(self, role: str, name: str = "") -> tuple[ApiKey, str]:
        """A new key of ``role``: its record, and the key itself (shown once, never stored)."""
        if role not in ROLES:
            raise ConfigError(f"unknown role {role!r}; choose one of {', '.join(ROLES)}")
        with self._changing():
            keys = self._read()
            taken = {key.key_id for key in keys}
            key_id = secrets.token_hex(4)
            while key_id in taken:
                key_id = secrets.token_hex(4)
            secret = f"{PREFIX}_{key_id}_{secrets.token_urlsafe(32)}"
            created = datetime.now(UTC).isoformat(timespec="seconds")
            record = ApiKey(key_id, role, name, created, _digest(secret))
            self._write([*keys, record])
        return record, secret

    def discard(self, key_id: str) -> None:
        """Forget a key as if it had never been made (a key whose file could not be written)."""
        with self._changing():
            self._write([key for key in self._read() if key.key_id != key_id])

    def revoke(self, key_id: str) -> ApiKey:
        with self._changing():
            keys = self._read()
            found = next((key for key in keys if key.key_id == key_id), None)
            if found is None:
                raise NotFoundError(f"no key {key_id!r} (see `docgraph keys list`)")
            if found.revoked_at:  # revoked already: when it was is kept
                return found
            revoked = ApiKey(**{**asdict(found), "revoked_at": datetime.now(UTC).isoformat(timespec="seconds")})
            self._write([revoked if key.key_id == key_id else key for key in keys])
        return revoked

    def holds_dead_key(self, path: Path) -> bool:
        """Whether ``path`` is a key file whose key no longer lets anyone in (revoked, or gone from
        this store): one ``keys create --out`` may write again, as a deployment's start does."""
        try:
            text = path.read_text(encoding="utf-8")[:200].strip() if path.is_file() else ""
        except (OSError, UnicodeDecodeError):
            return False
        return bool(_KEY.match(text)) and self.verify(text) is None

    def verify(self, secret: str) -> ApiKey | None:
        """The active key ``secret`` is, or None (malformed, unknown, revoked or wrong)."""
        record = self._holder_of(secret)
        return record if record is not None and record.active else None

    @contextmanager
    def _changing(self) -> Iterator[None]:
        """One change at a time, across processes too: two `docgraph keys` commands at once each
        rewrote the file from what they had read, and one's new key or revocation was lost."""
        with self._lock, file_lock(self.path.with_name(f".{self.path.name}.lock")):
            yield

    def refusal(self, secret: str) -> str:
        """Why ``secret`` is refused, for its holder: revoked (said only to whoever holds the
        whole key), or not a key of this server."""
        record = self._holder_of(secret)
        if record is not None and record.revoked_at:
            return f"key {record.key_id} was revoked at {record.revoked_at}: ask for a new one (docgraph keys create)"
        return "this API key is not one of this server's (mistyped, or made for another data home)"

    def _holder_of(self, secret: str) -> ApiKey | None:
        """The record whose whole key ``secret`` is, revoked or not (None: malformed, unknown, wrong)."""
        match = _KEY.match(secret)
        record = next((key for key in self.records() if match and key.key_id == match.group(1)), None)
        if record is None or not hmac.compare_digest(record.sha256, _digest(secret)):
            return None
        return record

    def _read(self) -> list[ApiKey]:
        try:
            raw = json.loads(self.path.read_text(encoding="utf-8"))
            return [ApiKey(**item) for item in raw["keys"]]
        except FileNotFoundError:
            return []
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise ConfigError(f"{self.path} cannot be read as a docgraph key file: {exc}") from exc

    def _write(self, keys: list[ApiKey]) -> None:
        write_private(self.path, json.dumps({"keys": [asdict(key) for key in keys]}, indent=2))
        self._cached = None


def write_private(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically, readable by its owner only (keys, and key files)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        tmp.replace(path)
    finally:
        tmp.unlink(missing_ok=True)  # a key never stays behind in a stray file


def write_new_private(path: Path, text: str) -> None:
    """``text`` in a file made for it, readable by its owner only; a path that exists (a link
    included) is refused with ``FileExistsError`` (O_EXCL), never replaced."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
    except BaseException:
        path.unlink(missing_ok=True)  # no key half written
        raise


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()
