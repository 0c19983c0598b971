"""How the pages that list matches grow with a user's number of matches, measured in one run.

Stores 10 finished matches for one user and 1,000 for another (random valid matches of every
preset, four a night, through Match.create as the app stores them) on a throwaway SQLite
database, then times the home page, the past-matches list and a player's record
(`/matches/?player=ID`) of each through the test client, and prints each page's cost with
1,000 matches over its cost with 10. Run with `.venv/bin/python bench/records_bench.py`.
"""

import os
import random
import statistics
import sys
import tempfile
import time
import warnings
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
DB = Path(tempfile.mkdtemp()) / "bench.sqlite3"
os.environ["DATABASE_URL"] = f"sqlite:///{DB}"
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "scorekeeper.settings")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.contrib.auth import get_user_model  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.test import Client  # noqa: E402
from django.utils import timezone  # noqa: E402

from games import rules  # noqa: E402
from games.models import Match, Player  # noqa: E402
from tests.matches import random_match  # noqa: E402

settings.STORAGES["staticfiles"]["BACKEND"] = (
    "django.contrib.staticfiles.storage.StaticFilesStorage"
)
settings.ALLOWED_HOSTS = ["*"]
warnings.filterwarnings("ignore", message="No directory at")  # static files are not served
SIZES = (10, 1000)
STAKES = rules.Stakes(per_game=100, per_point=10, per_set=25)


def store(user, count: int, rnd: random.Random):
    """`count` finished matches, four a night, the latest night this evening."""
    evening = timezone.now() - timedelta(hours=1)
    for i in range(count):
        m = random_match(rnd, rnd.choice(sorted(rules.PRESETS)))
        while not m.hands or not rules.replay(m.start(), m.hands)[0].finished:
            m = random_match(rnd, rnd.choice(sorted(rules.PRESETS)))
        night, game = divmod(count - 1 - i, 4)
        played_at = evening - timedelta(days=7 * night, minutes=50 * (3 - game))
        Match.create(
            user, m.preset, m.ruleset, STAKES, m.players, m.first_dealer, m.hands, played_at
        )


def timed(pages: dict, rounds: int = 60) -> dict:
    """The median time of each page's request. The pages take turns, round after round, so
    that a change in the machine's load weighs on every one of them alike."""
    times = {key: [] for key in pages}
    for _ in range(5):
        for client, url in pages.values():
            assert client.get(url).status_code == 200
    for _ in range(rounds):
        for key, (client, url) in pages.items():
            start = time.perf_counter()
            client.get(url)
            times[key].append(time.perf_counter() - start)
    return {key: statistics.median(t) for key, t in times.items()}


def main():
    call_command("migrate", verbosity=0)
    rnd = random.Random(8)
    pages = {}
    for n in SIZES:
        user = get_user_model().objects.create_user(f"user{n}")
        store(user, n, rnd)
        ann = Player.objects.get(owner=user, name="Ann")
        client = Client()
        client.force_login(user)
        pages[("home", n)] = client, "/"
        pages[("past matches", n)] = client, "/matches/"
        pages[("record", n)] = client, f"/matches/?player={ann.pk}"
    figures = timed(pages)
    small, big = SIZES
    for page in ("home", "past matches", "record"):
        a, b = figures[page, small], figures[page, big]
        print(
            f"{page:13} {small:5} matches: {a * 1000:6.2f} ms   {big:5} matches: "
            f"{b * 1000:6.2f} ms   ratio {b / a:.2f}×"
        )
    DB.unlink()


if __name__ == "__main__":
    main()
