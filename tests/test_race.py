"""Many phones on one match, against gunicorn with 4 workers on its own database.

Each scenario is played many times with the requests let go at the same instant; after each,
the match must hold every write that was answered with success, replay cleanly, number its
hands 1..k and agree with its `finished` column.
"""

import html
import os
import re
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from games import matchfile

from .liveserver import FAST_HASH, Phone, hand_scores, hidden, query, serve
from .matches import CLUB_POST as CLUB
from .matches import STARTED

ROUNDS = 10
RACE_WRITES, RACE_RENAMES, RACE_MERGES = 90, 60, 20
OTHER_CLUB = {"upcard": "clubs", "t0": "1", "t1": "2", "t2": "1", "t3": "1"}
ORDERED = {"upcard": "hearts", "maker": "1", "trump": "hearts", "dropped": "Cat"}
ORDERED |= {"t0": "0", "t1": "3", "t3": "2"}
SWEEP = {"upcard": "hearts", "maker": "1", "trump": "hearts", "dropped": ["Ann", "Cat", "Dan"]}
SWEEP |= {"t1": "5"}


@pytest.fixture(scope="module")
def server():
    with serve(workers=4, **FAST_HASH) as (base, database):
        Phone(base, "table", signup=True)
        yield base, database


@pytest.fixture
def phones(server):
    base, _ = server
    return Phone(base, "table"), Phone(base, "table")


# How many of each test's rounds really overlapped: every request sent before any answer came
# back. A race test in which none did would prove nothing, so each checks and reports it.
OVERLAPPED: dict[str, list[bool]] = {}


@pytest.fixture(autouse=True)
def _the_requests_overlapped(request):
    rounds = OVERLAPPED.setdefault(request.node.name, [])
    yield
    if rounds:
        print(f"{request.node.name}: {sum(rounds)} of {len(rounds)} rounds overlapped")
        assert any(rounds), "no round had its requests in flight at once"


def at_once(*writes):
    """Run the writes, each (function, *args), on threads released together by a barrier;
    their responses. Notes whether they overlapped: every request was sent before the first
    answer came back."""
    start = threading.Barrier(len(writes))
    sent, answered = [], []

    def run(write):
        start.wait()
        sent.append(time.perf_counter())
        try:
            return write[0](*write[1:])
        finally:
            answered.append(time.perf_counter())

    with ThreadPoolExecutor(len(writes)) as pool:
        responses = list(pool.map(run, writes))
    name = os.environ.get("PYTEST_CURRENT_TEST", "").split("::")[-1].split(" ")[0]
    OVERLAPPED.setdefault(name, []).append(max(sent) < min(answered))
    return responses


def stored(server, phone: Phone, match: int) -> list[dict]:
    """The match's hands as stored, after checking that the match is whole and sound."""
    _, database = server
    data = phone.exported(match)
    game, state, results = matchfile.load(data)  # raises if any stored hand breaks a rule
    numbers = query(database, f"SELECT number FROM games_hand WHERE match_id = {match}")
    assert sorted(n for (n,) in numbers) == list(range(1, len(data["hands"]) + 1))
    [(finished,)] = query(database, f"SELECT finished FROM games_match WHERE id = {match}")
    assert (finished is not None) == state.finished
    scores = [[result.scores[name] for name in game.players] for result in results]
    assert hand_scores(database, match) == scores  # each hand's stored verdict is true to them
    sql = (
        "SELECT player.name, result.score FROM games_result result JOIN games_player player"
        f" ON player.id = result.player_id WHERE result.match_id = {match} ORDER BY result.seat"
    )
    assert query(database, sql) == [(name, state.scores[name]) for name in game.players]
    return data["hands"]


def with_hands(phone: Phone, hands) -> int:
    match = phone.new_match()
    for hand in hands:
        assert phone.save(match, phone.page(match), hand).status_code == 200
    return match


def test_a_double_tap_is_a_success_stored_once(server, phones):
    a, _ = phones
    for _ in range(ROUNDS):
        match = a.new_match()
        page = a.page(match)
        answers = at_once((a.save, match, page, CLUB), (a.save, match, page, CLUB))
        assert [r.status_code for r in answers] == [200, 200]
        assert len(stored(server, a, match)) == 1


