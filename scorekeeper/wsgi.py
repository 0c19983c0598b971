import io
import os

from django.core.management import call_command
from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "scorekeeper.settings")
application = get_wsgi_application()
# gunicorn runs no system checks of its own: a server without its SECRET_KEY (games.E001)
# or with another error `manage.py check` reports must not start.
call_command("check", stdout=io.StringIO())
