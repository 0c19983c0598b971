"""Other tables' rules in the app (#36 §2): the moon stored and replayed, five and six seats,
the new options as house rules, count_up shown on the pages."""

import json

from games import matchfile
from games.models import Hand, Match, Result

from .conftest import command
from .test_models import assert_results_are_a_replay, reload
from .test_moon import EXAMPLE_8

PLAYED_8 = {**EXAMPLE_8, "played_at": "2026-11-28T19:30:00-06:00"}


def test_a_moon_imported_is_stored_replays_exactly_and_exports_back(user, files):
    [path] = files(PLAYED_8)
    code, _, err = command("import_match", path)
    assert code == 0, err
    match = Match.objects.get()
    assert list(Hand.objects.filter(match=match).values_list("moon", flat=True)) == [False, True]
    assert_results_are_a_replay(match)
    state, results = reload(match).replay()
    assert (state.winners, state.won_by) == (("Bob",), "moon")
    bob = Result.objects.get(match=match, player__name="Bob")
    assert (bob.moons_declared, bob.moons_made) == (1, 1)
    code, out, _ = command("export_match", str(match.pk))
    assert json.loads(out)["hands"][1]["moon"] is True
    assert matchfile.parse(out) == matchfile.parse(json.dumps(PLAYED_8))
