"""Settings, all from environment variables (12-factor).

With nothing set the site runs embedded: SQLite under var/, the in-memory channel layer, and Celery on a
broker that needs no server (kombu's filesystem transport under var/celery). Production sets
DATABASE_URL (PostgreSQL), REDIS_URL (channel layer and Celery broker), SECRET_KEY, DEBUG=0, ALLOWED_HOSTS.
"""

from __future__ import annotations

import os
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

from ttr_server import databases, json_logs, local_secrets, overrides, redis_config

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(os.environ.get("TTR_VAR_DIR", BASE_DIR / "var"))
VAR_DIR.mkdir(parents=True, exist_ok=True)
# Prometheus's multiprocess mode (ttr_server/metrics.py): every process of one stack writes its figures here and
# /metrics adds them up. Set before prometheus_client is imported (it reads the variable then).
os.environ.setdefault("PROMETHEUS_MULTIPROC_DIR", str(VAR_DIR / "metrics"))
Path(os.environ["PROMETHEUS_MULTIPROC_DIR"]).mkdir(parents=True, exist_ok=True)


def _flag(name: str, default: bool) -> bool:
    return os.environ.get(name, "1" if default else "0").lower() in ("1", "true", "yes", "on")


DEBUG = _flag("DEBUG", default=False)
# Which framework overrides are on (ttr_server/overrides/: what each replaces, what it earns, the test that pins it):
# `all` (the default), `none`, a comma list of names, or a comma list of `-name` (all but those).
TTR_OVERRIDES = overrides.parse(os.environ.get("TTR_OVERRIDES", "all"))
# Production: DEBUG=0 said outright, or a database server (DATABASE_URL) without DEBUG=1. There every secret is the
# site's own: SECRET_KEY from the environment or from TTR_SECRETS_DIR/secret-key (`python -m ttr_server.local_secrets`
# makes it: the stack and the image's entry point do), else the process refuses to start. Otherwise (`make run`,
# the tests' default) the secrets are generated into TTR_SECRETS_DIR on first use: that directory sits beside the
# embedded database, which every process of the site already shares.
PRODUCTION = not DEBUG and ("DEBUG" in os.environ or bool(os.environ.get("DATABASE_URL")))
TTR_SECRETS_DIR = Path(os.environ.get("TTR_SECRETS_DIR") or VAR_DIR / "secrets")
SECRET_KEY = os.environ.get("SECRET_KEY") or local_secrets.read_secret_key(TTR_SECRETS_DIR) or ""
if not PRODUCTION and not SECRET_KEY:
    SECRET_KEY = local_secrets.ensure_secret_key(TTR_SECRETS_DIR)
if PRODUCTION and (_problem := local_secrets.secret_key_problem(SECRET_KEY)):
    raise ImproperlyConfigured(
        f"{_problem}: in production (DEBUG=0, or a DATABASE_URL without DEBUG=1) the server needs a secret of its "
        f"own. Set SECRET_KEY to at least "
        f"{local_secrets.SECRET_KEY_MIN_LENGTH} random characters (e.g. {local_secrets.HOW_TO_GENERATE}), or "
        f"generate {TTR_SECRETS_DIR / local_secrets.SECRET_KEY_FILE} with `python -m ttr_server.local_secrets`."
    )
# Former SECRET_KEYs, comma-separated: links and sessions they signed stay valid while a new key takes over.
SECRET_KEY_FALLBACKS = [k for k in os.environ.get("SECRET_KEY_FALLBACKS", "").split(",") if k]
# The keys that sign finished games' checkpoints (games/trust/signing.py): a JSON list of {"id", "private_key" (base64 of
# the 32-byte Ed25519 seed) or "public_key" (a retired key), "valid_from", "valid_to"?}. Unset: the file
# TTR_SIGNING_KEYS_FILE, which `manage.py signing_keys --generate` (or the stack's first start) writes and
# `--rotate` rotates; outside production it is generated on first use. Never derived from SECRET_KEY.
TTR_SIGNING_KEYS = os.environ.get("TTR_SIGNING_KEYS", "")
TTR_SIGNING_KEYS_FILE = TTR_SECRETS_DIR / local_secrets.SIGNING_KEYS_FILE
ALLOWED_HOSTS = [h for h in os.environ.get("ALLOWED_HOSTS", "127.0.0.1,localhost,testserver").split(",") if h]
CSRF_TRUSTED_ORIGINS = [o for o in os.environ.get("CSRF_TRUSTED_ORIGINS", "").split(",") if o]

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI's files, served by us: /api/docs/ works without internet
    "channels",
    "games",
    "bots",  # no models: an app for the worker to find the bots' beat tasks (bots/tasks.py)
]

