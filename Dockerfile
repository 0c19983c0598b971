# The score keeper's image: Debian's Python, the app's own dependencies in a virtualenv, static
# files collected at build time, gunicorn as a user that is not root (README, "Run it on a
# server"). `docker compose build` (or `podman build --format docker .`, which keeps the
# HEALTHCHECK) makes it.

FROM debian:bookworm-slim AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 python3-venv tzdata ca-certificates \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
# The dependencies first, read from pyproject.toml alone, so that a change to the code
# rebuilds only the layers after them. EXTRAS names optional ones: `redis` for CACHE_URL=redis://.
ARG EXTRAS=""
COPY pyproject.toml ./
RUN python3 -m venv /venv \
 && python3 -c 'import sys, tomllib; project = tomllib.load(open("pyproject.toml", "rb"))["project"]; \
extras = [e for e in sys.argv[1].split(",") if e]; \
print("\n".join(project["dependencies"] + [d for e in extras for d in project["optional-dependencies"][e]]))' \
    "$EXTRAS" > requirements.txt \
 && /venv/bin/pip install --no-cache-dir --disable-pip-version-check --only-binary :all: \
    -r requirements.txt \
 && /venv/bin/pip uninstall --quiet --yes pip setuptools
COPY manage.py ./
COPY scorekeeper scorekeeper
COPY games games
COPY templates templates
COPY static static
# Minified, hashed names, gzip and Brotli, as a server serves them (games/storage.py). Then
# what the server never reads leaves the virtualenv (10 MB of the 200): Brotli, which compressed
# the files just now (WhiteNoise sends them as they are), and the translations of Django and
# its apps, source and compiled (the app speaks English only: USE_I18N = False).
RUN DEBUG=False /venv/bin/python manage.py collectstatic --noinput --verbosity 0 \
 && find /app -name __pycache__ -prune -exec rm -rf {} + \
 && rm -rf /venv/lib/python3.11/site-packages/brotli* /venv/lib/python3.11/site-packages/_brotli* \
 && find /venv -path '*/locale/*/LC_MESSAGES/*' \( -name '*.po' -o -name '*.mo' \) -delete

FROM debian:bookworm-slim
# python3, the time zones, the authorities (mail over TLS) and the font of a night's picture
# (games/picture.py) alone: no compiler, no pip.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 tzdata ca-certificates fonts-dejavu-core \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 999 --create-home --shell /usr/sbin/nologin scorekeeper
COPY --from=build /venv /venv
COPY --from=build /app /app
COPY deploy/entrypoint deploy/start.py /app/deploy/
WORKDIR /app
# DEBUG=False: a server, which starts only with a strong SECRET_KEY (games.E001, games.E003)
# and never makes up a key of its own. PYTHONUNBUFFERED: every log line reaches stdout at once.
ENV PATH=/venv/bin:$PATH DEBUG=False PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1 \
    WEB_CONCURRENCY=4
USER scorekeeper
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=4)"]
ENTRYPOINT ["/app/deploy/entrypoint"]
# Four workers keep the log-in page answering beside two of the heaviest imports (README);
# WEB_CONCURRENCY sets another number. gunicorn's own log and the access log go to stdout.
CMD ["gunicorn", "scorekeeper.wsgi", "--bind", "0.0.0.0:8000", "--timeout", "30", \
     "--access-logfile", "-", "--error-logfile", "-"]
