package dev.stoker.loader.transform;

/** A crop's place on the full-size image, as torchvision's {@code (i, j, h, w)}. */
record CropBox(int top, int left, int height, int width) {}
