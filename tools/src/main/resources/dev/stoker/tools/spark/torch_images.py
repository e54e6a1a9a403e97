"""The PyTorch side of `stoker bench --workload images`.

torchvision's ImageNet training transforms on PIL images (RandomResizedCrop(224),
RandomHorizontalFlip, ToTensor, Normalize) in a torch DataLoader over the JPEG files the bench
wrote (the same bytes as its Parquet's `image` column), shuffled, batch --batch-size, drop_last,
one epoch per --workers value. Prints one JSON line per epoch:
{"workers": W, "samples": N, "seconds": S}.

Usage: python3 torch_images.py --dir DIR --batch-size 64 --workers 0,1,2
DIR holds images/NNNNNN.jpg and labels.txt (one label per image, in file order).
"""

import argparse
import io
import json
import os
import sys
import time

import torch
from PIL import Image
from torch.utils.data import DataLoader, Dataset
from torchvision import transforms

IMAGENET_MEAN = [0.485, 0.456, 0.406]
IMAGENET_STD = [0.229, 0.224, 0.225]


class JpegFiles(Dataset):
    """The bench's JPEG files and labels, each read from disk and decoded when asked for."""

    def __init__(self, folder: str, transform) -> None:
        with open(os.path.join(folder, "labels.txt"), encoding="ascii") as f:
            self.labels = [int(line) for line in f if line.strip()]
        self.paths = [
            os.path.join(folder, "images", "%06d.jpg" % i) for i in range(len(self.labels))
        ]
        self.transform = transform

    def __len__(self) -> int:
        return len(self.paths)

    def __getitem__(self, i: int):
        with open(self.paths[i], "rb") as f:
            image = Image.open(io.BytesIO(f.read())).convert("RGB")
        return self.transform(image), self.labels[i]


def epoch(dataset: Dataset, batch_size: int, workers: int, seed: int) -> dict:
    generator = torch.Generator()
    generator.manual_seed(seed)
    loader = DataLoader(
        dataset,
        batch_size=batch_size,
        shuffle=True,
        drop_last=True,
        num_workers=workers,
        generator=generator,
    )
    started = time.perf_counter()
    samples = 0
    touched = 0.0
    for images, labels in loader:
        samples += images.shape[0]
        touched += float(images[0, 0, 0, 0]) + int(labels[0])
    seconds = time.perf_counter() - started
    if tuple(images.shape[1:]) != (3, 224, 224):
        raise SystemExit("torch_images.py: batches of %s (expected: [*, 3, 224, 224])" % (images.shape,))
    return {"workers": workers, "samples": samples, "seconds": seconds}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", required=True)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--workers", default="0,1,2")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    transform = transforms.Compose(
        [
            transforms.RandomResizedCrop(224),
            transforms.RandomHorizontalFlip(),
            transforms.ToTensor(),
            transforms.Normalize(IMAGENET_MEAN, IMAGENET_STD),
        ]
    )
    dataset = JpegFiles(args.dir, transform)
    for workers in [int(w) for w in args.workers.split(",")]:
        print(json.dumps(epoch(dataset, args.batch_size, workers, args.seed)), flush=True)


if __name__ == "__main__":
    try:
        main()
    except ImportError as e:  # pragma: no cover - reported to the bench
        print("torch_images.py: %s (needs torch, torchvision and PIL)" % e, file=sys.stderr)
        sys.exit(3)
