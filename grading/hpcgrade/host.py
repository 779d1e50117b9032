"""What this host offers: a GPU, its architecture, the tools a lab needs."""
import os
import shutil
import subprocess


def _nvidia_smi(args):
    exe = shutil.which("nvidia-smi")
    if not exe:
        return None
    try:
        p = subprocess.run([exe] + args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return p.stdout.decode("utf-8", "replace") if p.returncode == 0 else None


def gpu_available():
    """True when a CUDA GPU is usable. HPCGRADE_GPU=0/1 overrides (tests)."""
    forced = os.environ.get("HPCGRADE_GPU")
    if forced in ("0", "1"):
        return forced == "1"
    out = _nvidia_smi(["-L"])
    return bool(out and "GPU" in out)


def gpu_count():
    """How many CUDA GPUs this host has (0 without nvidia-smi). HPCGRADE_GPU=0
    forces 0; HPCGRADE_GPUS=N forces N (tests)."""
    forced = os.environ.get("HPCGRADE_GPUS")
    if forced is not None and forced.isdigit():
        return int(forced)
    if not gpu_available():
        return 0
    out = _nvidia_smi(["-L"]) or ""
    return sum(1 for line in out.splitlines() if line.startswith("GPU "))


def gpu_ids(environ=None):
    """The GPUs grades may use, named as CUDA_VISIBLE_DEVICES names them:
    the grader's own CUDA_VISIBLE_DEVICES when set (Slurm sets it to a
    job's GPUs), else "0" .. count - 1."""
    given = (os.environ if environ is None else environ).get("CUDA_VISIBLE_DEVICES")
    if given is not None:
        return [g.strip() for g in given.split(",") if g.strip()]
    return [str(i) for i in range(gpu_count())]


def gpu_arch(default="90"):
    """The first GPU's compute capability as Meson's gpu_arch wants it ('90')."""
    out = _nvidia_smi(["--query-gpu=compute_cap", "--format=csv,noheader"])
    if out:
        first = out.strip().splitlines()[0].strip()
        digits = first.replace(".", "")
        if digits.isdigit():
            return digits
    return default


def build_arch(gpu=None):
    """The gpu_arch the grader builds for: this host's GPU (GPU is whether
    there is one, asked when None), else 90: the code must compile, and
    nothing here runs it."""
    if gpu is None:
        gpu = gpu_available()
    return gpu_arch() if gpu else "90"


def find_tool(name):
    """An executable on PATH, or in /usr/local/cuda/bin for CUDA's tools."""
    return shutil.which(name) or shutil.which(name, path="/usr/local/cuda/bin")
