"""The ``docgraph`` command line."""
