#!/usr/bin/env python3
"""Writes a ComfyUI-like log of about SIZE_MIB MiB: progress bars redrawn with bare \\r, ANSI
colours, tracebacks, pip lines; the known failure messages (a hipBLASLt warning, a cuDNN failure)
come near the end, as they do in a real failed run. usage: make_log.py OUT SIZE_MIB"""
import random
import sys

out, size = sys.argv[1], float(sys.argv[2]) * 1024 * 1024
rng = random.Random(7)
filler = [
    "\x1b[32mINFO\x1b[0m     Requested to load SDXL",
    "loaded completely 12721.20830078125 4897.0483474731445 True",
    "FETCH ComfyRegistry Data: 45/90",
    "  File \"C:\\ComfyUI-Zluda\\venv\\Lib\\site-packages\\torch\\nn\\modules\\module.py\", line 1751, in _wrapped_call_impl",
    "    return self._call_impl(*args, **kwargs)",
    "Requirement already satisfied: numpy in c:\\comfyui-zluda\\venv\\lib\\site-packages (1.26.4)",
    "model weight dtype torch.float16, manual cast: None",
    "[ZLUDA] Patched torch.backends.cudnn in custom node D:\\ComfyUI\\comfy_extras\\nodes_audio to prevent enabling cuDNN.",
]
with open(out, "w", newline="") as f:
    written = 0
    while written < size:
        if rng.random() < 0.1:
            bar = "".join(f"\r{p:3d}%|{'#' * (p // 10):<10}| {p}/100 [00:0{p % 10}<00:10, 1.{p:02d}it/s]" for p in range(0, 101, 5))
            line = bar + "\r\n"
        else:
            line = rng.choice(filler) + "\r\n"
        f.write(line)
        written += len(line)
    f.write("rocblaslt error: Could not load \"TensileLibrary_lazy_gfx1101.dat\"\r\n")
    f.write("!!! Exception during processing !!! GET was unable to find an engine to execute this computation\r\n")
    f.write("RuntimeError: cuDNN error: CUDNN_STATUS_EXECUTION_FAILED\r\n")
