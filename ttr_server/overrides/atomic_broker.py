"""The embedded broker: kombu's filesystem transport, with messages written atomically (`atomic_broker`; a fix of
correctness, not of speed).

kombu's own `Channel._put` (5.7) creates the message file and then writes it, so a consumer listing the folder in
between moves and reads an empty file and the worker dies on the JSON error. With beat, the web process and the
worker all writing to the folder every second, that happened within minutes under `make run`. Here a message is
written under a name no consumer picks up (`.part`), then renamed into place, which is atomic. kombu's transport
options name the folders only; nothing public writes the file another way. Off, the settings name kombu's own
`filesystem://`."""

from __future__ import annotations

import os
import uuid
from time import monotonic_ns
from typing import Any

from kombu.exceptions import ChannelError
from kombu.transport import TRANSPORT_ALIASES, filesystem
from kombu.utils.encoding import str_to_bytes
from kombu.utils.json import dumps

SCHEME = "ttrfs"


class Channel(filesystem.Channel):
    # The signature of kombu's filesystem.Channel._put; the stubs' AbstractChannel names the message `message`, which
    # filesystem.Channel (and so any override of it) does not.
    def _put(self, queue: str, payload: dict[str, Any], **kwargs: Any) -> None:  # type: ignore[override]
        name = f"{monotonic_ns()}_{uuid.uuid4()}.{queue}.msg"  # sorted by name: first in, first out
        final = os.path.join(self.data_folder_out, name)
        partial = final + ".part"  # a consumer takes only names ending in ".{queue}.msg"
        try:
            with open(partial, "wb") as f:
                f.write(str_to_bytes(dumps(payload)))
            os.replace(partial, final)
        except OSError as exc:
            raise ChannelError(f"Cannot add file {final!r} to directory") from exc


class Transport(filesystem.Transport):
    Channel = Channel


def register() -> None:
    """Let broker URLs name this transport as `ttrfs://`."""
    TRANSPORT_ALIASES.setdefault(SCHEME, f"{__name__}:Transport")
