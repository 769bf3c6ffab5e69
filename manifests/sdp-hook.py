# zcuda's attention hook (docs/apps.md, "Attention backends"): written as sitecustomize.py into a
# folder that zcuda puts first on PYTHONPATH, so Python's site module runs it at start-up. When
# the program imports torch, it turns off the scaled-dot-product-attention backends named in
# ZCUDA_SDP_OFF (flash, mem_efficient, math, cudnn) with torch.backends.cuda.enable_*_sdp(False),
# as an application does itself. torch is not imported by the hook. A sitecustomize that this
# file shadows (a distribution's) still runs. Standard library only.
import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
_OFF = [name for name in os.environ.get("ZCUDA_SDP_OFF", "").split(",") if name]


def _turn_off(_torch):
    cuda = importlib.import_module("torch.backends.cuda")
    for name in _OFF:
        enable = getattr(cuda, "enable_%s_sdp" % name, None)
        if enable is not None:
            enable(False)


class _AfterTorch(importlib.abc.MetaPathFinder):
    """Finds torch through the other finders, and runs _turn_off once torch has loaded."""

    def find_spec(self, name, path=None, target=None):
        if name != "torch":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        load = spec.loader.exec_module

        def exec_module(module):
            load(module)
            _turn_off(module)

        spec.loader.exec_module = exec_module
        return spec


def _chain():
    """Runs the sitecustomize this file shadows, if there is one."""
    rest = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", rest)
    if spec is not None and spec.loader is not None:
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)


if _OFF and "torch" not in sys.modules:
    sys.meta_path.insert(0, _AfterTorch())
_chain()
