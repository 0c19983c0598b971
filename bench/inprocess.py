"""What the benchmarks that time pages in-process share: Django set up on a throwaway SQLite
database for the test client, and timing by turns.

Import it before anything of Django's: `from inprocess import DB, by_turns`.
"""

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
DB = Path(tempfile.mkdtemp()) / "bench.sqlite3"
os.environ["DATABASE_URL"] = f"sqlite:///{DB}"
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "scorekeeper.settings")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.core.management import call_command  # noqa: E402

settings.STORAGES["staticfiles"]["BACKEND"] = (
    "django.contrib.staticfiles.storage.StaticFilesStorage"
)
settings.ALLOWED_HOSTS = ["*"]
warnings.filterwarnings("ignore", message="No directory at")  # static files are not served
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
