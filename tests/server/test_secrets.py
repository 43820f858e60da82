"""The site's secrets are its own (ttr_server/settings.py, ttr_server/local_secrets.py, games/trust/signing.py): in
production
a missing, built-in or short SECRET_KEY stops a process at start with a message saying how to make one, `check
--deploy` passes on production settings, checkpoint signing keys come from TTR_SIGNING_KEYS or a key file made once
(and rotated) by `manage.py signing_keys`, never from SECRET_KEY, so a checkpoint signed with a key derived from a
public default does not verify; `make stack` and compose generate their secrets on first start."""

from __future__ import annotations

import base64
import json
import os
import secrets
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from django.core.exceptions import ImproperlyConfigured
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from rest_framework.test import APIClient

from games.engine.hash_chain import checkpoint_message, line_hash
from games.trust import signing
from tests.server.helpers import audit_lines, body, url
from tests.server.test_checkpoints import finished_game, offline_check
from ttr_server import local_secrets, stack

ROOT = Path(__file__).resolve().parents[2]
OLD_DEFAULT = "dev-only-insecure-secret-key-change-me-in-production"  # the SECRET_KEY the code shipped with
REFUSAL = "secrets.token_urlsafe"  # the refusal says how to make a key


def production_env(tmp_path: Path, **extra: str | None) -> dict[str, str]:
    """A process environment as production sets it, with a var dir of its own; `None` removes a variable."""
    env = {k: v for k, v in os.environ.items() if k not in ("SECRET_KEY", "TTR_SIGNING_KEYS", "TTR_SECRETS_DIR")}
    env.update(DEBUG="0", TTR_VAR_DIR=str(tmp_path / "var"), DJANGO_SETTINGS_MODULE="ttr_server.settings")
    for name, value in extra.items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    return env


def run(command: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=180)


SETUP = [sys.executable, "-c", "import django; django.setup(); print('started')"]


def a_secret() -> str:
    return secrets.token_urlsafe(50)


@pytest.mark.parametrize(
    ("case", "extra"),
    [
        ("missing", {}),
        ("built-in", {"SECRET_KEY": OLD_DEFAULT}),
        ("short", {"SECRET_KEY": "s3cret-but-short"}),
        ("a database server and no DEBUG", {"DEBUG": None, "DATABASE_URL": "postgres://nobody@127.0.0.1:9/none"}),
    ],
)
def test_production_refuses_to_start_without_a_secret_key_of_its_own(
    tmp_path: Path, case: str, extra: dict[str, str | None]
) -> None:
    """Finding 1 of #30: `make stack` ran with DEBUG=0 and the built-in SECRET_KEY without a word."""
    env = production_env(tmp_path, **extra)
    for command in (SETUP, [sys.executable, "manage.py", "check"]):
        refused = run(command, env)
        assert refused.returncode != 0 and "started" not in refused.stdout, (case, refused.stdout)
        last = refused.stderr.strip().splitlines()[-1]
        assert "ImproperlyConfigured" in last and "SECRET_KEY" in last and REFUSAL in last, (case, refused.stderr[-800:])
    assert not (tmp_path / "var" / "secrets" / "secret-key").exists()  # refused, not made up


def test_production_starts_with_a_secret_key_of_its_own_from_the_environment_or_the_secrets_directory(
    tmp_path: Path,
) -> None:
    started = run(SETUP, production_env(tmp_path, SECRET_KEY=a_secret()))
    assert started.returncode == 0 and "started" in started.stdout, started.stderr[-800:]
    local_secrets.ensure(tmp_path / "var" / "secrets")
    started = run(SETUP, production_env(tmp_path))
    assert started.returncode == 0 and "started" in started.stdout, started.stderr[-800:]


def test_check_deploy_passes_on_production_settings(tmp_path: Path) -> None:
    """Finding 1 of #30: `manage.py check --deploy` on production settings (behind HTTPS) gives no security warning
    (HSTS, secure cookies, the redirect to HTTPS, a strong SECRET_KEY) and no error."""
    keys = json.dumps([local_secrets.new_signing_key(local_secrets.now_text())])
    env = production_env(
        tmp_path, SECRET_KEY=a_secret(), TTR_SIGNING_KEYS=keys, TTR_PUBLIC_URL="https://ttr.example.org",
        ALLOWED_HOSTS="ttr.example.org", CSRF_TRUSTED_ORIGINS="https://ttr.example.org",
    )
    security = run([sys.executable, "manage.py", "check", "--deploy", "--tag", "security", "--fail-level", "WARNING"], env)
    assert security.returncode == 0 and "no issues" in security.stdout, security.stderr[-3000:]
    everything = run([sys.executable, "manage.py", "check", "--deploy"], env)
    assert everything.returncode == 0, everything.stderr[-3000:]


