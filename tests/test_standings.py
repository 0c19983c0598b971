"""A season's standings (#44 §3): each year, all time and an owner's season, per player over
the finished matches; the same numbers as the stored results added up one by one, the player
pages and the balances; the page, its picker, its CSV and the seasons an owner names."""

import csv
import html
import io
import random
from datetime import date, datetime, timedelta

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from games import rules
from games.models import (
    STAKED,
    Group,
    Match,
    Player,
    Result,
    Role,
    Season,
    Span,
    create_match,
    day_start,
    group_balances,
    standings,
)
from games.views.common import stats_context

from .conftest import url
from .matches import random_match

pytestmark = pytest.mark.django_db

STAKES = (
    rules.Stakes(),
    rules.Stakes(per_game=100, per_point=10),
    rules.Stakes(per_set=25),
    rules.Stakes(per_game=50, per_point=5, currency="EUR"),
)
NAMES = ("Ann", "Bob", "Cat", "Dan", "Eve", "Fay")


def generated(user, seed: int, count: int, years=(2025, 2026)) -> Group:
    """`count` random matches of every preset over `years`, some still going, some for money
    in dollars or euros, seated from six names."""
    rnd = random.Random(seed)
    for i in range(count):
        names = tuple(rnd.sample(NAMES, 6))
        m = random_match(rnd, rnd.choice(sorted(rules.PRESETS)), names=names)
        hands = m.hands if rnd.random() < 0.85 else m.hands[: len(m.hands) // 2]
        year = years[i % len(years)]
        played_at = timezone.make_aware(datetime(year, 1, 1, 20)) + timedelta(
            days=rnd.randrange(360), minutes=rnd.randrange(200)
        )
        create_match(
            user, m.preset, m.ruleset, STAKES[i % 4], m.players, m.first_dealer, hands, played_at
        )
    return Group.home(user)


def added_up(group: Group, first: datetime | None, last: datetime | None) -> dict[str, dict]:
    """The standings' numbers by player name, from the stored results one by one."""
    out: dict[str, dict] = {}
    results = Result.objects.filter(match__group=group).select_related("match", "player")
    staked = set(results.filter(STAKED).values_list("pk", flat=True))
    for r in results:
        at = r.match.played_at
        if r.match.finished is None or (first and at < first) or (last and at >= last):
            continue
        mine = out.setdefault(
            r.player.name,
            {"played": 0, "won": 0, "money": {}, "points": 0, "dealt_in": 0, "sets": 0, "moons": 0},
        )
        mine["played"] += 1
        mine["won"] += r.won
        if r.pk in staked:
            currency = r.match.currency
            mine["money"][currency] = mine["money"].get(currency, 0) + r.net_cents
        mine["points"] += r.points
        mine["dealt_in"] += r.dealt_in
        mine["sets"] += r.was_set
        mine["moons"] += r.moons_made
    return out


def as_added(rows) -> dict[str, dict]:
    return {
        s.name: {
            "played": s.played,
            "won": s.won,
            "money": s.money,
            "points": s.points,
            "dealt_in": s.dealt_in,
            "sets": s.was_set,
            "moons": s.moons_made,
        }
        for s in rows
    }


@pytest.mark.parametrize("seed", [1, 2])
def test_the_standings_of_each_year_and_all_time_add_up_the_finished_matches(user, seed):
    group = generated(user, seed, 40)
    assert Match.objects.filter(group=group, finished__isnull=True).exists()
    for span in (Span.year(2025), Span.year(2026), Span.year(2024), None):
        rows, currencies = standings(group.pk, span)
        first, last = (span.start, span.end) if span else (None, None)
        expected = added_up(group, first, last)
        assert as_added(rows) == expected
        money = {c for e in expected.values() for c in e["money"]}
        assert set(currencies) == money
    assert standings(group.pk, Span.year(2024)) == ([], [])


def test_a_named_season_counts_its_first_and_last_days_whole(user):
    group = generated(user, 5, 30, years=(2026,))
    season = Span.days(date(2026, 3, 1), date(2026, 6, 30))
    rows, _ = standings(group.pk, season)
    expected = added_up(
        group,
        timezone.make_aware(datetime(2026, 3, 1)),
        timezone.make_aware(datetime(2026, 7, 1)),
    )
    assert as_added(rows) == expected and expected


def test_players_come_by_money_then_wins_and_one_without_a_finished_match_is_left_out(user):
    group = generated(user, 7, 30)
    rows, currencies = standings(group.pk, None)
    keys = [(*(-s.money.get(c, 0) for c in currencies), -s.won, s.name) for s in rows]
    assert keys == sorted(keys)
    assert all(s.played > 0 for s in rows)
    create_match(
        user,
        "standard",
        rules.make_ruleset("standard"),
        STAKES[1],
        ("Gus", "Hal", "Ivy", "Jo"),
        "Jo",
        (),
        timezone.now(),
    )
    names = {s.name for s in standings(group.pk, None)[0]}
    assert not names & {"Gus", "Hal", "Ivy", "Jo"}


def test_all_time_agrees_with_the_player_pages_and_the_balances(user):
    """Every match finished: all time is the players' own statistics and, with no payment,
    the balances."""
    rnd = random.Random(11)
    for i in range(24):
        m = random_match(rnd, rnd.choice(sorted(rules.PRESETS)), names=NAMES)
        played_at = timezone.make_aware(datetime(2026, 1, 1, 20)) + timedelta(days=i * 3)
        create_match(
            user, m.preset, m.ruleset, STAKES[i % 4], m.players, m.first_dealer, m.hands, played_at
        )
    group = Group.home(user)
    assert not Match.objects.filter(group=group, finished__isnull=True).exists()
    rows, _ = standings(group.pk, None)
    assert as_added(rows) == as_added(standings(group.pk, Span.year(2026))[0])
    balances = {
        (s.currency, name): net for s in group_balances(group) for name, net in s.net.items()
    }
    for s in rows:
        player = Player.objects.get(pk=s.player)
        totals = player.totals()
        assert (s.played, s.won, s.money) == (totals["finished"], totals["won"], totals["money"])
        overall = dict(stats_context(player.result_sums.summed())["overall"])
        per_hand = overall["Points per hand"]
        assert per_hand == ("–" if s.per_hand is None else f"{s.per_hand:.2f}".replace("-", "−"))
        assert overall["Sets"] == str(s.was_set)
        for currency, cents in s.money.items():
            assert balances[currency, s.name] == cents


# --- The page ---------------------------------------------------------------------------------


def text(response) -> str:
    return html.unescape(response.content.decode())


def test_the_page_shows_a_year_and_all_time_and_says_so_for_a_season_it_has_not(client_in, user):
    group = generated(user, 3, 20)
    page = text(client_in.get(url("standings", group.pk) + "?season=2025"))
    rows, _ = standings(group.pk, Span.year(2025))
    assert "Standings · 2025" in page and rows
    order = [page.index(f">{s.name}</a>") for s in rows]
    assert order == sorted(order)
    assert '<option value="2026">' in page and '<option value="all">All time</option>' in page

    page = text(client_in.get(url("standings", group.pk) + "?season=all"))
    assert "Standings · All time" in page

    response = client_in.get(url("standings", group.pk) + "?season=s99999")
    assert response.status_code == 200
    assert "There is no such season (deleted?): here is the current one." in text(response)
    for bad in ("²", "s²", "99999999999999999999", "s" + "9" * 30, "1899"):
        assert client_in.get(url("standings", group.pk), {"season": bad}).status_code == 200


def test_the_csv_has_the_rows_of_the_page(client_in, user):
    group = generated(user, 4, 20)
    response = client_in.get(url("standings_csv", group.pk) + "?season=all")
    assert response["Content-Disposition"].endswith('standings-all.csv"')
    lines = list(csv.reader(io.StringIO(response.content.decode())))
    rows, currencies = standings(group.pk, None)
    assert lines[0][:5] == ["place", "player", "played", "won", "win rate"]
    assert lines[0][5 : 5 + len(currencies)] == [f"net {c}" for c in currencies]
    assert [line[1] for line in lines[1:]] == [s.name for s in rows]
    first = rows[0]
    assert lines[1][2:4] == [str(first.played), str(first.won)]
    assert lines[1][5] == rules.format_money(first.money.get(currencies[0], 0))


def test_an_owner_names_a_season_and_a_viewer_cannot(client, user, django_user_model):
    group = generated(user, 6, 10, years=(2026,))
    client.force_login(user)
    to = url("season_create", group.pk)
    response = client.post(to, {"name": "Spring", "start": "2026-06-30", "end": "2026-03-01"})
    assert "The last day comes before the first: swap them?" in text(response)
    response = client.post(to, {"name": " ", "start": "soon", "end": ""})
    page = text(response)
    assert "A season needs a name." in page and "Give a day such as 2026-09-01." in page
    assert not Season.objects.exists()
    response = client.post(to, {"name": "Spring", "start": "2026-03-01", "end": "2026-06-30"})
    season = Season.objects.get()
    assert response.status_code == 302 and response["Location"].endswith(f"?season=s{season.pk}")
    page = text(client.get(response["Location"]))
    assert "Standings · Spring" in page and "Spring (1 Mar 2026 – 30 Jun 2026)" in page

    viewer = django_user_model.objects.create_user("vic")
    group.join(viewer, Role.VIEWER)
    client.force_login(viewer)
    assert (
        client.post(to, {"name": "Mine", "start": "2026-01-01", "end": "2026-01-02"}).status_code
        == 403
    )
    assert client.post(url("season_delete", group.pk, season.pk)).status_code == 403
    client.force_login(user)
    client.post(url("season_delete", group.pk, season.pk))
    assert not Season.objects.exists()


def test_home_links_the_standings_of_the_current_season(client_in, user, monkeypatch):
    group = Group.home(user)
    today = timezone.localdate()
    page = text(client_in.get(url("home")))
    assert f'standings/?season={today.year}">Standings of {today.year}</a>' in page
    named = {"name": "This winter", "start": today, "end": today}
    client_in.post(url("season_create", group.pk), named)
    season = Season.objects.get()
    page = text(client_in.get(url("home")))
    assert f'standings/?season=s{season.pk}">Standings of This winter</a>' in page
    assert get_user_model().objects.count() == 1
    # The next day, with no write meanwhile, the season is the year again.
    tomorrow = day_start(today + timedelta(days=1)) + timedelta(minutes=1)
    monkeypatch.setattr(timezone, "now", lambda: tomorrow)
    year = tomorrow.year
    page = text(client_in.get(url("home")))
    assert f'standings/?season={year}">Standings of {year}</a>' in page


def test_the_picker_lists_at_most_fifty_years(user):
    from games.models.seasons import years

    for year in (1950, 2026):
        create_match(
            user,
            "standard",
            rules.make_ruleset("standard"),
            STAKES[1],
            ("Ann", "Bob", "Cat", "Dan"),
            "Dan",
            (),
            timezone.make_aware(datetime(year, 6, 1, 20)),
        )
    found = years(Group.home(user).pk)
    assert found[0] == 2026 and len(found) == 50 and found[-1] == 1977
