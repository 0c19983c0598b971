import io
import json
import os
import re
import tempfile
from contextlib import contextmanager, suppress
from functools import cache
from pathlib import Path

import pytest
from django.core.management import call_command
from django.db import transaction
from django.urls import reverse
from hypothesis import settings as hypothesis_settings

from .liveserver import PASSWORD

# No example has a deadline: how long one takes is the machine's load, not the app's
# correctness (speed is measured in bench/). CI runs Hypothesis derandomised
# (HYPOTHESIS_PROFILE=ci in .ci/run): the same examples every run, so that a landing never
# fails on an example no earlier run tried.
hypothesis_settings.register_profile("default", deadline=None)
hypothesis_settings.register_profile("ci", deadline=None, derandomize=True, print_blob=True)
hypothesis_settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


@contextmanager
def fresh_database():
    """One Hypothesis example's own database: what the example stores (matches, sessions,
    throttle counts, cached boards) is rolled back before the next, so that every example
    starts from what the test's fixtures made, and one that fails fails again on its own
    when Hypothesis shrinks or replays it."""
    with transaction.atomic():
        yield
        transaction.set_rollback(True)


@cache
def _kept_together(path: Path) -> bool:
    """A test module whose tests share a fixture of module or session scope (a server of
    their own, the collected static files): under pytest-xdist its tests run on one worker,
    which makes that fixture once, not once on each worker."""
    text = path.read_text()
    return 'scope="module"' in text or 'scope="session"' in text


@pytest.hookimpl(optionalhook=True)  # a hook of pytest-xdist
def pytest_xdist_make_scheduler(config, log):
    """Under pytest-xdist (`make test` runs two workers) the browser tests go first, shared
    among all the workers but one, while the last worker runs the other tests. A module kept
    together is one unit of work; every other test goes to whichever worker is free."""
    from xdist.scheduler import LoadScopeScheduling

    config.option.loadscopereorder = False  # the order of pytest_collection_modifyitems
    workers = config.option.numprocesses
    shares = max(1, workers - 1) if isinstance(workers, int) else 1

    class BrowserTestsFirst(LoadScopeScheduling):
        browser: dict[str, str] = {}

        def _split_scope(self, nodeid: str) -> str:
            module = nodeid.split("::")[0]
            if module.endswith("_browser.py"):
                return self.browser.setdefault(nodeid, f"browser {len(self.browser) % shares}")
            return module if _kept_together(config.rootpath / module) else nodeid

    return BrowserTestsFirst(config, log)


def _in_browser(item) -> bool:
    return "browser_type_launch_args" in getattr(item, "fixturenames", ())


def pytest_collection_modifyitems(items):
    """Browser tests run first, then the modules kept together (the longest units of work
    under pytest-xdist). Playwright's sync API keeps an event loop on the test thread once it
    starts, so from then on every database call needs DJANGO_ALLOW_ASYNC_UNSAFE (else
    pytest-django raises SynchronousOnlyOperation); the tests of the deploy checks run their
    processes without it (test_server.SERVER_VARIABLES)."""
    items.sort(key=lambda item: (not _in_browser(item), not _kept_together(item.path)))


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings_parallel_suffix):
    """On SQLite, the test database is a file, as a deployment's is: pytest-django's default,
    a database in memory shared between threads, locks whole tables and answers a page that
    asks while the live server's other thread writes "database table is locked" at once (a
    503 to the browser tests' boards), where a file waits for the lock as a server's does."""
    from django.conf import settings

    database = settings.DATABASES["default"]
    if database["ENGINE"] != "django.db.backends.sqlite3":
        yield
        return
    name = Path(tempfile.gettempdir()) / f"scorekeeper-test-{os.getpid()}.sqlite3"
    database.setdefault("TEST", {})["NAME"] = str(name)
    yield
    for leftover in (name, Path(f"{name}-wal"), Path(f"{name}-shm")):  # Django removes the first
        leftover.unlink(missing_ok=True)


# --- Script errors fail a browser test --------------------------------------------------------
# Every page of every browser context a test opens (its own contexts and browsers included) is
# watched: an uncaught error, or an error the page writes to its console, fails the test. What a
# phone with no network logs of its failed requests (the browser's own words for them) is the
# expected noise of an offline test, not a script's error; so is htmx's own line for a request
# that found no network (its failed requests' events, which htmx logs as errors).
SCRIPT_ERRORS: list[str] = []
NETWORK_NOISE = re.compile(
    r"^Failed to load resource|net::ERR_(INTERNET_DISCONNECTED|FAILED|NETWORK_CHANGED|ABORTED|"
    r"CONNECTION_REFUSED|CONNECTION_RESET|EMPTY_RESPONSE|NAME_NOT_RESOLVED)"
    r"|^htmx:(sendError|afterRequest|timeout|sendAbort), "
)


def _watched(context):
    def console(message):
        if message.type == "error" and not NETWORK_NOISE.search(message.text):
            SCRIPT_ERRORS.append(f"console: {message.text} ({message.location.get('url')})")

    context.on("weberror", lambda error: SCRIPT_ERRORS.append(f"page error: {error.error}"))
    context.on("console", console)
    return context


