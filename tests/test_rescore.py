"""rescore: the engine's verdict on every match written anew from its hands."""

import pytest
from django.core.management import call_command

from games import rules
from games.models import Hand, Match, Result

from .conftest import make_match

# Bob orders hearts up, Cat drops, Bob takes 3 and Dan 2 (Dan deals: seat 3).
ORDERED = rules.Hand("hearts", "hearts", "Bob", None, ("Cat",), {"Ann": 0, "Bob": 3, "Dan": 2})

pytestmark = pytest.mark.django_db


def test_rescore_writes_the_verdict_anew_from_the_hands(user, capsys):
    match = make_match(user, hands=[ORDERED])
    scores = list(Result.objects.filter(match=match).order_by("seat").values_list("score"))
    # Rows changed behind the app: a seat's result and a hand's verdict.
    Result.objects.filter(match=match, seat=0).update(score=99)
    Hand.objects.filter(match=match).update(dealer=2)
    call_command("rescore", "--group", str(match.group_id))
    assert list(Result.objects.filter(match=match).order_by("seat").values_list("score")) == scores
    assert Hand.objects.get(match=match).dealer == 3
    assert "1 matches rescored." in capsys.readouterr().out
    assert Match.objects.get(pk=match.pk).hands_played == 1
