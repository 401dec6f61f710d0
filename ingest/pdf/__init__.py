"""PDF primitives: PyMuPDF calls, input checks, text lines, strokes, OCR and text clean-up."""
