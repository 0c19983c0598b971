"""Regions of the pages over many matches, drawn once a version of the group's data.

What a region of such a page shows (a group's matches, results, nights, players, payments)
changes only with a write to the group, and every such write moves the group's version on in
its own transaction (`Group.version`, moved by `models.groups_turn`). So a region drawn for a
version is drawn once: the next request at that version takes it from the shared cache
(`CACHE_URL`). The version is read with the group, before anything the region shows, so a
region drawn from it is never older than it, and none drawn for an older version is ever
found again. The key holds whatever else the drawing depends on (the viewer's role, the page
of a list, the time zone, ...), the group's id and the moment it was made (ids of a dropped
database are used again) and a digest of everything that draws a page: the app's Python,
its templates and its static files (a new release draws anew, whichever of them it changed).

A region that holds a form is drawn with marks where each request puts its own CSRF token.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from datetime import datetime
from pathlib import Path

from django.core.cache import cache
from django.http import HttpRequest
from django.middleware.csrf import get_token
from django.template.loader import render_to_string
from django.utils import timezone
from django.utils.safestring import SafeString, mark_safe

from games.models import Group

# As long as a drawn region is kept; a write makes it unreachable long before.
SECONDS = 60 * 60 * 24
CSRF_MARK = "csrf-token-of-the-request-7d1e42b9"


# Everything that draws a page: the Python of the app and its settings, the templates, and the
# static files (whose names, hashed by the manifest, the pages print).
DRAWN_BY = (
    "games/**/*.py",
    "scorekeeper/**/*.py",
    "games/templates/**/*",
    "templates/**/*",
    "static/**/*",
)


def digest(root: Path) -> str:
    """All that draws a page under `root`, in a few letters: a release that changes any of it
    draws its regions anew."""
    files = sorted({path for pattern in DRAWN_BY for path in root.glob(pattern) if path.is_file()})
    hashed = hashlib.sha256()
    for path in files:
        hashed.update(path.relative_to(root).as_posix().encode())
        hashed.update(path.read_bytes())
    return hashed.hexdigest()[:16]


DIGEST = digest(Path(__file__).resolve().parent.parent)


def region(
    request: HttpRequest,
    group: Group,
    name: str,
    parts: tuple[object, ...],
    draw: Callable[[], tuple[dict[str, str], datetime | None]],
) -> dict[str, SafeString]:
    """The region `name` of a page of `group` (read with its version before anything the
    region shows), for `parts` (what else the drawing depends on): drawn by `draw()` once a
    version, else taken from the cache. `draw()` gives the region's pieces of text, drawn
    with `CSRF_MARK` as the CSRF token, and when the drawing goes out of date without any
    write, if it does ("Tonight's settle-up" is another night's 12 hours on), or None."""
    key = cache_key("region", name, group.pk, group.created.isoformat(), group.version, *parts)
    kept = cache.get(key)
    now = timezone.now()
    if kept is None or (kept["until"] is not None and now >= kept["until"]):
        drawn, ends = draw()
        kept = {"drawn": drawn, "until": ends}
        # Its statements each read what was committed when they ran: a write landing while
        # it was drawn may show in some and not in others. Such a drawing is shown once, as
        # any page would be, but kept only if the version did not move meanwhile.
        if (ends is None or now < ends) and not group.moved_on():
            seconds = SECONDS if ends is None else min(SECONDS, (ends - now).total_seconds())
            cache.set(key, kept, seconds)
    return {piece: with_token(request, text) for piece, text in kept["drawn"].items()}


def cache_key(kind: str, *words: object) -> str:
    """The key of a drawing kept in the cache: its kind and all it depends on, with the time
    zone of the clock times it shows and the app's digest; hashed, so that any cache takes it
    (memcached refuses spaces, as in a player's name, and keys over 250 bytes)."""
    words = (*words, timezone.get_current_timezone_name(), DIGEST)
    return f"{kind}:" + hashlib.sha256(repr(words).encode()).hexdigest()


def with_token(request: HttpRequest, drawn: str) -> SafeString:
    """A drawing from the cache with this request's own CSRF token in its forms."""
    return mark_safe(drawn.replace(CSRF_MARK, get_token(request)) if CSRF_MARK in drawn else drawn)


def partial(request: HttpRequest, template: str, context: Mapping[str, object]) -> str:
    """A partial of a template drawn for the cache: its forms' CSRF tokens left as marks."""
    return render_to_string(template, {**context, "csrf_token": CSRF_MARK}, request)