def test_two_phones_saving_different_hands_at_once_one_wins_the_other_hears_409(server, phones):
    a, b = phones
    for _ in range(ROUNDS):
        match = a.new_match()
        page_a, page_b = a.page(match), b.page(match)
        answers = at_once((a.save, match, page_a, CLUB), (b.save, match, page_b, ORDERED))
        codes = [r.status_code for r in answers]
        assert sorted(codes) == [200, 409]
        winner = [CLUB, ORDERED][codes.index(200)]
        [hand] = stored(server, a, match)
        assert hand["upcard"] == winner["upcard"]
        loser = answers[codes.index(409)].text
        assert "Hand 1 was saved on another phone." in loser


def test_one_hand_sent_under_its_key_by_four_requests_at_once_is_stored_once(server, phones):
    a, _ = phones
    for round_ in range(ROUNDS):
        match = a.new_match()
        page = a.page(match)
        sent = {**CLUB, "key": f"outbox-{match}-{round_}"}
        answers = at_once(*[(a.save, match, page, sent)] * 4)
        assert [r.status_code for r in answers] == [200] * 4
        assert {r.headers["X-Match-Version"] for r in answers} == {"1"}
        assert not any("saved this same hand" in r.text for r in answers)
        assert len(stored(server, a, match)) == 1
        _, database = server
        keys = query(database, f"SELECT key FROM games_hand WHERE match_id = {match}")
        assert keys == [(sent["key"],)]


def test_two_scorers_of_a_group_saving_at_once_keep_every_guarantee(server):
    base, _ = server
    owner = Phone(base, "host", signup=True)
    friend = Phone(base, "friend", signup=True)
    friend.join(owner.invite("scorer"))
    for _ in range(ROUNDS):
        match = owner.new_match()
        page_a, page_b = owner.page(match), friend.page(match)
        answers = at_once(
            (owner.save, match, page_a, CLUB),
            (friend.save, match, page_b, ORDERED),
            (friend.save, match, page_b, ORDERED),  # and a double tap
        )
        codes = [r.status_code for r in answers]
        [hand] = stored(server, owner, match)
        if hand["upcard"] == "clubs":  # the owner's save won: both of the friend's hear 409
            assert codes == [200, 409, 409]
            assert "Hand 1 was saved by host on another phone." in answers[1].text
        else:  # the friend's won, and their double tap is that very hand: a success
            assert codes[1:] == [200, 200] and codes[0] == 409
            assert "Hand 1 was saved by friend on another phone." in answers[0].text


def test_a_stale_page_never_overwrites_and_its_entry_saves_as_the_next_hand(server, phones):
    a, b = phones
    match = a.new_match()
    page_b = b.page(match)  # drawn before A saves
    assert a.save(match, a.page(match), CLUB).status_code == 200
    check = b.post(match, "hands/check/", {**hidden(page_b, 'id="hand-form"'), "upcard": "hearts"})
    assert check.status_code == 409 and "Save changes" not in check.text
    refused = b.save(match, page_b, ORDERED)
    assert refused.status_code == 409 and 'id="conflict"' in refused.text
    assert "Save hand" not in refused.text  # both entries side by side, nothing one tap away
    # B chooses "Mine is the next hand": its preview as hand 2 first, then the Save.
    preview = b.post(match, "hands/check/", hidden(refused.text, 'id="mine-next"'))
    assert preview.status_code == 200 and "Save hand 2" in preview.text
    assert b.save(match, preview.text, ORDERED).status_code == 200
    hands = stored(server, a, match)
    assert [h["upcard"] for h in hands] == ["clubs", "hearts"]


def test_an_edit_racing_a_save_leaves_a_sound_match(server, phones):
    a, b = phones
    for _ in range(ROUNDS):
        match = with_hands(a, [CLUB] * 5)
        edit_page, board = a.page(match, "hands/3/"), b.page(match)
        answers = at_once(
            (a.edit, match, 3, edit_page, {**OTHER_CLUB, "number": "3"}),
            (b.save, match, board, ORDERED),
        )
        codes = sorted(r.status_code for r in answers)
        assert codes == [200, 409]
        hands = stored(server, a, match)
        edited = hands[2]["tricks"]["Bob"] == 2
        assert edited != (len(hands) == 6)  # exactly one of the two landed


