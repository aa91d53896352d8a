"""WebSocket bearer-token auth for the TCP listener, with Codex's flags, checks and 401 reasons.

Two modes: a capability token (only its SHA-256 digest is kept; compared in constant time) or a
signed bearer token (a JWT signed with HS256 by a shared secret, `exp` required). Unlike Codex, a TCP
listener is never open by default, loopback included: any local process (a sandboxed command with
network on, a browser-less script) could otherwise drive the daemon. Without `--ws-auth`, a
capability token is generated into `$TETHER_HOME/ws-token` (0600) at every start, so a token that
leaked (e.g. to another user who held the port while the daemon was down) dies with the daemon
run it was read for; `--ws-auth none` opts out, on loopback only.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from tether_server.config.home import FILE_MODE
from tether_server.errors import ConfigError

MISSING = "missing websocket bearer token"
BAD_HEADER = "invalid authorization header"
BAD_TOKEN = "invalid websocket bearer token"
BAD_JWT = "invalid websocket jwt"
EXPIRED = "expired websocket jwt"
NOT_YET_VALID = "websocket jwt is not valid yet"
ISSUER_MISMATCH = "websocket jwt issuer mismatch"
AUDIENCE_MISMATCH = "websocket jwt audience mismatch"
MULTIPLE_HEADERS = "multiple authorization headers"

GENERATED_TOKEN_FILE = "ws-token"
NO_AUTH = "none"

MIN_SECRET_BYTES = 32
DEFAULT_SKEW_S = 30


class TokenFile:
    """The digest of the generated token file as it is now, re-read only when the file changes.

    Daemons sharing a home each write a fresh token at start; all of them accept the latest one,
    which is the one their clients read.
    """

    def __init__(self, path: Path, digest: bytes) -> None:
        self.path = path
        self._seen: tuple[int, int, int] | None = None
        self._digest: bytes | None = digest

    def digest(self) -> bytes | None:
        try:
            info = os.stat(self.path)
        except OSError:
            return None
        seen = (info.st_ino, info.st_mtime_ns, info.st_size)
        if seen != self._seen:
            try:
                token = _existing_token(self.path)
            except (OSError, ConfigError):
                token = None
            self._digest = None if token is None else hashlib.sha256(token).digest()
            self._seen = seen
        return self._digest


@dataclass(frozen=True)
class CapabilityToken:
    """Accepts the one token whose SHA-256 digest is `digest` (generated: the token file's, now)."""

    digest: bytes
    source: Path | None = None
    generated: bool = False
    current: TokenFile | None = None

    def check(self, token: str) -> str | None:
        expected = (self.current.digest() if self.current else None) or self.digest
        presented = hashlib.sha256(token.encode()).digest()
        return None if hmac.compare_digest(presented, expected) else BAD_TOKEN


@dataclass(frozen=True)
class SignedBearer:
    """Accepts HS256 JWTs signed with `secret`, unexpired, with the configured issuer/audience."""

    secret: bytes
    source: Path
    issuer: str | None = None
    audience: str | None = None
    skew_s: int = DEFAULT_SKEW_S

    def check(self, token: str) -> str | None:
        import jwt  # with its cryptography back-end, only for this auth mode: not on every start

        try:
            jwt.decode(
                token,
                self.secret,
                algorithms=["HS256"],
                issuer=self.issuer,
                audience=self.audience,
                leeway=self.skew_s,
                options={"require": ["exp"], "verify_aud": self.audience is not None},
            )
        except jwt.ExpiredSignatureError:
            return EXPIRED
        except jwt.ImmatureSignatureError:
            return NOT_YET_VALID
        except jwt.InvalidIssuerError:
            return ISSUER_MISMATCH
        except jwt.InvalidAudienceError:
            return AUDIENCE_MISMATCH
        except jwt.MissingRequiredClaimError as exc:
            return {"iss": ISSUER_MISMATCH, "aud": AUDIENCE_MISMATCH}.get(exc.claim, BAD_JWT)
        except jwt.PyJWTError:
            return BAD_JWT
        return None


WsAuth = CapabilityToken | SignedBearer


@dataclass(frozen=True)
class WsAuthFlags:
    """The `--ws-*` command-line flags as given."""

    mode: str | None = None
    token_file: Path | None = None
    token_sha256: str | None = None
    shared_secret_file: Path | None = None
    issuer: str | None = None
    audience: str | None = None
    max_clock_skew_s: int | None = None


def authorize(auth: WsAuth, headers: list[str]) -> str | None:
    """The 401 body for an upgrade request's `Authorization` headers, or None when they are accepted.

    Several headers are refused by the caller (400) before this is asked.
    """
    if not headers:
        return MISSING
    header = headers[0]
    scheme, _, token = header.strip().partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token:
        return BAD_HEADER
    return auth.check(token)


def load_auth(flags: WsAuthFlags) -> WsAuth | None:
    """Validate the flags and read credential files.

    Raises:
        ConfigError: a flag of the other mode, a missing credential, an unreadable file or a short secret.
    """
    capability = {"--ws-token-file": flags.token_file, "--ws-token-sha256": flags.token_sha256}
    signed = {
        "--ws-shared-secret-file": flags.shared_secret_file,
        "--ws-issuer": flags.issuer,
        "--ws-audience": flags.audience,
        "--ws-max-clock-skew-seconds": flags.max_clock_skew_s,
    }
    if flags.mode is None:
        _refuse_flags({**capability, **signed}, "require `--ws-auth`")
        return None
    if flags.mode == NO_AUTH:
        _refuse_flags({**capability, **signed}, "cannot be used with `--ws-auth none`")
        return None
    if flags.mode == "capability-token":
        _refuse_flags(signed, "cannot be used with `--ws-auth capability-token`")
        return _capability(flags)
    if flags.mode == "signed-bearer-token":
        _refuse_flags(capability, "cannot be used with `--ws-auth signed-bearer-token`")
        return _signed(flags)
    raise ConfigError(
        f"unknown --ws-auth mode {flags.mode!r}; "
        "expected `capability-token`, `signed-bearer-token` or `none`",
        key="--ws-auth",
    )


def _refuse_flags(flags: Mapping[str, object], why: str) -> None:
    given = [name for name, value in flags.items() if value is not None]
    if given:
        raise ConfigError(f"{', '.join(given)} {why}", key=given[0])


def _capability(flags: WsAuthFlags) -> CapabilityToken:
    if flags.token_file is not None and flags.token_sha256 is not None:
        raise ConfigError(
            "--ws-token-file and --ws-token-sha256 are mutually exclusive", key="--ws-token-file"
        )
    if flags.token_file is not None:
        token = _read_secret(flags.token_file)
        if not token:
            raise ConfigError(f"websocket token file {flags.token_file} is empty", key="--ws-token-file")
        return CapabilityToken(hashlib.sha256(token).digest(), flags.token_file)
    if flags.token_sha256 is not None:
        try:
            digest = bytes.fromhex(flags.token_sha256.strip())
        except ValueError:
            digest = b""
        if len(digest) != 32:
            raise ConfigError("--ws-token-sha256 must be 64 hex digits", key="--ws-token-sha256")
        return CapabilityToken(digest)
    raise ConfigError(
        "--ws-auth capability-token needs --ws-token-file or --ws-token-sha256", key="--ws-auth"
    )


def _signed(flags: WsAuthFlags) -> SignedBearer:
    path = flags.shared_secret_file
    if path is None:
        raise ConfigError("--ws-auth signed-bearer-token needs --ws-shared-secret-file", key="--ws-auth")
    secret = _read_secret(path)
    if len(secret) < MIN_SECRET_BYTES:
        raise ConfigError(
            f"signed websocket bearer secret {path} must be at least {MIN_SECRET_BYTES} bytes",
            key="--ws-shared-secret-file",
        )
    skew = DEFAULT_SKEW_S if flags.max_clock_skew_s is None else flags.max_clock_skew_s
    if skew < 0:
        raise ConfigError(
            "--ws-max-clock-skew-seconds must not be negative", key="--ws-max-clock-skew-seconds"
        )
    return SignedBearer(secret, path, flags.issuer, flags.audience, skew)


def _read_secret(path: Path) -> bytes:
    try:
        return path.read_bytes().strip()
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror}", key=str(path)) from exc


