# One image for web and workers. The GPU worker uses the same code; on a CUDA host, build with
# --build-arg TORCH_INDEX=https://download.pytorch.org/whl/cu124 to get a CUDA build of PyTorch.
FROM python:3.11-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1
RUN apt-get update \
 && apt-get install -y --no-install-recommends ffmpeg libvips42 \
 && rm -rf /var/lib/apt/lists/*

WORKDIR /app
COPY pyproject.toml ./
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
