"""A cross-encoder that scores (question, passage) pairs, initialised from the packaged MiniLM.

Question and passage are read together, so every layer's attention relates the question's words
to the passage's: the query-conditioned signal a stored, query-independent vector cannot carry.
The lower layers stay as MiniLM has them (frozen); the top ``trained_layers`` layers and a scoring
head over the mean of the last layer are trained. A checkpoint therefore holds only those (float16)
with its config and training log, and the frozen layers come from the encoder package at load time.
Training caches each pair's output of the frozen layers once (:meth:`CrossEncoder.frozen_states`),
so an epoch runs only the trained layers.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from docgraph.errors import ModelError
from docgraph.models.checkpoint_files import save_atomically, unreadable
from docgraph.models.encoders import DEFAULT_MODEL, resolve_model_path
from docgraph.models.runtimes import process_threads

SCORE_BATCH = 16  # pairs per forward pass at inference


@dataclass(frozen=True, slots=True)
class CrossEncoderConfig:
    base: str = DEFAULT_MODEL  # the sentence encoder whose weights start the model
    trained_layers: int = 2  # the top layers that are trained (the rest stay frozen)
    max_tokens: int = 128  # question and passage together, in word pieces
    max_query_tokens: int = 40  # a longer question is cut to this


@dataclass(slots=True)
class FrozenStates:
    """One pair's output of the frozen layers: hidden states (float16) and its token count."""

    hidden: torch.Tensor  # (tokens, dim)


