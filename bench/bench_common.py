"""What the benchmark scripts share: where things are, and running a harness that prints JSON.

The reference runtime is ONNX Runtime's Node.js package, run by a small harness script. Neither
is part of this repository, so both are given, by argument or environment variable:
  --peers DIR       or OPENGE_ORT_PEERS    a folder whose node_modules holds onnxruntime-node
  --ort-script F    or OPENGE_ORT_SCRIPT   the harness (model, input .npy, --threads, --runs,
                                           --warmup, --save; prints one JSON line)
"""
import json
import os
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def add_common_args(ap):
    """--models-dir, --peers (ONNX Runtime's node_modules) and --ort-script."""
    ap.add_argument("--models-dir", default=os.path.join(ROOT, "bench", "models"),
                    help="NAME.onnx and NAME.input.npy per model (default: bench/models)")
    ap.add_argument("--peers", default=os.environ.get("OPENGE_ORT_PEERS"),
                    help="folder whose node_modules holds onnxruntime-node (default: $OPENGE_ORT_PEERS)")
    ap.add_argument("--ort-script", default=os.environ.get("OPENGE_ORT_SCRIPT"),
                    help="ONNX Runtime harness script (default: $OPENGE_ORT_SCRIPT)")


def parse_args(ap):
    """Parses and checks that the reference runtime was given (there is no default location)."""
    args = ap.parse_args()
    if not args.peers:
        ap.error("give ONNX Runtime's folder: --peers DIR or OPENGE_ORT_PEERS=DIR (DIR/node_modules/onnxruntime-node)")
    if not args.ort_script:
        ap.error("give the ONNX Runtime harness: --ort-script FILE or OPENGE_ORT_SCRIPT=FILE")
    for what, path in (("--peers", os.path.join(args.peers, "node_modules")), ("--ort-script", args.ort_script)):
        if not os.path.exists(path):
            ap.error(f"{what}: {path} does not exist")
    return args


def node_env(peers):
    return dict(os.environ, NODE_PATH=os.path.join(peers, "node_modules"))


def run_json(cmd, env=None):
    """Runs cmd and returns the JSON object on the last line of its output."""
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env).stdout
    return json.loads(out.strip().splitlines()[-1])
