"""Contrastive training of the CVAA model from any pair source. Imports torch.

Seeds are set for Python, numpy and torch; each step draws its batch from its own numpy generator
(seeded with [seed, step]), so a run is reproducible on the same device. The checkpoint kept is the one
with the best validation recall@1 (frame -> window retrieval within the validation set).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from .checkpoint import checkpoint_bytes, weights_sha256, write_bytes_atomic
from .config import CvaaConfig
from .encoder import autocast, pick_device
from .model import CvaaModel, info_nce
from .pairs import PairSource
from .prefetch import batches, pick_workers

Batch = tuple[np.ndarray, np.ndarray]
CPU_BATCH = 64
GPU_MAX_BATCH = 1024


@dataclass
class TrainResult:
    """The best checkpoint (as bytes, and its path when `out` was given) and how training went.
    `history`: one dict per step with "step", "loss", "lr", "logit_scale", plus "val_recall_at_1" on
    evaluation steps."""

    checkpoint_bytes: bytes
    checkpoint_path: Path | None
    weights_sha256: str
    best_step: int
    best_recall_at_1: float
    history: list[dict[str, float]]
    device: str
    batch_size: int
    seconds: float

    def loss_summary(self) -> tuple[float, float]:
        """The mean loss of the first and of the last tenth of the steps: whether training learned."""
        losses = [h["loss"] for h in self.history]
        tenth = max(1, len(losses) // 10)
        return float(np.mean(losses[:tenth])), float(np.mean(losses[-tenth:]))


def auto_batch_size(config: CvaaConfig, device: torch.device) -> int:
    """config.batch_size when set; else 64 pairs on a CPU, and on a GPU as many as fit in half its free
    memory (by a rough per-pair activation estimate), as a power of two up to 1024."""
    if config.batch_size:
        return config.batch_size
    if device.type != "cuda":
        return CPU_BATCH
    free, _ = torch.cuda.mem_get_info(device)
    tokens = (config.input_size // config.patch_size) ** 2 + 1
    per_pair = 2 * config.depth * tokens * config.width * (8 + 4 * config.mlp_ratio) * 4  # 2 views, bytes
    fits = max(CPU_BATCH, int(free * 0.5 / per_pair))
    return min(GPU_MAX_BATCH, 2 ** int(math.log2(fits)))


def train(
    pairs_source: PairSource,
    config: CvaaConfig | None = None,
    *,
    steps: int,
    seed: int = 0,
    val_pairs: PairSource | Batch | None = None,
    val_size: int = 128,
    device: str | None = None,
    out: Path | None = None,
    threads: int | None = None,
    progress: Callable[[float], None] | None = None,
    log: Callable[[str], None] | None = None,
    pair_workers: int | None = None,
    pair_processes: bool = True,
) -> TrainResult:
    """Train a new model for `steps` batches and return the best checkpoint by validation recall@1.

    `val_pairs`: a fixed (frames, satellite views) pair of arrays, a source with `fixed()` (RealPairs:
    every pair once), or another source (`val_size` pairs drawn once with seed + 1); None draws them from
    `pairs_source` itself, which only measures fit on the same ground. `device`: None picks CUDA when
    available (mixed precision there), else the CPU. `threads` sets torch's CPU threads (process-wide).
    Side effects: writes the checkpoint to `out` (complete or not at all) when given; calls `progress`
    with 0..1 and `log` with one line per report; sets the global random seeds.
    """
    if steps < 1:
        raise ValueError(f"steps must be at least 1, got {steps}")
    config = config or CvaaConfig.small()
    dev = pick_device(device)
    _seed_everything(seed)
    if threads:
        torch.set_num_threads(threads)
    model = CvaaModel(config).to(dev)
    optimizer, scheduler = _optimizer(model, config, steps)
    scaler = torch.amp.GradScaler("cuda", enabled=dev.type == "cuda" and not torch.cuda.is_bf16_supported())
    batch_size = auto_batch_size(config, dev)
    val = _validation_set(val_pairs if val_pairs is not None else pairs_source, seed, val_size)
    say = log or (lambda _: None)
    mode, workers = pick_workers(dev.type, pair_workers, processes=pair_processes)
    say(
        f"training on {dev} ({torch.get_num_threads()} CPU threads), batch {batch_size}, {steps} steps; "
        f"pairs made {mode if not workers else f'in {workers} {mode}'}"
    )
    started, history = time.perf_counter(), []
    best: dict[str, Any] = {"recall": -1.0, "step": 0, "state": None}
    made = batches(pairs_source, seed, batch_size, steps, mode=mode, workers=workers)
    for step, batch in enumerate(made, 1):
        loss = _step(model, batch, dev, optimizer, scaler)
        scheduler.step()
        record = {
            "step": step,
            "loss": loss,
            "lr": scheduler.get_last_lr()[0],
            "logit_scale": model.logit_scale.exp().item(),
        }
        if step % config.eval_every == 0 or step == steps:
            record["val_recall_at_1"] = recall_at_1(model, val, dev)
            _keep_if_best(best, model, step, record["val_recall_at_1"])
        history.append(record)
        _report(say, record, steps)
        if progress:
            progress(step / steps)
    return _result(model, best, history, dev, batch_size, started, out)


def timed_train(pairs_source: PairSource, config: CvaaConfig, *, steps: int, **kw: Any) -> tuple[TrainResult, float]:
    """train() with a clock at each step's end: (result, steps per second from the second step to the last,
    which leaves out the first step's start-up work; NaN for one step)."""
    stamps: list[float] = []
    result = train(pairs_source, config, steps=steps, progress=lambda _: stamps.append(time.perf_counter()), **kw)
    rate = (len(stamps) - 1) / (stamps[-1] - stamps[0]) if len(stamps) > 1 else float("nan")
    return result, rate


