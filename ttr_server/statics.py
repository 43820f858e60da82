"""Static files under names that carry their content's hash, compressed, collected when the web process starts.

`HashedStorage` (settings.STORAGES["staticfiles"]) is WhiteNoise's compressed manifest storage: collectstatic copies
every file into STATIC_ROOT also as `name.<hash>.ext`, rewrites the references between them (the client's
`import ... from "./x.js"` lines and CSS `url()`s) to those names, and writes a gzip and a Brotli copy of each. WhiteNoise
serves a hashed name with a year's `immutable` cache and the compressed copy the browser accepts; the page links the
hashed names (ttr_server/pages.py).

`Middleware` is WhiteNoise's, started only after `ensure_collected()`: when the files the finders list (the client,
the admin's, the API docs') differ from those last collected, collectstatic runs first, under a lock so that web
processes starting together collect once. So `make run`, the tests' live servers and `make stack` need no step of
their own; the image collects at build time and its processes find the collection current. With DEBUG on, names stay
plain and WhiteNoise reads the sources (nothing is collected).
"""

from __future__ import annotations

import fcntl
import hashlib
import logging
from collections.abc import Iterable, Iterator
from functools import cache
from importlib.metadata import version
from pathlib import Path
from typing import Any, cast

import django
from django.conf import settings
from django.contrib.staticfiles import finders
from django.contrib.staticfiles.storage import HashedFilesMixin, staticfiles_storage
from django.core.management import call_command
from whitenoise.middleware import WhiteNoiseMiddleware  # type: ignore[import-untyped]
from whitenoise.storage import CompressedManifestStaticFilesStorage  # type: ignore[import-untyped]

log = logging.getLogger(__name__)
STAMP = ".collected"  # in STATIC_ROOT: the fingerprint of the sources last collected there
LOCK = ".collecting"
IGNORED = ["CVS", ".*", "*~"]  # collectstatic's default ignore patterns


class HashedStorage(CompressedManifestStaticFilesStorage):  # type: ignore[misc]
    # The client is ES modules importing each other by relative paths: those imports are rewritten to hashed names
    # too, by Django's own patterns for them (`support_js_module_import_aggregation`), applied to the client's modules
    # alone: on the API docs' 1.5 MB bundles they cost half a second a pass and find nothing. The import chain
    # (app.js -> game.js -> ... -> dom.js) is ten deep; the passes stop as soon as nothing changes.
    max_post_process_passes = 30

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        _, module_patterns = vars(HashedFilesMixin)["_js_module_import_aggregation_patterns"]  # not in the stubs
        modules = tuple((name, module_patterns) for name in sorted(client_files()) if name.endswith(".js"))
        self.patterns = HashedFilesMixin.patterns + modules
        super().__init__(*args, **kwargs)

    def post_process(self, paths: dict[str, Any], dry_run: bool = False, **options: Any) -> Iterator[Any]:
        """As WhiteNoise's, then the sources' fingerprint written beside the collection (when every file went
        through): `manage.py collectstatic` (the image's build) leaves a collection the processes find current."""
        yield from super().post_process(paths, dry_run, **options)
        if not dry_run:
            (Path(self.location) / STAMP).write_text(fingerprint())

    def compress_files(self, paths: Iterable[str]) -> Iterator[tuple[str, str]]:
        """Compress the client's own files (frontend/, under both names: its catalogues are fetched by plain name),
        not the admin's or the API docs' (Brotli's best level on every file and source map took a minute)."""
        client = client_files()
        client |= {self.hashed_files[path] for path in client if path in self.hashed_files}
        yield from super().compress_files(p for p in paths if p in client)


def client_files() -> set[str]:
    """The client's files (STATICFILES_DIRS: frontend/) by their names under /static/."""
    return {path for path, _ in finders.FileSystemFinder().list(IGNORED)}


def fingerprint() -> str:
    """A digest of every file the finders list (path and content), with the versions that decide the output."""
    versions = f"{django.__version__} {version('whitenoise')} {HashedStorage.__qualname__} 1"
    digest = hashlib.sha256(versions.encode())
    found: dict[str, Path] = {}
    for finder in finders.get_finders():
        for path, storage in finder.list(IGNORED):
            found.setdefault(path, Path(storage.path(path)))  # the first finder's file wins, as collectstatic's
    for path in sorted(found):
        digest.update(path.encode() + b"\0" + found[path].read_bytes() + b"\0")
    return digest.hexdigest()


def ensure_collected() -> bool:
    """Collect the static files unless STATIC_ROOT holds the current sources' collection; True when it collected."""
    if settings.DEBUG:
        return False
    root = Path(settings.STATIC_ROOT)
    stamp = root / STAMP
    current = fingerprint()
    if stamp.is_file() and stamp.read_text() == current:
        return False
    root.mkdir(parents=True, exist_ok=True)
    with open(root / LOCK, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another process starting now collects once; this one waits for it
        if stamp.is_file() and stamp.read_text() == current:
            return False
        call_command("collectstatic", interactive=False, verbosity=0)  # writes the stamp (HashedStorage.post_process)
        # this process's storage may have read the old manifest before: it reads the new one
        storage = cast(HashedStorage, staticfiles_storage)
        storage.hashed_files, storage.manifest_hash = storage.load_manifest()
    log.info("static files collected into %s", root)
    return True


@cache
def _ensure_collected_once() -> None:
    ensure_collected()


class Middleware(WhiteNoiseMiddleware):  # type: ignore[misc]
    """WhiteNoise, after the static files are collected (it lists STATIC_ROOT's files when it starts)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        _ensure_collected_once()  # the test client starts the middleware anew for every client
        super().__init__(*args, **kwargs)
