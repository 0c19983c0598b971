"""Settings for the Buck Euchre score keeper. Everything that varies comes from the environment."""

import logging
import os
import secrets
from collections.abc import MutableMapping
from datetime import timedelta
from pathlib import Path

import dj_database_url
from csp.constants import NONE, SELF

BASE_DIR = Path(__file__).resolve().parent.parent


def envbool(name: str, default: str) -> bool:
    return os.getenv(name, default).lower() in ("1", "true", "yes", "on")


def envint(name: str, default: int) -> int:
    return int(os.getenv(name) or default)


def envlist(name: str, default: str) -> list[str]:
    return [item.strip() for item in os.getenv(name, default).split(",") if item.strip()]


def local_secret_key(path: Path) -> str:
    """A key made up once for this checkout and kept in a git-ignored file, so that a laptop
    needs no setup and its sessions outlive a restart."""
    if path.exists():
        return path.read_text().strip()
    key = secrets.token_urlsafe(50)
    spare = path.with_name(f"{path.name}.{os.getpid()}")
    spare.write_text(key + "\n")
    spare.chmod(0o600)
    try:
        os.link(spare, path)  # atomic: when two processes race, both keep the first key
    except FileExistsError:
        key = path.read_text().strip()
    finally:
        spare.unlink()
    return key


DEBUG = envbool("DEBUG", "False")
# A deployment says DEBUG=False and must bring its own key: without one SECRET_KEY stays empty
# and the system check games.E001 stops every command and the server (see wsgi.py).
# With DEBUG unset (a laptop on the home Wi-Fi) a local key is made up once.
if os.getenv("SECRET_KEY"):
    SECRET_KEY = os.environ["SECRET_KEY"]
elif os.getenv("DEBUG") and not DEBUG:
    SECRET_KEY = ""
else:
    SECRET_KEY = local_secret_key(BASE_DIR / ".secret_key")
# The phones at the table reach the app by this machine's LAN address, so any host is
# allowed unless ALLOWED_HOSTS says otherwise (it must, once mail is configured: games.E002).
ALLOWED_HOSTS = envlist("ALLOWED_HOSTS", "*")
CSRF_TRUSTED_ORIGINS = envlist("CSRF_TRUSTED_ORIGINS", "")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "axes",
    "csp",
    "django_htmx",
    "template_partials",
    "games",
]

