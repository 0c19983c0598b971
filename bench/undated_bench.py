"""What a restore of old match files with no played_at costs the pages, measured in one run.

Imports 10 finished match files without `played_at` for one user and 1,000 for another, each
lot as one zip through the app's Import (as a restore of old files would; the import's limit
of hands is lifted for it), on a throwaway
SQLite database; then times each user's home page and the page of their latest night through
the test client, drawn anew each time (no cache), and prints each page's cost with 1,000 files
over its cost with 10, with the number of matches that night holds. Run with
`.venv/bin/python bench/undated_bench.py`.
"""

import io
import random
import time
import zipfile

from inprocess import DB, answered, by_turns  # sets Django up: before anything of Django's

# isort: split

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client, override_settings

from games import matchfile, rules
from games.models import Group, Match, Night
from tests.matches import random_match

SIZES = (10, 1000)
STAKES = rules.Stakes(per_game=100, per_point=10, per_set=25)
NO_CACHE = {"default": {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}}


def backup(count: int, rnd: random.Random) -> bytes:
    """A zip of `count` finished match files, none saying when it was played."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for i in range(count):
            m = random_match(rnd, rnd.choice(sorted(rules.PRESETS)))
            while not m.hands or not rules.replay(m.start(), m.hands)[0].finished:
                m = random_match(rnd, rnd.choice(sorted(rules.PRESETS)))
            m = matchfile.Match(m.preset, m.ruleset, STAKES, m.players, m.first_dealer, m.hands)
            archive.writestr(f"old-{i}.json", matchfile.dumps(m))
    return buffer.getvalue()


def main():
    # The pages are measured, not the import: one import takes the whole restore here.
    settings.MAX_IMPORT_HANDS = 10**9
    rnd = random.Random(15)
    pages, nights = {}, {}
    for n in SIZES:
        user = get_user_model().objects.create_user(f"user{n}")
        client = Client()
        client.force_login(user)
        upload = SimpleUploadedFile("old.zip", backup(n, rnd), content_type="application/zip")
        start = time.perf_counter()
        assert client.post("/matches/import/", {"file": upload}).status_code == 302
        print(f"import of {n:5} undated files: {time.perf_counter() - start:6.1f} s")
        assert Match.objects.filter(group=Group.of(user)).count() == n
        night = Night.latest(Group.of(user))
        nights[n] = night.matches.count()
        pages["home", n] = answered(200, client.get, "/")
        pages["night", n] = answered(200, client.get, night.get_absolute_url())
    # Drawn anew every time: what a page costs to draw, not to take from the cache.
    with override_settings(CACHES=NO_CACHE):
        figures = by_turns(pages, rounds=40)
    small, big = SIZES
    print(f"the latest night holds {nights[small]} and {nights[big]} matches")
    for page in ("home", "night"):
        a, b = figures[page, small], figures[page, big]
        print(
            f"{page:6} {small:5} files: {a * 1000:7.2f} ms   {big:5} files: "
            f"{b * 1000:7.2f} ms   ratio {b / a:.2f}×"
        )
    DB.unlink()


if __name__ == "__main__":
    main()
