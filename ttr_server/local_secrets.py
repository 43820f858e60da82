"""The site's own secrets, kept as files in a secrets directory (settings.TTR_SECRETS_DIR, `<var>/secrets` by default):
`secret-key` (Django's SECRET_KEY: sessions and the signed links in mails) and `signing-keys.json` (the Ed25519 keys
that sign finished games' checkpoints, games/trust/signing.py). Each is generated once, at random, and never derived from
anything public; rotating the signing keys keeps the old public halves, so old checkpoints stay checkable.

It needs neither Django nor settings, so it runs before a production process can start:
`python -m ttr_server.local_secrets [COMMAND ...]` makes whatever is missing in `$TTR_SECRETS_DIR` (else
`$TTR_VAR_DIR/secrets`, else `var/secrets`) and then runs COMMAND in its place (the image's entry point:
docker-compose keeps the directory on a volume every service shares). `make stack` calls `ensure` itself;
`manage.py signing_keys` shows, generates and rotates the signing keys of a configured site. Files are created
atomically (written aside, then linked into place), so processes starting together agree on one key.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import secrets
import sys
import tempfile
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat, PublicFormat

SECRET_KEY_FILE = "secret-key"
SIGNING_KEYS_FILE = "signing-keys.json"
SECRET_KEY_MIN_LENGTH = 50  # Django's own deploy check asks as much (security.W009)
# The SECRET_KEY this code shipped with before launch: public, so nothing may be signed with it or with a key
# derived from it. Django's generated placeholders start with the prefix.
PUBLIC_SECRET_KEYS = frozenset({"dev-only-insecure-secret-key-change-me-in-production"})
PUBLIC_PREFIX = "django-insecure-"
# The derivation older versions used for the checkpoint key when no keys were configured (kept only to retire its
# public half: see `retired_derived_key`).
DERIVED_FROM = "2026-01-01T00:00:00+00:00"
HOW_TO_GENERATE = "python -c 'import secrets; print(secrets.token_urlsafe(50))'"


def default_directory(environ: dict[str, str] | None = None) -> Path:
    env = os.environ if environ is None else environ
    if env.get("TTR_SECRETS_DIR"):
        return Path(env["TTR_SECRETS_DIR"])
    var = env.get("TTR_VAR_DIR") or str(Path(__file__).resolve().parent.parent / "var")
    return Path(var) / "secrets"


def secret_key_problem(value: str | None) -> str | None:
    """Why `value` cannot be a production SECRET_KEY (None: it can)."""
    if not value:
        return "SECRET_KEY is not set"
    if value in PUBLIC_SECRET_KEYS or value.startswith(PUBLIC_PREFIX):
        return "SECRET_KEY is the built-in development value, which anyone can read in the source"
    if len(value) < SECRET_KEY_MIN_LENGTH or len(set(value)) < 5:
        return f"SECRET_KEY is too short or too plain (at least {SECRET_KEY_MIN_LENGTH} characters, 5 different)"
    return None


def read_secret_key(directory: Path) -> str | None:
    path = directory / SECRET_KEY_FILE
    return path.read_text().strip() if path.exists() else None


def ensure_secret_key(directory: Path) -> str:
    """The key in `directory`, generated first if there is none."""
    _create(directory / SECRET_KEY_FILE, lambda: secrets.token_urlsafe(SECRET_KEY_MIN_LENGTH) + "\n")
    return (directory / SECRET_KEY_FILE).read_text().strip()


# Signing keys: a JSON list of {"id", "private_key" (base64 of the 32-byte seed) or "public_key" (a retired key),
# "valid_from", "valid_to"?}, the format of the TTR_SIGNING_KEYS setting.


def now_text() -> str:
    # To the microsecond: a key retired now must still cover a game scored earlier in the same second.
    return datetime.now(UTC).isoformat()


def new_signing_key(valid_from: str) -> dict[str, str]:
    key = Ed25519PrivateKey.generate()
    private = base64.b64encode(key.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())).decode()
    public = _public_text(key)
    # The id names the key's public half, so two sites' keys never share an id.
    return {"id": f"k-{hashlib.sha256(public.encode()).hexdigest()[:12]}", "private_key": private,
            "valid_from": valid_from}


def public_key_of(entry: dict[str, str]) -> str:
    """An entry's public half (base64), read or computed from its private half."""
    return entry.get("public_key") or _public_text(_private(entry["private_key"]))


