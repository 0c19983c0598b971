"""What the pages of a match cost, as ratios to a minimal view, measured in one run.

The minimal view renders a small template with one query (Django's own floor for a page).
Against it: the scoreboard, a check of a hand being entered and a save, at 3, 20 and 60 hands,
and a live board's poll of an unchanged match (a 204). Through the test client on a throwaway
SQLite database, logged in. Run with `.venv/bin/python bench/pages_bench.py`.
"""

import os
import statistics
import sys
import tempfile
import time
import types
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
from django.contrib.auth.decorators import login_required  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.http import HttpResponse  # noqa: E402
from django.template import engines  # noqa: E402
from django.test import Client  # noqa: E402
from django.urls import include, path  # noqa: E402

from games import rules  # noqa: E402
from games.models import Match  # noqa: E402

settings.STORAGES["staticfiles"]["BACKEND"] = (
    "django.contrib.staticfiles.storage.StaticFilesStorage"
)
settings.ALLOWED_HOSTS = ["*"]
CLUB = rules.Hand("clubs", tricks={"Ann": 2, "Bob": 1, "Cat": 1, "Dan": 1})
CHECK = {"number": "0", "upcard": "hearts", "maker": "1", "trump": "hearts", "dropped": "Cat"}
SAVE = {"upcard": "clubs", "t0": "2", "t1": "1", "t2": "1", "t3": "1"}
HX = {"HTTP_HX_REQUEST": "true"}
SMALL = engines["django"].from_string("<!doctype html><title>{{ n }}</title><p>{{ n }} matches</p>")


@login_required
def minimal(request):
    return HttpResponse(SMALL.render({"n": Match.objects.filter(owner=request.user).count()}))


urls = types.ModuleType("bench_urls")
urls.urlpatterns = [path("minimal/", minimal), path("", include("scorekeeper.urls"))]
sys.modules["bench_urls"] = urls
settings.ROOT_URLCONF = "bench_urls"


def per_request(send, runs: int) -> float:
    """Median seconds per request, over `runs` requests in batches."""
    send(0)
    times = []
    for batch in range(5):
        start = time.perf_counter()
        for i in range(runs):
            send(batch * runs + i)
        times.append((time.perf_counter() - start) / runs)
    return statistics.median(times)


def measure(client: Client, n: int, match_with, runs: int) -> dict:
    """The scoreboard, a check and a save of a match of `n` hands."""
    match = match_with(n)
    board = match.get_absolute_url()
    check = {**CHECK, "number": str(n + 1), "version": str(match.version)}
    fresh = [match_with(n) for _ in range(6 * runs + 1)]

    def save(i):
        m = fresh[i]
        data = {**SAVE, "number": str(n + 1), "version": str(m.version)}
        assert client.post(f"/matches/{m.pk}/hands/", data, **HX).status_code == 200

    return {
        f"scoreboard, {n} hands": per_request(lambda i: client.get(board), runs),
        f"check, {n} hands": per_request(
            lambda i: client.post(f"{board}hands/check/", check, **HX), runs
        ),
        f"save, {n} hands": per_request(save, runs),
    }


def main():
    call_command("migrate", verbosity=0)
    user = get_user_model().objects.create_user("bench")
    ruleset = rules.make_ruleset("standard", starting_score=10_000)

    def match_with(n: int) -> Match:
        match = Match.create(
            user, "standard", ruleset, rules.Stakes(), ["Ann", "Bob", "Cat", "Dan"], "Dan"
        )
        match.record([CLUB] * n)
        return match

    client = Client()
    client.force_login(user)
    runs = 40
    figures = {"minimal view": per_request(lambda i: client.get("/minimal/"), runs)}
    for n in (3, 20, 60):
        figures |= measure(client, n, match_with, runs)
    match = match_with(20)
    poll = {"v": str(match.version), "n": "20"}
    figures["204 poll, 20 hands"] = per_request(
        lambda i: client.get(match.get_absolute_url(), poll, **HX), runs
    )
    base = figures["minimal view"]
    print(f"{'':24} {'ms':>7}  {'× the minimal view':>18}")
    for name, seconds in figures.items():
        print(f"{name:24} {seconds * 1000:7.2f}  {base / seconds:18.2f}")
    for what in ("scoreboard", "check", "save"):
        ratio = figures[f"{what}, 60 hands"] / figures[f"{what}, 3 hands"]
        print(f"{what}: 60 hands cost {ratio:.2f}× what 3 hands cost")
    DB.unlink()


if __name__ == "__main__":
    main()
