# Two commands a fresh machine needs: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 8000
STAMP := $(VENV)/.installed

.PHONY: run stack test test-plain drills lint bench simulate clean chromium servers messages

$(STAMP): pyproject.toml
	test -d $(VENV) || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

# The e-mails' translations (locale/<lang>/LC_MESSAGES/django.po) compiled to the .mo files Django reads, each when its
# .po changes, by a script of the standard library's alone (no GNU gettext needed). The .mo files are not tracked.
MO_FILES := $(patsubst %.po,%.mo,$(wildcard locale/*/LC_MESSAGES/*.po))

messages: $(MO_FILES)

locale/%.mo: locale/%.po scripts/compile_messages.py
	$(PYTHON) scripts/compile_messages.py $<

run: $(STAMP) messages
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py runall --port $(PORT)

# The production layout without Docker (ttr_server/stack.py): DATABASE_URL and REDIS_URL must be set.
stack: $(STAMP) messages
	$(BIN)/python -m ttr_server.stack $(STACK_ARGS)

# The web client (frontend/) is linted with ESLint, pinned in package.json/package-lock.json. npm ci runs again when
# package-lock.json is newer than its stamp; without node and npm the JS lint is skipped (said, not failed).
NODE_STAMP := node_modules/.installed

$(NODE_STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund
	touch $(NODE_STAMP)

lint: $(STAMP)
	$(BIN)/ruff check games bots ttr_server tests bench
	$(BIN)/mypy
	$(BIN)/lint-imports --no-cache
	@if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; then \
	  $(MAKE) -s --no-print-directory $(NODE_STAMP) && npx --no-install eslint frontend; \
	else echo "make lint: node/npm not found: skipping the JavaScript lint (frontend/)"; fi

# The browser tests drive Debian's chromium (Playwright never downloads a browser here); without it they skip.
chromium:
	@test -x /usr/bin/chromium || { command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ] && \
	  { apt-get install -y -qq chromium || { apt-get update -qq && apt-get install -y -qq chromium; }; }; } || \
	  echo "make: chromium is not installed: the browser tests will be skipped"

# The servers beyond one machine's (docs/OPERATIONS.md): HAProxy in front, PgBouncer, Redis Sentinel, from Debian's
# packages; PostgreSQL's own programs (initdb, pg_basebackup) come with the server. The tests and drills start them
# on loopback ports themselves; without them those tests skip, saying which is missing.
SERVERS := haproxy pgbouncer redis-sentinel
servers:
	@missing=""; for s in $(SERVERS); do command -v $$s >/dev/null || [ -x /usr/sbin/$$s ] || missing="$$missing $$s"; done; \
	  [ -z "$$missing" ] || { command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ] && \
	  { apt-get install -y -qq $$missing || { apt-get update -qq && apt-get install -y -qq $$missing; }; }; } || \
	  echo "make: not installed:$$missing: the tests that need them will be skipped"

# The tests that start servers of their own (browser, faults, make run) run beside the rest (scripts/test-all).
test: $(STAMP) messages lint chromium servers
	./scripts/test-all

# The whole suite with every framework override off (ttr_server/overrides/, TTR_OVERRIDES=none): the site works on the
# frameworks' own ways; the overrides' own tests turn each on themselves (tests/server/test_overrides.py).
test-plain: $(STAMP) messages chromium servers
	TTR_OVERRIDES=none ./scripts/test-all

# The tournaments at full size (tests/server/test_tournament_scale.py with TTR_TEST_SCALE=full: a Swiss of 64, two of
# the same 37 at four, an arena of 30, through real workers; several minutes): `make test` plays them small.
drills: $(STAMP) messages
	TTR_TEST_SCALE=full ./scripts/test-env $(BIN)/pytest -s -p no:cacheprovider tests/server/test_tournament_scale.py

bench: $(STAMP)
	$(BIN)/python bench/engine.py

simulate:
	$(PYTHON) -m games.engine.simulate --map europe --players 5 --games 200 --seed 1

clean:
	rm -rf $(VENV) node_modules var .pytest_cache .mypy_cache .ruff_cache
	rm -f $(MO_FILES)
