"""openge.Trainer on recurrent models (LSTM, GRU, RNN built with onnx.helper): the gradients of one step
agree with PyTorch 1.13's autograd from the same weights, and a tiny LSTM learns a sequence task."""
import numpy
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import openge

try:  # Debian's python3-torch, which scripts/setup.sh does not install: the reference gradients
    import torch
except ImportError:
    torch = None

BATCH, SEQ, FEATURES, HIDDEN = 4, 5, 3, 6
GATES = {"LSTM": 4, "GRU": 3, "RNN": 1}
# float32 end to end: the precision mode keeps the model's dtype.
FP32 = {"precision_mode": "must_keep_origin_dtype"}


def recurrent_model(path, op, seed, direction="forward", linear_before_reset=1):
    """x [batch, seq, features] -> Transpose -> op (B, initial_h) -> mean of Y over time and
    directions -> MatMul + bias -> y [batch, 1]."""
    rng = numpy.random.default_rng(seed)
    dirs = 2 if direction == "bidirectional" else 1
    gh = GATES[op] * HIDDEN
    weights = {
        "W": rng.uniform(-0.5, 0.5, (dirs, gh, FEATURES)),
        "R": rng.uniform(-0.5, 0.5, (dirs, gh, HIDDEN)),
        "B": rng.uniform(-0.2, 0.2, (dirs, 2 * gh)),
        "h0": rng.uniform(-0.2, 0.2, (dirs, BATCH, HIDDEN)),
        "out.weight": rng.uniform(-0.5, 0.5, (HIDDEN, 1)),
        "out.bias": numpy.zeros(1),
    }
    attrs = {"hidden_size": HIDDEN, "direction": direction}
    if op == "GRU":
        attrs["linear_before_reset"] = linear_before_reset
    nodes = [
        helper.make_node("Transpose", ["x"], ["xt"], perm=[1, 0, 2]),
        helper.make_node(op, ["xt", "W", "R", "B", "", "h0"], ["Y"], **attrs),
        helper.make_node("ReduceMean", ["Y"], ["pooled"], axes=[0, 1], keepdims=0),
        helper.make_node("MatMul", ["pooled", "out.weight"], ["proj"]),
        helper.make_node("Add", ["proj", "out.bias"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes, op.lower(), [helper.make_tensor_value_info("x", TensorProto.FLOAT, [BATCH, SEQ, FEATURES])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [BATCH, 1])],
        [numpy_helper.from_array(v.astype(numpy.float32), k) for k, v in weights.items()])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(model)
    onnx.save(model, path)
    return {k: v.astype(numpy.float32) for k, v in weights.items()}


def onnx_to_torch_rows(op, hidden):
    """Row order of PyTorch's gate blocks in ONNX's weights: LSTM iofc -> ifco, GRU zrh -> rzh."""
    blocks = {"LSTM": [0, 2, 3, 1], "GRU": [1, 0, 2], "RNN": [0]}[op]
    return numpy.concatenate([numpy.arange(b * hidden, (b + 1) * hidden) for b in blocks])


def torch_gradients(op, weights, x, labels, direction, linear_before_reset):
    """PyTorch's gradients of the mse loss, mapped back to the ONNX tensors."""
    assert op == "LSTM" or linear_before_reset == 1  # torch.nn.GRU is the linear_before_reset form
    dirs = 2 if direction == "bidirectional" else 1
    rows = onnx_to_torch_rows(op, HIDDEN)
    gh = GATES[op] * HIDDEN
    cls = {"LSTM": torch.nn.LSTM, "GRU": torch.nn.GRU, "RNN": torch.nn.RNN}[op]
    net = cls(FEATURES, HIDDEN, bidirectional=dirs == 2).double()
    suffixes = ["", "_reverse"][:dirs]
    if direction == "reverse":
        raise ValueError("torch has no reverse-only recurrent layer")
    with torch.no_grad():
        for d, s in enumerate(suffixes):
            getattr(net, "weight_ih_l0" + s).copy_(torch.tensor(weights["W"][d][rows]))
            getattr(net, "weight_hh_l0" + s).copy_(torch.tensor(weights["R"][d][rows]))
            getattr(net, "bias_ih_l0" + s).copy_(torch.tensor(weights["B"][d][:gh][rows]))
            getattr(net, "bias_hh_l0" + s).copy_(torch.tensor(weights["B"][d][gh:][rows]))
    h0 = torch.tensor(weights["h0"].astype(numpy.float64), requires_grad=True)
    w_out = torch.tensor(weights["out.weight"].astype(numpy.float64), requires_grad=True)
    b_out = torch.tensor(weights["out.bias"].astype(numpy.float64), requires_grad=True)
    xt = torch.tensor(x.astype(numpy.float64)).transpose(0, 1)
    state = (h0, torch.zeros_like(h0)) if op == "LSTM" else h0
    y, _ = net(xt, state)  # [seq, batch, dirs * hidden]
    pooled = y.reshape(SEQ, BATCH, dirs, HIDDEN).mean(dim=(0, 2))
    loss = ((pooled @ w_out + b_out - torch.tensor(labels.astype(numpy.float64)))**2).mean()
    loss.backward()
    inverse = numpy.argsort(rows)
    grads = {"W": numpy.stack([getattr(net, "weight_ih_l0" + s).grad.numpy()[inverse] for s in suffixes]),
             "R": numpy.stack([getattr(net, "weight_hh_l0" + s).grad.numpy()[inverse] for s in suffixes]),
             "B": numpy.stack([numpy.concatenate([getattr(net, "bias_ih_l0" + s).grad.numpy()[inverse],
                                                  getattr(net, "bias_hh_l0" + s).grad.numpy()[inverse]])
                               for s in suffixes]),
             "h0": h0.grad.numpy(), "out.weight": w_out.grad.numpy(), "out.bias": b_out.grad.numpy()}
    return float(loss), grads


@pytest.mark.parametrize("op,direction", [("LSTM", "forward"), ("LSTM", "bidirectional"), ("GRU", "forward"),
                                          ("GRU", "bidirectional"), ("RNN", "forward"), ("RNN", "bidirectional")])
def test_one_sgd_step_moves_every_parameter_by_pytorchs_gradient(tmp_path, op, direction):
    if torch is None:
        pytest.skip("python3-torch is not installed (PyTorch gives the reference gradients)")
    path = tmp_path / "model.onnx"
    weights = recurrent_model(path, op, seed=3, direction=direction)
    rng = numpy.random.default_rng(4)
    x = rng.standard_normal((BATCH, SEQ, FEATURES)).astype(numpy.float32)
    labels = rng.standard_normal((BATCH, 1)).astype(numpy.float32)
    lr = 0.5
    trainer = openge.Trainer(path, loss="mse", optimizer="sgd", lr=lr, options=FP32, threads=1)
    assert sorted(trainer.trainable) == sorted(weights)
    loss = trainer.step({"x": x, "labels": labels})
    expected_loss, grads = torch_gradients(op, weights, x, labels, direction, 1)
    assert loss == pytest.approx(expected_loss, rel=1e-5)
    for name, before in weights.items():
        moved = (before - trainer.parameter(name)) / lr
        numpy.testing.assert_allclose(moved, grads[name], rtol=1e-3, atol=2e-6, err_msg=name)


def test_a_tiny_lstm_learns_the_mean_of_its_sequence(tmp_path):
    path = tmp_path / "lstm.onnx"
    recurrent_model(path, "LSTM", seed=5)
    rng = numpy.random.default_rng(6)
    trainer = openge.Trainer(path, loss="mse", optimizer="adam", lr=0.02, options=FP32, threads=1)
    losses = []
    for _ in range(60):
        x = rng.standard_normal((BATCH, SEQ, FEATURES)).astype(numpy.float32)
        labels = x.mean(axis=(1, 2))[:, None] * 3
        losses.append(trainer.step({"x": x, "labels": labels}))
    assert numpy.mean(losses[-10:]) < 0.3 * numpy.mean(losses[:10]), losses