def test_an_undo_racing_a_save_leaves_no_gap(server, phones):
    a, b = phones
    for _ in range(ROUNDS):
        match = with_hands(a, [CLUB] * 3)
        page_a, page_b = a.page(match), b.page(match)
        answers = at_once((a.undo, match, page_a), (b.save, match, page_b, ORDERED))
        assert sorted(r.status_code for r in answers) == [200, 409]
        assert len(stored(server, a, match)) in (2, 4)


def test_an_undo_racing_the_winning_hand_keeps_finished_true_to_the_hands(server, phones):
    a, b = phones
    for _ in range(ROUNDS):
        match = with_hands(a, [CLUB] * 2)
        page_a, page_b = a.page(match), b.page(match)
        answers = at_once((a.undo, match, page_a), (b.save, match, page_b, SWEEP))
        assert sorted(r.status_code for r in answers) == [200, 409]
        assert len(stored(server, a, match)) in (1, 3)


def test_pages_read_while_hands_are_edited_never_fail(server, phones):
    a, b = phones
    match = with_hands(a, [CLUB] * 4)
    stop = threading.Event()
    failures = []

    def read():
        while not stop.is_set():
            for path in ("", "hands/2/"):
                response = b.http.get(f"{b.base}/matches/{match}/{path}")
                if response.status_code >= 500:
                    failures.append(response.status_code)

    reader = threading.Thread(target=read)
    reader.start()
    try:
        for i in range(30):
            hand = [CLUB, OTHER_CLUB][i % 2]
            response = a.edit(match, 2, a.page(match, "hands/2/"), {**hand, "number": "2"})
            assert response.status_code == 200
    finally:
        stop.set()
        reader.join()
    assert failures == []
    stored(server, a, match)


def test_two_phones_starting_the_first_matches_of_a_night_at_once_share_the_night(server):
    base, database = server
    for i in range(5):
        first = Phone(base, f"evening{i}", signup=True)
        second = Phone(base, f"evening{i}")
        matches = at_once((first.new_match,), (second.new_match,))
        ids = ", ".join(str(m) for m in matches)
        nights = query(database, f"SELECT DISTINCT night_id FROM games_match WHERE id IN ({ids})")
        assert len(nights) == 1


class Log:
    """Each request's answer and when it was in flight, to count what overlapped."""

    def __init__(self):
        self.lock = threading.Lock()
        self.rows = []  # (what, start, end, status)

    def send(self, what: str, request, *args, **kwargs):
        start = time.monotonic()
        response = request(*args, **kwargs)
        with self.lock:
            self.rows.append((what, start, time.monotonic(), response.status_code))
        return response

    def statuses(self, what: str) -> list[int]:
        return [status for w, _, _, status in self.rows if w == what]

    def failures(self) -> list[tuple[str, int]]:
        return [(w, status) for w, _, _, status in self.rows if status >= 500]

    def overlapping(self, what: str, writes: tuple[str, ...]) -> int:
        """How many `what` requests were in flight while one of the `writes` was."""
        spans = [(s, e) for w, s, e, _ in self.rows if w in writes]
        return sum(
            any(s < end and start < e for s, e in spans)
            for w, start, end, _ in self.rows
            if w == what
        )


def player_id(database: str, username: str, name: str) -> int:
    [(pk,)] = query(
        database,
        "SELECT player.id FROM games_player player"
        " JOIN games_membership member ON member.group_id = player.group_id"
        " JOIN auth_user account ON account.id = member.user_id"
        f" WHERE account.username = '{username}' AND player.name = '{name}'",
    )
    return pk


def share_url(database: str, match: int) -> str:
    [(token,)] = query(database, f"SELECT share_token FROM games_match WHERE id = {match}")
    return f"/s/{token}/"


def player_form(phone: Phone, player: int, action: str) -> tuple[str, dict]:
    """The URL and hidden inputs of a form on a player's page: "rename" or "merge"."""
    url = f"{phone.base}/players/{player}/"
    return f"{url}{action}/", hidden(phone.http.get(url).text, f'{action}/"')


def sent(phone: Phone, url: str, data: dict) -> requests.Response:
    """A form sent without htmx, as a player's page sends it."""
    return phone.http.post(url, data, allow_redirects=False)