def _sign(key: Ed25519PrivateKey, lines: list[dict[str, Any]], key_id: str) -> None:
    last = lines[-1]
    signature = key.sign(checkpoint_message(last["checkpoint"]["game"], last["seq"], last["hash"]))
    last["checkpoint"] = {**last["checkpoint"], "head_hash": last["hash"], "key_id": key_id,
                          "signature": base64.b64encode(signature).decode()}


def _derived_private(secret_key: str) -> Ed25519PrivateKey:
    """The key older versions signed with when no keys were configured: anyone who knows `secret_key` has it."""
    import hashlib

    return Ed25519PrivateKey.from_private_bytes(hashlib.sha256(b"ttr-signing-key\x00" + secret_key.encode()).digest())


@pytest.fixture
def production_keys(settings: Any, tmp_path: Path) -> Path:
    """Production settings whose signing keys live in a key file of the test's own (not made yet)."""
    settings.PRODUCTION = True
    settings.TTR_SIGNING_KEYS = ""
    settings.TTR_SIGNING_KEYS_FILE = tmp_path / "secrets" / "signing-keys.json"
    return Path(settings.TTR_SIGNING_KEYS_FILE)


@pytest.mark.django_db
def test_without_keys_production_refuses_to_sign_rather_than_derive_a_key(production_keys: Path) -> None:
    """Finding 1 of #30: with no keys configured, the checkpoint key was derived from SECRET_KEY."""
    with pytest.raises(ImproperlyConfigured, match="signing_keys --generate"):
        signing.keys()
    with pytest.raises(SystemCheckError, match=r"games\.E001"):
        call_command("check")
    call_command("signing_keys", "--generate")
    call_command("check")
    assert stat.S_IMODE(production_keys.stat().st_mode) == 0o600


@pytest.mark.django_db
def test_a_checkpoint_resigned_with_a_key_derived_from_a_public_default_fails_on_production_settings(
    production_keys: Path, tmp_path: Path
) -> None:
    """Finding 1 of #30: a finished game's totals changed to 999 and re-signed with the key derived from the public
    SECRET_KEY passed `python -m games.trust.offline_verify verify`. Now no key of production is derived from it: neither the
    log as it was nor the changed one verifies with that key, under its own id or under the site's key's id."""
    call_command("signing_keys", "--generate")
    game_id = finished_game("forge", 21)
    lines = audit_lines(APIClient(), game_id)
    keys = body(APIClient().get("/api/keys"))
    assert offline_check(tmp_path, lines, keys).returncode == 0
    derived = local_secrets.derived_key(OLD_DEFAULT)
    assert derived["public_key"] not in {key["public_key"] for key in keys["keys"]}

    changed = [dict(line) for line in lines]
    scored = changed[-1]
    assert scored["type"] == "game_scored"
    scores = [dict(score) for score in scored["data"]["scores"]]
    scores[0]["total"] = 999
    scored["data"] = {**scored["data"], "scores": scores}
    scored["hash"] = line_hash(scored)
    forger = _derived_private(OLD_DEFAULT)
    for log in ([dict(line) for line in lines], changed):
        for key_id in (derived["id"], lines[-1]["checkpoint"]["key_id"]):
            _sign(forger, log, key_id)
            caught = offline_check(tmp_path, log, keys)
            assert caught.returncode == 1, (key_id, caught.stdout)


@pytest.mark.django_db
def test_rotation_keeps_old_checkpoints_checkable_and_the_new_key_signs(production_keys: Path, tmp_path: Path) -> None:
    call_command("signing_keys", "--generate")
    first = finished_game("rot-file-a", 22)
    first_key = body(APIClient().get(url(first, "checkpoint")))["key_id"]
    call_command("signing_keys", "--rotate")
    second = finished_game("rot-file-b", 23)
    assert body(APIClient().get(url(second, "checkpoint")))["key_id"] != first_key
    keys = body(APIClient().get("/api/keys"))
    assert [k["valid_to"] is None for k in keys["keys"]] == [False, True]
    assert "private_key" not in production_keys.read_text().split("}")[0]  # the retired key lost its private half
    for game in (first, second):
        held = offline_check(tmp_path, audit_lines(APIClient(), game), keys)
        assert held.returncode == 0, held.stdout