MIDDLEWARE = [  # run sync, in one worker thread per request (ttr_server/http.py)
    "ttr_server.health.HealthMiddleware",  # /healthz, /readyz, /metrics: before the host check
    "ttr_server.observe.ObserveMiddleware",  # request id, log fields, request metrics
    "ttr_server.limits.RequestLimitsMiddleware",
    "ttr_server.unavailable.UnavailableMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "ttr_server.statics.Middleware",  # WhiteNoise, once the static files are collected
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "ttr_server.urls"
TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ]
        },
    }
]
WSGI_APPLICATION = None
ASGI_APPLICATION = "ttr_server.asgi.application"

DATABASES = {  # DATABASE_URL: one server, or libpq's list of them for failover (ttr_server/databases.py)
    "default": databases.parse_url(
        os.environ.get("DATABASE_URL", f"sqlite:///{VAR_DIR / 'db.sqlite3'}"),
        conn_max_age=int(os.environ.get("DB_CONN_MAX_AGE", "0")),
    )
}
if DATABASES["default"]["ENGINE"].endswith("postgresql") and _flag("DB_POOL", default=True):
    # Under ASGI each request runs its sync code in a fresh thread, so thread-bound persistent connections
    # would be opened per request: a process-wide pool (psycopg_pool) hands out warm connections instead.
    # CONN_HEALTH_CHECKS: the pool tries a connection with an empty query before handing it out, so one the server
    # dropped (a restart, pg_terminate_backend) costs a reconnect, not a failed request.
    # `timeout`: how long a request waits for a connection before it answers 503 `unavailable`.
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
    DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
        "min_size": 1,
        "max_size": int(os.environ.get("DB_POOL_MAX", "16")),
        "timeout": float(os.environ.get("DB_POOL_TIMEOUT", "10")),
    }
if DATABASES["default"]["ENGINE"].endswith("sqlite3"):
    # Several processes (web, worker) and threads share the file. A transaction takes the write lock as it
    # begins (IMMEDIATE), waiting up to `timeout` s for it: one that read first and then asked for the lock
    # would be refused at once ("database is locked": SQLite will not wait where waiting could deadlock),
    # a 500 where a stale move must get 409. WAL lets readers go on while a writer writes.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        timeout=20, transaction_mode="IMMEDIATE", init_command="PRAGMA journal_mode=WAL"
    )
if _flag("DB_PGBOUNCER", default=False):  # DATABASE_URL is a PgBouncer in transaction mode: ttr_server/databases.py
    from ttr_server.databases import behind_pgbouncer

    behind_pgbouncer(DATABASES["default"])
if os.environ.get("DATABASE_REPLICA_URL"):  # a standby for reads that may lag (db_router.py; default's pool, PgBouncer's)
    DATABASES["replica"] = databases.replica(os.environ["DATABASE_REPLICA_URL"], DATABASES["default"])
