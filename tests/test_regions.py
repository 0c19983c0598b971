"""The pages over many matches drawn once a version of the group's data (games/regions.py):
drawn again after every write to the group, never before, never for another role or page,
and each request with its own CSRF token."""

import re
from datetime import timedelta
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from games import regions, rules
from games.models import Group, Match, Night, Player, Role, add_hand
from games.views.matches import TONIGHT

from .conftest import make_match
from .matches import CLUB_HAND as CLUB

pytestmark = pytest.mark.django_db

SWEEP = rules.Hand("hearts", "hearts", "Bob", None, ("Ann", "Cat", "Dan"), {"Bob": 5})
STAKES = rules.Stakes(per_game=100, per_point=10)
CSRF = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


def pages(user) -> dict[str, str]:
    group = Group.home(user)
    ann = Player.objects.get(group=group, name="Ann")
    night = Match.objects.filter(group=group).latest("played_at").night_id
    return {
        "home": reverse("games:home"),
        "past matches": reverse("games:match_list"),
        "record": f"{reverse('games:match_list')}?player={ann.pk}",
        "night": reverse("games:night_detail", args=[night]),
        "player": reverse("games:player_detail", args=[ann.pk]),
        "nights": reverse("games:night_list"),
    }


def drawn(client, path: str) -> tuple[str, int]:
    """The page, without its CSRF tokens, and how many queries it took."""
    with CaptureQueriesContext(connection) as queries:
        response = client.get(path)
    assert response.status_code == 200
    html = CSRF.sub("", response.content.decode())
    return re.sub(r'"X-CSRFToken": "[^"]+"', "", html), len(queries.captured_queries)


def test_a_page_drawn_again_at_the_same_version_is_the_same_page_from_the_cache(client_in, user):
    for _ in range(3):
        make_match(user, hands=[CLUB, SWEEP], stakes=STAKES)
    for name, path in pages(user).items():
        first, asked = drawn(client_in, path)
        again, asked_again = drawn(client_in, path)
        assert again == first, name
        assert asked_again < asked, name


def test_every_write_to_the_group_draws_its_pages_anew(client_in, user):
    make_match(user, hands=[CLUB, SWEEP], stakes=STAKES)
    match = make_match(user, hands=[CLUB], stakes=STAKES)
    paths = pages(user)
    before = {name: drawn(client_in, path)[0] for name, path in paths.items()}
    bob = Player.objects.get(name="Bob")
    renamed = client_in.post(reverse("games:player_rename", args=[bob.pk]), {"name": "Robert"})
    assert "Bob is called Robert now" in client_in.get(renamed["Location"]).content.decode()
    del paths["nights"]  # names no player: test_a_new_night_is_on_the_list_at_once
    for name, path in paths.items():
        page, _ = drawn(client_in, path)
        assert page != before[name] and "Bob" not in page, name
        if name != "player":  # Ann's page names no other player
            assert "Robert" in page, name
    before = {name: drawn(client_in, path)[0] for name, path in paths.items()}
    match = Match.objects.get(pk=match.pk)
    club = rules.Hand("clubs", tricks={"Ann": 2, "Robert": 1, "Cat": 1, "Dan": 1})
    add_hand(match, 2, club, match.version)  # a hand saved: the scores move on every page
    for name in ("home", "past matches", "record", "night", "player"):
        assert drawn(client_in, paths[name])[0] != before[name], name


def test_a_new_night_is_on_the_list_at_once(client_in, user):
    make_match(user, hands=[SWEEP], played_at=timezone.now() - timedelta(days=2))
    path = reverse("games:night_list")
    before, _ = drawn(client_in, path)
    assert before.count('class="match-card"') == 1 and "1 match from" in before
    make_match(user, hands=[CLUB], played_at=timezone.now() - timedelta(days=2, minutes=-50))
    later, _ = drawn(client_in, path)
    assert later.count('class="match-card"') == 1 and "2 matches from" in later
    make_match(user, hands=[CLUB])  # tonight: a night of its own, first on the list
    now, _ = drawn(client_in, path)
    assert now.count('class="match-card"') == 2
    assert now.index("1 match from") < now.index("2 matches from")


def test_a_region_is_drawn_for_each_role_and_each_page_of_a_list(client, user):
    for day in range(25):
        make_match(user, hands=[SWEEP], played_at=timezone.now() - timedelta(days=day))
    viewer = get_user_model().objects.create_user("vic")
    Group.home(user).join(viewer, Role.VIEWER)
    group = Group.home(user)
    client.force_login(user)
    mine = client.get(reverse("games:match_list")).content.decode()
    second = client.get(reverse("games:match_list") + "?page=2").content.decode()
    client.force_login(viewer)
    theirs = client.get(reverse("games:match_list") + f"?group={group.pk}").content.decode()
    assert "Import match files" in mine and "Import match files" not in theirs
    assert "Page 1 of 2" in mine and "Page 2 of 2" in second
    assert mine.count('class="match-card"') == 20 and second.count('class="match-card"') == 5


