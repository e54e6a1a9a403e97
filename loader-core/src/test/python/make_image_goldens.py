"""Writes the vision transforms' test inputs and torchvision's outputs for them.

Run with Debian's python3-torchvision 0.14 and python3-pil 9.4 (the versions the Java ops
follow):  python3 make_image_goldens.py PHOTO1 PHOTO2 PHOTO3
PHOTO1..3 are real photographs (any size >= 720x480); the inputs are cut from them. Outputs go
to ../resources/images/ as raw files: *.u8 (uint8, HWC for images, CHW for tensors) and *.f32
(float32 little-endian, CHW), each named for its case; the Java tests hard-code the cases.
"""
import io
import os
import sys

import numpy as np
import torch
from PIL import Image
import torchvision.transforms as T
import torchvision.transforms.functional as F

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "resources", "images")


def save_u8(name, img):
    np.asarray(img, dtype=np.uint8).tofile(os.path.join(OUT, name + ".u8"))


def save_tensor(name, tensor):
    arr = tensor.numpy()
    ext = ".f32" if arr.dtype == np.float32 else ".u8"
    arr.astype("<f4" if ext == ".f32" else np.uint8).tofile(os.path.join(OUT, name + ext))


def main(photos):
    os.makedirs(OUT, exist_ok=True)
    a = Image.open(photos[0]).convert("RGB")
    b = Image.open(photos[1]).convert("RGB")
    c = Image.open(photos[2]).convert("RGB")
    # Inputs, each well under 64 KB.
    photo = a.crop((300, 150, 460, 270))  # 160 x 120 RGB
    photo.save(os.path.join(OUT, "photo.png"))
    grey = c.crop((1000, 1000, 1096, 1080)).convert("L")  # 96 x 80
    grey.save(os.path.join(OUT, "grey.png"))
    rgba = photo.crop((0, 0, 64, 48)).copy()
    rgba.putalpha(Image.linear_gradient("L").resize((64, 48)))
    rgba.save(os.path.join(OUT, "rgba.png"))
    photo.crop((0, 0, 64, 48)).quantize(64).save(os.path.join(OUT, "palette.png"))
    small_jpeg = b.crop((100, 100, 300, 250))  # 200 x 150
    small_jpeg.save(os.path.join(OUT, "photo_q90.jpg"), quality=90)
    big = b.resize((500, 331), Image.BILINEAR)
    big.save(os.path.join(OUT, "big_q90.jpg"), quality=90)

    def load(name, mode):
        return Image.open(os.path.join(OUT, name)).convert(mode)

    p = load("photo.png", "RGB")
    # Decode and colour conversion, as PIL does them.
    save_u8("decode_photo_png_rgb", p)
    save_u8("decode_photo_png_l", load("photo.png", "L"))
    save_u8("decode_grey_png_l", load("grey.png", "L"))
    save_u8("decode_grey_png_rgb", load("grey.png", "RGB"))
    save_u8("decode_rgba_png_rgb", load("rgba.png", "RGB"))
    save_u8("decode_palette_png_rgb", load("palette.png", "RGB"))
    save_u8("decode_photo_jpg_rgb", load("photo_q90.jpg", "RGB"))
    # Resize (bilinear, antialiased as PIL always is).
    save_u8("resize_64", T.Resize(64)(p))  # shorter side: 85 x 64
    save_u8("resize_37x50", T.Resize((37, 50))(p))
    save_u8("resize_150x170", T.Resize((150, 170))(p))
    save_u8("resize_13x7", T.Resize((13, 7))(p))
    save_u8("grey_resize_30x40", T.Resize((30, 40))(load("grey.png", "L")))
    # Crops, pad, flip.
    save_u8("center_crop_100", T.CenterCrop(100)(p))
    save_u8("center_crop_51x77", T.CenterCrop((51, 77))(p))
    save_u8("center_crop_130x170", T.CenterCrop((130, 170))(p))
    save_u8("pad_3", T.Pad(3)(p))
    save_u8("pad_2_fill_9", T.Pad(2, fill=9)(p))
    save_u8("random_crop_32_pad4_at_2_5", F.crop(T.Pad(4)(p), 2, 5, 32, 32))
    save_u8("hflip", F.hflip(p))
    for i, j, h, w, th, tw in [(10, 20, 80, 100, 32, 32), (0, 0, 120, 160, 90, 100),
                               (5, 7, 33, 21, 16, 24), (40, 30, 75, 120, 24, 24)]:
        save_u8(f"resized_crop_{i}_{j}_{h}_{w}_to_{th}x{tw}", F.resized_crop(p, i, j, h, w, [th, tw]))
    # Outputs as tensors.
    norm = T.Compose([T.ToTensor(), T.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])])
    crop = F.resized_crop(p, 10, 20, 80, 100, [32, 32])
    save_tensor("normalize_imagenet_resized_crop_10_20_80_100", norm(crop))
    save_tensor("to_float_resized_crop_10_20_80_100", T.ToTensor()(crop))
    save_tensor("pil_to_tensor_resized_crop_10_20_80_100", T.PILToTensor()(crop))
    # The reduced-scale decode's reference: full decode, then resized_crop (draft off).
    bj = load("big_q90.jpg", "RGB")
    save_u8("big_resized_crop_20_30_300_400_to_64x64", F.resized_crop(bj, 20, 30, 300, 400, [64, 64]))
    save_u8("big_resized_crop_100_50_150_120_to_32x32", F.resized_crop(bj, 100, 50, 150, 120, [32, 32]))
    save_u8("big_resize_48", T.Resize(48)(bj))
    for name in sorted(os.listdir(OUT)):
        print(f"{os.path.getsize(os.path.join(OUT, name)):8d} {name}")


if __name__ == "__main__":
    main(sys.argv[1:4])
