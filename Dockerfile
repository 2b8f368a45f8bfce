# One image for web and workers. The GPU worker uses the same code; on a CUDA host, build with
# --build-arg TORCH_INDEX=https://download.pytorch.org/whl/cu124 to get a CUDA build of PyTorch
# (docker-compose.yml does this for worker-gpu).
FROM python:3.11-slim-bookworm

# Where PyTorch comes from: by default the CPU-only wheels (no CUDA libraries, a far smaller image),
# else one of PyTorch's CUDA indexes, which must carry the torch version pinned in pyproject.toml.
ARG TORCH_INDEX=https://download.pytorch.org/whl/cpu

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1
# pg_dump/pg_restore (manage.py backup/restore) of the same major version as docker-compose's
# PostgreSQL: an older pg_dump refuses a newer server, and Debian's own is 15, so the client comes from
# the PostgreSQL project's apt repository (set up by Debian's postgresql-common, with its shipped key).
ARG POSTGRES_CLIENT=16
RUN apt-get update \
 && apt-get install -y --no-install-recommends ffmpeg libvips42 ca-certificates postgresql-common \
 && /usr/share/postgresql-common/pgdg/apt.postgresql.org.sh -y \
 && apt-get install -y --no-install-recommends postgresql-client-${POSTGRES_CLIENT} \
 && rm -rf /var/lib/apt/lists/*

WORKDIR /app
COPY pyproject.toml ./
# torch first, in a layer of its own (rebuilt only when pyproject.toml changes), from TORCH_INDEX alone
# (PyPI's Linux torch is a CUDA build, and a second index could win with it), at pyproject's pin;
# `pip install -e .` then finds that pin satisfied (2.13.0+cpu counts as 2.13.0).
RUN TORCH_PIN="$(sed -n 's/^ *"torch==\([^"]*\)",$/\1/p' pyproject.toml)" \
 && test -n "$TORCH_PIN" \
 && pip install --index-url "$TORCH_INDEX" "torch==$TORCH_PIN"
COPY config ./config
COPY annotator ./annotator
COPY review ./review
COPY media_tools ./media_tools
RUN pip install -e .
COPY . .
RUN SECRET_KEY=collectstatic python manage.py collectstatic --noinput -v 0

RUN useradd --create-home skymark && mkdir -p /data && chown skymark /data
USER skymark
ENV SKYMARK_DATA_DIR=/data
EXPOSE 8000
CMD ["gunicorn", "-c", "config/gunicorn.py", "config.wsgi:application", "--bind", "0.0.0.0:8000"]
