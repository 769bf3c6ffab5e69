#!/usr/bin/env python3
"""Writes a zip shaped like LibTorch's Windows release: one top folder `libtorch/`, thousands of
small, very compressible headers, a few dozen large libraries of mixed compressibility.

usage: make_libtorch_like_zip.py OUT.zip SIZE_MIB

The zip comes out near SIZE_MIB and unpacks to about twice that (LibTorch-like; the issue's
488 MB sample unpacked to 950 MB). Deterministic: the same arguments give the same bytes.
"""
import random
import sys
import zipfile

MIB = 1 << 20


def header_text(rng, n):
    words = ["namespace", "template", "typename", "const", "return", "inline", "struct", "class",
             "at::Tensor", "c10::optional", "int64_t", "TORCH_API", "std::vector", "void", "auto"]
    out = []
    size = 0
    while size < n:
        line = " ".join(rng.choice(words) for _ in range(rng.randint(3, 12))) + ";\n"
        out.append(line)
        size += len(line)
    return "".join(out).encode()[:n]


def semi_compressible(rng, n):
    # Repeated code-like blocks with scattered random patches: deflate shrinks it about 10x.
    block = bytes(rng.getrandbits(8) for _ in range(4096))
    data = bytearray(block * (n // len(block) + 1))[:n]
    for _ in range(n // 40000):
        at = rng.randrange(0, max(1, n - 64))
        data[at:at + 64] = rng.randbytes(64)
    return bytes(data)


def main():
    out, size_mib = sys.argv[1], int(sys.argv[2])
    rng = random.Random(20240603)
    target = size_mib * MIB
    # zip size ~ random + compressible/10; unpacked ~ 2 x zip size (see docstring).
    random_total = int(target * 0.89)
    compressible_total = int(target * 1.11)
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=6) as z:
        z.writestr("libtorch/", b"")
        headers = 4000
        header_bytes = 0
        for i in range(headers):
            n = rng.randint(1000, 20000)
            header_bytes += n
            z.writestr(f"libtorch/include/torch/csrc/api/part{i // 200:02d}/header_{i:04d}.h", header_text(rng, n))
        for i in range(30):
            z.writestr(f"libtorch/share/cmake/Torch/file_{i:02d}.cmake", header_text(rng, 3000))
        libraries = 48
        remaining_compressible = max(0, compressible_total - header_bytes)
        for i in range(libraries):
            # Uneven sizes, as in the real lib/ folder (torch_cuda.dll dwarfs the rest).
            share = 0.35 if i == 0 else 0.65 / (libraries - 1)
            random_part = rng.randbytes(int(random_total * share))
            compressible_part = semi_compressible(rng, int(remaining_compressible * share))
            z.writestr(f"libtorch/lib/library_{i:02d}.dll", random_part + compressible_part)
        for i in range(6):
            z.writestr(f"libtorch/bin/tool_{i}.exe", rng.randbytes(200000))
        z.writestr("libtorch/build-version", b"2.3.0+cu118 (benchmark stand-in)\n")


if __name__ == "__main__":
    main()
