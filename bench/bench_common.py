"""What the benchmark scripts share: where things are, and running a harness that prints JSON."""
import json
import os
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def add_common_args(ap):
    """--models-dir, --peers (ONNX Runtime's node_modules) and --ort-script."""
    ap.add_argument("--models-dir", default=os.path.join(ROOT, "bench", "models"))
    ap.add_argument("--peers", default="/work/peers")
    ap.add_argument("--ort-script", default=os.path.join(ROOT, "..", "shared", "bench", "ort_run.js"))


def node_env(peers):
    return dict(os.environ, NODE_PATH=os.path.join(peers, "node_modules"))


def run_json(cmd, env=None):
    """Runs cmd and returns the JSON object on the last line of its output."""
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env).stdout
    return json.loads(out.strip().splitlines()[-1])
