"""The largest matches the app accepts, many of them: every page that adds them up answers."""

import json
from dataclasses import replace
from datetime import timedelta

import pytest
from django.conf import settings
from django.urls import reverse

from games import matchfile, rules
from games.models import MAX_HANDS, Night, Player, import_match

pytestmark = pytest.mark.django_db

# Stakes at the limit (settings.MAX_LOSS_CENTS): under RULES below a loser could owe, at the
# worst, 10.00 + 49.99 × 10,000 points + 500.09 × 1,000 hands fallen short = 1,000,000.00.
STAKES = {"per_game": "10.00", "per_point": "49.99", "per_set": "500.09"}
RULES = {"preset": "standard", "starting_score": 5_000}
# Ann makes trump and is set, Bob and Cat play and take no trick, every hand; then Dan sweeps.
SET = {"upcard": "hearts", "trump": "hearts", "maker": "Ann"}
SET |= {"tricks": {"Ann": 1, "Bob": 0, "Cat": 0, "Dan": 4}}
SWEEP = {"upcard": "hearts", "trump": "hearts", "maker": "Dan", "dropped": ["Ann", "Bob", "Cat"]}
SWEEP |= {"tricks": {"Dan": 5}}
MATCHES = 48


def largest() -> str:
    """A match file at the caps: stakes at the most a loser may owe, the most hands."""
    return json.dumps(
        {
            "format": "buck-euchre/1",
            "rules": RULES,
            "stakes": STAKES,
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
        match, stored = import_match(user, later)
        assert stored
    state, _ = match.replay()
    _, net = rules.settle(state, match.stakes())
    most, _, _ = rules.most_owed(state.ruleset, match.stakes(), MAX_HANDS)
    assert most == settings.MAX_LOSS_CENTS  # the largest stakes the limit takes
    assert net["Ann"] == -99_924_996 and net["Dan"] == 3 * 99_924_996  # near it
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
