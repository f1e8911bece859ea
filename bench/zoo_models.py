"""The model zoo: architectures of many families, built from Debian's PyTorch / torchvision with
random weights (torch.manual_seed(0)), each with one example input. Used by export_zoo.py (ONNX
files for zoo_compare.py: OpenGE vs ONNX Runtime, outputs and latency).

Every model here has one input; outputs may be several (detection: boxes, scores, kept indices).
"""
import torch
import torch.nn as nn
import torchvision


class TinyDetector(nn.Module):
    """A single-shot detector head on a small CNN: per-anchor boxes and scores, then
    torchvision.ops.nms (ONNX NonMaxSuppression) keeps the boxes that survive IoU 0.5."""

    def __init__(self, anchors=256):
        super().__init__()
        self.anchors = anchors
        self.backbone = nn.Sequential(
            nn.Conv2d(3, 16, 3, 2, 1), nn.ReLU(), nn.Conv2d(16, 32, 3, 2, 1), nn.ReLU(),
            nn.Conv2d(32, 64, 3, 2, 1), nn.ReLU(), nn.AdaptiveAvgPool2d(4), nn.Flatten())
        self.boxes = nn.Linear(64 * 16, anchors * 4)
        self.scores = nn.Linear(64 * 16, anchors)

    def forward(self, x):
        f = self.backbone(x)
        raw = self.boxes(f).reshape(self.anchors, 4)
        xy = torch.sigmoid(raw[:, :2]) * 100.0
        wh = torch.exp(raw[:, 2:].clamp(max=3.0)) * 10.0
        boxes = torch.cat([xy, xy + wh], dim=1)
        scores = torch.sigmoid(self.scores(f).reshape(self.anchors))
        keep = torchvision.ops.nms(boxes, scores, 0.5)
        return boxes[keep], scores[keep], keep


class SequenceTagger(nn.Module):
    """Bidirectional 2-layer LSTM, then a GRU, then a per-step classifier."""

    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(64, 96, num_layers=2, bidirectional=True, batch_first=True)
        self.gru = nn.GRU(192, 64, batch_first=True)
        self.head = nn.Linear(64, 10)

    def forward(self, x):
        h, _ = self.lstm(x)
        h, _ = self.gru(h)
        return self.head(h)


class RefineLoop(nn.Module):
    """Iterative refinement whose trip count comes from the input (a scripted for loop: ONNX Loop)
    with a data-dependent branch in the body (ONNX If)."""

    def __init__(self):
        super().__init__()
        self.step = nn.Linear(32, 32)

    def forward(self, x):
        h = torch.zeros_like(x[0])
        for i in range(x.size(0)):
            u = torch.tanh(self.step(h) + x[i])
            if bool(u.mean() > 0):
                h = h + u
            else:
                h = h - 0.5 * u
        return h


class DecoderOnly(nn.Module):
    """A GPT-style decoder-only language model: token + position embeddings, 4 pre-LN layers with a
    causal mask, tied output head."""

    def __init__(self, vocab=8000, seq=64, hidden=256, layers=4, heads=4):
        super().__init__()
        self.tok = nn.Embedding(vocab, hidden)
        self.pos = nn.Parameter(torch.randn(1, seq, hidden) * 0.02)
        layer = nn.TransformerEncoderLayer(hidden, heads, 4 * hidden, dropout=0.0, activation="gelu",
                                           batch_first=True, norm_first=True)
        self.blocks = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.ln = nn.LayerNorm(hidden)
        self.register_buffer("mask", torch.triu(torch.full((seq, seq), float("-inf")), diagonal=1))

    def forward(self, ids):
        h = self.tok(ids) + self.pos
        h = self.blocks(h, mask=self.mask)
        return self.ln(h) @ self.tok.weight.t()


