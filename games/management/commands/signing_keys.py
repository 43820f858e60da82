"""`manage.py signing_keys [--generate | --rotate | --entry]`: the keys that sign finished games' checkpoints, kept in
the file settings.TTR_SIGNING_KEYS_FILE (games/trust/signing.py, docs/CHECKPOINTS.md).

Without an option it lists them (public halves only). `--generate` writes the file once, with a new random key, and
is the upgrade step of a site that signed with the key older versions derived from its own SECRET_KEY: when
checkpoints name that key, its public half is kept, retired, so they stay checkable (never when that SECRET_KEY is
a public one). `--rotate` retires every key (public half kept, valid until now) and adds a new one that signs from
now on; running processes read the file again when it changes. With TTR_SIGNING_KEYS set the file is not used and
both options refuse: `--entry` prints a new key as one entry for that list (JSON), its public half on stderr; to
rotate there, keep the old entry with its `public_key` only and a `valid_to`, and add the new one."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.trust.models import Checkpoint
from ttr_server import local_secrets


class Command(BaseCommand):
    help = "List, generate (once) or rotate the checkpoint signing keys in TTR_SIGNING_KEYS_FILE."
    requires_system_checks: list[str] = []  # the checks ask for these keys: this command makes them

    def add_arguments(self, parser: CommandParser) -> None:
        action = parser.add_mutually_exclusive_group()
        action.add_argument("--generate", action="store_true", help="write the key file unless it exists")
        action.add_argument("--rotate", action="store_true", help="retire every key and add a new one")
        action.add_argument("--entry", action="store_true", help="print a new key as a TTR_SIGNING_KEYS entry")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["entry"]:
            entry = local_secrets.new_signing_key(local_secrets.now_text())
            self.stdout.write(json.dumps(entry))
            self.stderr.write(f"public key {local_secrets.public_key_of(entry)}: keep the private one secret")
            return
        path = Path(settings.TTR_SIGNING_KEYS_FILE)
        if (options["generate"] or options["rotate"]) and settings.TTR_SIGNING_KEYS:
            raise CommandError("TTR_SIGNING_KEYS is set: the keys come from it, not from the file (docs/CHECKPOINTS.md)")
        if options["generate"]:
            made = local_secrets.ensure_signing_keys(path)
            self.stderr.write(f"{path}: {'generated' if made else 'already there'}")
            self._keep_derived(path)
        elif options["rotate"]:
            if not path.exists():
                raise CommandError(f"{path} does not exist: run --generate first")
            new = local_secrets.rotate_signing_keys(path)
            self.stderr.write(f"{path}: key {new['id']} signs from {new['valid_from']}; the others are retired")
        if settings.TTR_SIGNING_KEYS:
            entries = json.loads(settings.TTR_SIGNING_KEYS)
        elif path.exists():
            entries = local_secrets.read_signing_keys(path)
        else:
            raise CommandError("no signing keys: set TTR_SIGNING_KEYS or run `manage.py signing_keys --generate`")
        self.stdout.write(json.dumps(local_secrets.public_view(entries), indent=1))

    def _keep_derived(self, path: Path) -> None:
        derived = local_secrets.derived_key(settings.SECRET_KEY)
        if not Checkpoint.objects.filter(key_id=derived["id"]).exists():
            return
        since = min(entry["valid_from"] for entry in local_secrets.read_signing_keys(path))
        entry = local_secrets.retired_derived_key(settings.SECRET_KEY, since)
        if entry is None:
            self.stderr.write(f"checkpoints signed with {derived['id']} stay uncheckable: its SECRET_KEY is public")
        elif local_secrets.add_retired(path, entry):
            self.stderr.write(f"{path}: {derived['id']} kept, retired, for the checkpoints it signed")
