"""The largest matches the app accepts, many of them: every page that adds them up answers."""

import json
from dataclasses import replace
from datetime import timedelta

import pytest
from django.urls import reverse

from games import matchfile, rules
from games.models import MAX_HANDS, Match, Night, Player

pytestmark = pytest.mark.django_db

TOP = f"{99_999_999 / 100:.2f}"  # the largest stake the app takes: 999,999.99
# Ann makes trump and is set, Bob and Cat play and take no trick, every hand; then Dan sweeps.
SET = {"upcard": "hearts", "trump": "hearts", "maker": "Ann"}
SET |= {"tricks": {"Ann": 1, "Bob": 0, "Cat": 0, "Dan": 4}}
SWEEP = {"upcard": "hearts", "trump": "hearts", "maker": "Dan", "dropped": ["Ann", "Bob", "Cat"]}
SWEEP |= {"tricks": {"Dan": 5}}
MATCHES = 48


def largest() -> str:
    """A match file at the caps: the largest stakes, score and penalties, the most hands."""
    return json.dumps(
        {
            "format": "buck-euchre/1",
            "rules": {
                "preset": "standard",
                "starting_score": rules.MAX_POINTS,
                "set_penalty": rules.MAX_POINTS,
                "zero_trick_penalty": rules.MAX_POINTS,
            },
            "stakes": {"per_game": TOP, "per_point": TOP, "per_set": TOP},
            "players": ["Ann", "Bob", "Cat", "Dan"],
            "first_dealer": "Dan",
            "played_at": "2026-11-28T19:00:00-06:00",
            "hands": [SET] * (MAX_HANDS - 1) + [SWEEP],
        }
    )


def test_pages_that_add_up_the_largest_matches_answer(client_in, user):
    first = matchfile.parse(largest())  # the others: the same file, a minute apart
    for minute in range(MATCHES):
        later = replace(first, played_at=first.played_at + timedelta(minutes=minute))
        match, stored = Match.import_file(user, later)
        assert stored
    state, _ = match.replay()
    _, net = rules.settle(state, match.stakes())
    assert net["Dan"] * MATCHES > 2**63  # more than a 64-bit sum holds
    [night] = Night.objects.filter(group__home_of=user)
    dan = Player.objects.get(group__home_of=user, name="Dan")
    pages = [
        reverse("games:home"),
        night.get_absolute_url(),
        reverse("games:night_csv", args=[night.pk]),
        dan.get_absolute_url(),
        dan.get_matches_url(),
        reverse("games:player_csv", args=[dan.pk]),
        reverse("games:night_list"),
    ]
    for url in pages:
        assert client_in.get(url).status_code == 200, url
    csv = client_in.get(reverse("games:night_csv", args=[night.pk])).content.decode()
    assert f"USD,net,Dan,,{rules.format_money(net['Dan'] * MATCHES)}," in csv
