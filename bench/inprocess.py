"""What the benchmarks that time pages in-process share: Django set up on a throwaway
database for the test client, and timing by turns.

The database is a throwaway SQLite file, or, where `DATABASE_URL` names a PostgreSQL database,
a throwaway database beside it on the same server (its name with `_bench` after it, made and
dropped by Django's test machinery), so that nothing of the named one is touched.

Import it before anything of Django's: `from inprocess import DB, by_turns`; `DB.unlink()`
at the end throws the database away.
"""

import contextlib
import io
import os
import random
import statistics
import sys
import tempfile
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
POSTGRES = os.environ.get("DATABASE_URL", "").startswith(("postgres://", "postgresql://"))
if not POSTGRES:
    SQLITE = Path(tempfile.mkdtemp()) / "bench.sqlite3"
    os.environ["DATABASE_URL"] = f"sqlite:///{SQLITE}"
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "scorekeeper.settings")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402

settings.STORAGES["staticfiles"]["BACKEND"] = (
    "django.contrib.staticfiles.storage.StaticFilesStorage"
)
settings.ALLOWED_HOSTS = ["*"]
warnings.filterwarnings("ignore", message="No directory at")  # static files are not served
DATABASE = "PostgreSQL" if POSTGRES else "SQLite"


class _Throwaway:
    """The benchmark's own PostgreSQL database, made (and migrated) beside the named one."""

    def __init__(self):
        self.named = connection.settings_dict["NAME"]
        connection.settings_dict["TEST"]["NAME"] = f"{self.named}_bench"
        with contextlib.redirect_stdout(io.StringIO()):  # "Cache table … already exists."
            connection.creation.create_test_db(verbosity=0, autoclobber=True, serialize=False)

    def unlink(self):
        connection.creation.destroy_test_db(self.named, verbosity=0)


if POSTGRES:
    DB = _Throwaway()
else:
    DB = SQLITE
    call_command("migrate", verbosity=0)


def answered(status: int, send, *args, **kwargs):
    """A request (a function of no argument) that must be answered with `status`."""

    def request():
        assert send(*args, **kwargs).status_code == status

    return request


def by_turns(requests: dict, rounds: int, warm_up: int = 5) -> dict:
    """The median seconds of each request (a function of no argument). The requests take
    turns, round after round, so that a change in the machine's load weighs on each alike,
    in a new order each round, so that none always comes after the same one (a cheap
    request timed right after a costly one finds the processor's caches cold)."""
    for _ in range(warm_up):
        for send in requests.values():
            send()
    times = {key: [] for key in requests}
    order = list(requests.items())
    shuffle = random.Random(1).shuffle
    for _ in range(rounds):
        shuffle(order)
        for key, send in order:
            start = time.perf_counter()
            send()
            times[key].append(time.perf_counter() - start)
    return {key: statistics.median(t) for key, t in times.items()}