def test_a_form_drawn_from_the_cache_carries_the_token_of_the_request(client, user, settings):
    make_match(user, hands=[SWEEP], stakes=STAKES)
    night = Night.objects.get()
    path = reverse("games:night_detail", args=[night.pk])
    first, second = (get_user_model().objects.create_user(n) for n in ("cat", "dan"))
    for member in (first, second):
        Group.home(user).join(member, Role.SCORER)
    tokens = []
    for member in (user, first, second):
        from django.test import Client

        phone = Client(enforce_csrf_checks=True)
        phone.force_login(member)
        html = phone.get(path).content.decode()
        assert regions.CSRF_MARK not in html
        token = CSRF.search(html).group(1)
        tokens.append(token)
        key = re.search(r'name="key" value="([^"]+)"', html).group(1)
        fingerprint = re.search(r'name="fingerprint" value="([^"]+)"', html).group(1)
        data = {"csrfmiddlewaretoken": token, "key": key, "fingerprint": fingerprint, "paid": "1"}
        marked = phone.post(reverse("games:night_paid", args=[night.pk]), data)
        assert marked.status_code == 302  # the token was this phone's own
        phone.post(reverse("games:night_paid", args=[night.pk]), {**data, "paid": "0"})
    assert len(set(tokens)) == 3


def test_tonights_settle_up_becomes_that_nights_twelve_hours_on_without_a_write(
    client_in, user, monkeypatch
):
    make_match(user, hands=[SWEEP], stakes=STAKES)
    assert "Tonight's settle-up" in client_in.get(reverse("games:home")).content.decode()
    later = timezone.now() + TONIGHT + timedelta(minutes=1)
    monkeypatch.setattr(timezone, "now", lambda: later)
    home = client_in.get(reverse("games:home")).content.decode()
    assert "Tonight's settle-up" not in home and "Settle-up of" in home


def test_a_new_release_draws_anew(client_in, user, monkeypatch):
    make_match(user, hands=[SWEEP], stakes=STAKES)
    _, asked = drawn(client_in, reverse("games:home"))
    monkeypatch.setattr(regions, "DIGEST", "another release")
    assert drawn(client_in, reverse("games:home"))[1] == asked


@pytest.mark.parametrize(
    "changed",
    [
        "games/views/board.py",
        "games/models/matches.py",
        "games/templatetags/games.py",
        "games/rules/match.py",
        "scorekeeper/settings.py",
        "games/templates/games/match_detail.html",
        "templates/base.html",
        "static/css/app.css",
        "static/js/offline.js",
    ],
)
def test_a_release_that_changes_any_file_that_draws_a_page_changes_the_key(tmp_path, changed):
    root = Path(regions.__file__).resolve().parent.parent
    for pattern in regions.DRAWN_BY:
        for path in root.glob(pattern):
            if path.is_file():
                copy = tmp_path / path.relative_to(root)
                copy.parent.mkdir(parents=True, exist_ok=True)
                copy.write_bytes(path.read_bytes())
    before = regions.digest(tmp_path)
    assert before == regions.DIGEST
    with (tmp_path / changed).open("a") as file:
        file.write("\n")
    assert regions.digest(tmp_path) != before


def test_the_admin_s_edit_of_a_player_draws_the_pages_anew(client, client_in, user):
    make_match(user, hands=[SWEEP], stakes=STAKES)
    before = client_in.get(reverse("games:home")).content.decode()
    assert "Bob" in before
    admin = get_user_model().objects.create_superuser("boss", password="x-y-z-12")
    client.force_login(admin)
    bob = Player.objects.get(name="Bob")
    change = reverse("admin:games_player_change", args=[bob.pk])
    answer = client.post(change, {"group": bob.group_id, "name": "Bobby"})
    assert answer.status_code == 302
    after = client_in.get(reverse("games:home")).content.decode()
    assert "Bobby" in after


def test_a_region_a_write_landed_in_while_it_was_drawn_is_shown_but_not_kept(rf, user):
    group = Group.home(user)
    request = rf.get("/")
    request.user = user

    def torn():  # another phone's write commits while the region is drawn
        Group.objects.filter(pk=group.pk).update(version=group.version + 1)
        return {"page": "drawn across a write"}, None

    def drawing(words):
        return lambda: ({"page": words}, None)

    assert regions.region(request, group, "test", (), torn)["page"] == "drawn across a write"
    # Not kept: a request that read the version before the write draws its own.
    assert regions.region(request, group, "test", (), drawing("again"))["page"] == "again"
    group.version += 1  # as a request reads it now
    assert regions.region(request, group, "test", (), drawing("anew"))["page"] == "anew"
    assert regions.region(request, group, "test", (), drawing("not drawn"))["page"] == "anew"


def test_a_board_s_cache_key_is_one_any_cache_takes(client, client_in, user):
    """A name with a space in it made a key memcached refuses (Django warns of any such key)."""
    import warnings

    from django.core.cache.backends.base import CacheKeyWarning

    match = make_match(user, names=("Mary Ann", "Bob", "Cat", "Dan " + "x" * 30), dealer="Cat")
    with warnings.catch_warnings():
        warnings.simplefilter("error", CacheKeyWarning)
        for board in (match.get_absolute_url(), match.get_share_url()):
            assert client_in.get(board).status_code == 200
            assert "Mary Ann" in client_in.get(board).content.decode()  # from the cache


def test_a_drawing_s_key_moves_with_the_clock_and_the_app(monkeypatch):
    words = ("board", 7, "2026-12-01T20:00:00", 3, ("Mary Ann", "Bob"))
    key = regions.cache_key(*words)
    assert len(key) < 100 and " " not in key
    assert regions.cache_key(*words) == key
    with timezone.override("Asia/Tokyo"):
        assert regions.cache_key(*words) != key
    monkeypatch.setattr(regions, "DIGEST", "another release")
    assert regions.cache_key(*words) != key
