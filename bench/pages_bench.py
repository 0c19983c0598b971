"""How the scoreboard's cost grows with a match's length, measured in one run.

Renders the scoreboard of a 3-hand and of a 60-hand match (and the log-in page, as a
baseline of Django's own cost) through the test client on a throwaway SQLite database, and
prints the time per page and the ratios. Run with `.venv/bin/python bench/pages_bench.py`.
"""

import os
import sys
import tempfile
import time
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

from games import rules  # noqa: E402
from games.models import Match  # noqa: E402

settings.STORAGES["staticfiles"]["BACKEND"] = (
    "django.contrib.staticfiles.storage.StaticFilesStorage"
)
settings.ALLOWED_HOSTS = ["*"]
CLUB = rules.Hand("clubs", tricks={"Ann": 2, "Bob": 1, "Cat": 1, "Dan": 1})


def timed(client: Client, url: str, runs: int = 200) -> float:
    client.get(url)
    start = time.perf_counter()
    for _ in range(runs):
        assert client.get(url).status_code == 200
    return (time.perf_counter() - start) / runs


def main():
    call_command("migrate", verbosity=0)
    user = get_user_model().objects.create_user("bench")
    ruleset = rules.make_ruleset("standard", starting_score=1000)
    urls = {}
    for n in (3, 60):
        match = Match.create(
            user, "standard", ruleset, rules.Stakes(), ["Ann", "Bob", "Cat", "Dan"], "Dan"
        )
        match.record([CLUB] * n)
        urls[n] = match.get_absolute_url()
    client = Client()
    baseline = timed(client, "/accounts/login/")
    client.force_login(user)
    figures = {n: timed(client, url) for n, url in urls.items()}
    print(f"log-in page (baseline): {baseline * 1000:.2f} ms")
    for n, seconds in figures.items():
        print(
            f"scoreboard, {n:2} hands: {seconds * 1000:.2f} ms,"
            f" {seconds / baseline:.1f}× the log-in page"
        )
    print(f"60 hands cost {figures[60] / figures[3]:.2f}× what 3 hands cost")
    DB.unlink()


if __name__ == "__main__":
    main()