MIDDLEWARE = [
    # /healthz answers before the host and HTTPS checks: a monitor asks by 127.0.0.1 over HTTP.
    "games.middleware.HealthMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # Pages compressed for a phone on a weak signal (static files come compressed from WhiteNoise).
    "django.middleware.gzip.GZipMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "csp.middleware.CSPMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "games.middleware.HtmxLoginMiddleware",
    "games.middleware.PrivatePagesMiddleware",
    "games.middleware.WrongMethodMiddleware",
    # Nothing above reads the body (CSRF reads it in process_view, after every middleware's
    # __call__): the limits refuse a body before it is read, and their answer still gets the
    # headers of every page.
    "games.middleware.BodyLimitMiddleware",
    "games.middleware.DatabaseTroubleMiddleware",
    "games.middleware.NotFoundInWordsMiddleware",
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "scorekeeper.urls"
WSGI_APPLICATION = "scorekeeper.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DATABASES = {
    "default": dj_database_url.config(
        default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}", conn_max_age=600
    )
}
# How long a save waits for another one's lock before the page says the score keeper can't
# save right now (503): well inside gunicorn's 30 s time-out, which would kill the worker.
DATABASE_TIMEOUT = envint("DATABASE_TIMEOUT", 20)
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Writers take the lock when they begin, never by upgrading a read lock halfway (which
    # fails at once with "database is locked"); WAL lets pages read while a hand is saved.
    DATABASES["default"]["OPTIONS"] = {
        "transaction_mode": "IMMEDIATE",
        "timeout": DATABASE_TIMEOUT,
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }
elif DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    DATABASES["default"].setdefault("OPTIONS", {})["options"] = (
        f"-c lock_timeout={DATABASE_TIMEOUT}s"
    )
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"


# The most boards the database cache keeps: a board a phone at each of several thousand tables.
DB_CACHE_ENTRIES = 20_000


def cache_from_url(url: str) -> dict[str, object]:
    """The shared cache every worker and every server sees (drawn boards): the database's
    own cache table by default (made by migration 0012), or Redis or Memcached."""
    scheme, _, rest = url.partition("://")
    if scheme == "db":
        # Django's default of 300 entries would cull live boards past about a hundred tables.
        return {
            "BACKEND": "django.core.cache.backends.db.DatabaseCache",
            "LOCATION": rest,
            "OPTIONS": {"MAX_ENTRIES": DB_CACHE_ENTRIES},
        }
    if scheme in ("redis", "rediss"):
        return {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": url}
    if scheme == "memcached":
        backend = "django.core.cache.backends.memcached.PyMemcacheCache"
        return {"BACKEND": backend, "LOCATION": rest}
    raise ValueError(f"CACHE_URL must start with db://, redis:// or memcached://, not {url!r}")


# How often a board left open asks whether its match changed (an unchanged one answers 204),
# in seconds: while it is played, and once it is won.
POLL_SECONDS = 2
POLL_SECONDS_WON = 10

CACHE_TABLE = "games_cache"
CACHES = {"default": cache_from_url(os.getenv("CACHE_URL") or f"db://{CACHE_TABLE}")}

AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "games:home"
LOGOUT_REDIRECT_URL = "login"
# A private server closes sign-up (SIGNUP_OPEN=false) and makes accounts with `createsuperuser`
# or the admin.
SIGNUP_OPEN = envbool("SIGNUP_OPEN", "True")

# The address a request comes from (games.throttles.client_address): REMOTE_ADDR, or behind
# TRUSTED_PROXIES proxies (the README's Caddy or nginx: 1) the address the outermost of them
# saw, from X-Forwarded-For. Unset, that header is never read: a client could write anything.
TRUSTED_PROXIES = envint("TRUSTED_PROXIES", 0)

# Ten wrong passwords for one account from one address lock that account from that address
# for 15 minutes: a stranger elsewhere cannot lock a member out. Thirty from one address,
# whatever the usernames, lock every log-in from it (games.throttles.LoginHandler). Every phone
# at a table shares one Wi-Fi address, so both are well above what a table mistypes. axes.W006,
# its advice to lock by address alone, is silenced below.
AXES_FAILURE_LIMIT = 10
LOGIN_FAILURES_PER_ADDRESS = 30
AXES_COOLOFF_TIME = timedelta(minutes=15)
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_HANDLER = "games.throttles.LoginHandler"
AXES_CLIENT_IP_CALLABLE = "games.throttles.client_address"
# A username longer than axes' column is cut to it: the log-in is refused all the same.
AXES_USERNAME_CALLABLE = "games.throttles.attempted_username"
AXES_USERNAME_FORM_FIELD = "username"  # the log-in form's field, as axes has it by default
AXES_RESET_ON_SUCCESS = True
# The cool-off runs from the tenth wrong password, not from the latest try.
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
AXES_LOCKOUT_CALLABLE = "games.responses.locked_out"
AXES_DISABLE_ACCESS_LOG = True  # keep no log of who logged in from where
# Sign-ups and password-reset mails from one address, and reset mails for one account, an
# hour (games.throttles.allow): beyond, the page says to try again later (429).
SIGNUPS_PER_ADDRESS = 10
RESET_MAILS_PER_ADDRESS = 5
RESET_MAILS_PER_ACCOUNT = 3

# Mail is optional: without EMAIL_HOST nobody is offered a password reset.
EMAIL_HOST = os.getenv("EMAIL_HOST", "")
EMAIL_PORT = envint("EMAIL_PORT", 587)
EMAIL_HOST_USER = os.getenv("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.getenv("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = envbool("EMAIL_USE_TLS", "True")
DEFAULT_FROM_EMAIL = os.getenv("DEFAULT_FROM_EMAIL", "webmaster@localhost")

LANGUAGE_CODE = "en-us"
TIME_ZONE = os.getenv("TIME_ZONE", "America/Chicago")
# The app speaks English only: no translation machinery behind every number a page shows.
USE_I18N = False
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = BASE_DIR / "staticfiles"


def static_headers(headers: MutableMapping[str, str], path: str, url: str) -> None:
    """Static files are never pages: nothing in them may run, nor be read as another type."""
    headers["X-Content-Type-Options"] = "nosniff"
    headers["Content-Security-Policy"] = "default-src 'none'"


WHITENOISE_ADD_HEADERS_FUNCTION = static_headers
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        # The app's own CSS and JavaScript minified, then hashed and compressed (WhiteNoise).
        "BACKEND": "games.storage.MinifiedStaticFilesStorage"
        if not DEBUG
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}

# Money (issue #34 §2): limits no real table reaches, which keep every sum of money one plain
# 64-bit integer on SQLite and PostgreSQL, with room to spare. This is the arithmetic, once.
# - One loser owes at most MAX_LOSS_CENTS in a match: 100,000,000 cents, 1,000,000 of the
#   currency, reckoned at the worst its rules and stakes allow over games.models.MAX_HANDS
#   hands (rules.most_owed: the game, every point the score can reach, every hand fallen short).
# - A group keeps at most MAX_GROUP_MATCHES matches: 100,000.
# A new match, an edit of a match's stakes or rules (the admin) or an import that would pass
# either is refused in words. So, with at most 6 seats (rules.SEAT_COUNTS), 5 of them losers:
#   one result (Result.net_cents):        at most 5 × 10^8            = 5 × 10^8 cents;
#   a player's sum over their group:      at most 10^5 matches × 5 × 10^8 = 5 × 10^13;
#   any sum of a group's results (Σ|net|: 10^9 a match, paid and collected) ≤ 10^14;
#   2^63 − 1 ≈ 9.2 × 10^18: over 90,000 times the largest sum a group can hold, so a
#   person's money summed over all their groups (a running total, a balance) fits too.
# No sum is split: Result.net_cents, ResultSum.net_cents, NightSum.net_cents and
# Result.running_cents are one BigIntegerField each, and a SUM of them never overflows.
MAX_LOSS_CENTS = 100_000_000
MAX_GROUP_MATCHES = 100_000

# Every request body is refused past its limit before it is read (games.middleware.
# BodyLimitMiddleware, 413): a match file is at most 1 MB (a 1,000-hand match takes about
# 200 KB), an import of several files at most 3 MB and 100 files in all, and any other form
# at most 16 KB (the largest, a new match with every house rule set, is under 2 KB). An import
# stores at most 3,000 hands a request (about 2 s of work), so that one stranger cannot keep
# a worker busy for long.
MAX_UPLOAD_SIZE = 1_000_000
MAX_IMPORT_SIZE = 3_000_000
MAX_IMPORT_HANDS = 3_000
MAX_FORM_SIZE = 16_000
DATA_UPLOAD_MAX_MEMORY_SIZE = MAX_FORM_SIZE
DATA_UPLOAD_MAX_NUMBER_FILES = 100
# Files are held in memory (at most MAX_IMPORT_SIZE), never written to a temporary file.
FILE_UPLOAD_HANDLERS = ["django.core.files.uploadhandler.MemoryFileUploadHandler"]
FILE_UPLOAD_MAX_MEMORY_SIZE = MAX_IMPORT_SIZE
# A zip of match files (a backup) to import: at most MAX_ZIP_FILES files, each within
# MAX_UPLOAD_SIZE unpacked and all within MAX_ZIP_SIZE (1,000 matches of 13 hands or so:
# 0.6 MB zipped, 3.2 MB unpacked); the import's own limits above apply to its files too.
MAX_ZIP_FILES = 1_000
MAX_ZIP_SIZE = 20_000_000

CSRF_FAILURE_VIEW = "games.responses.csrf_failure"  # a page in words, not Django's own

SESSION_COOKIE_AGE = 60 * 60 * 24 * 90  # a card night should not end with a log-in screen
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"

# HTTPS=true: the app sits behind a TLS proxy that sets X-Forwarded-Proto (and must strip it
# from what clients send). Unset, plain HTTP on the LAN keeps working: no redirect, no
# Secure-only cookies, no HSTS.
HTTPS = envbool("HTTPS", "False")
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if HTTPS else None
SECURE_SSL_REDIRECT = HTTPS
SESSION_COOKIE_SECURE = HTTPS
CSRF_COOKIE_SECURE = HTTPS
SECURE_HSTS_SECONDS = envint("HSTS_SECONDS", 60 * 60 * 24 * 365) if HTTPS else 0
# includeSubDomains and preload bind every other site of the group's domain to HTTPS and are
# hard to take back, so they are opt-in, and check --deploy's reminders of them (W005, W021)
# are silenced.
SECURE_HSTS_INCLUDE_SUBDOMAINS = envbool("HSTS_INCLUDE_SUBDOMAINS", "False")
SECURE_HSTS_PRELOAD = envbool("HSTS_PRELOAD", "False")
SILENCED_SYSTEM_CHECKS = ["security.W005", "security.W021", "axes.W006"]

# No inline script or style anywhere: htmx is configured to match in templates/base.html.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "connect-src": [SELF],
        "manifest-src": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
        "base-uri": [NONE],
        "object-src": [NONE],
    }
}


def refusal_in_one_line(record: logging.LogRecord) -> bool:
    """A refusal (403, 404 …) is a line in the log, not a traceback: a viewer tapping Save or
    a link to a deleted match is no fault of the server's (Django logs a 403 with its
    exception)."""
    if 400 <= getattr(record, "status_code", 0) < 500:
        record.exc_info, record.exc_text = None, None
    return True


# Errors and their tracebacks go to standard error, where gunicorn and systemd keep them.
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "{asctime} {levelname} {name}: {message}", "style": "{"}},
    "filters": {
        "refusals": {"()": "django.utils.log.CallbackFilter", "callback": refusal_in_one_line}
    },
    "handlers": {
        "stderr": {"class": "logging.StreamHandler", "formatter": "plain", "filters": ["refusals"]}
    },
    "root": {"handlers": ["stderr"], "level": os.getenv("LOG_LEVEL", "WARNING")},
    "loggers": {"django": {"handlers": ["stderr"], "level": "INFO", "propagate": False}},
}
