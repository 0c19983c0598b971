"""The money limits (settings.MAX_LOSS_CENTS, settings.MAX_GROUP_MATCHES): a match, an edit
or an import past them is refused in words, however it comes in."""

import json

import pytest
from django.core.exceptions import ValidationError

from games import rules
from games.models import MAX_HANDS, Group, Match

from .conftest import command, make_match, url
from .matches import EXAMPLE, NEW_MATCH

pytestmark = pytest.mark.django_db

# Standard rules: at worst 5,025 points (25 + 5 a hand over 1,000 hands), 1,000 sets.
OVER = (
    "At these stakes one loser could owe up to 1,000,050.25 in a match (a match of 1,000 hands "
    "under these rules can reach 5,025 points and 1,000 hands fallen short); the most one "
    "loser may owe in a match is 1,000,000. Lower the stakes."
)
OVER_FILE = {**EXAMPLE, "stakes": {"per_game": "25.00", "per_point": "199.01"}}
FULL = (
    "A group keeps at most 2 matches, and this one has that many: start another group for the "
    "next ones."
)


def upload(name, doc):
    from django.core.files.uploadedfile import SimpleUploadedFile

    return SimpleUploadedFile(name, json.dumps(doc).encode(), content_type="application/json")


def test_the_most_a_loser_can_owe_follows_the_rules():
    standard = rules.make_ruleset("standard")
    stakes = rules.Stakes(per_game=100, per_point=10, per_set=1)
    assert rules.most_owed(standard, stakes, MAX_HANDS) == (100 + 10 * 5_025 + 1_000, 5_025, 1_000)
    # A penalty never passes the start with cap_at_start; a missed moon is two hands short.
    capped = rules.make_ruleset("dirty-clubs-up")
    assert rules.most_owed(capped, stakes, 1_000)[1:] == (15, 2_000)
    # The larger penalty counts, a set's or a hand without a trick's.
    odd = rules.make_ruleset("standard", set_penalty=None, zero_trick_penalty=8)
    assert rules.most_owed(odd, stakes, 10)[1] == 25 + 80


def test_a_match_a_loser_could_owe_too_much_in_is_refused_in_words(user):
    with pytest.raises(rules.RuleError, match=OVER.replace("(", r"\(").replace(")", r"\)")):
        make_match(user, stakes=rules.Stakes(per_game=2_500, per_point=19_901))
    make_match(user, stakes=rules.Stakes(per_game=2_500, per_point=19_900))  # the limit itself
    assert Match.objects.count() == 1


def test_the_new_match_form_refuses_stakes_past_the_limit(client_in):
    data = {**NEW_MATCH, "create": "1", "per_game": "25.00", "per_point": "199.01"}
    page = client_in.post(url("match_create"), data).content.decode()
    assert OVER in page and not Match.objects.exists()


def test_an_import_past_the_limit_is_refused_in_words(client_in, files):
    page = client_in.post(
        url("match_import"), {"file": upload("big.json", OVER_FILE)}, follow=True
    ).content.decode()
    assert f"big.json: Nothing was imported. {OVER}" in page
    [path] = files(OVER_FILE)
    code, out, err = command("import_match", path)
    assert code == 1 and out == "" and f"{path}: nothing imported. {OVER} (bad_file)" in err
    assert not Match.objects.exists()


def test_the_admins_edit_of_stakes_or_rules_past_the_limit_is_refused(user):
    match = make_match(user, stakes=rules.Stakes(per_game=2_500, per_point=19_900))
    match.full_clean()
    match.per_point_cents += 1
    with pytest.raises(ValidationError, match="the most one loser may owe in a match is"):
        match.full_clean()
    match.per_point_cents -= 1
    match.options = {**match.options, "zero_trick_penalty": 6}  # more points to reach
    with pytest.raises(ValidationError, match="can reach 6,025 points"):
        match.full_clean()


def test_a_group_keeps_at_most_so_many_matches(client_in, user, settings, files):
    settings.MAX_GROUP_MATCHES = 2
    first = make_match(user, stakes=rules.Stakes(per_game=100))
    make_match(user)
    with pytest.raises(rules.RuleError, match=FULL):
        make_match(user)
    page = client_in.post(url("match_create"), {**NEW_MATCH, "create": "1"}).content.decode()
    assert FULL in page
    response = client_in.post(url("match_rematch", first.pk), follow=True)
    assert FULL in response.content.decode()
    page = client_in.post(
        url("match_import"), {"file": upload("m.json", EXAMPLE)}, follow=True
    ).content.decode()
    assert f"m.json: Nothing was imported. {FULL}" in page
    [path] = files(EXAMPLE)
    code, _, err = command("import_match", path, "--user", user.username)
    assert code == 1 and f"{path}: nothing imported. {FULL} (bad_file)" in err
    unsaved = Match(group=Group.home(user), preset="standard", options={}, currency="USD")
    with pytest.raises(ValidationError, match="A group keeps at most 2 matches"):
        unsaved.clean()
    assert Match.objects.count() == 2
    # Another group has room of its own.
    make_match(Group.objects.create(name="Tuesdays"))
    assert Match.objects.count() == 3