DATABASE_ROUTERS = ["ttr_server.db_router.ReplicaRouter"]
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTHENTICATION_BACKENDS = ["games.people.accounts.UsernameBackend"]  # usernames match in any case and NFKC form
TOKEN_LIFETIME_DAYS = int(os.environ.get("TOKEN_LIFETIME_DAYS", "30"))  # or until the owner logs out
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator", "OPTIONS": {"min_length": 8}},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
# The languages of the site (issue #23): the web client's catalogues (frontend/locales/*.json) and the e-mails'
# (locale/<lang>/LC_MESSAGES/django.po, compiled to .mo by `make messages`: scripts/compile_messages.py). A person's
# mails are in their account's language, else English (games/people/mail.py).
LANGUAGES = [("en", "English"), ("cs", "Čeština"), ("ro", "Română"), ("pl", "Polski"), ("hu", "Magyar"), ("fi", "Suomi")]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True
STATIC_URL = "static/"
# Static files (docs/OPERATIONS.md, Static files): collected into STATIC_ROOT under hashed names (app.3f2a91c0b7de.js,
# the modules' imports rewritten to match), each with a gzip and a Brotli copy, by the web process as it starts when
# the sources changed (ttr_server/statics.py); WhiteNoise serves them, hashed names with a year's immutable cache.
# STATIC_ROOT is the checkout's (or the image's) whatever TTR_VAR_DIR says: the tests' live servers, each with a var
# directory of its own, share one collection. With DEBUG on, WhiteNoise reads the sources and names stay plain.
STATIC_ROOT = Path(os.environ.get("TTR_STATIC_ROOT") or BASE_DIR / "var" / "static")
STATICFILES_DIRS = [BASE_DIR / "frontend"] if (BASE_DIR / "frontend").is_dir() else []
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "ttr_server.statics.HashedStorage"},
}

# REDIS_URL: one server (redis://host:port/db) or a Sentinel group (redis+sentinel://host:port,host:port/name/db);
# ttr_server/redis_config.py turns it into each user's settings and clients (docs/OPERATIONS.md, Redis failover).
REDIS_URL = os.environ.get("REDIS_URL", "")
redis_config.check(REDIS_URL)

# Realtime (games/realtime): the channel layer carries only (game, seq) notices and presence changes. With Redis
# every web process hears every commit, whichever process (web or Celery worker) made it; the in-memory layer
# reaches only its own process, so there the web process polls the seqs of the games it has sockets for.
# channels-redis's pub/sub layer: a group message is one PUBLISH, and each web process reads every group it has
# sockets in from one subscription. The list-based RedisChannelLayer queued a process's messages in one Redis key
# read by a blocking pop, a backup write and a cleanup per message, handed between its consumers by a lock, and
# dropped messages past 100 queued: at 500 sockets the web process spent 17 ms of CPU a move with it, 10-14 ms
# with this one (bench/realtime.py). Nothing is lost that matters: a notice missed while a process (re)subscribes is repaired
# by the seq poll (REALTIME_POLL_SECONDS), a presence change by the next renewal.
REDIS_MAX_CONNECTIONS = int(os.environ.get("REDIS_MAX_CONNECTIONS", "1000"))
CHANNEL_LAYERS = (
    {
        "default": {
            "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
            # socket_timeout: redis-py 8 times reads out after 5 s by default; a publish to a Redis that hangs
            # gives up after this (it runs off the request path: games/store/notify.py).
            "CONFIG": {
                "hosts": [
                    redis_config.channel_layer_host(REDIS_URL, max_connections=REDIS_MAX_CONNECTIONS, socket_timeout=30)
                ]
            },
        }
    }
    if REDIS_URL
    else {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
)
# How often a web process reads the seqs of the games it has sockets open for (only while it has some): how a
# Celery worker's move reaches the sockets under the embedded server, and a lost notice's repair with Redis.
REALTIME_POLL_SECONDS = float(os.environ.get("REALTIME_POLL_SECONDS", "1" if REDIS_URL else "0.05"))
# How often a person's socket (/ws/me/) reads their new notifications besides being told: the embedded server's
# way for a worker's notification to arrive, and a lost notice's repair with Redis.
INBOX_POLL_SECONDS = float(os.environ.get("INBOX_POLL_SECONDS", "5" if REDIS_URL else "0.5"))
# What one socket, and one person's sockets, may make the server do (games/realtime/limits.py, docs/API.md):
# TTR_WS_MESSAGES_PER_SECOND messages a second per socket with bursts of TTR_WS_BURST (past that a message is
# answered rate_limited; another burst's worth sent regardless and the socket is closed with 4029); at most
# TTR_WS_OUTBOUND_LIMIT bytes wait for a client that does not read (past that the socket is dropped); at most
# TTR_WS_PER_USER sockets per person over /ws/games/ and /ws/me/ (one more closes their oldest with 4008).
TTR_WS_MESSAGES_PER_SECOND = float(os.environ.get("TTR_WS_MESSAGES_PER_SECOND", "10"))
TTR_WS_BURST = int(os.environ.get("TTR_WS_BURST", "20"))
TTR_WS_OUTBOUND_LIMIT = int(os.environ.get("TTR_WS_OUTBOUND_LIMIT", str(1024 * 1024)))
TTR_WS_PER_USER = int(os.environ.get("TTR_WS_PER_USER", "20"))

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "games.api.authentication.ExpiringTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "games.api.error_responses.exception_handler",
    "DEFAULT_PARSER_CLASSES": ["games.api.parsers.StrictJSONParser"],  # JSON only: other bodies get 415
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],  # never an HTML page
    "DEFAULT_THROTTLE_RATES": {"auth": "20/min"},
    # The client's address is REMOTE_ADDR, which uvicorn's --proxy-headers sets from a trusted proxy's
    # X-Forwarded-For; DRF's default would read that header as the client sends it, so one client could
    # spread its attempts over as many "addresses" as it likes.
    "NUM_PROXIES": 0,
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Ticket to Ride server API",
    "DESCRIPTION": "Persistent, ranked, auditable Ticket to Ride games (Europe and USA).",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "ENUM_NAME_OVERRIDES": {"BotLevelEnum": "games.models.BOT_LEVELS"},
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "games.api.schema_hooks.add_common_errors",
        "games.api.schema_hooks.add_delete_bodies",
    ],
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
}

CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

# Celery: Redis when REDIS_URL is set, otherwise a broker that needs no server.
# ttrfs: kombu's filesystem transport with atomic writes (ttr_server/overrides/atomic_broker.py).
# "localhost": the filesystem transport has no host, but kombu warns on every connection without one
_FILESYSTEM_BROKER = "ttrfs" if "atomic_broker" in TTR_OVERRIDES else "filesystem"
CELERY_BROKER_URL = os.environ.get(
    "CELERY_BROKER_URL", redis_config.broker_url(REDIS_URL) or f"{_FILESYSTEM_BROKER}://localhost//"
)
CELERY_BROKER_TRANSPORT_OPTIONS = (
    ({} if "CELERY_BROKER_URL" in os.environ else redis_config.broker_transport_options(REDIS_URL))
    if REDIS_URL or "CELERY_BROKER_URL" in os.environ
    else {
        "data_folder_in": str(VAR_DIR / "celery" / "queue"),
        "data_folder_out": str(VAR_DIR / "celery" / "queue"),
        "processed_folder": str(VAR_DIR / "celery" / "processed"),
        "store_processed": False,
        "control_folder": str(VAR_DIR / "celery" / "control"),  # broadcast (pidbox) files, not in the cwd
        # The worker looks for new task files this often (kombu's default: every second, so a bot answered
        # about a second late); an idle worker polling every 50 ms uses about 0.4 % of a core (bench/bot_latency.py).
        "polling_interval": 0.05,
    }
)
for _folder in ("queue", "processed", "control"):
    (VAR_DIR / "celery" / _folder).mkdir(parents=True, exist_ok=True)
