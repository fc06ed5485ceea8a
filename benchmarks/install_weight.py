"""Install weight: a fresh venv with `uv pip install -e .` (no extras) versus `-e '.[torch]'` -- install time and
size -- and, in the venv without torch, the time to export the ONNX models (fp32, then int8) from the safetensors.

    .venv/bin/python benchmarks/install_weight.py [--cold] [--out benchmarks/reports/install-weight.md]

--cold gives every install its own empty uv cache (a fresh machine: everything is downloaded); without it the
machine's uv cache is used. The venvs live in a temporary directory under /tmp and are deleted afterwards.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

# run inside the venv without extras: proves torch is absent, then times the torch-free export and quantisation
EXPORT = """
import importlib.util, json, sys, time
from pathlib import Path
from typing import Any
assert importlib.util.find_spec("torch") is None and importlib.util.find_spec("sentence_transformers") is None
from search_platform.embeddings.onnx_export import ensure_onnx_model
from search_platform.embeddings.registry import packaged_model_path
cache, path, times = Path(sys.argv[1]), packaged_model_path(), {}
for quantize in (False, True):
    start = time.perf_counter()
    ensure_onnx_model(path, cache, quantize=quantize)
    times["int8" if quantize else "fp32"] = round(time.perf_counter() - start, 2)
from search_platform.embeddings.onnx import OnnxEmbedder
start = time.perf_counter()
vector = OnnxEmbedder(path, cache_dir=cache, quantize=True).embed_query("read a file line by line")
times["load_and_first_query"] = round(time.perf_counter() - start, 2)
print(json.dumps(times))
"""


def _du(path: Path) -> int:
    """Bytes under path, as du counts them."""
    return int(subprocess.run(["du", "-sb", str(path)], capture_output=True, text=True, check=True).stdout.split()[0])


def _install(spec: str, work: Path, *, cold: bool) -> dict[str, Any]:
    """Create a venv under work, install spec into it, and measure it."""
    venv = work / "venv"
    subprocess.run(["uv", "venv", "-q", "-p", "3.11", str(venv)], check=True)
    env = {**os.environ, "VIRTUAL_ENV": str(venv)}
    if cold:
        env["UV_CACHE_DIR"] = str(work / "uv-cache")
    start = time.perf_counter()
    subprocess.run(["uv", "pip", "install", "-q", "-e", spec], cwd=ROOT, env=env, check=True)
    seconds = time.perf_counter() - start
    site = next(venv.glob("lib/python*/site-packages"))
    packages = subprocess.run(["uv", "pip", "list", "--format", "json"], env=env, capture_output=True, text=True,
                              check=True).stdout
    result: dict[str, Any] = {
        "spec": spec, "install_s": round(seconds, 1), "venv_bytes": _du(venv), "packages": len(json.loads(packages)),
        "torch_bytes": _du(site / "torch") if (site / "torch").is_dir() else 0,
        "nvidia_bytes": _du(site / "nvidia") if (site / "nvidia").is_dir() else 0,
    }
    if spec == ".":
        done = subprocess.run([str(venv / "bin" / "python"), "-c", EXPORT, str(work / "onnx")], capture_output=True,
                              text=True, check=True, cwd=work)
        result["export_s"] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def _gb(n: int) -> str:
    return f"{n / 1e9:.2f} GB"


def main() -> None:
    """Measure both installs and write the report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cold", action="store_true", help="an empty uv cache per install (download everything)")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "reports" / "install-weight.md")
    args = parser.parse_args()
    results: list[dict[str, Any]] = []
    for spec in (".", ".[torch]"):
        work = Path(tempfile.mkdtemp(prefix="install-weight-", dir="/tmp"))
        try:
            results.append(_install(spec, work, cold=args.cold))
        finally:
            shutil.rmtree(work, ignore_errors=True)
        print(json.dumps(results[-1]))
    cache = "cold (empty uv cache: all downloaded)" if args.cold else "warm (this machine's uv cache)"
    lines = [f"# Install weight ({cache}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
             f"load average {os.getloadavg()[0]:.1f})", "",
             "| install | time | venv size | packages | of it torch / nvidia |", "|---|---|---|---|---|"]
    lines += [f"| `uv pip install -e '{r['spec']}'` | {r['install_s']} s | {_gb(r['venv_bytes'])} | {r['packages']} | "
              f"{_gb(r['torch_bytes'])} / {_gb(r['nvidia_bytes'])} |" for r in results]
    export = results[0]["export_s"]
    lines += ["", f"Without torch: ONNX export fp32 {export['fp32']} s, int8 {export['int8']} s (quantisation of the "
              f"fp32 file), load + first query {export['load_and_first_query']} s.", "",
              f"Command: `.venv/bin/python benchmarks/install_weight.py{' --cold' if args.cold else ''}`", ""]
    args.out.write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
