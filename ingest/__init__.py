"""PDF readers, reading order, sections and edge builders. Pure code: no database access."""

# What the reading code reads, named in every document's build: bump it with any change to ingest/
# that reads some PDF otherwise (other regions, text, kinds or edges), so that documents stored
# before are read again at their next ingest, as after a new release (not after a change that
# reads every PDF as before: a rebuild of a whole library costs its reading time again).
READING_REVISION = "2026-11-30.3"
