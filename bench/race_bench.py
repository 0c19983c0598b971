"""Twelve phones at three tables for 30 s, against gunicorn with 4 workers.

Each phone loops over random page loads, saves, edits and undos, often from a page that
another phone has made stale. Prints, for SQLite and for PostgreSQL (when DATABASE_URL or the
local server at 127.0.0.1:5432 is there): requests, successes, 409s, server errors, hands lost
(a save answered as stored that the match's change log does not have), boards drawn across a
write (torn: a board whose version is older than its hands), and whether every match still
replays cleanly with hands numbered 1..k, and `finished` and each hand's stored scores true
to them.
Run with `.venv/bin/python bench/race_bench.py [SECONDS]`.
"""

import os
import random
import re
import sys
import threading
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from games import matchfile  # noqa: E402
from tests.liveserver import Phone, hand_scores, hidden, query, serve  # noqa: E402

SECONDS = float(sys.argv[1]) if len(sys.argv) > 1 else 30.0
TABLES, PHONES = 3, 4
POSTGRES = "postgres://postgres@127.0.0.1:5432/postgres"


def random_hand(rnd: random.Random) -> dict:
    if rnd.random() < 0.5:
        spread = [(2, 1, 1, 1), (1, 2, 1, 1), (0, 2, 2, 1), (1, 1, 1, 2)]
        tricks = (5, 0, 0, 0) if rnd.random() < 0.01 else rnd.choice(spread)  # a rare sweep
        return {"upcard": "clubs", **{f"t{i}": str(n) for i, n in enumerate(tricks)}}
    maker = rnd.randrange(4)
    out = (maker + 1) % 4
    others = [i for i in range(4) if i not in (maker, out)]
    hand = {"upcard": "hearts", "maker": str(maker), "trump": "hearts"}
    hand |= {"dropped": ["Ann", "Bob", "Cat", "Dan"][out], f"t{maker}": "3"}
    return hand | {f"t{others[0]}": "1", f"t{others[1]}": "1"}


def shown(page: str) -> tuple[int, int] | None:
    """(version, hands) of the board on a page: what its poll asks about."""
    found = re.search(r'data-poll hx-get="[^"?]*\?v=(\d+)&amp;n=(\d+)"', page)
    return (int(found.group(1)), int(found.group(2))) if found else None


def phone_loop(phone: Phone, match: int, seed: int, until: float, counts: Counter, lock, seen):
    """Page loads, saves, edits and undos until `until`. `seen` gathers every board shown as
    (match, version, hands, mine): `mine` where it answers a save that this phone's own write
    stored (the version just after the one it was sent from, and the hand it sent the last)."""
    rnd = random.Random(seed)
    page = phone.page(match)
    while time.monotonic() < until:
        roll, mine = rnd.random(), None
        if roll < 0.25 or 'id="hand-form"' not in page:  # a finished match shows no Save
            response = phone.http.get(f"{phone.base}/matches/{match}/")
            page = response.text
        elif roll < 0.65:
            sent = hidden(page, 'id="hand-form"')
            mine = (int(sent["version"]) + 1, int(sent["number"]))
            response = phone.save(match, page, random_hand(rnd))
        elif roll < 0.88:
            hands = page.count('class="hand-row"')
            if not hands:
                continue
            number = rnd.randint(1, hands)
            edit = phone.page(match, f"hands/{number}/")
            if 'id="hand-form"' not in edit:  # the match was won: the edit page is the board
                continue
            hand = {**random_hand(rnd), "number": str(number)}
            response = phone.edit(match, number, edit, hand)
        elif "hands/undo/" in page:
            response = phone.undo(match, page)
        else:
            continue
        if response.status_code in (200, 409) and 'id="board"' in response.text:
            page = response.text  # the board as the answer drew it, as htmx would show it
        board = shown(response.text)
        with lock:
            if board:
                seen.add((match, *board, response.status_code == 200 and board == mine))
            counts["requests"] += 1
            code = response.status_code
            counts["5xx" if code >= 500 else "409" if code == 409 else f"{code // 100}xx"] += 1