def read_until(stop: threading.Event, log: Log, phone: Phone, paths: list[str]):
    """Read the pages again and again until told to stop; a `?v=0` path is a board's poll."""
    while not stop.is_set():
        for path in paths:
            headers = {"HX-Request": "true"} if "?v=" in path else {}
            log.send("read", phone.http.get, phone.base + path, headers=headers)


def test_renames_racing_saves_edits_undos_and_reads_never_fail(server):
    base, database = server
    a = Phone(base, "renames", signup=True)
    renamer = Phone(base, "renames")
    match = with_hands(a, [CLUB] * 3)
    ann = player_id(database, "renames", "Ann")
    board, shared = f"/matches/{match}/", share_url(database, match)
    pages = [  # what the other phones at the table and the records read meanwhile
        [board, board + "?v=0", board + "hands/2/", shared, shared + "?v=0"],
        [f"/players/{ann}/", f"/matches/?player={ann}", "/"],
    ]
    log, stop = Log(), threading.Event()

    def write():
        # A save, an edit of hand 2 and an undo, each from a page drawn anew: the match
        # keeps 3 or 4 hands, and each write reads its names and hands.
        for i in range(RACE_WRITES):
            if i % 3 == 0:
                log.send("write", a.save, match, a.page(match), CLUB)
            elif i % 3 == 1:
                edit = {**[CLUB, OTHER_CLUB][i % 2], "number": "2"}
                log.send("write", a.edit, match, 2, a.page(match, "hands/2/"), edit)
            else:
                log.send("write", a.undo, match, a.page(match))

    def rename():
        url, form = player_form(renamer, ann, "rename")
        for i in range(RACE_RENAMES):
            data = {**form, "name": ["Annie", "Ann"][i % 2]}
            log.send("rename", sent, renamer, url, data)

    readers = [
        threading.Thread(target=read_until, args=(stop, log, Phone(base, "renames"), paths))
        for paths in pages
    ]
    for reader in readers:
        reader.start()
    try:
        at_once((write,), (rename,))
    finally:
        stop.set()
        for reader in readers:
            reader.join()
    overlapped = log.overlapping("rename", ("write",))
    print(f"{overlapped} of {RACE_RENAMES} renames while a write was in flight")
    assert log.failures() == []
    assert set(log.statuses("write")) == {200}  # every save, edit and undo landed
    assert set(log.statuses("rename")) == {302}
    assert overlapped >= RACE_RENAMES // 2
    assert len(stored(server, a, match)) == 3  # the last write was an undo
    last = ["Annie", "Ann"][(RACE_RENAMES - 1) % 2]
    assert a.exported(match)["players"] == [last, "Bob", "Cat", "Dan"]


def test_merges_racing_saves_and_reads_never_fail(server):
    base, database = server
    a = Phone(base, "merges", signup=True)
    merger, reader = Phone(base, "merges"), Phone(base, "merges")
    with_hands(a, [CLUB])  # Ann's first match
    ann = player_id(database, "merges", "Ann")
    log, tables = Log(), []
    for i in range(RACE_MERGES):
        spelling = f"Anne{i}"
        match = a.new_match(names=(spelling, "Bob", "Cat", "Dan"))
        for _ in range(2):
            assert a.save(match, a.page(match), CLUB).status_code == 200
        other = player_id(database, "merges", spelling)
        page, shared = a.page(match), share_url(database, match)
        url, form = player_form(merger, ann, "merge")
        merge = {**form, "other": str(other), "same": "1"}
        at_once(
            (log.send, "write", a.save, match, page, CLUB),
            (log.send, "merge", sent, merger, url, merge),
            (log.send, "read", reader.http.get, f"{base}/matches/{match}/"),
            (log.send, "read", reader.http.get, base + shared),
        )
        hands = stored(server, a, match)
        tables.append((len(hands), a.exported(match)["players"]))
    overlapped = log.overlapping("merge", ("write",))
    print(f"{overlapped} of {RACE_MERGES} merges while a save was in flight")
    assert log.failures() == []
    assert set(log.statuses("write")) == {200}
    assert set(log.statuses("merge")) == {302}
    assert tables == [(3, ["Ann", "Bob", "Cat", "Dan"])] * RACE_MERGES
    assert overlapped >= RACE_MERGES // 2


# --- Groups, accounts and payments when writes meet (#32 §2, §3) -----------------------------
#
# Each round makes its own group (and accounts): a server of their own, which takes each
# account's sign-up as from its own address (the sign-up throttle counts an address's).

