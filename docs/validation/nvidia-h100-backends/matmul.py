import os, sys, time, torch
n = int(sys.argv[1]) if len(sys.argv) > 1 else 4096
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 6
cuda = os.environ.get("DEVICE", "cuda") == "cuda"
dev = torch.device("cuda" if cuda else "cpu")
dtype = torch.float16 if cuda else torch.float32
sync = torch.cuda.synchronize if cuda else (lambda: None)
a = torch.randn(n, n, device=dev, dtype=dtype)
b = torch.randn(n, n, device=dev, dtype=dtype)
for r in range(rounds):
    sync()
    t = time.perf_counter()
    for _ in range(50):
        c = a @ b
    sync()
    dt = time.perf_counter() - t
    print(f"tflops {50 * 2 * n**3 / dt / 1e12:.6f}", flush=True)
print("device", torch.cuda.get_device_name(0) if cuda else "cpu", "torch", torch.__version__, "checksum", float(c[0, :8].float().sum()))
