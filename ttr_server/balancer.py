"""HAProxy for `make stack` (ttr_server/stack.py): deploy/haproxy.cfg, compose's configuration, with its server block
replaced by the stack's web processes on loopback, and the servers' states read from HAProxy's stats socket.

Everything else of the file is used as it is; the ports and the stats socket come from the environment the stack
gives the balancer (`environment`), which HAProxy reads where the file says "${TTR_LB_...}"."""

from __future__ import annotations

import csv
import shutil
import socket
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / "deploy" / "haproxy.cfg"
BEGIN, END = "# servers: begin", "# servers: end"
BACKEND = "web"


def program() -> str | None:
    """Debian's haproxy (in /usr/sbin, which a user's PATH may lack), or None."""
    return shutil.which("haproxy") or shutil.which("haproxy", path="/usr/sbin:/usr/local/sbin")


def render(servers: dict[str, str], source: Path = CONFIG) -> str:
    """The configuration with one `server NAME ADDRESS` line per web process in place of the marked block."""
    lines = source.read_text().splitlines()
    begin = next(i for i, line in enumerate(lines) if line.strip() == BEGIN)
    end = next(i for i, line in enumerate(lines) if line.strip() == END)
    indent = lines[begin][: len(lines[begin]) - len(lines[begin].lstrip())]
    ours = [f"{indent}server {name} {address}" for name, address in servers.items()]
    return "\n".join([*lines[: begin + 1], *ours, *lines[end:]]) + "\n"


def environment(*, public: str, stats: str, stats_socket: Path) -> dict[str, str]:
    """The variables the configuration reads: the public address, the stats page's and the stats socket."""
    return {"TTR_LB_BIND": public, "TTR_LB_STATS_BIND": stats, "TTR_LB_STATS_SOCKET": str(stats_socket)}


def command(config: Path) -> list[str]:
    haproxy = program()
    if haproxy is None:
        raise RuntimeError("haproxy is not installed (make servers installs Debian's)")
    return [haproxy, "-db", "-f", str(config)]  # -db: in the foreground, no daemon: the stack supervises it


def ask(stats_socket: Path, line: str, timeout: float = 2.0) -> str:
    """One command on HAProxy's stats socket (`show stat`, `show servers state`, `set server web/web-0 state drain`)."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
        connection.settimeout(timeout)
        connection.connect(str(stats_socket))
        connection.sendall(line.encode() + b"\n")
        chunks = []
        while chunk := connection.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks).decode()


def servers(stats_socket: Path) -> dict[str, dict[str, str]]:
    """The web backend's servers as `show stat` gives them (status UP, DOWN, MAINT, "UP 1/2"..., scur: sessions)."""
    text = ask(stats_socket, f"show stat {BACKEND} 4 -1").lstrip("# ")
    rows = csv.DictReader(line for line in text.splitlines() if line)
    return {row["svname"]: dict(row) for row in rows if row.get("pxname") == BACKEND and row["svname"] != "BACKEND"}


def states(stats_socket: Path) -> dict[str, str]:
    """Each web server's status: UP, DOWN, MAINT, or a transition ("UP 1/2", "DOWN 1/2")."""
    return {name: row["status"] for name, row in servers(stats_socket).items()}
