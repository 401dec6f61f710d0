"""PDF readers, reading order, sections and edge builders. Pure code: no database access."""
