package dev.stoker.loader.transform;

import java.io.Serializable;

/**
 * The {@code decode} step: which column holds the encoded images (null: the schema's only
 * variable-length uint8 field), grey or RGB, whether a JPEG may be decoded at reduced scale, the
 * pixel bound checked from the header, and the decoder.
 */
record DecodeStep(int channels, String column, boolean draft, long maxPixels, String decoder)
    implements Serializable {
  /** PIL's {@code Image.MAX_IMAGE_PIXELS}: 1024 * 1024 * 1024 // 4 // 3. */
  static final long DEFAULT_MAX_PIXELS = 89_478_485L;
}
