"""Other tables' rules in the app (#36 §2): the moon stored and replayed, five and six seats,
the new options as house rules, count_up shown on the pages."""

import json
import re

from games import matchfile, rules
from games.models import Hand, Match, Result

from .conftest import HX, command, drawn, make_match, url
from .matches import EXAMPLE_8
from .pages import shown
from .stored import assert_results_are_a_replay, reload

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


# --- The hand form asks "Shoot the moon?" where the maker may (§4) ---------------------------

SIX = ("Ann", "Bob", "Cat", "Dan", "Eve", "Fay")
# Hand 1 of a six-player dirty-clubs-up match (Fay deals): Ann bids 3 in spades and makes it;
# Dan and Eve drop out, so they are not yet on the board.
FIRST = {"upcard": "hearts", "maker": "0", "trump": "spades", "bid": "3"}
FIRST_TRICKS = {"dropped": ["Dan", "Eve"], "t0": "3", "t1": "1", "t2": "1", "t5": "0"}


def six_up(user, **overrides):
    return make_match(user, "dirty-clubs-up", names=SIX, dealer="Fay", **overrides)


def moon_shown(html: str) -> bool:
    return 'name="moon"' in shown(html)


def test_the_moon_is_asked_only_of_a_maker_on_the_board(client_in, user):
    match = six_up(user)
    check = url("hand_check", match.pk)
    first = client_in.post(check, drawn(match, {"number": "1", **FIRST}), **HX).content.decode()
    assert 'name="moon"' in first and not moon_shown(first)  # drawn for the phone, hidden
    hand_1 = {"number": "1", **FIRST, **FIRST_TRICKS}
    client_in.post(url("hand_create", match.pk), drawn(match, hand_1))
    assert Hand.objects.filter(match=match).count() == 1
    # Ann has taken tricks: she may shoot the moon; Bob has too; Dan has not.
    ann = {"number": "2", "upcard": "diamonds", "maker": "0", "trump": "hearts"}
    html = client_in.post(check, drawn(match, ann), **HX).content.decode()
    assert not moon_shown(html)  # the moon is a bid of five: asked once five is bid
    ann["bid"] = "3"
    assert not moon_shown(client_in.post(check, drawn(match, ann), **HX).content.decode())
    ann["bid"] = "5"
    html = client_in.post(check, drawn(match, ann), **HX).content.decode()
    assert moon_shown(html) and "Shoot the moon" in shown(html)
    dan = {**ann, "maker": "3"}
    assert not moon_shown(client_in.post(check, drawn(match, dan), **HX).content.decode())
    # A standard match never draws it.
    standard = make_match(user)
    page = client_in.get(standard.get_absolute_url()).content.decode()
    assert 'name="moon"' not in page


def test_a_moon_made_in_one_tap_ends_the_match_and_a_bad_moon_is_refused_in_words(client_in, user):
    match = six_up(user)
    save = url("hand_create", match.pk)
    client_in.post(save, drawn(match, {"number": "1", **FIRST, **FIRST_TRICKS}))
    # Dan has not played: the server refuses his moon, in the engine's words.
    dan = {"number": "2", "upcard": "diamonds", "maker": "3", "trump": "hearts", "bid": "5"}
    dan |= {"moon": "1", "t3": "5", "t0": "0", "t1": "0", "t2": "0", "t4": "0", "t5": "0"}
    html = shown(client_in.post(save, drawn(match, dan)).content.decode())
    assert "Dan can&#x27;t shoot the moon: Dan hasn&#x27;t taken a trick" in html
    # Ann's moon on a bid of 3 is refused too.
    ann = {**dan, "maker": "0", "bid": "3", "t3": "0", "t0": "5"}
    html = shown(client_in.post(save, drawn(match, ann)).content.decode())
    assert "Ann can&#x27;t shoot the moon on a bid of 3" in html
    assert Hand.objects.filter(match=match).count() == 1
    # On a bid of 5 she takes four: missed, two bumps (capped at the start), and the match
    # goes on; the edit page holds the moon, and an edit to five tricks ends the match.
    client_in.post(save, drawn(match, {**ann, "bid": "5", "t0": "4", "t1": "1"}))
    hand = Hand.objects.get(match=match, number=2)
    assert hand.moon
    state, results = reload(match).replay()
    assert results[1].moon_missed == "Ann" and state.sets["Ann"] == 2 and not state.finished
    assert state.shown("Ann") == 0  # 3 up, two bumps stop at the start
    board = shown(client_in.get(match.get_absolute_url()).content.decode())
    assert "Ann shot the moon and missed" in board
    edit = client_in.get(url("hand_edit", match.pk, 2)).content.decode()
    assert 'name="moon" value="1" id="id_moon" checked' in edit
    data = {**ann, "bid": "5", "t0": "5", "t1": "0"}
    client_in.post(url("hand_edit", match.pk, 2), drawn(match, data))
    state, _ = reload(match).replay()
    assert (state.winners, state.won_by) == (("Ann",), "moon")
    board = shown(client_in.get(match.get_absolute_url()).content.decode())
    assert "shot the moon" in board
    # The player's statistics count the moon (§12).
    ann = match.seats.get(position=0).player
    page = client_in.get(url("player_detail", ann.pk)).content.decode()
    assert '<th scope="row">Moons shot</th><td>1</td>' in page
    assert '<th scope="row">Of those, made</th><td>1</td>' in page


