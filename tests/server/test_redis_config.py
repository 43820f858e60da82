"""ttr_server/redis_config.py: what REDIS_URL (one server, or a Sentinel group) gives the channel layer, Celery and
the Redis clients, and the settings a process builds from its environment."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import redis.asyncio.sentinel
import redis.exceptions
import redis.sentinel

from ttr_server import redis_config, unavailable

ROOT = Path(__file__).resolve().parents[2]
GROUP = "redis+sentinel://10.0.0.1:26379,10.0.0.2:26380,sentinel-3/ttr/2"


def test_a_plain_url_is_one_server() -> None:
    url = "redis://127.0.0.1:6379/0"
    assert redis_config.sentinel_group(url) is None
    assert redis_config.channel_layer_host(url, max_connections=5) == {"address": url, "max_connections": 5}
    assert redis_config.broker_url(url) == url
    assert redis_config.broker_transport_options(url) == {}


def test_a_sentinel_url_names_the_sentinels_the_group_and_the_database() -> None:
    group = redis_config.sentinel_group(GROUP)
    assert group == redis_config.SentinelGroup(
        (("10.0.0.1", 26379), ("10.0.0.2", 26380), ("sentinel-3", 26379)), "ttr", 2
    )
    assert redis_config.sentinel_group("redis+sentinel://s1:26379/ttr") == redis_config.SentinelGroup(
        (("s1", 26379),), "ttr", 0
    )


def test_credentials_go_to_the_servers_never_to_the_sentinels() -> None:
    url = "redis+sentinel://app:s%40cret@s1:26379,s2:26379/ttr/1"
    group = redis_config.sentinel_group(url)
    assert group is not None and (group.username, group.password) == ("app", "s@cret")
    host = redis_config.channel_layer_host(url, socket_timeout=30)
    assert host["password"] == "s@cret" and host["username"] == "app" and host["db"] == 1
    assert "password" not in host["sentinel_kwargs"]
    assert redis_config.broker_url(url) == "sentinel://app:s%40cret@s1:26379/1;sentinel://app:s%40cret@s2:26379/1"
    assert "s@cret" not in redis_config.describe(url) and "s%40cret" not in redis_config.describe(url)


def test_the_channel_layer_entry_is_channels_redis_sentinel_form() -> None:
    host = redis_config.channel_layer_host(GROUP, max_connections=1000, socket_timeout=30)
    assert host["master_name"] == "ttr"
    assert host["sentinels"] == [["10.0.0.1", 26379], ["10.0.0.2", 26380], ["sentinel-3", 26379]]
    assert host["db"] == 2 and host["max_connections"] == 1000 and host["socket_timeout"] == 30
    assert host["sentinel_kwargs"]["socket_timeout"] == redis_config.SENTINEL_TIMEOUT_SECONDS
    from channels_redis.utils import create_pool  # type: ignore[import-untyped]  # the pub/sub layer's own

    pool = create_pool(host)
    assert isinstance(pool, redis.asyncio.sentinel.SentinelConnectionPool) and pool.service_name == "ttr"


def test_celery_gets_kombus_sentinel_transport_with_the_group_name() -> None:
    assert redis_config.broker_url(GROUP) == (
        "sentinel://10.0.0.1:26379/2;sentinel://10.0.0.2:26380/2;sentinel://sentinel-3:26379/2"
    )
    options = redis_config.broker_transport_options(GROUP)
    assert options["master_name"] == "ttr" and "socket_timeout" in options["sentinel_kwargs"]


def test_the_clients_ask_sentinel_for_the_primary() -> None:
    client = redis_config.client(GROUP, socket_timeout=2)
    pool = client.connection_pool
    assert isinstance(pool, redis.sentinel.SentinelConnectionPool) and pool.is_master and pool.service_name == "ttr"
    assert pool.connection_kwargs["db"] == 2 and pool.connection_kwargs["socket_timeout"] == 2
    assert [s.connection_pool.connection_kwargs["port"] for s in pool.sentinel_manager.sentinels] == [26379, 26380, 26379]
    redis_config.close(client)
    plain = redis_config.client("redis://127.0.0.1:6399/3")
    assert plain.connection_pool.connection_kwargs["db"] == 3
    redis_config.close(plain)


def test_the_async_client_asks_sentinel_too() -> None:
    client = redis_config.async_client(GROUP, max_connections=7)
    assert isinstance(client.connection_pool, redis.asyncio.sentinel.SentinelConnectionPool)
    assert client.connection_pool.max_connections == 7


@pytest.mark.parametrize("url", [
    "redis+sentinel:///ttr", "redis+sentinel://s1:26379", "redis+sentinel://s1:26379/ttr/zero",
    "redis+sentinel://s1:port/ttr", "redis+sentinel://s1:26379/ttr/0/extra", "http://s1:6379/0",
])
def test_an_unreadable_url_is_refused_with_a_reason(url: str) -> None:
    with pytest.raises(redis_config.RedisUrlError):
        redis_config.check(url)


def test_a_failover_answers_503() -> None:
    for error in (redis.sentinel.MasterNotFoundError("no primary"), redis.exceptions.ReadOnlyError("READONLY"),
                  redis.asyncio.sentinel.MasterNotFoundError("no primary")):
        assert unavailable.which(error) == "redis", error


def _settings(env: dict[str, str]) -> dict[str, object]:
    """The Redis settings a process builds from `env` (a fresh interpreter: settings are read once)."""
    code = (
        "import json, django; from django.conf import settings; django.setup(); print(json.dumps({"
        "'layer': settings.CHANNEL_LAYERS['default'], 'broker': settings.CELERY_BROKER_URL,"
        "'options': settings.CELERY_BROKER_TRANSPORT_OPTIONS}))"
    )
    base = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "CELERY_BROKER_URL")}
    answer = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300,
        env={**base, "DJANGO_SETTINGS_MODULE": "ttr_server.settings", **env},
    )
    assert answer.returncode == 0, answer.stderr[-2000:]
    return dict(json.loads(answer.stdout.strip().splitlines()[-1]))


def test_the_settings_from_a_sentinel_url() -> None:
    found = _settings({"REDIS_URL": GROUP})
    layer = found["layer"]
    assert isinstance(layer, dict) and layer["BACKEND"] == "channels_redis.pubsub.RedisPubSubChannelLayer"
    assert layer["CONFIG"]["hosts"][0]["master_name"] == "ttr"
    assert found["broker"] == redis_config.broker_url(GROUP)
    assert isinstance(found["options"], dict) and found["options"]["master_name"] == "ttr"


def test_the_settings_from_a_plain_url_are_as_before() -> None:
    found = _settings({"REDIS_URL": "redis://127.0.0.1:6379/0"})
    layer = found["layer"]
    assert isinstance(layer, dict) and layer["CONFIG"]["hosts"][0]["address"] == "redis://127.0.0.1:6379/0"
    assert found["broker"] == "redis://127.0.0.1:6379/0" and found["options"] == {}


def test_an_explicit_broker_url_keeps_its_own_options() -> None:
    found = _settings({"REDIS_URL": GROUP, "CELERY_BROKER_URL": "redis://10.0.0.9:6379/5"})
    assert found["broker"] == "redis://10.0.0.9:6379/5" and found["options"] == {}


def test_compose_runs_the_sentinel_group_its_redis_url_names() -> None:
    import yaml

    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    services = compose["services"]
    group = redis_config.sentinel_group(compose["x-app"]["environment"]["REDIS_URL"])
    assert group is not None and len(group.sentinels) == 3
    for host, port in group.sentinels:
        script = services[host]["command"][-1]
        assert f"port {port}" in script and f"sentinel monitor {group.master_name} redis 6379 2" in script, host
        assert "test -f /data/sentinel.conf ||" in script  # Sentinel's own rewrites survive a restart
        assert services[host]["restart"] == "unless-stopped" and services[host]["healthcheck"]["test"]
        assert compose["x-app"]["depends_on"][host]["condition"] == "service_healthy"
    assert len({tuple(services[host]["volumes"]) for host, _ in group.sentinels}) == 3  # a file each
    replica = services["redis-replica"]["command"]
    assert replica[replica.index("--replicaof") + 1:][:2] == ["redis", "6379"]
