"""The page's JavaScript and CSS over the wire: each file the shell links (app.js and every module it preloads, the
stylesheets) fetched from a live embedded server by its plain name with no compression (as served before issue #33)
and by its hashed name with gzip and with Brotli.

    python bench/static_bytes.py
"""

from __future__ import annotations

import re
import sys
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.live.embedded import embedded_server


def fetched(url: str, encoding: str | None = None) -> int:
    request = urllib.request.Request(url, headers={"Accept-Encoding": encoding} if encoding else {})
    with urllib.request.urlopen(request) as answer:
        assert answer.headers.get("Content-Encoding") == encoding, (url, encoding)
        return len(answer.read())


def main() -> None:
    with embedded_server() as server:
        base = f"http://127.0.0.1:{server.port}"
        with urllib.request.urlopen(base + "/") as answer:
            html = answer.read().decode()
        for ext in ("js", "css"):
            linked = re.findall(rf'"/static/([a-z0-9]+)\.([0-9a-f]{{12}})\.{ext}"', html)
            plain = sum(fetched(f"{base}/static/{name}.{ext}") for name, _ in linked)
            gzip = sum(fetched(f"{base}/static/{name}.{digest}.{ext}", "gzip") for name, digest in linked)
            brotli = sum(fetched(f"{base}/static/{name}.{digest}.{ext}", "br") for name, digest in linked)
            print(f"{ext}: {len(linked)} files, {plain:,} B plain, {gzip:,} B gzip, {brotli:,} B Brotli "
                  f"({brotli / plain:.0%} of plain)")


if __name__ == "__main__":
    main()