def generated_token(home: Path) -> CapabilityToken:
    """A fresh capability token (random, 0600) in `home/ws-token`, replacing the last run's.

    Raises:
        ConfigError: the file cannot be written, or something other than a regular file is there.
    """
    path = home / GENERATED_TOKEN_FILE
    try:
        if path.is_symlink() or (path.exists() and not path.is_file()):
            raise ConfigError(f"websocket token file {path} is not a regular file", key="--ws-auth")
        token = _write_token(path)
    except OSError as exc:
        raise ConfigError(f"cannot use websocket token file {path}: {exc.strerror}", key="--ws-auth") from exc
    digest = hashlib.sha256(token).digest()
    return CapabilityToken(digest, path, generated=True, current=TokenFile(path, digest))


def _existing_token(path: Path) -> bytes | None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise ConfigError(f"websocket token file {path} is not a regular file", key="--ws-auth")
        if stat.S_IMODE(info.st_mode) & 0o077 or info.st_uid != os.geteuid():
            return None
        token = os.read(fd, 4096).strip()
    finally:
        os.close(fd)
    return token or None


def _write_token(path: Path) -> bytes:
    token = secrets.token_urlsafe(32).encode()
    temp = path.with_name(f".{path.name}.{os.getpid()}")
    temp.unlink(missing_ok=True)  # left by a crashed start that had the same pid
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, FILE_MODE)
    try:
        os.write(fd, token + b"\n")
        os.fsync(fd)
    finally:
        os.close(fd)
    # rename: a reader never sees a half-written token, and a looser old file is replaced whole.
    os.replace(temp, path)
    return token
