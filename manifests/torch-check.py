# zcuda's torch check (docs/apps.md, "The torch check"): run by `zcuda verify --app` in the
# application's own interpreter, launched as `zcuda run` would launch the application. Prints
# one line, "ZCUDA-TORCH-CHECK " + JSON, last. Standard library and torch only.
import json
import os
import re
import sys
import time

MARK = "ZCUDA-TORCH-CHECK "
# File names of CUDA's, ZLUDA's, HIP's and torch's CUDA libraries (libcuda.so.1, nvcuda.dll,
# cublas64_11.dll, libtorch_cuda.so, amdhip64.dll, ...), not every name containing "cuda".
LIBRARY_NAME = re.compile(r"^(lib)?(nv)?(cuda|cublas|cudnn|cusparse|cufft|curand|cusolver|nvrtc|nvjitlink|nvidia|nvml|zluda|amdhip|hiprtc|"
                          r"rocblas|hipblas|miopen|rocsparse|torch_cuda|c10_cuda|caffe2_nvrtc)")
result = {"python": sys.version.split()[0], "executable": sys.executable, "platform": sys.platform}


def finish(status, reason=""):
    result["status"] = status
    result["reason"] = reason
    sys.stdout.flush()
    print(MARK + json.dumps(result), flush=True)
    sys.exit(0)