def _seed_everything(seed: int) -> None:
    random.seed(seed)
    # Third-party code may still draw from numpy's legacy global generator.
    np.random.seed(seed)
    torch.manual_seed(seed)


def _optimizer(model: CvaaModel, config: CvaaConfig, steps: int) -> tuple[torch.optim.Optimizer, Any]:
    # No weight decay on biases, norms, tokens, position embeddings, GeM's p and the temperature.
    decay = [p for n, p in model.named_parameters() if p.ndim >= 2 and "pos" not in n and "cls" not in n]
    rest = [p for n, p in model.named_parameters() if not (p.ndim >= 2 and "pos" not in n and "cls" not in n)]
    groups = [{"params": decay, "weight_decay": config.weight_decay}, {"params": rest, "weight_decay": 0.0}]
    optimizer = torch.optim.AdamW(groups, lr=config.lr)
    warmup = max(1, min(config.warmup_steps, steps // 5))

    def factor(done: int) -> float:  # linear warm-up, then cosine down to a tenth
        if done < warmup:
            return (done + 1) / warmup
        return 0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * min(1.0, (done - warmup) / max(1, steps - warmup))))

    return optimizer, torch.optim.lr_scheduler.LambdaLR(optimizer, factor)


def _step(model: CvaaModel, batch: Batch, dev: torch.device, optimizer: Any, scaler: Any) -> float:
    model.train()
    frames, sats = (torch.from_numpy(np.ascontiguousarray(a)).to(dev, non_blocking=True) for a in batch)
    with autocast(dev):
        loss = info_nce(model.encode_uav(frames), model.encode_sat(sats), model.logit_scale)
    optimizer.zero_grad(set_to_none=True)
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    scaler.step(optimizer)
    scaler.update()
    model.clamp_logit_scale()
    return float(loss.item())


def _validation_set(val: Any, seed: int, size: int) -> Batch:
    if isinstance(val, tuple):
        return val
    if hasattr(val, "fixed"):
        return val.fixed()
    return val.batch(np.random.default_rng([seed + 1, 0]), size)


@torch.inference_mode()
def recall_at_1(model: CvaaModel, val: Batch, dev: torch.device, chunk: int = 256) -> float:
    """Share of validation frames whose most similar validation window is their own."""
    model.eval()
    with autocast(dev):
        uav = torch.cat(
            [model.encode_uav(torch.from_numpy(val[0][i : i + chunk]).to(dev)) for i in range(0, len(val[0]), chunk)]
        )
        sat = torch.cat(
            [model.encode_sat(torch.from_numpy(val[1][i : i + chunk]).to(dev)) for i in range(0, len(val[1]), chunk)]
        )
    best = (uav.float() @ sat.float().t()).argmax(dim=1)
    return float((best == torch.arange(len(best), device=dev)).float().mean().item())


def _keep_if_best(best: dict[str, Any], model: CvaaModel, step: int, recall: float) -> None:
    if recall > best["recall"]:
        best.update(
            recall=recall, step=step, state={k: v.detach().to("cpu").clone() for k, v in model.state_dict().items()}
        )


def _report(say: Callable[[str], None], record: dict[str, float], steps: int) -> None:
    step = int(record["step"])
    if "val_recall_at_1" in record or step == 1 or step % max(1, steps // 20) == 0:
        val = f", val recall@1 {record['val_recall_at_1']:.3f}" if "val_recall_at_1" in record else ""
        say(f"step {step}/{steps}: loss {record['loss']:.4f}, temperature {1 / record['logit_scale']:.4f}{val}")


def _result(
    model: CvaaModel,
    best: dict[str, Any],
    history: list[dict[str, float]],
    dev: torch.device,
    batch: int,
    started: float,
    out: Path | None,
) -> TrainResult:
    model.load_state_dict(best["state"])
    meta = {"best_step": best["step"], "val_recall_at_1": best["recall"], "steps": len(history), "device": str(dev)}
    data = checkpoint_bytes(model, meta=meta)
    if out is not None:
        write_bytes_atomic(out, data)
    return TrainResult(
        checkpoint_bytes=data,
        checkpoint_path=out,
        weights_sha256=weights_sha256(best["state"]),
        best_step=best["step"],
        best_recall_at_1=best["recall"],
        history=history,
        device=str(dev),
        batch_size=batch,
        seconds=time.perf_counter() - started,
    )