GROUP_ROUNDS = 8
GONE_WORDS = ("deleted on another phone", "no longer here for you")


@pytest.fixture(scope="module")
def groups_server():
    with serve(workers=4, TRUSTED_PROXIES="1", **FAST_HASH) as (base, database):
        yield base, database


_signups = iter(range(1, 10_000))


def account(base: str, name: str) -> Phone:
    n = next(_signups)
    phone = Phone(base, f"{name}{n}", signup=True, address=f"10.9.{n // 200}.{n % 200 + 1}")
    phone.name = f"{name}{n}"
    return phone


def form_of(phone: Phone, path: str, form: str = 'method="post"') -> dict:
    return hidden(phone.http.get(phone.base + path).text, form)


def send(phone: Phone, path: str, data: dict) -> requests.Response:
    return phone.http.post(phone.base + path, data, allow_redirects=False)


def new_group(owner: Phone, *members: tuple[Phone, str]) -> int:
    """A group of `owner`'s, with each (phone, role) of `members` in it."""
    data = {**form_of(owner, "/groups/new/"), "name": "Thursday table"}
    answer = send(owner, "/groups/new/", data)
    group = int(re.search(r"/groups/(\d+)/", answer.headers["Location"]).group(1))
    for phone, role in members:
        path = f"/groups/{group}/invites/"
        data = {
            **form_of(owner, f"/groups/{group}/"),
            "role": "viewer" if role == "viewer" else "scorer",
        }
        page = owner.http.post(owner.base + path, data).text
        phone.join(re.search(r'href="(http[^"]*/join/[^"]+/)"', page).group(1))
        if role == "owner":
            data = {**form_of(owner, f"/groups/{group}/"), "username": phone.name, "role": "owner"}
            assert send(owner, f"/groups/{group}/members/", data).status_code == 302
    return group


def staked_match(phone: Phone, group: int, names=("Ann", "Bob", "Cat", "Dan")) -> int:
    """A match of `group` for $1.00 a game, its first hand (Bob sweeps) saved."""
    seats = {f"seat_{i}": name for i, name in enumerate(names)}
    data = {**form_of(phone, "/matches/new/"), **STARTED, **seats, "per_game": "1.00"}
    answer = send(phone, "/matches/new/", {**data, "group": str(group)})
    match = int(re.search(r"/matches/(\d+)/", answer.headers["Location"]).group(1))
    assert phone.save(match, phone.page(match), CLUB).status_code == 200
    return match


def owners(database: str, group: int) -> list[str]:
    sql = (
        "SELECT account.username FROM games_membership member JOIN auth_user account ON"
        f" account.id = member.user_id WHERE member.group_id = {group} AND member.role = 'owner'"
    )
    return sorted(name for (name,) in query(database, sql))


def no_group_without_an_owner(database: str) -> None:
    sql = (
        "SELECT g.id FROM games_group g WHERE NOT EXISTS (SELECT 1 FROM games_membership m"
        " WHERE m.group_id = g.id AND m.role = 'owner')"
    )
    assert query(database, sql) == []


def in_words(response: requests.Response, *words: str) -> str:
    """The answer's text, which says one of `words`: never a 5xx."""
    assert response.status_code < 500, response.text[:300]
    said = html.unescape(response.text)
    assert any(w in said for w in words), (response.status_code, said[:2000])
    return said


class LogInPage:
    """A stranger's log-in page, asked for again and again while the races run: how many
    times it was answered, and any answer that was not the page (an error, 30 s without one).
    How long each took is the bench's (bench/race_bench.py), not a test's."""

    def __init__(self, base: str):
        self.base, self.answered, self.stop = base, 0, threading.Event()
        self.failures: list[str] = []
        self.thread = threading.Thread(target=self._run)

    def _run(self):
        http = requests.Session()
        while not self.stop.is_set():
            try:
                status = http.get(self.base + "/accounts/login/", timeout=30).status_code
            except requests.RequestException as e:
                self.failures.append(repr(e))
                continue
            if status == 200:
                self.answered += 1
            else:
                self.failures.append(str(status))
            self.stop.wait(0.05)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join()

    def kept_answering(self):
        assert self.failures == [] and self.answered > 0, (self.answered, self.failures)