CELERY_TASK_ALWAYS_EAGER = _flag("CELERY_TASK_ALWAYS_EAGER", default=False)
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ACKS_LATE = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# A worker outlives a broker outage: it retries the connection at start and after a loss, for ever (Celery's default
# gives up after 100 tries and the process exits); a task running when the connection is lost finishes, and its
# late ack makes the broker deliver it again if the ack is lost (every task is idempotent: docs/DESIGN.md, Workers).
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_CONNECTION_MAX_RETRIES = None
CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS = False
# The queue tasks go to and workers read by default; tests and benchmarks give each run its own.
CELERY_TASK_DEFAULT_QUEUE = os.environ.get("TTR_TASK_QUEUE", "celery")
# The strong bot's searches have a queue of their own (docs/DESIGN.md: a slow search never delays other games): its
# turns are sent there, and a worker started without -Q reads both queues (`make run`'s does); docker-compose runs
# one worker per queue. TTR_STRONG_SECONDS is its thinking time per decision (bots/budget.py).
TTR_STRONG_QUEUE = os.environ.get("TTR_STRONG_QUEUE", f"{CELERY_TASK_DEFAULT_QUEUE}-strong")
# Post-game analysis (games/review/analyses.py) has a queue of its own too, so judging a finished game never delays a
# move, a bot or a score: docker-compose gives it a worker of its own. A decision is judged on TTR_ANALYSIS_SAMPLES
# sampled games (TTR_ANALYSIS_SINGLE where the move played is the only candidate); a run silent for
# TTR_ANALYSIS_STALE_SECONDS is taken over; every TTR_ANALYSIS_SWEEP_SECONDS the worker re-sends lost requests and,
# when no analysis waits, queues the newest ranked game not analysed yet (TTR_ANALYSIS_RANKED=0 turns that off).
TTR_ANALYSIS_QUEUE = os.environ.get("TTR_ANALYSIS_QUEUE", f"{CELERY_TASK_DEFAULT_QUEUE}-analysis")
TTR_ANALYSIS_SAMPLES = int(os.environ.get("TTR_ANALYSIS_SAMPLES", "48"))
TTR_ANALYSIS_SINGLE = int(os.environ.get("TTR_ANALYSIS_SINGLE", "2"))  # bots/analysis.py Budget's
TTR_ANALYSIS_STALE_SECONDS = float(os.environ.get("TTR_ANALYSIS_STALE_SECONDS", "600"))
TTR_ANALYSIS_SWEEP_SECONDS = float(os.environ.get("TTR_ANALYSIS_SWEEP_SECONDS", "30"))
TTR_ANALYSIS_RANKED = _flag("TTR_ANALYSIS_RANKED", default=True)
# A hint (POST /api/games/{id}/hint): the strong bot's search, in the web process, for at most this long.
TTR_HINT_SECONDS = float(os.environ.get("TTR_HINT_SECONDS", "0.5"))
CELERY_TASK_QUEUES: dict[str, dict[str, str]] = {
    CELERY_TASK_DEFAULT_QUEUE: {}, TTR_STRONG_QUEUE: {}, TTR_ANALYSIS_QUEUE: {},
}
# The sweep (bots.tasks.sweep): turn clocks, and bot or scoring tasks lost on the way (docs/DESIGN.md, Workers).
TTR_SWEEP_SECONDS = float(os.environ.get("TTR_SWEEP_SECONDS", "1"))
# Playing by day: the length of a daily game's day (shorter only for tests and demos); the vacation days a person
# has in any 365 days; how often the matchmaker looks at the queue besides when someone joins it.
TTR_DAY_SECONDS = float(os.environ.get("TTR_DAY_SECONDS", "86400"))
TTR_VACATION_DAYS = int(os.environ.get("TTR_VACATION_DAYS", "30"))
TTR_MATCH_SECONDS = float(os.environ.get("TTR_MATCH_SECONDS", "2"))
TTR_QUEUE_BOT = os.environ.get("TTR_QUEUE_BOT", "greedy")  # the level of the bots the queue seats
TTR_LOST_TASK_SECONDS = float(os.environ.get("TTR_LOST_TASK_SECONDS", "3"))
# E-mail (games/people/mail.py): SMTP when EMAIL_HOST is set, otherwise one file a mail under var/mail (no server needed).
# Notifications are mailed in a batch every TTR_MAIL_SECONDS, at most one mail per game per TTR_MAIL_GAP_SECONDS
# to a person; links in mails point at TTR_PUBLIC_URL.
EMAIL_HOST = os.environ.get("EMAIL_HOST", "")
EMAIL_BACKEND = os.environ.get(
    "EMAIL_BACKEND",
    "django.core.mail.backends.smtp.EmailBackend" if EMAIL_HOST else "django.core.mail.backends.filebased.EmailBackend",
)
EMAIL_FILE_PATH = str(VAR_DIR / "mail")
EMAIL_PORT = int(os.environ.get("EMAIL_PORT", "25"))
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = _flag("EMAIL_USE_TLS", default=False)
EMAIL_TIMEOUT = float(os.environ.get("EMAIL_TIMEOUT", "10"))  # a hung server must not hold a worker
DEFAULT_FROM_EMAIL = os.environ.get("TTR_MAIL_FROM", "Ticket to Ride <noreply@localhost>")
TTR_PUBLIC_URL = os.environ.get("TTR_PUBLIC_URL", "http://localhost:8000")
TTR_TOURNAMENT_SECONDS = float(os.environ.get("TTR_TOURNAMENT_SECONDS", "5"))  # starts, daily rounds, arenas' pools
TTR_MAIL_SECONDS = float(os.environ.get("TTR_MAIL_SECONDS", "60"))
TTR_MAIL_GAP_SECONDS = float(os.environ.get("TTR_MAIL_GAP_SECONDS", "3600"))
# The monthly dumps of every finished game (games/api/dumps.py, docs/AUDIT.md): where they are written and served
# from (the worker that runs beat's task and the web processes share it), and how often beat looks for a month due.
TTR_DUMP_DIR = Path(os.environ.get("TTR_DUMP_DIR") or VAR_DIR / "dumps")
TTR_DUMP_SECONDS = float(os.environ.get("TTR_DUMP_SECONDS", "3600"))
# Beat's tasks by their names, which are their functions' module paths (Celery's default: no task is given a name);
# tests/server/test_workers.py checks that each is a task the worker knows.
CELERY_BEAT_SCHEDULE = {
    "sweep": {"task": "bots.tasks.sweep", "schedule": TTR_SWEEP_SECONDS},
    "match": {"task": "games.lobby.matchmaker.match", "schedule": TTR_MATCH_SECONDS},
    "mail": {"task": "games.tasks.mail_notifications", "schedule": TTR_MAIL_SECONDS},
    "analyses": {"task": "bots.tasks.analysis_sweep", "schedule": TTR_ANALYSIS_SWEEP_SECONDS},
    "tournaments": {"task": "games.tournaments.services.tournaments_tick", "schedule": TTR_TOURNAMENT_SECONDS},
    # A month's dump replays nothing but reads and writes every game of it: on the analysis queue, off the bots' cores.
    "dumps": {"task": "games.tasks.dump_games", "schedule": TTR_DUMP_SECONDS, "options": {"queue": TTR_ANALYSIS_QUEUE}},
}
CELERY_BEAT_SCHEDULE_FILENAME = str(VAR_DIR / "celery" / "beat-schedule")