def retired(entry: dict[str, str], valid_to: str) -> dict[str, str]:
    """The entry with its private half dropped: it checks the signatures of its time and signs nothing more."""
    public = public_key_of(entry)
    kept = {"id": entry["id"], "public_key": public, "valid_from": entry["valid_from"]}
    return {**kept, "valid_to": entry.get("valid_to") or valid_to}


def derived_key(secret_key: str) -> dict[str, str]:
    """The id and public half of the key older versions derived from `secret_key` to sign checkpoints."""
    seed = hashlib.sha256(b"ttr-signing-key\x00" + secret_key.encode()).digest()
    public = Ed25519PrivateKey.from_private_bytes(seed).public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    return {"id": f"derived-{hashlib.sha256(public).hexdigest()[:12]}", "public_key": base64.b64encode(public).decode()}


def retired_derived_key(secret_key: str, valid_to: str) -> dict[str, str] | None:
    """That derived key, retired at `valid_to`, for a site whose checkpoints name it (`manage.py signing_keys
    --generate` adds it then); None when that SECRET_KEY is public: anyone could have made its signatures, so
    they must not check."""
    if secret_key_problem(secret_key) is not None:
        return None
    return {**derived_key(secret_key), "valid_from": DERIVED_FROM, "valid_to": valid_to}


def read_signing_keys(path: Path) -> list[dict[str, str]]:
    entries = json.loads(path.read_text())
    if not isinstance(entries, list):
        raise ValueError(f"{path}: a JSON list of keys is expected")
    return entries


def ensure_signing_keys(path: Path) -> bool:
    """Generate the key file with one new key if there is none; whether it was made now."""
    return _create(path, lambda: _json([new_signing_key(now_text())]))


def add_retired(path: Path, entry: dict[str, str]) -> bool:
    """Add a retired key (public half only) to the file unless one of its id is there; whether it was added."""
    entries = read_signing_keys(path)
    if any(known.get("id") == entry["id"] for known in entries):
        return False
    _replace(path, _json([entry, *entries]))
    return True


def rotate_signing_keys(path: Path) -> dict[str, str]:
    """A new key signs from now on; every older key keeps only its public half, valid until now. The new entry."""
    now = now_text()
    new = new_signing_key(now)
    entries = [retired(entry, now) for entry in read_signing_keys(path)] + [new]
    _replace(path, _json(entries))
    return new


def public_view(entries: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The entries without their private halves (what `signing_keys --list` shows)."""
    return [{k: v for k, v in entry.items() if k != "private_key"} for entry in entries]


def ensure(directory: Path) -> None:
    """Both secrets in `directory`, each generated if missing."""
    ensure_secret_key(directory)
    ensure_signing_keys(directory / SIGNING_KEYS_FILE)


def _private(text: str) -> Ed25519PrivateKey:
    return Ed25519PrivateKey.from_private_bytes(base64.b64decode(text))


def _public_text(key: Ed25519PrivateKey) -> str:
    return base64.b64encode(key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)).decode()


def _json(entries: list[dict[str, str]]) -> str:
    return json.dumps(entries, indent=1) + "\n"


def _written_aside(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    descriptor, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")  # mode 0600
    with os.fdopen(descriptor, "w") as out:
        out.write(text)
        out.flush()
        os.fsync(out.fileno())
    return Path(name)


def _create(path: Path, text: Any) -> bool:
    """Write `text()` to `path` unless it exists; a process that loses the race keeps the winner's file."""
    if path.exists():
        return False
    aside = _written_aside(path, text())
    try:
        os.link(aside, path)  # fails if another process made it meanwhile
        return True
    except FileExistsError:
        return False
    finally:
        aside.unlink()


def _replace(path: Path, text: str) -> None:
    os.replace(_written_aside(path, text), path)


def main(argv: Sequence[str] | None = None) -> None:
    command = list(sys.argv[1:] if argv is None else argv)
    if command[:1] == ["--"]:
        command = command[1:]
    ensure(default_directory())
    if command:
        os.execvp(command[0], command)


if __name__ == "__main__":
    main()
