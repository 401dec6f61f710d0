"""Readers (PDF -> DocumentLayout): native, auto, detector and azure."""
