"""Where ingest work runs: in this process, in worker processes, or on a Ray cluster."""
