"""openge.Trainer: train an ONNX model on NumPy arrays (graph_run_mode=1, the training scenario)."""
from __future__ import annotations

import os
import warnings
from typing import Dict, List, Mapping, Optional, Sequence, Union

import numpy

from . import _openge
from ._errors import OptionWarning
from .session import OptionsArg, TensorInfo, _assignments

__all__ = ["Trainer"]

PathLike = Union[str, "os.PathLike[str]"]


class Trainer(_openge.Trainer):
    """An ONNX model being trained: its parameters and optimizer state live here between steps.

    Trainer(model, loss="cross_entropy", optimizer="sgd", lr=0.01, momentum=0.9, weight_decay=0.0,
            betas=(0.9, 0.999), eps=1e-8, loss_output="", trainable=(), options=None, threads=None,
            options_files=())

    loss: "cross_entropy" (SoftmaxCrossEntropyLoss of the output against int64 class labels),
    "mse" (against labels of the output's shape), or "model" (the model computes its own scalar
    loss). A named loss adds the feed ``labels`` after the model's inputs.
    optimizer: "sgd", "momentum", "nesterov", "adam", "adamw" or "lamb" (PyTorch's update rules).
    trainable: initializer names to train; empty trains every float initializer that reaches the loss.
    loss_scale: "auto" (dynamic loss scaling when the precision mode computes in float16), "dynamic",
    "none" or a fixed number; ``loss_scale`` and ``skipped_steps`` report it as training goes.
    options, threads, options_files: as for ``openge.Session`` (``npu.global_options()`` by default).
    seed: the masks of training-mode Dropout (each step's drawn from the seed and the step number).

    Data-parallel training: started by ``mpirun -np N python3 script.py``, each process is one rank
    (``rank``, ``world_size``); the parameters start as rank 0's, each ``step`` takes this rank's
    shard of the batch and the gradients are averaged over the ranks, so every rank keeps the same
    parameters. ``fit`` shards each global batch itself. split_by_index / split_by_size cut the
    gradients into all-reduce buckets as the TF adapter's set_split_strategy_by_idx / _by_size.
    """

    def __init__(self, model: PathLike, loss: str = "cross_entropy", optimizer: str = "sgd", lr: float = 0.01,
                 momentum: float = 0.9, weight_decay: float = 0.0, betas: Sequence[float] = (0.9, 0.999),
                 eps: float = 1e-8, loss_output: str = "", trainable: Sequence[str] = (), loss_scale: str = "auto",
                 options: OptionsArg = None, threads: Optional[int] = None,
                 options_files: Sequence[PathLike] = (), split_by_index: Sequence[int] = (),
                 split_by_size: Sequence[float] = (), seed: int = 0) -> None:
        super().__init__(os.fspath(model), _assignments(options), [os.fspath(f) for f in options_files], threads,
                         loss, loss_output, optimizer, float(lr), float(momentum), float(weight_decay),
                         float(betas[0]), float(betas[1]), float(eps), list(trainable), str(loss_scale),
                         [int(i) for i in split_by_index], [float(p) for p in split_by_size], int(seed))
        for message in self.option_warnings:
            warnings.warn(message, OptionWarning, stacklevel=2)
        self.feeds: List[TensorInfo] = [TensorInfo(*t) for t in self._feeds()]
        self.outputs: List[TensorInfo] = [TensorInfo(*t) for t in self._outputs()]

    def step(self, feed: Mapping[str, numpy.ndarray]) -> float:
        """One optimizer step on a batch ({feed name: array}); returns the loss before the update."""
        return super().step(dict(feed))

    def evaluate(self, feed: Mapping[str, numpy.ndarray]) -> List[numpy.ndarray]:
        """The model's outputs for its inputs with the current parameters (inference mode)."""
        return super().evaluate(dict(feed))

    def fit(self, data: Mapping[str, numpy.ndarray], epochs: int = 1, batch_size: int = 32, shuffle: bool = True,
            seed: int = 0) -> List[float]:
        """Trains on arrays whose first axis counts samples ({feed name: array}), in batches of
        batch_size (the last may be smaller), the order drawn from (seed, epoch). Returns each
        epoch's mean loss. Under mpirun batch_size is the global batch: each rank steps on its
        contiguous slice of it (a last batch smaller than the rank count is dropped)."""
        names = [f.name for f in self.feeds]
        missing = [n for n in names if n not in data]
        if missing:
            raise KeyError(f"fit needs the arrays {names}; missing {missing}")
        count = len(data[names[0]])
        means = []
        for epoch in range(epochs):
            order = numpy.random.default_rng([seed, epoch]).permutation(count) if shuffle else numpy.arange(count)
            losses = []
            for start in range(0, count, batch_size):
                idx = order[start:start + batch_size]
                if self.world_size > 1:
                    if len(idx) < self.world_size:
                        continue
                    n = len(idx)
                    idx = idx[n * self.rank // self.world_size:n * (self.rank + 1) // self.world_size]
                losses.append(self.step({n: numpy.ascontiguousarray(data[n][idx]) for n in names}))
            means.append(float(numpy.mean(losses)))
        return means

    def parameters(self) -> Dict[str, numpy.ndarray]:
        """The trained parameters' current values by name."""
        return {name: self.parameter(name) for name in self.trainable}
