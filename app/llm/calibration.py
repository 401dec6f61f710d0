"""Per-model entropy thresholds for the uncertainty loop.

A model's mean token entropy has its own scale: a 135M model's answers all lie above the default
0.6 nats, so with that threshold it would re-read every question. ``docgraph calibrate-uncertainty``
(app.jobs.calibrate_uncertainty) sets a model's threshold from its own answers. Thresholds live in
``<home>/calibration/uncertainty.json``, keyed by model id; an explicit
``DOCGRAPH_LLM_ENTROPY_THRESHOLD`` wins over them.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from docgraph.app.config import Settings
from docgraph.errors import ConfigError


@dataclass(frozen=True, slots=True)
class EntropyThreshold:
    value: float
    source: str  # "setting" (DOCGRAPH_LLM_ENTROPY_THRESHOLD), "calibrated" (for this model) or "default"


def calibration_path(home: Path) -> Path:
    return home / "calibration" / "uncertainty.json"


def entropy_threshold(settings: Settings) -> EntropyThreshold:
    """The threshold the loop uses: the explicit setting, else this model's calibrated one, else the default."""
    if "llm_entropy_threshold" in settings.model_fields_set:
        return EntropyThreshold(settings.llm_entropy_threshold, "setting")
    calibrated = _read(calibration_path(settings.home)).get(settings.llm_model)
    if isinstance(calibrated, dict) and isinstance(calibrated.get("threshold"), (int, float)):
        return EntropyThreshold(float(calibrated["threshold"]), "calibrated")
    return EntropyThreshold(settings.llm_entropy_threshold, "default")


def save_threshold(home: Path, model: str, record: dict[str, Any]) -> Path:
    """Merge one model's threshold record into the file; written beside it and renamed, never half-written."""
    path = calibration_path(home)
    path.parent.mkdir(parents=True, exist_ok=True)
    thresholds = _read(path)
    thresholds[model] = {**record, "calibrated_at": datetime.now(UTC).isoformat(timespec="seconds")}
    partial = path.with_name(f"{path.name}.{os.getpid()}.part")
    partial.write_text(json.dumps(thresholds, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    partial.replace(path)
    return path


def _read(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    try:
        loaded = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise ConfigError(f"{path}: not a calibration file ({exc}); delete it or calibrate again") from exc
    return loaded if isinstance(loaded, dict) else {}
