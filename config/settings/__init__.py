"""Settings, one module per integration; every environment value comes from config.env."""

from .api import *  # noqa: F403
from .base import *  # noqa: F403
from .cache import *  # noqa: F403
from .celery import *  # noqa: F403
from .cvaa import *  # noqa: F403
from .database import *  # noqa: F403
from .logging import *  # noqa: F403
from .storage import *  # noqa: F403