def sound(phone: Phone, database: str, match: int) -> bool:
    try:
        data = phone.exported(match)
        game, state, results = matchfile.load(data)
    except Exception:
        return False
    numbers = sorted(
        n for (n,) in query(database, f"SELECT number FROM games_hand WHERE match_id = {match}")
    )
    [(finished,)] = query(database, f"SELECT finished FROM games_match WHERE id = {match}")
    scores = [[result.scores[name] for name in game.players] for result in results]
    return (
        numbers == list(range(1, len(data["hands"]) + 1))
        and (finished is not None) == state.finished
        and hand_scores(database, match) == scores
    )


def lost(database: str, match: int, seen: set) -> Counter:
    """The hands lost, the boards drawn across a write ("torn") and the saves checked
    ("mine") of `match`, from its change
    log: every write moves the version on by one and logs one line, in the order of the writes
    (each holds the match's row lock), so the log says how many hands each version had.

    A hand is lost where a phone's own save was answered at a version that the log does not
    have as that save, or where the stored hands are not where the log ends. A board drawn
    across a write is one whose version says other than its hands: read before a write that
    its hands were read after (the match's row and its hands are two statements)."""
    changes = query(
        database, f"SELECT kind, number FROM games_change WHERE match_id = {match} ORDER BY id"
    )
    [(version, played)] = query(
        database, f"SELECT version, hands_played FROM games_match WHERE id = {match}"
    )
    [(stored,)] = query(database, f"SELECT count(*) FROM games_hand WHERE match_id = {match}")
    (kind, hands), writes = changes[0], changes[1:]
    assert kind == "started"
    step = {"saved": 1, "edited": 0, "undone": -1}
    first = version - len(writes)
    log = {first: (kind, hands)}
    for v, (kind, _) in enumerate(writes, first + 1):
        hands += step[kind]
        log[v] = (kind, hands)
    boards = [(v, n, own) for m, v, n, own in seen if m == match]
    gone = sum(1 for v, n, own in boards if own and log.get(v) != ("saved", n))
    torn = sum(1 for v, n, own in boards if not own and log.get(v, (0, None))[1] != n)
    gone += (hands != stored) + (hands != played)
    return Counter(lost=gone, torn=torn, mine=sum(own for _, _, own in boards))


def run(label: str) -> None:
    with serve(workers=4) as (base, database):
        Phone(base, "bench", signup=True)
        owner = Phone(base, "bench")
        matches = [owner.new_match(starting_score=200) for _ in range(TABLES)]
        counts, seen = race(base, matches)
        found = sum((lost(database, m, seen) for m in matches), Counter())
        whole = sum(sound(owner, database, m) for m in matches)
        hands = [len(owner.exported(m)["hands"]) for m in matches]
    print(
        f"{label:<11} {counts['requests']:>8} {counts['2xx']:>6} {counts['409']:>6} "
        f"{counts['5xx']:>5} {counts['4xx']:>5} {found['lost']:>5} {found['torn']:>5}   "
        f"{whole}/{len(matches)} sound, hands {hands}"
    )


def race(base: str, matches: list[int]) -> tuple[Counter, set]:
    """TABLES * PHONES phones of the account "bench" at `matches` for SECONDS: the answers
    counted by kind, and the boards shown (match, version, hands)."""
    counts, lock, seen = Counter(), threading.Lock(), set()
    phones = [Phone(base, "bench") for _ in range(TABLES * PHONES)]
    until = time.monotonic() + SECONDS
    threads = [
        threading.Thread(
            target=phone_loop,
            args=(phone, matches[i % TABLES], i, until, counts, lock, seen),
        )
        for i, phone in enumerate(phones)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return counts, seen


if __name__ == "__main__":
    print(
        f"{TABLES * PHONES} phones at {TABLES} tables for {SECONDS:.0f} s, gunicorn with 4 workers"
    )
    print(
        f"{'database':<11} {'requests':>8} {'2xx':>6} {'409':>6} {'5xx':>5} {'4xx':>5} "
        f"{'lost':>5} {'torn':>5}"
    )
    os.environ.pop("DATABASE_URL", None)
    run("SQLite")
    os.environ["DATABASE_URL"] = os.environ.get("BENCH_POSTGRES", POSTGRES)
    run("PostgreSQL")
