"""What the picture of a night costs (#44 §2): a night of 6 matches of 6 players (dirty clubs
up, the one preset that seats six), for money, a transfer paid, stored through create_match
on a throwaway database (see inprocess.py). Times, by turns, the picture as served
(`/nights/ID/night.png`: the night read, drawn and saved as a PNG), its drawing alone, and
the night's words for the chat; prints each median, the picture's size, and whether the aims
are met (the picture under 200 ms as served, under 150 KB).
Run with `.venv/bin/python bench/share_bench.py`.
"""

import random
from datetime import timedelta

from inprocess import DATABASE, DB, answered, by_turns  # sets Django up: before Django's

# isort: split

from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone

from games import picture
from games.models import Group, Night, mark_transfer, payment_key
from games.views.share import night_card
from tests.stored import a_night_of_six

ROUNDS = 40
AIM_SECONDS, AIM_BYTES = 0.2, 150_000


def main():
    rnd = random.Random(6)
    user = get_user_model().objects.create_user("six")
    start = timezone.now() - timedelta(hours=5)
    a_night_of_six(user, rnd, start, finished=True)
    night = Night.objects.get(group=Group.home(user))
    card = night_card(night)
    first = card.sections[0].transfers[0]
    mark_transfer(night, payment_key("USD", first.payer, first.payee), True, None)
    card = night_card(night)
    client = Client()
    client.force_login(user)
    png = client.get(f"/nights/{night.pk}/night.png").content
    took = by_turns(
        {
            "picture as served": answered(200, client.get, f"/nights/{night.pk}/night.png"),
            "drawing alone": lambda: picture.draw(card),
            "words for the chat": answered(200, client.get, f"/nights/{night.pk}/night.txt"),
        },
        rounds=ROUNDS,
    )
    players = len(card.sections[0].nets)
    print(f"The picture of a night on {DATABASE}: {len(card.matches)} matches, {players} players")
    for name, seconds in took.items():
        print(f"{name:20}{seconds * 1000:9.1f} ms")
    print(f"{'its size':20}{len(png) / 1000:9.1f} KB")
    met = took["picture as served"] < AIM_SECONDS and len(png) < AIM_BYTES
    print("\nEvery aim met (under 200 ms, under 150 KB)." if met else "\nAn aim is missed.")
    DB.unlink()


if __name__ == "__main__":
    main()
