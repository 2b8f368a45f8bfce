"""Processing: the job graph (graph.py), running a job (jobs.py), the media steps (steps/),
Celery entry points (tasks.py) and serving the stored results (files.py)."""
