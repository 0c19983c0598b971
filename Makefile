# Two commands do everything: `make run` serves the app, `make test` runs the whole suite.
VENV := .venv
PY := $(VENV)/bin/python
HOST ?= 0.0.0.0
PORT ?= 8000
CHROMIUM := /usr/lib/chromium/chromium-headless-shell
HAPROXY := /usr/sbin/haproxy

.PHONY: install run test lint typecheck chromium haproxy bench fonts backup restore secret-key deploy-check

$(VENV)/.installed: pyproject.toml
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --upgrade pip
	$(VENV)/bin/pip install --quiet -e '.[dev]'
	touch $@

install: $(VENV)/.installed

# The browser tests drive Debian's headless shell of Chromium, the build Playwright itself
# runs headless tests in (its own download does not work here): the same Blink, without the
# full browser around it, for less than half the full browser's processor time.
chromium:
	@test -x $(CHROMIUM) || (apt-get update -qq && apt-get install -y -qq chromium-headless-shell)

# The picture of a night (games/picture.py) is drawn in Debian's DejaVu: every letter a
# player's name may hold, and the minus and currency signs.
FONT := /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf
fonts:
	@test -f $(FONT) || (apt-get update -qq && apt-get install -y -qq fonts-dejavu-core)

# The scale-out bench puts Debian's HAProxy in front of two app servers.
haproxy:
	@test -x $(HAPROXY) || (apt-get update -qq && apt-get install -y -qq haproxy)

run: install fonts
	$(PY) manage.py migrate --noinput
	$(PY) manage.py collectstatic --noinput --verbosity 0
	@echo "Open http://$$(hostname -I 2>/dev/null | cut -d' ' -f1):$(PORT)/ on a phone on this network."
	$(VENV)/bin/gunicorn scorekeeper.wsgi --bind $(HOST):$(PORT) --workers 2 --access-logfile -

# Two pytest-xdist workers, one for each core: one takes the browser tests while the other
# runs the rest (tests/conftest.py). `make test WORKERS=` runs the suite in one process.
WORKERS ?= --numprocesses 2
test: install chromium fonts
	$(PY) -m pytest -q $(WORKERS)

lint: install typecheck
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

# The app and its settings, held to mypy --strict against Django's type stubs (the [tool.mypy] of
# pyproject.toml).
typecheck: install
	$(VENV)/bin/mypy games scorekeeper

bench: install haproxy fonts
	$(PY) bench/replay_bench.py
	$(PY) bench/pages_bench.py
	$(PY) bench/records_bench.py
	$(PY) bench/me_bench.py
	$(PY) bench/race_bench.py
	$(PY) bench/undated_bench.py
	$(PY) bench/standings_bench.py
	$(PY) bench/share_bench.py
	$(PY) bench/shapes_bench.py
	$(PY) bench/scaleout_bench.py

# The server of compose.yaml (README, "Run it on a server"): Docker's compose plugin where there
# is one, else podman-compose. Debian's podman-compose 1.0.3 knows no profiles: it is given the
# default services by name, or it would start the optional ones too.
COMPOSE ?= $(shell docker compose version >/dev/null 2>&1 && echo docker compose || echo podman-compose)
SERVICES ?= $(if $(findstring podman,$(COMPOSE)),app db caddy backup)

# A backup now, beside the nightly ones, into the backups folder (BACKUP_DIR in .env).
backup:
	$(COMPOSE) exec -T backup sh /deploy/backup now

# A backup back into an empty stack (no database volume yet), then the whole stack started:
# `make restore BACKUP=scorekeeper-2026-12-06T090000Z.dump`, a file of the backups folder.
restore:
	@test -n "$(BACKUP)" || (echo "Which backup? make restore BACKUP=scorekeeper-….dump" && false)
	$(COMPOSE) up -d db backup
	$(COMPOSE) exec -T backup sh /deploy/backup restore $(BACKUP)
	$(COMPOSE) up -d $(SERVICES)

# A SECRET_KEY for .env.
secret-key:
	@python3 -c "import secrets; print(secrets.token_urlsafe(50))"

# The stack of compose.yaml built, run, backed up, restored and upgraded here (deploy/check).
deploy-check: install
	deploy/check
