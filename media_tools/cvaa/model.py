"""The CVAA network in plain PyTorch: a small shared ViT, a shared projector, one adapter per view.

Satellite windows are summarised by the class token, drone frames by GeM pooling over the patch tokens
(a drone frame's content is spread over the frame, while a window is centred on what it shows); both go
through the same projector, then their own residual adapter, and come out L2-normalised. Imports torch:
load this module only when a model is needed.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F  # noqa: N812
from torch import nn

from .config import CvaaConfig

# Per-channel statistics the inputs are centred with; fixed numbers (not learned) so a checkpoint needs none.
MEAN, STD = 0.45, 0.25


class PatchEmbed(nn.Module):
    """Non-overlapping patches -> tokens: one strided convolution."""

    def __init__(self, patch: int, width: int) -> None:
        super().__init__()
        self.proj = nn.Conv2d(3, width, kernel_size=patch, stride=patch)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.proj(x).flatten(2).transpose(1, 2)


class Attention(nn.Module):
    def __init__(self, width: int, heads: int) -> None:
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(width, 3 * width)
        self.out = nn.Linear(width, width)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, n, c = x.shape
        q, k, v = self.qkv(x).view(b, n, 3, self.heads, c // self.heads).permute(2, 0, 3, 1, 4)
        y = F.scaled_dot_product_attention(q, k, v)  # fused kernels where the device has them
        return self.out(y.transpose(1, 2).reshape(b, n, c))


class Block(nn.Module):
    """Pre-norm transformer block."""

    def __init__(self, width: int, heads: int, mlp_ratio: float) -> None:
        super().__init__()
        hidden = int(width * mlp_ratio)
        self.norm1, self.norm2 = nn.LayerNorm(width), nn.LayerNorm(width)
        self.attn = Attention(width, heads)
        self.mlp = nn.Sequential(nn.Linear(width, hidden), nn.GELU(), nn.Linear(hidden, width))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attn(self.norm1(x))
        return x + self.mlp(self.norm2(x))


class Backbone(nn.Module):
    """ViT: patch tokens plus a class token, learned position embeddings, `depth` blocks, final norm."""

    def __init__(self, cfg: CvaaConfig) -> None:
        super().__init__()
        tokens = (cfg.input_size // cfg.patch_size) ** 2
        self.patches = PatchEmbed(cfg.patch_size, cfg.width)
        self.cls = nn.Parameter(torch.zeros(1, 1, cfg.width))
        self.pos = nn.Parameter(torch.zeros(1, tokens + 1, cfg.width))
        self.blocks = nn.ModuleList(Block(cfg.width, cfg.heads, cfg.mlp_ratio) for _ in range(cfg.depth))
        self.norm = nn.LayerNorm(cfg.width)
        nn.init.trunc_normal_(self.pos, std=0.02)
        nn.init.trunc_normal_(self.cls, std=0.02)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """(B, 3, S, S) float -> (B, 1 + tokens, width); token 0 is the class token."""
        t = self.patches(x)
        t = torch.cat([self.cls.expand(len(t), -1, -1), t], dim=1) + self.pos
        for block in self.blocks:
            t = block(t)
        return self.norm(t)


class GeM(nn.Module):
    """Generalised mean over tokens, (mean x^p)^(1/p) with a learned p: between average (p=1) and max."""

    def __init__(self, p: float, eps: float = 1e-6) -> None:
        super().__init__()
        self.p = nn.Parameter(torch.tensor(float(p)))
        self.eps = eps

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        p = self.p.clamp(1.0, 8.0)
        # The mean of powers is taken in float32: x^p of bf16/fp16 values loses too much.
        x = tokens.float().clamp(min=self.eps).pow(p)
        return x.mean(dim=1).pow(1.0 / p)


class Adapter(nn.Module):
    """Residual MLP that starts as the identity (last layer zero), so both views begin from the shared
    projection and learn only what differs."""

    def __init__(self, dim: int, hidden: int) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.fc1, self.fc2 = nn.Linear(dim, hidden), nn.Linear(hidden, dim)
        nn.init.zeros_(self.fc2.weight)
        nn.init.zeros_(self.fc2.bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.fc2(F.gelu(self.fc1(self.norm(x))))


class CvaaModel(nn.Module):
    """encode_sat / encode_uav take (B, S, S, 3) uint8 images and return (B, embed_dim) unit vectors."""

    def __init__(self, cfg: CvaaConfig) -> None:
        super().__init__()
        self.config = cfg
        self.backbone = Backbone(cfg)
        self.gem = GeM(cfg.gem_p)
        self.projector = nn.Sequential(nn.Linear(cfg.width, cfg.width), nn.GELU(), nn.Linear(cfg.width, cfg.embed_dim))
        self.adapter_sat = Adapter(cfg.embed_dim, cfg.adapter_hidden)
        self.adapter_uav = Adapter(cfg.embed_dim, cfg.adapter_hidden)
        self.logit_scale = nn.Parameter(torch.tensor(math.log(1 / cfg.init_temperature)))
        self.apply(_init_linear)

    @staticmethod
    def _prep(images: torch.Tensor) -> torch.Tensor:
        return (images.permute(0, 3, 1, 2).float() / 255 - MEAN) / STD

    def encode_sat(self, images: torch.Tensor) -> torch.Tensor:
        cls = self.backbone(self._prep(images))[:, 0]
        return F.normalize(self.adapter_sat(self.projector(cls)).float(), dim=-1)

    def encode_uav(self, images: torch.Tensor) -> torch.Tensor:
        pooled = self.gem(self.backbone(self._prep(images))[:, 1:])
        return F.normalize(self.adapter_uav(self.projector(pooled)).float(), dim=-1)

    def clamp_logit_scale(self) -> None:
        """Keep the temperature from collapsing (scale at most max_logit_scale), as CLIP does."""
        with torch.no_grad():
            self.logit_scale.clamp_(0.0, math.log(self.config.max_logit_scale))


def _init_linear(module: nn.Module) -> None:
    if isinstance(module, nn.Linear) and module.weight.abs().sum() > 0:  # adapters' zero layers stay zero
        nn.init.trunc_normal_(module.weight, std=0.02)
        if module.bias is not None:
            nn.init.zeros_(module.bias)


def info_nce(uav: torch.Tensor, sat: torch.Tensor, logit_scale: torch.Tensor) -> torch.Tensor:
    """Symmetric InfoNCE: row i of `uav` matches row i of `sat`, every other row of the batch is a negative;
    the mean of the frame->window and window->frame cross-entropies."""
    logits = logit_scale.exp() * uav @ sat.t()
    target = torch.arange(len(uav), device=uav.device)
    return (F.cross_entropy(logits, target) + F.cross_entropy(logits.t(), target)) / 2