# --- The new-match page: five and six seats, the new options, the preset ---------------------

SIX_SEATS = {f"seat_{i}": name for i, name in enumerate(SIX)}


def test_six_players_start_dirty_clubs_counted_up(client_in):
    page = client_in.get(url("match_create")).content.decode()
    assert 'value="dirty-clubs-up"' in page and 'name="seat_5"' in page
    assert 'placeholder="empty if 5"' in page
    for label in ("Penalties stop at the starting score", "A maker may shoot the moon"):
        assert label in page
    assert "Show scores counting up" in page
    data = {"preset": "dirty-clubs-up", **SIX_SEATS, "dealer": "5", "create": "1"}
    response = client_in.post(url("match_create"), data)
    match = Match.objects.with_seats().get()
    assert response["Location"] == match.get_absolute_url()
    assert match.names == SIX and match.start().dealer == "Fay"
    r = match.ruleset()
    assert r.cap_at_start and r.moon and r.count_up


def test_the_new_options_are_house_rules_on_any_preset_and_said_in_full(client_in):
    data = {"preset": "standard", **SIX_SEATS, "seat_5": "", "dealer": "0", "create": "1"}
    refused = shown(client_in.post(url("match_create"), data).content.decode())
    assert "5" in refused and not Match.objects.exists()  # standard is for 3 or 4
    rules_on = {"rule_cap_at_start": "true", "rule_moon": "true", "rule_count_up": "true"}
    data |= {"rule_players": "3,4,5,6", **rules_on}
    drawn_again = {k: v for k, v in data.items() if k != "create"}
    words = client_in.post(url("match_create"), drawn_again, **HX).content.decode()
    # Counted up, every score is said as the board shows it.
    assert "A penalty never takes a score below 0" in words and "count up to 25" in words
    assert "may shoot the moon" in words and "The end" in words
    client_in.post(url("match_create"), data)
    match = Match.objects.with_seats().get()
    assert len(match.names) == 5
    assert rules.ruleset_overrides("standard", match.ruleset()) == {
        "players": [3, 4, 5, 6],
        "cap_at_start": True,
        "moon": True,
        "count_up": True,
    }


# --- count_up: the pages count up, the files count down ---------------------------------------


def test_the_board_cards_race_and_csv_count_up_where_the_rules_say_so(client_in, user):
    hand_1 = rules.Hand(
        "hearts", "spades", "Ann", 3, ("Dan", "Eve"), {"Ann": 3, "Bob": 1, "Cat": 1, "Fay": 0}
    )
    match = six_up(user, hands=[hand_1])
    board = shown(client_in.get(match.get_absolute_url()).content.decode())
    # Ann took 3 (15 → 12 kept, 3 shown); Fay took none: a bump, stopped at the start (0).
    assert '<span class="points">3</span>' in board
    assert '<span class="down">+3</span> <span class="cell-score">3</span>' in board
    assert '<span class="cell-score">0</span>' in board
    cards = client_in.get(url("match_list")).content.decode()
    assert "Ann 3" in cards and "Bob 1" in cards
    race = client_in.get(url("match_race", match.pk)).content.decode()
    assert "from 0 at the start up toward 15" in race and "Ann is at 3" in race
    ann = match.seats.get(position=0).player
    lines = client_in.get(url("player_csv", ann.pk)).content.decode().splitlines()
    assert lines[0].endswith(",score_counted") and lines[1].endswith(",up")
    assert ",3,no," in lines[1]
    code, out, _ = command("export_match", str(match.pk))
    assert json.loads(out)["rules"] == "dirty-clubs-up"  # the file keeps counting down
    state, _ = matchfile.load(out)[1:]
    assert state.scores["Ann"] == 12


def test_every_page_and_csv_that_shows_a_counted_up_match_s_scores_shows_them_counted_up(
    client_in, user, files
):
    """#40 §5: the night page showed countdown numbers ("Ann 7 … Cat won" where the board
    says Ann 8). Each page and CSV that shows the scores of a finished dirty-clubs-up match
    shows them as its board does."""
    [path] = files(PLAYED_8)
    assert command("import_match", path)[0] == 0
    match = Match.objects.get()
    state, _ = match.replay()
    ruleset = match.ruleset()
    up = {p: rules.shown_score(ruleset, state.scores[p]) for p in state.players}
    down = {p: state.scores[p] for p in state.players}
    assert any(up[p] != down[p] for p in state.players)
    player = match.results.get(player__name="Bob").player
    pages = {
        "board": match.get_absolute_url(),
        "past matches": url("match_list"),
        "home": url("home"),
        "night": url("night_detail", match.night_id),
        "delete": url("match_delete", match.pk),
        "score race": url("match_race", match.pk),
    }
    for name, address in pages.items():
        text = re.sub(r"<[^>]+>", " ", shown(client_in.get(address).content.decode()))
        # A score as the pages show one: a name, then a number with no sign (a change has one).
        said = {
            (p, int(n))
            for p in state.players
            for n in re.findall(rf"\b{p}\s+(?:ends at |is at )?(\d+)\b", text)
        }
        assert said & set(up.items()), name
        counted_down = {(p, down[p]) for p in state.players if up[p] != down[p]}
        assert not said & counted_down, f"{name}: {sorted(said & counted_down)} counted down"
    rows = client_in.get(url("player_csv", player.pk)).content.decode().splitlines()
    assert f",{up['Bob']}," in rows[1] and "up" in rows[1]