@pytest.mark.django_db
def test_a_site_that_signed_with_its_own_derived_key_keeps_those_checkpoints_checkable(
    settings: Any, production_keys: Path, tmp_path: Path
) -> None:
    """The upgrade path: `signing_keys --generate` keeps the retired public half of the key older versions derived
    from a site's own SECRET_KEY when checkpoints name it, and never one derived from the public default."""
    settings.SECRET_KEY = a_secret()
    old = _derived_private(settings.SECRET_KEY)
    derived = local_secrets.derived_key(settings.SECRET_KEY)
    private = base64.b64encode(old.private_bytes_raw()).decode()
    settings.TTR_SIGNING_KEYS = json.dumps([{"id": derived["id"], "private_key": private, "valid_from": "2026-01-01"}])
    game = finished_game("legacy", 24)
    assert body(APIClient().get(url(game, "checkpoint")))["key_id"] == derived["id"]

    settings.TTR_SIGNING_KEYS = ""
    call_command("signing_keys", "--generate")
    keys = body(APIClient().get("/api/keys"))
    assert keys["keys"][0]["id"] == derived["id"]
    assert "private_key" not in json.dumps(json.loads(production_keys.read_text())[0])
    assert offline_check(tmp_path, audit_lines(APIClient(), game), keys).returncode == 0

    settings.SECRET_KEY = OLD_DEFAULT  # the same history under the public default: nothing is kept
    public_file = tmp_path / "public" / "signing-keys.json"
    settings.TTR_SIGNING_KEYS_FILE = public_file
    from games.trust.models import Checkpoint

    Checkpoint.objects.filter(game_id=game).update(key_id=local_secrets.derived_key(OLD_DEFAULT)["id"])
    call_command("signing_keys", "--generate")
    assert [entry["id"][:2] for entry in local_secrets.read_signing_keys(public_file)] == ["k-"]


def test_the_stack_generates_its_secrets_on_first_start_and_keeps_them(tmp_path: Path) -> None:
    """Finding 1 of #30: `make stack` generates a SECRET_KEY and signing keys of its own on its first start (none
    built in), keeps them across starts, and its processes start on them with DEBUG=0."""
    base = {k: v for k, v in production_env(tmp_path).items() if k not in ("TTR_VAR_DIR",)}
    base.update(DATABASE_URL="postgres://nobody@127.0.0.1:9/none", REDIS_URL="redis://127.0.0.1:9/0")
    env = stack.stack_env(var_dir=tmp_path / "stack", base=base)
    folder = tmp_path / "stack" / "secrets"
    secret, keys = (folder / "secret-key").read_text(), (folder / "signing-keys.json").read_text()
    assert local_secrets.secret_key_problem(secret.strip()) is None
    assert all(stat.S_IMODE((folder / name).stat().st_mode) == 0o600 for name in ("secret-key", "signing-keys.json"))
    stack.stack_env(var_dir=tmp_path / "stack", base=base)
    assert (folder / "secret-key").read_text() == secret and (folder / "signing-keys.json").read_text() == keys

    listed = run([sys.executable, "manage.py", "signing_keys"], env)
    assert listed.returncode == 0, listed.stderr[-800:]
    assert [k["id"] for k in json.loads(listed.stdout)] == [k["id"] for k in json.loads(keys)]
    assert "private_key" not in listed.stdout


def test_compose_generates_its_secrets_on_a_shared_volume_before_every_command() -> None:
    """Finding 1 of #30: compose required a SECRET_KEY and derived the signing key from it. Now the image's entry
    point generates both on a volume every service of ours mounts; a SECRET_KEY set by the operator still wins."""
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert 'ENTRYPOINT ["python", "-m", "ttr_server.local_secrets", "--"]' in dockerfile
    for name in stack.COMMANDS:
        service = compose["services"][name]
        assert service["environment"]["TTR_SECRETS_DIR"] == "/secrets", name
        assert "secrets:/secrets" in service["volumes"], name
        assert service["environment"]["SECRET_KEY"] == "${SECRET_KEY:-}", name
    assert "secrets" in compose["volumes"]
