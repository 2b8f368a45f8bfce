"""CVAA retrieval previews on the platform side (DESIGN.md, "CVAA retrieval previews").

checkpoints.py  model files: verify, store, activate, load for inference (level of models + media_tools)
footprints.py   where a keyframe looks from how the image was made or from telemetry (reads)
previews.py     per-keyframe boxes of a scene with the active model (the `cvaa` job's work)
training.py     pair sources from the platform's data, and a training run
services.py     writes people ask for (upload, activate, start training), enqueueing what follows
selectors.py    reads for the API, scoped by the caller's scene
apis.py         REST endpoints
evalsets.py     held-out real pairs from the shared test media (manage.py eval_cvaa)
The pixel work is media_tools.cvaa's; this package moves rows and files around it.
"""
