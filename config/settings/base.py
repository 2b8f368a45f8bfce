"""Django core: apps, middleware, templates, auth."""

import sys

from django.core.exceptions import ImproperlyConfigured

from config import env

BASE_DIR = env.BASE_DIR
DEBUG = env.DEBUG
_TESTING = "pytest" in sys.modules or (len(sys.argv) > 1 and sys.argv[1] == "test")
if env.SECRET_KEY:
    SECRET_KEY = env.SECRET_KEY
elif DEBUG or _TESTING:
    SECRET_KEY = "insecure-development-key-never-used-in-production"  # noqa: S105
else:
    raise ImproperlyConfigured(
        f"SECRET_KEY is not set: export SECRET_KEY, or run `make run` once, which writes {env.SECRET_KEY_FILE}."
    )

# Transport security (manage.py check --deploy): on when SKYMARK_HTTPS says the site is served over TLS.
SECURE_SSL_REDIRECT = env.HTTPS
SESSION_COOKIE_SECURE = env.HTTPS
CSRF_COOKIE_SECURE = env.HTTPS
SECURE_HSTS_SECONDS = env.HSTS_SECONDS
SECURE_HSTS_INCLUDE_SUBDOMAINS = env.HTTPS
SECURE_HSTS_PRELOAD = env.HTTPS
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if env.HTTPS else None

ALLOWED_HOSTS = env.ALLOWED_HOSTS
CSRF_TRUSTED_ORIGINS = env.CSRF_TRUSTED_ORIGINS

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "annotator",
    "review",
]

MIDDLEWARE = [
    "annotator.middleware.BodySizeLimitMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "annotator.access.sessions.SessionUserMiddleware",  # Django's, the user read with the session
    "django.contrib.messages.middleware.MessageMiddleware",
    "annotator.middleware.PathIdRangeMiddleware",
    "annotator.middleware.DatabaseUnavailableMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "annotator.access.context_processors.roles",
            ],
        },
    },
]

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
# Every authenticate() counts failures and refuses a locked-out account (annotator/access/lockout.py).
AUTHENTICATION_BACKENDS = ["annotator.access.lockout.LockoutBackend"]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

STATIC_URL = "/static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = env.STATIC_ROOT

DATA_UPLOAD_MAX_MEMORY_SIZE = 10 * 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = 10 * 1024 * 1024
# The largest JSON body the API reads (a 5,000-vertex polygon with times is about 250 KB).
SKYMARK_MAX_JSON_BYTES = env.MAX_JSON_KB * 1024
SKYMARK_MAX_UPLOAD_BYTES = env.MAX_UPLOAD_MB * 1024 * 1024
SKYMARK_KEYFRAME_FPS = env.KEYFRAME_FPS
# Assisted trajectories: the longest stretch of video one tracking request may cover, each way.
SKYMARK_ASSIST_MAX_SECONDS = env.ASSIST_MAX_SECONDS
# A tracked frame farther than this from every placed frame is not projected (media_tools.assist.projection).
SKYMARK_ASSIST_MAX_GAP_S = env.ASSIST_MAX_GAP_S
SKYMARK_FFMPEG = env.FFMPEG_BIN
SKYMARK_FFPROBE = env.FFPROBE_BIN
SKYMARK_MAX_IMAGE_PIXELS = env.MAX_IMAGE_PIXELS
SKYMARK_VIEW_CACHE_MB = env.VIEW_CACHE_MB
SKYMARK_LABELS = env.LABELS
