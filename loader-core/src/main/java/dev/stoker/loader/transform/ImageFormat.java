package dev.stoker.loader.transform;

/** The encodings the vision transforms decode. */
enum ImageFormat {
  JPEG,
  PNG
}