def test_two_owners_deleting_their_accounts_at_once_leave_the_group_an_owner(groups_server):
    base, database = groups_server
    with LogInPage(base) as login:
        for i in range(GROUP_ROUNDS):
            a, b = account(base, "ann"), account(base, "bea")
            # Every other round a scorer is in it too; without one, the second deletion
            # would take the group with it, which its page did not say.
            others = [(b, "owner")] + ([(account(base, "cy"), "scorer")] if i % 2 else [])
            group = new_group(a, *others)
            forms = [form_of(p, "/accounts/delete/") for p in (a, b)]
            answers = at_once(
                (send, a, "/accounts/delete/", forms[0]), (send, b, "/accounts/delete/", forms[1])
            )
            codes = [r.status_code for r in answers]
            assert sorted(codes) == [302, 409], codes
            refused = answers[codes.index(409)]
            kept = (a, b)[codes.index(409)]
            in_words(refused, f"{kept.name} is the only owner of", "Everyone else left")
            assert owners(database, group) == [kept.name]
            no_group_without_an_owner(database)
    login.kept_answering()


def test_an_owner_deleting_the_account_while_the_other_leaves_leaves_an_owner(groups_server):
    base, database = groups_server
    for _ in range(GROUP_ROUNDS):
        a, b, c = account(base, "ann"), account(base, "bea"), account(base, "cy")
        group = new_group(a, (b, "owner"), (c, "scorer"))
        delete = form_of(a, "/accounts/delete/")
        leave = form_of(b, f"/groups/{group}/", r'action="[^"]*/leave/"')
        answers = at_once(
            (send, a, "/accounts/delete/", delete), (send, b, f"/groups/{group}/leave/", leave)
        )
        deleted, left = (r.status_code == 302 for r in answers)
        assert deleted != left, [r.status_code for r in answers]  # one of the two, never both
        refused = answers[1] if deleted else answers[0]
        in_words(refused, "is the only owner of")
        assert owners(database, group) == [b.name if deleted else a.name]
        no_group_without_an_owner(database)


def test_the_owner_deleting_the_group_while_two_scorers_save_answers_in_words(groups_server):
    base, database = groups_server
    with LogInPage(base) as login:
        for _ in range(GROUP_ROUNDS):
            a, b, c = account(base, "ann"), account(base, "bea"), account(base, "cy")
            group = new_group(a, (b, "scorer"), (c, "scorer"))
            match = staked_match(a, group)
            pages = [p.page(match) for p in (b, c)]
            delete = form_of(a, f"/groups/{group}/delete/")
            answers = at_once(
                (send, a, f"/groups/{group}/delete/", delete),
                (b.save, match, pages[0], CLUB),
                (c.save, match, pages[1], ORDERED),
            )
            assert answers[0].status_code == 302
            for save in answers[1:]:
                if save.status_code != 200:
                    in_words(save, *GONE_WORDS, "was saved by")
            for table in ("games_group", "games_match", "games_player", "games_night"):
                column = "id" if table == "games_group" else "group_id"
                assert query(database, f"SELECT id FROM {table} WHERE {column} = {group}") == []
            assert query(database, f"SELECT id FROM games_hand WHERE match_id = {match}") == []
    login.kept_answering()


def test_a_hand_saved_while_its_match_is_deleted_answers_in_words(groups_server):
    base, database = groups_server
    a, b = account(base, "ann"), account(base, "bea")
    group = new_group(a, (b, "scorer"))
    keeper = staked_match(a, group)  # another match of the group, which must stay sound
    for _ in range(GROUP_ROUNDS):
        match = staked_match(a, group)
        page = b.page(match)
        delete = form_of(a, f"/matches/{match}/delete/")
        answers = at_once(
            (send, a, f"/matches/{match}/delete/", delete), (b.save, match, page, ORDERED)
        )
        assert answers[0].status_code == 302
        if answers[1].status_code != 200:
            assert answers[1].status_code == 404, answers[1].text[-3000:]
            in_words(answers[1], *GONE_WORDS)
        assert query(database, f"SELECT id FROM games_hand WHERE match_id = {match}") == []
        assert query(database, f"SELECT id FROM games_result WHERE match_id = {match}") == []
        assert b.save(keeper, b.page(keeper), CLUB).status_code == 200
        stored(groups_server, a, keeper)


