"""docker-compose.yml is the production description and `make stack` (ttr_server/stack.py) runs it here: the two
must say the same thing. No Docker engine runs on this machine, so the file is read and each command checked
against the code: the module or app it names exists, the management command exists, the queue is one the
settings define, and every long-running service has a health check and a restart policy."""

from __future__ import annotations

import importlib
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from celery.app.utils import find_app
from django.conf import settings
from django.core.management import get_commands

from ttr_server import balancer, stack

COMPOSE = Path(__file__).resolve().parents[2] / "docker-compose.yml"
ONE_SHOT = {"migrate"}
IMAGES = {"db", "redis", "pgbouncer", "haproxy"}  # third-party (pgbouncer, haproxy: Debian's): their commands are theirs
IMAGES |= {"redis-replica", "sentinel-1", "sentinel-2", "sentinel-3"}  # redis:7 too: the Sentinel group


@pytest.fixture(scope="module")
def services() -> dict[str, Any]:
    return dict(yaml.safe_load(COMPOSE.read_text())["services"])


def test_every_service_of_ours_runs_the_stacks_command(services: dict[str, Any]) -> None:
    ours = {name for name in services if name not in IMAGES}
    assert ours == set(stack.COMMANDS), "compose and ttr_server/stack.py run different services"
    for name in ours:
        assert services[name]["command"] == stack.COMMANDS[name], name


def test_long_running_services_have_a_health_check_and_a_restart_policy(services: dict[str, Any]) -> None:
    for name, service in services.items():
        if name in ONE_SHOT:
            assert service["restart"] == "no"
            continue
        assert service.get("restart") == "unless-stopped", name
        assert service.get("healthcheck", {}).get("test"), f"{name} has no health check"


def _manage_command(words: list[str]) -> str | None:
    return words[words.index("manage.py") + 1] if "manage.py" in words else None


def test_each_command_names_code_that_exists(services: dict[str, Any]) -> None:
    commands = get_commands()
    for name, service in services.items():
        if name in IMAGES:
            continue
        for words in (service["command"], service["healthcheck"]["test"][1:] if "healthcheck" in service else []):
            if (manage := _manage_command(words)) is not None:
                assert manage in commands, f"{name}: manage.py {manage} does not exist"
            elif words and words[0] == "uvicorn":
                module, attribute = words[1].split(":")
                assert callable(getattr(importlib.import_module(module), attribute)), words[1]
            elif words and words[0] == "celery":
                app = find_app(words[words.index("-A") + 1])  # as `celery -A` finds it
                assert app.main == "ttr_server"
                if "-Q" in words:
                    queues = words[words.index("-Q") + 1].split(",")
                    assert set(queues) <= {"celery", "celery-strong", "celery-analysis"}, queues


def test_the_queues_compose_reads_are_the_settings_defaults() -> None:
    # compose sets no TTR_TASK_QUEUE: its workers must read the queues the web processes send to by default.
    default = "celery"
    assert stack.COMMANDS["worker"][stack.COMMANDS["worker"].index("-Q") + 1] == default
    assert stack.COMMANDS["worker-strong"][stack.COMMANDS["worker-strong"].index("-Q") + 1] == f"{default}-strong"
    assert f"{settings.CELERY_TASK_DEFAULT_QUEUE}-strong" == settings.TTR_STRONG_QUEUE
    analysis = stack.COMMANDS["worker-analysis"]
    assert analysis[analysis.index("-Q") + 1] == f"{default}-analysis"
    assert f"{settings.CELERY_TASK_DEFAULT_QUEUE}-analysis" == settings.TTR_ANALYSIS_QUEUE


def test_the_stack_runs_compose_commands_with_this_machines_python() -> None:
    web = stack.command("web", port=8123)
    assert web[1:3] == ["-m", "uvicorn"] and web[web.index("--port") + 1] == "8123"
    assert stack.command("worker", index=2)[stack.command("worker", index=2).index("-n") + 1] == "default2@%h"
    assert stack.command("migrate")[1:] == ["manage.py", "migrate", "--noinput"]


def _env_default(config: str, variable: str) -> str:
    found = re.search(r'"\$\{' + variable + r'-([^}]*)\}"', config)
    assert found, f"deploy/haproxy.cfg does not read {variable}"
    return found.group(1)


def test_compose_runs_haproxy_on_the_repositorys_configuration_in_front_of_the_web_processes(
    services: dict[str, Any],
) -> None:
    proxy, web = services["haproxy"], services["web"]
    assert "./deploy/haproxy.cfg:/etc/haproxy/haproxy.cfg:ro" in proxy["volumes"]
    assert proxy["command"][-2:] == ["-f", "/etc/haproxy/haproxy.cfg"] and "haproxy" in proxy["build"]["dockerfile_inline"]
    # the port it listens on is the one published, and the only public one: the web processes have none of their own
    public = proxy["environment"]["TTR_LB_BIND"].rsplit(":", 1)[1]
    assert f"{public}:{public}" in proxy["ports"] and "ports" not in web
    assert all(p.startswith("127.0.0.1:") for p in proxy["ports"] if not p.startswith(f"{public}:"))  # stats: loopback
    assert [w for w in stack.COMMANDS["web"] if w == "--proxy-headers"]
    # uvicorn believes X-Forwarded-For from HAProxy's address alone
    assert web["environment"]["FORWARDED_ALLOW_IPS"] == proxy["networks"]["default"]["ipv4_address"]
    assert proxy["stop_signal"] == "SIGUSR1" and proxy["restart"] == "unless-stopped"
    config = balancer.CONFIG.read_text()
    assert "server-template web 10 web:8000" in config  # compose's DNS name and the web command's port
    assert stack.COMMANDS["web"][stack.COMMANDS["web"].index("--port") + 1] == "8000"
    for variable in proxy["environment"]:
        _env_default(config, variable)


def test_the_stack_runs_the_same_configuration_with_its_own_servers() -> None:
    rendered = balancer.render({"web-0": "127.0.0.1:8001", "web-1": "127.0.0.1:8002"})
    source = balancer.CONFIG.read_text().splitlines()
    begin, end = source.index("    " + balancer.BEGIN), source.index("    " + balancer.END)
    assert rendered.splitlines() == [*source[: begin + 1], "    server web-0 127.0.0.1:8001",
                                     "    server web-1 127.0.0.1:8002", *source[end:]]
    for needed in ("balance leastconn", "option httpchk", "uri /readyz", "http-check expect status 200",
                   "timeout tunnel", "set-header X-Forwarded-For %[src]", "fall 2"):
        assert needed in rendered, needed


@pytest.mark.skipif(balancer.program() is None, reason="needs haproxy (make servers installs Debian's)")
def test_haproxy_accepts_both_forms_of_the_configuration(tmp_path: Path) -> None:
    rendered = tmp_path / "haproxy.cfg"
    rendered.write_text(balancer.render({"web-0": "127.0.0.1:8001"}))
    for config in (balancer.CONFIG, rendered):
        checked = subprocess.run([str(balancer.program()), "-c", "-f", str(config)], capture_output=True, text=True)
        assert checked.returncode == 0 and "WARNING" not in checked.stderr + checked.stdout, checked.stderr