def loaded_libraries():
    """The CUDA-related libraries this process loaded, with their paths."""
    paths = []
    if sys.platform.startswith("linux"):
        with open("/proc/self/maps") as maps:
            for line in maps:
                parts = line.split(None, 5)
                if len(parts) == 6 and parts[5].startswith("/"):
                    paths.append(parts[5].strip())
    elif sys.platform == "win32":
        import ctypes
        from ctypes import wintypes
        psapi = ctypes.WinDLL("psapi")
        kernel32 = ctypes.WinDLL("kernel32")
        process = kernel32.GetCurrentProcess()
        needed = wintypes.DWORD()
        modules = (wintypes.HMODULE * 4096)()
        psapi.EnumProcessModules(process, modules, ctypes.sizeof(modules), ctypes.byref(needed))
        count = min(needed.value // ctypes.sizeof(wintypes.HMODULE), 4096)
        name = ctypes.create_unicode_buffer(32768)
        for i in range(count):
            if psapi.GetModuleFileNameExW(process, modules[i], name, 32768):
                paths.append(name.value)
    seen = []
    for path in paths:
        base = os.path.basename(path).lower()
        if LIBRARY_NAME.match(base) and path not in seen:
            seen.append(path)
    return seen


def compare(name, run, tolerance):
    """Runs `run(device)` on the GPU and on the CPU and compares the two."""
    entry = {"name": name}
    try:
        started = time.time()
        gpu = run("cuda").float().cpu()
        cpu = run("cpu").float()
        scale = cpu.abs().max().item() or 1.0
        error = (gpu - cpu).abs().max().item() / scale
        entry.update({"ok": error <= tolerance, "max_relative_error": error, "tolerance": tolerance, "seconds": round(time.time() - started, 3)})
    except Exception as e:  # the failure is the finding
        entry.update({"ok": False, "error": "%s: %s" % (type(e).__name__, e)})
    return entry


SDP_NAMES = ("flash", "mem_efficient", "math", "cudnn")


def attention_backends():
    """Which scaled-dot-product-attention backends torch has on (torch 2.0 and later)."""
    out = {}
    for name in SDP_NAMES:
        enabled = getattr(torch.backends.cuda, "%s_sdp_enabled" % name, None)
        if enabled is not None:
            out[name] = bool(enabled())
    return out


def load_sdnext(root):
    """SD.Next's own ZLUDA setup, as its installer.py (install_rocm_zluda, --use-zluda on Windows)
    runs it before torch is imported: the first ROCm agent that is not an APU, then
    modules/zluda_installer.py's load(), which loads nvcuda.dll, nvml.dll, the HIP SDK's libraries
    and .zluda's CUDA 11 names by full path and sets ZLUDA_NVRTC_LIB and DISABLE_ADDMM_CUDA_LT."""
    from modules import rocm, zluda_installer
    agents = rocm.get_agents()
    device = None
    for index, agent in enumerate(agents):
        device = agent
        if not agent.is_apu:
            break
    if device is not None:
        os.environ.setdefault("HIP_VISIBLE_DEVICES", str(agents.index(device)))
    zluda_installer.set_default_agent(device)
    zluda_installer.load()


LOADERS = {"sdnext": load_sdnext}
loader = os.environ.get("ZCUDA_CHECK_LOADER", "")
if loader:
    root = os.environ.get("ZCUDA_CHECK_APP_ROOT", "")
    before = dict(os.environ)
    result["loader"] = {"name": loader, "app": root, "ran": False}
    sys.path.insert(0, root)
    try:
        LOADERS[loader](root)
    except BaseException as e:  # SystemExit included: the loader's failure is the finding
        result["libraries"] = loaded_libraries()
        finish("error", "the application's own ZLUDA loader (%s) failed: %s: %s" % (loader, type(e).__name__, e))
    result["loader"]["ran"] = True
    result["loader"]["set"] = {k: v for k, v in os.environ.items() if before.get(k) != v}
    result["loader"]["libraries"] = loaded_libraries()

try:
    import torch
    import torch.backends.cuda
except Exception as e:
    result["libraries"] = loaded_libraries()
    finish("error", "import torch failed: %s: %s" % (type(e).__name__, e))

# The backends as the program would have them: zcuda's attention hook (ZCUDA_SDP_OFF) turns some
# off as torch loads, and it must have; an application that turns some off itself
# (ZCUDA_CHECK_SDP_OFF names them) is mirrored here, so that the comparison runs what it runs.
hook_off = [n for n in os.environ.get("ZCUDA_SDP_OFF", "").split(",") if n]
app_off = [n for n in os.environ.get("ZCUDA_CHECK_SDP_OFF", "").split(",") if n]
attention = {"at_import": attention_backends(), "hook_off": hook_off, "app_off": app_off}
result["attention"] = attention
if hook_off and attention["at_import"]:
    still_on = [n for n in hook_off if attention["at_import"].get(n)]
    attention["hook_took_effect"] = not still_on
    if still_on:
        result["libraries"] = loaded_libraries()
        finish("fail", "zcuda's attention hook did not take effect: %s still on after import torch" % ", ".join(still_on))
for name in app_off:
    enable = getattr(torch.backends.cuda, "enable_%s_sdp" % name, None)
    if enable is not None:
        enable(False)
attention["used"] = attention_backends()

result["torch"] = torch.__version__
result["cuda_flavour"] = torch.version.cuda
result["hip"] = getattr(torch.version, "hip", None)
try:
    available = torch.cuda.is_available()
except Exception as e:
    available = False
    result["cuda_error"] = "%s: %s" % (type(e).__name__, e)
result["cuda_available"] = available
if not available:
    if torch.version.cuda is None and result["hip"] is None:
        reason = "this torch is a CPU-only build (torch.version.cuda is None): it has no CUDA to use"
    else:
        try:
            torch.cuda.init()
            reason = "torch.cuda.is_available() is False, and torch.cuda.init() said nothing"
        except Exception as e:
            reason = "torch cannot initialise CUDA: %s" % e
    result["libraries"] = loaded_libraries()
    finish("unavailable", reason)

result["device_count"] = torch.cuda.device_count()
result["device"] = torch.cuda.get_device_name(0)
result["capability"] = "%d.%d" % torch.cuda.get_device_capability(0)

torch.manual_seed(0)
a, b = torch.randn(512, 512), torch.randn(512, 512)
x, w = torch.randn(4, 8, 32, 32), torch.randn(16, 8, 3, 3)
q, k, v = torch.randn(2, 4, 64, 32), torch.randn(2, 4, 64, 32), torch.randn(2, 4, 64, 32)
F = torch.nn.functional
result["comparisons"] = [
    compare("mm", lambda d: torch.mm(a.to(d), b.to(d)), 1e-2),
    compare("conv2d", lambda d: F.conv2d(x.to(d), w.to(d), padding=1), 1e-2),
    compare("scaled_dot_product_attention", lambda d: F.scaled_dot_product_attention(q.to(d), k.to(d), v.to(d)), 1e-2),
]
torch.cuda.synchronize()
result["libraries"] = loaded_libraries()
failed = [c["name"] for c in result["comparisons"] if not c["ok"]]
finish("fail" if failed else "pass", ("differs from the CPU: " + ", ".join(failed)) if failed else "")
