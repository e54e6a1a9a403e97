#!/usr/bin/env python3
"""The peer of Stoker's GPU check: PyTorch's DataLoader (pin_memory=True, non_blocking=True)
feeding the same synthetic step as the check feeds from Stoker's loader.

Workload "normalize" (as ../shared peers and Stoker's bench): uint8 images [3,64,64] in memory,
converted per sample to float32 (x/255 - mean[c]) / std[c]; batches of --batch-size, shuffled,
drop_last, persistent workers. Step: torch.cuda._sleep calibrated to --steps-ms per batch, after
the batch's copy on the same stream. GPU busy = kernel time (CUDA events) / wall time.

Prints one line per fact, for the check to read:
  torch version=<torch.__version__>
  torch step_ms=2.0 workers=4 prefetch=2 batches=200 samples_per_s=... busy=...
  torch skipped=<reason_with_underscores>      (PyTorch or CUDA missing; exits 0)
"""
import argparse
import sys
import time


def parse():
    p = argparse.ArgumentParser()
    p.add_argument("--device", type=int, default=0)
    p.add_argument("--samples", type=int, default=20000)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--steps-ms", default="2.0,0.5")
    p.add_argument("--configs", default="1:2,2:2,4:2,4:4,8:4", help="workers:prefetch,...")
    p.add_argument("--warmup", type=int, default=20)
    p.add_argument("--batches", type=int, default=200)
    return p.parse_args()


def skipped(reason):
    print("torch skipped=" + reason.replace(" ", "_"), flush=True)
    return 0


def main():
    args = parse()
    try:
        import torch
        from torch.utils.data import DataLoader, Dataset
    except Exception as e:  # ImportError, or a broken installation
        return skipped("PyTorch cannot be imported (%s)" % type(e).__name__)
    if not torch.cuda.is_available():
        return skipped("PyTorch sees no CUDA device")
    print("torch version=%s" % torch.__version__, flush=True)
    device = torch.device("cuda", args.device)
    torch.cuda.set_device(device)
    torch.manual_seed(0)

    mean = torch.tensor([0.485, 0.456, 0.406]).view(3, 1, 1)
    std = torch.tensor([0.229, 0.224, 0.225]).view(3, 1, 1)

    class Normalize(Dataset):
        def __init__(self, n):
            self.x = torch.randint(0, 256, (n, 3, 64, 64), dtype=torch.uint8)
            self.y = torch.randint(0, 10, (n,))

        def __len__(self):
            return len(self.x)

        def __getitem__(self, i):
            return (self.x[i].float() / 255 - mean) / std, self.y[i]

    cycles_per_ms = calibrate(torch)
    data = Normalize(args.samples)
    for step_ms in [float(s) for s in args.steps_ms.split(",")]:
        for config in args.configs.split(","):
            workers, prefetch = (int(v) for v in config.split(":"))
            loader = DataLoader(data, batch_size=args.batch_size, shuffle=True,
                                num_workers=workers, prefetch_factor=prefetch,
                                persistent_workers=True, pin_memory=True, drop_last=True)
            n, sps, busy = measure(torch, loader, device, int(step_ms * cycles_per_ms),
                                   args.warmup, args.batches, args.batch_size)
            print("torch step_ms=%s workers=%d prefetch=%d batches=%d samples_per_s=%.1f "
                  "busy=%.4f" % (step_ms, workers, prefetch, n, sps, busy), flush=True)
            del loader
    return 0


def calibrate(torch):
    """torch.cuda._sleep cycles per millisecond on this GPU, timed with events."""
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    torch.cuda._sleep(1000000)
    best = None
    for _ in range(3):
        start.record()
        torch.cuda._sleep(20000000)
        end.record()
        end.synchronize()
        per_ms = 20000000 / start.elapsed_time(end)
        best = per_ms if best is None else min(best, per_ms)
    return best


def measure(torch, loader, device, cycles, warmup, batches, batch_size):
    it = iter(loader)
    for _ in range(warmup):
        x, _ = next(it)
        x = x.to(device, non_blocking=True)
        torch.cuda._sleep(cycles)
    torch.cuda.synchronize()
    marks = []
    start = time.perf_counter()
    n = 0
    for _ in range(batches):
        try:
            x, _ = next(it)
        except StopIteration:
            break
        x = x.to(device, non_blocking=True)
        before = torch.cuda.Event(enable_timing=True)
        after = torch.cuda.Event(enable_timing=True)
        before.record()
        torch.cuda._sleep(cycles)
        after.record()
        marks.append((before, after))
        n += 1
    torch.cuda.synchronize()
    wall = time.perf_counter() - start
    busy = sum(b.elapsed_time(a) for b, a in marks) / 1e3 / wall
    return n, n * batch_size / wall, busy


if __name__ == "__main__":
    sys.exit(main())
