"""What the app's container does before gunicorn serves (deploy/entrypoint).

1. The system checks, as `manage.py check`: a missing or weak SECRET_KEY (games.E001, E003)
   stops the container with the check's own words, the README's.
2. It waits for the database, which may still be starting beside it.
3. `migrate`, under a PostgreSQL advisory lock: two app containers started together migrate
   one after the other, and the second finds nothing left to do.
"""

import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "scorekeeper.settings")

import django  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.core.management.base import SystemCheckError  # noqa: E402
from django.db import OperationalError, connection  # noqa: E402

# Any number will do, as long as every container of the app takes the same one.
MIGRATE_LOCK = 42_4242
DATABASE_WAIT = int(os.getenv("DATABASE_WAIT") or 60)


def wait_for_database() -> None:
    for second in range(DATABASE_WAIT):
        try:
            connection.ensure_connection()
            return
        except OperationalError as error:
            if second == 0:
                print(f"Waiting for the database: {error}".strip(), flush=True)
            connection.close()
            time.sleep(1)
    connection.ensure_connection()  # the last try's error, as it is


def migrate() -> None:
    if connection.vendor != "postgresql":  # SQLite: one container, no one to wait for
        call_command("migrate", interactive=False)
        return
    with connection.cursor() as cursor:
        # The settings' lock_timeout would give up waiting for a long migration elsewhere.
        cursor.execute("SET lock_timeout = 0")
        cursor.execute("SELECT pg_advisory_lock(%s)", [MIGRATE_LOCK])
        cursor.execute("RESET lock_timeout")
    try:
        call_command("migrate", interactive=False)
    finally:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_unlock(%s)", [MIGRATE_LOCK])


def main() -> None:
    django.setup()
    try:
        call_command("check")
    except SystemCheckError as error:
        print(error, file=sys.stderr)
        sys.exit(1)
    wait_for_database()
    migrate()
    connection.close()


if __name__ == "__main__":
    main()