# Game store: snapshot every N events (an optimisation only: deleting snapshots changes no answer).
GAME_SNAPSHOT_EVERY = int(os.environ.get("GAME_SNAPSHOT_EVERY", "50"))
GAME_STATE_CACHE_SIZE = int(os.environ.get("GAME_STATE_CACHE_SIZE", "512"))

# JSON lines from every logger, with the request id, user, game and seq bound at the edge (ttr_server/json_logs.py).
LOGGING = json_logs.config(os.environ.get("LOG_LEVEL", "INFO"))
# A probe's 503 (/readyz while a dependency is down) is said by ttr_server/health.py once a minute, at warning level,
# not as an error line at every probe.
LOGGING["filters"] = {"probe_answers": {"()": "ttr_server.health.ProbeAnswers"}}
LOGGING["loggers"]["django.request"] = {"filters": ["probe_answers"]}
json_logs.configure_structlog()
CELERY_WORKER_HIJACK_ROOT_LOGGER = False  # workers and beat log through LOGGING too

SESSION_COOKIE_HTTPONLY = True
SECURE_CONTENT_TYPE_NOSNIFF = True
# HTTPS: on when the public URL is https (TTR_HTTPS=0/1 says otherwise). The site then sits behind a TLS terminator
# that sets X-Forwarded-Proto (and must overwrite one a client sent): plain HTTP is redirected to HTTPS (/healthz,
# /readyz and /metrics answer before that: probes stay plain), cookies go over HTTPS only, and browsers are told
# to keep to HTTPS for TTR_HSTS_SECONDS. `manage.py check --deploy` passes with it (tests/server/test_secrets.py).
TTR_HTTPS = _flag("TTR_HTTPS", default=TTR_PUBLIC_URL.startswith("https://"))
if TTR_HTTPS:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = True
    SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = int(os.environ.get("TTR_HSTS_SECONDS", "31536000"))
    SECURE_HSTS_INCLUDE_SUBDOMAINS = _flag("TTR_HSTS_SUBDOMAINS", default=True)
    SECURE_HSTS_PRELOAD = _flag("TTR_HSTS_PRELOAD", default=True)
    # Turning either off is the operator's choice (a subdomain still on plain HTTP): not a warning to repeat.
    SILENCED_SYSTEM_CHECKS = [
        check for check, on in (("security.W005", SECURE_HSTS_INCLUDE_SUBDOMAINS), ("security.W021", SECURE_HSTS_PRELOAD))
        if not on
    ]

