"""Page analysis: the first pass (scan), blocks, classification, furniture, reading order and the
second pass (assemble)."""
