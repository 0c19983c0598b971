"""What the pages over many matches cost, and how they grow, measured in one run.

Stores 10, 300 and 1,000 finished matches for three groups (random valid matches of every
preset, four a night, through Match.create as the app stores them) on a throwaway SQLite
database, then times the home page, the past-matches list, a player's record
(`/matches/?player=ID`), the latest night, a player's page and the group's balances through
the test client, each against a minimal view (a small template and one query), and prints
those ratios and each page's cost with 1,000 matches over its cost with 10. Run with
`.venv/bin/python bench/records_bench.py`.
"""

import random
import sys
import types
from datetime import timedelta

from inprocess import DB, answered, by_turns  # sets Django up: before anything of Django's

# isort: split

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.template import engines
from django.test import Client
from django.urls import include, path
from django.utils import timezone

from games import rules
from games.models import Group, Match, Player
from tests.matches import random_match

SIZES = (10, 300, 1000)
SMALL = engines["django"].from_string("<!doctype html><title>{{ n }}</title><p>{{ n }} matches</p>")
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


@login_required
def minimal(request):
    """Django's own floor for a page: a small template and one query."""
    count = Match.objects.filter(group__memberships__user=request.user).count()
    return HttpResponse(SMALL.render({"n": count}))


urls = types.ModuleType("bench_urls")
urls.urlpatterns = [path("minimal/", minimal), path("", include("scorekeeper.urls"))]
sys.modules["bench_urls"] = urls
settings.ROOT_URLCONF = "bench_urls"
PAGES = ("home", "past matches", "record", "night", "player", "balances")


def main():
    rnd = random.Random(8)
    pages = {}
    for n in SIZES:
        user = get_user_model().objects.create_user(f"user{n}")
        store(user, n, rnd)
        ann = Player.objects.get(group__home_of=user, name="Ann")
        night = Match.objects.filter(group__home_of=user).latest("played_at").night_id
        client = Client()
        client.force_login(user)
        pages["minimal", n] = answered(200, client.get, "/minimal/")
        for page, url in zip(
            PAGES,
            (
                "/",
                "/matches/",
                f"/matches/?player={ann.pk}",
                f"/nights/{night}/",
                f"/players/{ann.pk}/",
                f"/groups/{Group.home(user).pk}/balances/",
            ),
            strict=True,
        ):
            pages[page, n] = answered(200, client.get, url)
    figures = by_turns(pages, rounds=40)
    small, big = SIZES[0], SIZES[-1]
    print(f"{'':13}" + "".join(f"{n:>8} matches" for n in SIZES) + "   growth")
    for page in PAGES:
        ratios = "".join(f"{figures['minimal', n] / figures[page, n]:15.2f}×" for n in SIZES)
        growth = figures[page, big] / figures[page, small]
        print(f"{page:13}{ratios}   {growth:.2f}×")
    print("(each page against the minimal view of the same size; growth: 1,000 matches over 10)")
    DB.unlink()


if __name__ == "__main__":
    main()