def _record(phone: Phone, group: int, page: str, payer: str, payee: str, cents: str):
    """A payment as the balances page sends it, payer and payee named as its lists do."""
    pk = {n: v for v, n in re.findall(r'<option value="(\d+)">([^<]+)<', page)}
    data = {**hidden(page, 'class="payment-form"'), "currency": "USD", "amount": cents}
    data |= {"payer": pk[payer], "payee": pk[payee]}
    return send(phone, f"/groups/{group}/balances/", data)


def test_a_payment_recorded_while_the_group_is_deleted_answers_in_words(groups_server):
    base, database = groups_server
    for _ in range(GROUP_ROUNDS):
        a, b = account(base, "ann"), account(base, "bea")
        group = new_group(a, (b, "scorer"))
        staked_match(a, group)
        page = b.http.get(f"{base}/groups/{group}/balances/").text
        delete = form_of(a, f"/groups/{group}/delete/")
        answers = at_once(
            (send, a, f"/groups/{group}/delete/", delete),
            (_record, b, group, page, "Ann", "Bob", "1.11"),
        )
        assert answers[0].status_code == 302
        if answers[1].status_code != 302:
            assert answers[1].status_code == 404, answers[1].text[-3000:]
            in_words(answers[1], "This group was deleted on another phone.", *GONE_WORDS)
        assert query(database, f"SELECT id FROM games_payment WHERE group_id = {group}") == []
        assert query(database, f"SELECT id FROM games_group WHERE id = {group}") == []


def test_a_payment_naming_a_player_merged_away_meanwhile_is_refused_in_words(groups_server):
    base, database = groups_server
    a, b = account(base, "ann"), account(base, "bea")
    group = new_group(a, (b, "scorer"))
    staked_match(a, group)
    ann = player_id(database, a.name, "Ann")
    outcomes = []
    for i in range(GROUP_ROUNDS):
        spelling = f"Anne{i}"
        staked_match(a, group, names=(spelling, "Bob", "Cat", "Dan"))
        other = player_id(database, a.name, spelling)
        page = b.http.get(f"{base}/groups/{group}/balances/").text
        url, form = player_form(a, ann, "merge")
        answers = at_once(
            (_record, b, group, page, spelling, "Bob", "1.11"),
            (sent, a, url, {**form, "other": str(other), "same": "1"}),
        )
        paid, merged = answers
        assert merged.status_code == 302
        if paid.status_code != 302:
            assert paid.status_code == 409
            in_words(paid, "is no longer a player of this group")
        outcomes.append(paid.status_code)
        assert query(database, f"SELECT id FROM games_player WHERE id = {other}") == []
        payments = query(
            database,
            "SELECT payer.name FROM games_payment p JOIN games_player payer ON"
            f" payer.id = p.payer_id WHERE p.group_id = {group}",
        )
        assert payments == [("Ann",)] * outcomes.count(302)  # each one stored moved over
    print(f"payments stored before their merge: {outcomes.count(302)} of {len(outcomes)}")


def test_two_members_saying_this_is_me_of_one_player_at_once_one_is_told_it_is_taken(
    groups_server,
):
    base, database = groups_server
    a, b, c = account(base, "ann"), account(base, "bea"), account(base, "cy")
    group = new_group(a, (b, "scorer"), (c, "viewer"))
    staked_match(a, group)
    bob = player_id(database, a.name, "Bob")
    path = f"/groups/{group}/me/"
    for _ in range(GROUP_ROUNDS * 2):
        forms = [form_of(p, f"/groups/{group}/", r'action="[^"]*/me/"') for p in (b, c)]
        answers = at_once(
            (send, b, path, {**forms[0], "player": str(bob)}),
            (send, c, path, {**forms[1], "player": str(bob)}),
        )
        codes = [r.status_code for r in answers]
        assert sorted(codes) == [302, 409], codes
        winner = (b, c)[codes.index(302)]
        in_words(answers[codes.index(409)], f"{winner.name} has said they are Bob.")
        sql = f"SELECT user_id FROM games_membership WHERE group_id = {group} AND player_id = {bob}"
        assert len(query(database, sql)) == 1
        assert send(winner, path, {**forms[codes.index(302)], "player": ""}).status_code == 302