class CrossEncoder(nn.Module):
    """MiniLM over ``[CLS] question [SEP] passage [SEP]``, its top layers and head trained to score."""

    def __init__(self, config: CrossEncoderConfig) -> None:
        super().__init__()
        from transformers import AutoTokenizer, BertModel
        from transformers.utils import logging as untyped_logging

        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
        transformers_logging: Any = untyped_logging
        transformers_logging.disable_progress_bar()  # its weight-loading bar would cut into docgraph's
        location = resolve_model_path(config.base)
        try:
            self.tokenizer: Any = AutoTokenizer.from_pretrained(location, local_files_only=True)
            self.bert: Any = BertModel.from_pretrained(location, local_files_only=True, attn_implementation="eager")
        except Exception as exc:  # transformers raises OSError, ValueError, HF errors...
            raise ModelError(f"cannot load {config.base!r} offline for the reranker: {exc}") from exc
        layers = len(self.bert.encoder.layer)
        if not 1 <= config.trained_layers <= layers:
            raise ModelError(f"trained_layers must be 1..{layers}, not {config.trained_layers}")
        self.config = config
        self.head = nn.Linear(self.bert.config.hidden_size, 1)
        self.split = layers - config.trained_layers
        for parameter in self.bert.parameters():
            parameter.requires_grad = False
        for parameter in self.trained_parameters():
            parameter.requires_grad = True

    def trained_layer_parameters(self) -> list[nn.Parameter]:
        return list(self.bert.encoder.layer[self.split :].parameters())

    def trained_parameters(self) -> list[nn.Parameter]:
        return [*self.trained_layer_parameters(), *self.head.parameters()]

    def tokenize(self, query: str, passages: Sequence[str]) -> dict[str, torch.Tensor]:
        """Word pieces of each (question, passage) pair, padded: the question is cut to
        ``max_query_tokens``, the passage to what is left of ``max_tokens``."""
        pieces = self.tokenizer.tokenize(query)[: self.config.max_query_tokens]
        short_query = self.tokenizer.convert_tokens_to_string(pieces)
        encoded: dict[str, torch.Tensor] = self.tokenizer(
            [short_query] * len(passages),
            list(passages),
            truncation="only_second",
            max_length=self.config.max_tokens,
            padding=True,
            return_tensors="pt",
        )
        return encoded

    def frozen_states(self, query: str, passages: Sequence[str]) -> list[FrozenStates]:
        """Each pair's hidden states after the frozen layers, without padding (cached for training)."""
        encoded = self.tokenize(query, passages)
        with torch.no_grad():
            hidden = self._lower(encoded)
        lengths = encoded["attention_mask"].sum(dim=1).tolist()
        return [FrozenStates(hidden[i, :n].to(torch.float16).clone()) for i, n in enumerate(lengths)]

    def score_states(self, states: Sequence[FrozenStates]) -> torch.Tensor:
        """Scores of pairs from their cached frozen states (with gradients into the trained part)."""
        longest = max(s.hidden.shape[0] for s in states)
        dim = states[0].hidden.shape[1]
        hidden = torch.zeros(len(states), longest, dim)
        mask = torch.zeros(len(states), longest)
        for i, state in enumerate(states):
            hidden[i, : state.hidden.shape[0]] = state.hidden.float()
            mask[i, : state.hidden.shape[0]] = 1.0
        return self._upper(hidden, mask)

    def score(self, query: str, passages: Sequence[str]) -> np.ndarray:
        """Relevance of each passage to ``query`` (higher is better; an unbounded logit)."""
        if not passages:
            return np.zeros(0, dtype=np.float32)
        torch.set_num_threads(process_threads())
        scores = []
        with torch.no_grad():
            for start in range(0, len(passages), SCORE_BATCH):
                encoded = self.tokenize(query, passages[start : start + SCORE_BATCH])
                hidden = self._lower(encoded)
                scores.append(self._upper(hidden, encoded["attention_mask"].float()))
        return torch.cat(scores).numpy().astype(np.float32)

    def _lower(self, encoded: dict[str, torch.Tensor]) -> torch.Tensor:
        hidden = self.bert.embeddings(input_ids=encoded["input_ids"], token_type_ids=encoded["token_type_ids"])
        return self._layers(hidden, encoded["attention_mask"].float(), 0, self.split)

    def _upper(self, hidden: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        hidden = self._layers(hidden, mask, self.split, len(self.bert.encoder.layer))
        pooled = (hidden * mask[:, :, None]).sum(dim=1) / mask.sum(dim=1, keepdim=True).clamp(min=1.0)
        scores: torch.Tensor = self.head(pooled).squeeze(-1)
        return scores

    def _layers(self, hidden: torch.Tensor, mask: torch.Tensor, first: int, last: int) -> torch.Tensor:
        additive = (1.0 - mask[:, None, None, :]) * torch.finfo(hidden.dtype).min
        for layer in self.bert.encoder.layer[first:last]:
            out = layer(hidden, attention_mask=additive)
            hidden = out[0] if isinstance(out, tuple) else out
        return hidden


def save_cross_encoder(model: CrossEncoder, path: Path, meta: dict[str, Any]) -> None:
    """Only the trained part (float16), the config and ``meta`` (the training log)."""
    trained = {
        name: tensor.detach().to(torch.float16)
        for name, tensor in model.state_dict().items()
        if _is_trained(name, model.split)
    }
    save_atomically({"config": asdict(model.config), "weights": trained, "meta": meta}, path)


def load_cross_encoder(path: Path) -> CrossEncoder:
    """The base model with a checkpoint's trained layers and head, in eval mode."""
    if not path.is_file():
        raise ModelError(f"reranker checkpoint not found: {path}")
    try:
        saved = torch.load(path, map_location="cpu", weights_only=True)
        model = CrossEncoder(CrossEncoderConfig(**saved["config"]))
        weights = {name: tensor.float() for name, tensor in saved["weights"].items()}
        missing = [name for name in model.state_dict() if _is_trained(name, model.split) and name not in weights]
        if missing:
            raise ModelError(f"{path}: the checkpoint lacks {len(missing)} trained tensors ({missing[0]} ...)")
        model.load_state_dict(weights, strict=False)
    except ModelError:
        raise
    except Exception as exc:  # an empty file (EOFError), a Git LFS pointer (UnpicklingError), wrong tensors, ...
        raise unreadable(path, "reranker", exc) from exc
    return model.eval()


def checkpoint_meta(path: Path) -> dict[str, Any]:
    saved = torch.load(path, map_location="cpu", weights_only=True)
    meta: dict[str, Any] = saved["meta"]
    return meta


def _is_trained(name: str, split: int) -> bool:
    if name.startswith("head."):
        return True
    prefix = "bert.encoder.layer."
    return name.startswith(prefix) and int(name[len(prefix) :].split(".")[0]) >= split