# Auth endpoints' throttle rate (overrides DEFAULT_THROTTLE_RATES["auth"] when set).
AUTH_THROTTLE_RATE = os.environ.get("AUTH_THROTTLE_RATE") or None
# Streams of finished games (GET /api/games/export) a person, or an address for nobody signed in, may start, in each
# web process (games/api/views_export.py).
TTR_EXPORT_RATE = os.environ.get("TTR_EXPORT_RATE") or "5/min"

# Limits where a person can be abused (issue #30, findings 4 and 6), counted in the database (games/people/rate_limits.py)
# so every web process shares them. Wrong passwords, on every password form (the API's token and login, the admin's
# login and password change, DELETE /api/me): once a username, or an address, has this many failures in the window,
# every attempt is refused (429) until the oldest leaves the window, a right password too.
TTR_PASSWORD_FAILURES_PER_USERNAME = int(os.environ.get("TTR_PASSWORD_FAILURES_PER_USERNAME", "10"))
TTR_PASSWORD_FAILURES_PER_IP = int(os.environ.get("TTR_PASSWORD_FAILURES_PER_IP", "30"))
TTR_PASSWORD_WINDOW_SECONDS = int(os.environ.get("TTR_PASSWORD_WINDOW_SECONDS", "900"))
# Confirmation mails (PATCH /api/me with an address): per account and per address, an hour.
TTR_CONFIRMATION_MAILS_PER_ACCOUNT = int(os.environ.get("TTR_CONFIRMATION_MAILS_PER_ACCOUNT", "3"))
TTR_CONFIRMATION_MAILS_PER_ADDRESS = int(os.environ.get("TTR_CONFIRMATION_MAILS_PER_ADDRESS", "3"))
TTR_CONFIRMATION_MAIL_WINDOW_SECONDS = int(os.environ.get("TTR_CONFIRMATION_MAIL_WINDOW_SECONDS", "3600"))
# Queue joins a person may make in the window (each one queues a matchmaker run).
TTR_QUEUE_JOINS = int(os.environ.get("TTR_QUEUE_JOINS", "30"))
TTR_QUEUE_JOIN_WINDOW_SECONDS = int(os.environ.get("TTR_QUEUE_JOIN_WINDOW_SECONDS", "3600"))
TTR_TOURNAMENTS_CREATED = int(os.environ.get("TTR_TOURNAMENTS_CREATED", "10"))
TTR_TOURNAMENTS_CREATED_WINDOW_SECONDS = int(os.environ.get("TTR_TOURNAMENTS_CREATED_WINDOW_SECONDS", "86400"))
# Games not finished (open or in play) a person may sit in at once, by speed (games/play/game_caps.py): 409 too_many_games.
TTR_MAX_LIVE_GAMES = int(os.environ.get("TTR_MAX_LIVE_GAMES", "20"))
TTR_MAX_DAILY_GAMES = int(os.environ.get("TTR_MAX_DAILY_GAMES", "50"))
