"""openge.torch: a torch.nn.Module exported through torch.onnx and run by OpenGE, torch tensors in
and out; its profiler writes to the trace handler's folder > ASCEND_WORK_PATH/profiling_data > the
working folder (ENV-14), parsed with a handler (ENV-15) and left raw without one (ENV-16)."""
import os
import subprocess
import sys

import pytest

torch = pytest.importorskip("torch")
import openge.torch  # noqa: E402


class SmallNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.fc = torch.nn.Linear(8 * 8 * 8, 10)

    def forward(self, x):
        y = torch.relu(self.conv(x))
        return self.fc(torch.flatten(y, 1)), torch.sigmoid(y)


def test_module_runs_on_openge_and_returns_torch_tensors():
    net = SmallNet()
    x = torch.rand(2, 3, 8, 8, generator=torch.Generator().manual_seed(1))
    model = openge.torch.compile(net, (x,))
    logits, act = model(x)
    assert isinstance(logits, torch.Tensor) and isinstance(act, torch.Tensor)
    with torch.no_grad():
        want_logits, want_act = net(x)
    assert logits.shape == want_logits.shape and act.shape == want_act.shape
    torch.testing.assert_close(logits, want_logits, rtol=1e-4, atol=1e-4)
    torch.testing.assert_close(act, want_act, rtol=1e-4, atol=1e-4)


def test_wrong_number_of_inputs_is_a_type_error():
    model = openge.torch.compile(SmallNet(), (torch.ones(1, 3, 8, 8),))
    with pytest.raises(TypeError, match="takes 1 tensors"):
        model(torch.ones(1, 3, 8, 8), torch.ones(1))


APP = """
import sys, torch, openge.torch
sys.path.insert(0, sys.argv[1])
from test_torch_route import SmallNet
model = openge.torch.compile(SmallNet(), (torch.ones(1, 3, 8, 8),))
mode = sys.argv[2]
handler = {"dir": openge.torch.tensorboard_trace_handler("./trace_log"),
           "nodir": openge.torch.tensorboard_trace_handler(), "none": None}[mode]
with openge.torch.profile(on_trace_ready=handler) as prof:
    for _ in range(2):
        model(torch.ones(1, 3, 8, 8))
print(prof.trace_folder or prof.collections[0])
"""


def run_app(tmp_path, mode, work_path):
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("ASCEND_WORK_PATH", "PROFILING_MODE", "PROFILING_OPTIONS")}
    if work_path:
        env["ASCEND_WORK_PATH"] = str(tmp_path / "work")
    done = subprocess.run([sys.executable, "-c", APP, os.path.dirname(__file__), mode], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return cwd, done.stdout.strip().splitlines()[-1]


def test_ENV_14_trace_handler_folder_wins_over_work_path(tmp_path):
    cwd, folder = run_app(tmp_path, "dir", work_path=True)
    assert os.path.dirname(folder) == str(cwd / "trace_log") and folder.endswith("_ascend_pt")
    assert not (tmp_path / "work" / "profiling_data").exists()


def test_ENV_15_handler_without_folder_uses_work_path_and_parses(tmp_path):
    cwd, folder = run_app(tmp_path, "nodir", work_path=True)
    assert os.path.dirname(folder) == str(tmp_path / "work" / "profiling_data") and folder.endswith("_ascend_pt")
    out = os.path.join(folder, "ASCEND_PROFILER_OUTPUT")
    assert {"kernel_details.csv", "trace_view.json"} <= set(os.listdir(out)), os.listdir(out)
    header = open(os.path.join(out, "kernel_details.csv")).readline()
    assert "Op Name" in header
    assert [p for p in os.listdir(folder) if p.startswith("PROF_")]


def test_ENV_14_default_is_the_working_folder(tmp_path):
    cwd, folder = run_app(tmp_path, "nodir", work_path=False)
    assert os.path.dirname(folder) == str(cwd) and folder.endswith("_ascend_pt")


def test_ENV_16_without_handler_the_work_path_gets_the_raw_collection(tmp_path):
    cwd, folder = run_app(tmp_path, "none", work_path=True)
    assert os.path.dirname(folder) == str(tmp_path / "work" / "profiling_data")
    assert os.path.basename(folder).startswith("PROF_")
    parsed = [p for p in os.listdir(os.path.dirname(folder)) if p.endswith("_ascend_pt")]
    assert not parsed
