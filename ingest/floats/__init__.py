"""Floats: tables (ruled, framed, captioned, detected), figures, captions and text inside pictures."""
