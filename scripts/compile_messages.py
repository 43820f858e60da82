#!/usr/bin/env python3
"""Compile gettext catalogues (.po) to the binary .mo files Django reads, with the standard library alone: GNU
gettext's msgfmt need not be installed (`make messages`, which `make run` and `make test` depend on, runs this).

    python scripts/compile_messages.py [FILE.po ...]     # no arguments: every locale/*/LC_MESSAGES/*.po

Each FILE.po is written beside itself as FILE.mo. The .po subset read is what Django's catalogues use: comments
and flags (`#, fuzzy` entries are left out, as msgfmt does), msgctxt, msgid, msgid_plural, msgstr and msgstr[N],
strings continued over several lines, C escapes. Untranslated entries are left out (gettext then answers the
msgid). The .mo layout is GNU's (little-endian, no hash table), as CPython's Tools/i18n/msgfmt.py writes it.
"""

from __future__ import annotations

import ast
import struct
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAGIC = 0x950412DE


class PoError(ValueError):
    """A line the reader cannot take, with its file and number."""


def _string(text: str, where: str) -> str:
    text = text.strip()
    if len(text) < 2 or text[0] != '"' or text[-1] != '"':
        raise PoError(f"{where}: expected a quoted string, got {text!r}")
    try:
        value = ast.literal_eval(text)  # a C string's escapes are Python's (\n, \t, \", \\)
    except (SyntaxError, ValueError) as error:
        raise PoError(f"{where}: {error}") from error
    assert isinstance(value, str)
    return value


def read_po(path: Path) -> dict[str, str]:
    """The catalogue's translated entries: key (msgctxt EOT msgid [NUL msgid_plural]) to msgstr (forms NUL-joined)."""
    messages: dict[str, str] = {}
    entry: dict[str, str] = {}
    field: str | None = None
    fuzzy = False

    def finish() -> None:
        nonlocal entry, field, fuzzy
        if "msgid" in entry:
            _add(messages, entry, fuzzy)
        entry, field, fuzzy = {}, None, False

    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        where = f"{path}:{number}"
        line = raw.strip()
        if line.startswith("#"):
            if field is not None and field.startswith("msgstr"):
                finish()
            fuzzy = fuzzy or (line.startswith("#,") and "fuzzy" in line[2:].split(","))
            continue
        if not line:
            continue
        keyword, _, rest = line.partition(" ")
        if line.startswith('"'):
            if field is None:
                raise PoError(f"{where}: a string outside an entry")
            entry[field] += _string(line, where)
            continue
        if keyword in ("msgctxt", "msgid") and field is not None and field.startswith("msgstr"):
            finish()
        if keyword not in ("msgctxt", "msgid", "msgid_plural") and not keyword.startswith("msgstr"):
            raise PoError(f"{where}: unknown keyword {keyword!r}")
        field = keyword
        entry[field] = _string(rest, where)
    finish()
    return messages


def _add(messages: dict[str, str], entry: dict[str, str], fuzzy: bool) -> None:
    msgid = entry["msgid"]
    if "msgid_plural" in entry:
        forms = [entry[f"msgstr[{n}]"] for n in range(len(entry)) if f"msgstr[{n}]" in entry]
        key, value = f"{msgid}\0{entry['msgid_plural']}", "\0".join(forms)
        translated = bool(forms) and all(forms)
    else:
        key, value = msgid, entry.get("msgstr", "")
        translated = bool(value)
    if "msgctxt" in entry:
        key = f"{entry['msgctxt']}\x04{key}"
    if msgid == "" or (translated and not fuzzy):  # the header (msgid "") is kept even when marked fuzzy
        messages[key] = value


def mo_bytes(messages: dict[str, str]) -> bytes:
    """The .mo file of `messages`: header, the two tables of (length, offset), then the strings, each NUL-ended."""
    keys = sorted(messages, key=lambda k: k.encode("utf-8"))
    ids = [key.encode("utf-8") for key in keys]
    strs = [messages[key].encode("utf-8") for key in keys]
    count = len(keys)
    ids_start = 7 * 4 + 16 * count  # the header, then both tables
    strs_start = ids_start + sum(len(i) + 1 for i in ids)
    table_ids, table_strs, offset_id, offset_str = [], [], ids_start, strs_start
    for key_bytes, value_bytes in zip(ids, strs, strict=True):
        table_ids += [len(key_bytes), offset_id]
        table_strs += [len(value_bytes), offset_str]
        offset_id += len(key_bytes) + 1
        offset_str += len(value_bytes) + 1
    header = struct.pack("<7I", MAGIC, 0, count, 7 * 4, 7 * 4 + 8 * count, 0, 0)
    tables = struct.pack(f"<{4 * count}I", *table_ids, *table_strs)
    return header + tables + b"".join(i + b"\0" for i in ids) + b"".join(s + b"\0" for s in strs)


def compile_po(path: Path) -> Path:
    """Write `path`'s .mo beside it (only when its bytes change); the .mo's path."""
    target = path.with_suffix(".mo")
    data = mo_bytes(read_po(path))
    if not target.exists() or target.read_bytes() != data:
        partial = target.with_suffix(".mo.tmp")
        partial.write_bytes(data)
        partial.replace(target)  # atomic: a process reading the catalogue meanwhile never sees half a file
    return target


def main(argv: list[str]) -> int:
    paths = [Path(arg) for arg in argv] or sorted(ROOT.glob("locale/*/LC_MESSAGES/*.po"))
    try:
        for path in paths:
            compile_po(path)
    except (OSError, PoError) as error:
        print(f"compile_messages: {error}", file=sys.stderr)
        return 1
    print(f"compile_messages: {len(paths)} catalogue(s) compiled")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
