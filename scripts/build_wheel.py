#!/usr/bin/env python3
"""Builds the openge wheel from a build tree: the package as <build>/python/openge holds it (native
module and Python files) plus the SoC profiles (opp/) beside the native module, where the engine
looks for them when it is loaded from a wheel. Only the standard library is used, so the wheel is
built offline and installs with `pip install --no-index`.

    scripts/build_wheel.py BUILD_DIR [OUT_DIR]     # prints the wheel's path
"""
import base64
import hashlib
import pathlib
import re
import sys
import sysconfig
import zipfile

ROOT = pathlib.Path(__file__).resolve().parents[1]


def version() -> str:
    match = re.search(r"project\(OpenGE VERSION ([0-9.]+)", (ROOT / "CMakeLists.txt").read_text())
    if not match:
        sys.exit("build_wheel: no version in CMakeLists.txt")
    return match.group(1)


def wheel_tag(package: pathlib.Path) -> str:
    """cp311-cp311-linux_x86_64 from the native module's own suffix (the interpreter it was built for)."""
    native = sorted(package.glob("_openge*.so"))
    if not native:
        sys.exit(f"build_wheel: {package} has no _openge*.so; build the _openge target first")
    match = re.match(r"_openge\.cpython-(\d+)-", native[0].name)
    if not match:
        sys.exit(f"build_wheel: cannot tell the Python version of {native[0].name}")
    abi = f"cp{match.group(1)}"
    return f"{abi}-{abi}-{sysconfig.get_platform().replace('-', '_').replace('.', '_')}"


def record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def build(build_dir: pathlib.Path, out_dir: pathlib.Path) -> pathlib.Path:
    package = build_dir / "python" / "openge"
    tag = wheel_tag(package)
    ver = version()
    files = {}
    for path in sorted(package.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            files[f"openge/{path.relative_to(package).as_posix()}"] = path.read_bytes()
    for path in sorted((ROOT / "opp").rglob("*")):
        if path.is_file():
            files[f"openge/opp/{path.relative_to(ROOT / 'opp').as_posix()}"] = path.read_bytes()
    info = f"openge-{ver}.dist-info"
    files[f"{info}/METADATA"] = (f"Metadata-Version: 2.1\nName: openge\nVersion: {ver}\n"
                                 "Summary: OpenGE: ONNX models on the CPU with CANN's configuration surface\n"
                                 "Requires-Dist: numpy\n").encode()
    files[f"{info}/WHEEL"] = (f"Wheel-Version: 1.0\nGenerator: openge build_wheel.py\nRoot-Is-Purelib: false\n"
                              f"Tag: {tag}\n").encode()
    record = [record_line(name, data) for name, data in files.items()] + [f"{info}/RECORD,,"]
    files[f"{info}/RECORD"] = ("\n".join(record) + "\n").encode()
    out_dir.mkdir(parents=True, exist_ok=True)
    wheel = out_dir / f"openge-{ver}-{tag}.whl"
    temporary = wheel.with_suffix(".whl.tmp")
    with zipfile.ZipFile(temporary, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in files.items():
            entry = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
            # The native module must stay executable once installed.
            entry.external_attr = (0o755 if name.endswith(".so") else 0o644) << 16
            entry.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(entry, data)
    temporary.replace(wheel)
    return wheel


def main() -> None:
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    build_dir = pathlib.Path(sys.argv[1]).resolve()
    out_dir = pathlib.Path(sys.argv[2]).resolve() if len(sys.argv) == 3 else build_dir / "dist"
    print(build(build_dir, out_dir))


if __name__ == "__main__":
    main()
