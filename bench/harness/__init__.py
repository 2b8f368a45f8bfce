"""Parts of bench/load.py that are not scripts of their own (bench/run_all.py runs every bench/*.py):
the simulated annotator and the private PostgreSQL cluster."""