@pytest.fixture(scope="session", autouse=True)
def _every_context_watched():
    from playwright.sync_api import Browser, BrowserType

    new_context, persistent = Browser.new_context, BrowserType.launch_persistent_context
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Browser, "new_context", lambda *a, **k: _watched(new_context(*a, **k)))
        patch.setattr(
            BrowserType,
            "launch_persistent_context",
            lambda *a, **k: _watched(persistent(*a, **k)),
        )
        yield


@pytest.fixture(autouse=True)
def _no_script_error(request):
    """A browser test fails on any script error of any page it opened."""
    browser = request.getfixturevalue("browser") if _in_browser(request.node) else None
    SCRIPT_ERRORS.clear()
    yield
    if browser is None:
        return
    for context in browser.contexts:
        for page in context.pages:
            with suppress(Exception):  # a page closed or crashed has nothing more to say
                page.evaluate("1")  # what the page logged has reached the test
    errors, SCRIPT_ERRORS[:] = list(SCRIPT_ERRORS), []
    assert not errors, "script errors:\n" + "\n".join(errors)


@pytest.fixture(scope="session")
def _async_unsafe():
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
        yield


# Debian's headless shell of Chromium (`make chromium`): what Playwright's own headless tests
# run in, the full browser's Blink without its windows, at less than half its processor time.
CHROMIUM = "/usr/lib/chromium/chromium-headless-shell"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(autouse=True)
def _test_settings(settings):
    """The manifest storage needs collectstatic; tests serve the files as they are. A real
    password hash costs a third of a second by design: tests use a fast one."""
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _phones_put_away(request):
    """Every phone a browser test opened (a second context) is closed when the test ends: a
    board left open would go on asking the live server during the next tests, and a request
    in flight while the database is emptied between tests makes that fail. A board asks every
    half second, not every two: a phone that waits for another's save to show waits less."""
    if "browser" not in request.fixturenames:
        yield
        return
    browser = request.getfixturevalue("browser")
    if "live_server" in request.fixturenames:
        # Set up before these phones, so torn down (its database emptied) after they are put
        # away: no page of theirs asks or sends meanwhile.
        request.getfixturevalue("live_server")
    if "context" in request.fixturenames:
        # The test's own phone (pytest-playwright's page) too: set up within this fixture, so
        # closed after it waits for the hand that phone still has on its way.
        request.getfixturevalue("context")
    request.getfixturevalue("settings").POLL_SECONDS = 0.5
    yield
    for context in browser.contexts:
        for page in context.pages:
            with suppress(Exception):  # a hand on its way lands before its database is emptied
                page.wait_for_function(
                    "() => !document.documentElement.hasAttribute('data-sending')", timeout=10_000
                )
        context.close()


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args, _async_unsafe):
    return {
        **browser_type_launch_args,
        "executable_path": CHROMIUM,
        "args": CHROMIUM_ARGS,
    }


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args):
    return {
        **browser_context_args,
        "viewport": {"width": 390, "height": 844},
        "is_mobile": True,
        "has_touch": True,
    }


@pytest.fixture
def own_browser(browser_type, browser_type_launch_args):
    """A browser of its own: a service worker left behind must not stall the tests after it."""
    browser = browser_type.launch(**browser_type_launch_args)
    yield browser
    browser.close()


@pytest.fixture
def user(django_user_model):
    return django_user_model.objects.create_user("ann", password=PASSWORD)


@pytest.fixture
def other_user(django_user_model):
    return django_user_model.objects.create_user("eve", password=PASSWORD)


@pytest.fixture
def client_in(client, user):
    client.force_login(user)
    return client


def make_match(
    owner,
    preset="standard",
    names=("Ann", "Bob", "Cat", "Dan"),
    dealer="Dan",
    hands=(),
    stakes=None,
    played_at=None,
    **overrides,
):
    from games import rules
    from games.models import create_match

    return create_match(
        owner,
        preset,
        rules.make_ruleset(preset, **overrides),
        stakes or rules.PRESETS[preset].stakes,
        names,
        dealer,
        hands,
        played_at,
    )


def command(name, *args):
    """Run a command: (exit status, standard output, standard error)."""
    out, err = io.StringIO(), io.StringIO()
    code = 0
    try:
        call_command(name, *args, stdout=out, stderr=err)
    except SystemExit as e:
        code = e.code
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def files(tmp_path):
    """Write match files; give back their paths as strings."""

    def write(*docs):
        paths = []
        for i, doc in enumerate(docs):
            path = tmp_path / f"m{i + 1}.json"
            path.write_text(doc if isinstance(doc, str) else json.dumps(doc))
            paths.append(str(path))
        return paths

    return write


# --- What the tests of pages share -------------------------------------------------------------

HX = {"HTTP_HX_REQUEST": "true"}


def url(name, *args):
    return reverse(f"games:{name}", args=args)


def drawn(match, data=None, **more) -> dict:
    """A write as the match's page sends it: the fields, and the version the page showed."""
    match.refresh_from_db(fields=["version"])
    return {**(data or {}), **more, "version": str(match.version)}
