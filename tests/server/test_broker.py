"""The embedded broker (ttr_server/broker.py): a consumer never sees a message file before it is whole."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from kombu import Connection

from ttr_server import broker


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    broker.register()
    return tmp_path


def connection(folder: Path) -> Connection:
    options = {"data_folder_in": str(folder), "data_folder_out": str(folder), "store_processed": False}
    return Connection("ttrfs://", transport_options=options)


def test_a_message_appears_under_its_queue_name_only_once_it_is_written(folder: Path, monkeypatch: Any) -> None:
    seen: list[tuple[list[str], bytes]] = []
    real_replace = os.replace

    def replace(partial: str, final: str) -> None:
        seen.append((sorted(os.listdir(folder)), Path(partial).read_bytes()))
        real_replace(partial, final)

    monkeypatch.setattr(broker.os, "replace", replace)
    with connection(folder) as conn:
        channel = conn.channel()
        channel._put("q", {"body": "x" * 10_000})
        [(listing, written)] = seen
        assert [name for name in listing if name.endswith(".q.msg")] == []  # nothing a consumer would take
        assert json.loads(written)["body"] == "x" * 10_000  # and the file was whole before its rename
        assert channel._get("q")["body"] == "x" * 10_000


def test_messages_go_out_in_order_and_leave_no_partial_files(folder: Path) -> None:
    with connection(folder) as conn:
        channel = conn.channel()
        for n in range(5):
            channel._put("q", {"n": n})
        assert not [p for p in folder.iterdir() if p.name.endswith(".part")]
        assert [channel._get("q")["n"] for _ in range(5)] == list(range(5))
