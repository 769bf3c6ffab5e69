# A small PyTorch training run for `zcuda bench` through the pytorch profile
# (scripts/validate-apps-h200.sh): a two-layer network fitted to a fixed function on the GPU.
# Prints "steps_per_s N" (bench's metric) and the losses; exits 1 when the loss did not fall.
import sys
import time

import torch

torch.manual_seed(0)
device = "cuda"
x = torch.randn(4096, 64, device=device)
y = torch.sin(x.sum(dim=1, keepdim=True))
model = torch.nn.Sequential(torch.nn.Linear(64, 256), torch.nn.ReLU(), torch.nn.Linear(256, 1)).to(device)
optimiser = torch.optim.Adam(model.parameters(), lr=1e-3)
loss_fn = torch.nn.MSELoss()
first = None
steps = 300
torch.cuda.synchronize()
started = time.time()
for step in range(steps):
    optimiser.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    optimiser.step()
    if first is None:
        first = loss.item()
torch.cuda.synchronize()
elapsed = time.time() - started
last = loss.item()
print("device %s" % torch.cuda.get_device_name(0))
print("loss first %.4f last %.4f" % (first, last))
print("steps_per_s %.1f" % (steps / elapsed))
sys.exit(0 if last < first * 0.9 else 1)