class TwinBranchCnn(nn.Module):
    """Inception-style blocks of small convolutions: each block splits into two branches of three
    convolutions (one dilated) on 8 channels at 32x32, concatenates them and adds the block's
    input. Every convolution is too small to split over threads; the branches are independent."""

    def __init__(self, blocks=4, width=16):
        super().__init__()

        def conv(cin, cout, k, dilation=1):
            return nn.Sequential(nn.Conv2d(cin, cout, k, padding=dilation * (k // 2), dilation=dilation), nn.ReLU())

        half = width // 2
        self.stem = nn.Sequential(nn.Conv2d(3, width, 3, 2, 1), nn.ReLU())
        self.left = nn.ModuleList(nn.Sequential(conv(width, half, 1), conv(half, half, 3), conv(half, half, 3))
                                  for _ in range(blocks))
        self.right = nn.ModuleList(nn.Sequential(conv(width, half, 1), conv(half, half, 3, 2), conv(half, half, 3))
                                   for _ in range(blocks))
        self.head = nn.Linear(width, 10)

    def forward(self, x):
        h = self.stem(x)
        for left, right in zip(self.left, self.right):
            h = h + torch.cat([left(h), right(h)], dim=1)
        return self.head(h.mean(dim=(2, 3)))


def _image(size=224):
    return torch.randn(1, 3, size, size)


def _segmentation(model):
    class OutOnly(nn.Module):  # torchvision returns a dict; ONNX wants a tensor
        def __init__(self, m):
            super().__init__()
            self.m = m

        def forward(self, x):
            return self.m(x)["out"]
    return OutOnly(model)


# name -> (family, builder returning (module, example input), scripted?)
ZOO = {
    "squeezenet1_1": ("fire modules + Concat", lambda: (torchvision.models.squeezenet1_1(weights=None), _image()), False),
    "densenet121": ("densely connected CNN", lambda: (torchvision.models.densenet121(weights=None), _image()), False),
    "efficientnet_b0": ("squeeze-and-excitation, SiLU, depthwise",
                        lambda: (torchvision.models.efficientnet_b0(weights=None), _image()), False),
    "mobilenet_v3_small": ("SE, HardSwish, depthwise",
                           lambda: (torchvision.models.mobilenet_v3_small(weights=None), _image()), False),
    "shufflenet_v2": ("channel shuffle, grouped convs",
                      lambda: (torchvision.models.shufflenet_v2_x1_0(weights=None), _image()), False),
    "regnet_y_400mf": ("grouped convs + SE", lambda: (torchvision.models.regnet_y_400mf(weights=None), _image()), False),
    "convnext_tiny": ("ConvNeXt: 7x7 depthwise, LayerNorm, GELU",
                      lambda: (torchvision.models.convnext_tiny(weights=None), _image()), False),
    "vit_small": ("vision transformer (ViT-S/16)",
                  lambda: (torchvision.models.VisionTransformer(224, 16, num_layers=12, num_heads=6, hidden_dim=384,
                                                                mlp_dim=1536), _image()), False),
    "lraspp_mobilenet_v3": ("segmentation (LR-ASPP, bilinear Resize)",
                            lambda: (_segmentation(torchvision.models.segmentation.lraspp_mobilenet_v3_large(
                                weights=None, weights_backbone=None)), _image()), False),
    "tiny_detector_nms": ("detection with NonMaxSuppression", lambda: (TinyDetector(), _image(128)), False),
    "lstm_gru_tagger": ("LSTM + GRU sequence model", lambda: (SequenceTagger(), torch.randn(1, 50, 64)), False),
    "refine_loop": ("Loop + If (scripted)", lambda: (RefineLoop(), torch.randn(6, 32)), True),
    "twin_branch_cnn": ("parallel branches of small convs (Inception-style)",
                        lambda: (TwinBranchCnn(), _image(64)), False),
    "gpt_decoder": ("decoder-only transformer (causal mask)",
                    lambda: (DecoderOnly(), torch.randint(0, 8000, (1, 64), dtype=torch.int64)), False),
}


def _realistic_weights(model, x):
    """Random-weight CNNs in eval mode see BatchNorm as identity, and their activations shrink
    layer by layer (EfficientNet's logits come out near 1e-14), and some heads start at zero
    (ViT): a comparison of such outputs says little. So BatchNorm statistics are gathered from a
    few random batches in training mode, and zero-initialised final layers get random weights."""
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.Linear) and not m.weight.any():
                nn.init.normal_(m.weight, 0.0, 0.02)
        norms = [m for m in model.modules() if isinstance(m, nn.modules.batchnorm._BatchNorm)]
        if norms and x.dtype.is_floating_point:
            for m in norms:
                m.reset_running_stats()
                m.momentum = None  # a plain average over the batches below
            model.train()
            for _ in range(4):
                model(torch.randn((4,) + tuple(x.shape[1:])))


def build(name):
    """(module in eval mode, example input, scripted?) with torch.manual_seed(0)."""
    torch.manual_seed(0)
    _, make, scripted = ZOO[name]
    model, x = make()
    _realistic_weights(model, x)
    model.eval()
    return model, x, scripted
