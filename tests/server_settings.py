"""The settings of the tests' own servers (tests/liveserver.py `serve`): the app's, with the
fast password hash the in-process tests use (conftest `_test_settings`). A real hash costs a
third of a second of a core by design; the log-in floods and the phones of the race tests
would spend most of their time on it. The benchmarks' servers hash as a deployment does."""

from scorekeeper.settings import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
