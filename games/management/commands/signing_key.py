"""`manage.py signing_key --id ID`: a new Ed25519 key as one entry of TTR_SIGNING_KEYS (games/trust/signing.py).

To rotate: keep the old entry with only its `public_key` and a `valid_to` (so its checkpoints stay checkable),
and add the new one, valid from the same moment."""

from __future__ import annotations

import base64
import json
from datetime import UTC, datetime
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat, PublicFormat
from django.core.management.base import BaseCommand, CommandParser


class Command(BaseCommand):
    help = "Print a new signing key as a TTR_SIGNING_KEYS entry (JSON), with its public key beside it."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--id", required=True, help="the key's name, shown in checkpoints and /api/keys")

    def handle(self, *args: Any, **options: Any) -> None:
        key = Ed25519PrivateKey.generate()
        private = base64.b64encode(key.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())).decode()
        public = base64.b64encode(key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)).decode()
        now = datetime.now(UTC).replace(microsecond=0).isoformat()
        entry = {"id": options["id"], "private_key": private, "valid_from": now}
        self.stdout.write(json.dumps(entry))
        self.stderr.write(f"public key {public}: keep the private one secret; retire it later as "
                          f'{{"id": "{options["id"]}", "public_key": "{public}", "valid_from": "{now}", "valid_to": ...}}')
