"""System checks of the site's secrets (run by `manage.py check`, `migrate` and `runall`, so a production stack
whose migration step fails them never starts): in production the checkpoint signing keys must be configured
(TTR_SIGNING_KEYS or the key file), readable, and none of them derived from a public SECRET_KEY."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.checks import CheckMessage, Error, Tags, register
from django.core.exceptions import ImproperlyConfigured

from ttr_server import local_secrets


@register(Tags.security)
def signing_keys_check(app_configs: Any = None, **kwargs: Any) -> list[CheckMessage]:
    from games.trust import signing

    if not settings.PRODUCTION:
        return []
    try:
        keys = signing.keys()
    except (ImproperlyConfigured, ValueError, KeyError, TypeError) as error:
        return [Error(f"checkpoint signing keys: {error}", id="games.E001",
                      hint="manage.py signing_keys --generate (docs/CHECKPOINTS.md, Keys)")]
    public = {local_secrets.derived_key(secret)["public_key"] for secret in local_secrets.PUBLIC_SECRET_KEYS}
    return [
        Error(f"signing key {key.id} is derived from a public SECRET_KEY: anyone can sign with it", id="games.E002",
              hint="retire it (manage.py signing_keys --rotate) and remove it")
        for key in keys
        if key.public_text in public
    ]
