/*
 * Decodes one JPEG, or only a rectangle of it, with the system's libjpeg (libjpeg-turbo), for
 * dev.stoker.loader.transform.NativeJpeg. Rows above the rectangle are entropy-decoded and
 * skipped, rows below it are never read, and columns outside it (give or take an iMCU) are not
 * inverse-transformed or colour-converted: the pixels inside are those of a full decode.
 *
 * Errors never exit: libjpeg's error handler jumps back here, everything taken is released, and a
 * Java exception carries libjpeg's message. Warnings (corrupt data that libjpeg can get past) are
 * not printed.
 */
#include <jni.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>

/* libjpeg's error manager with somewhere to jump back to. */
struct stoker_error {
  struct jpeg_error_mgr pub;
  jmp_buf back;
};

static void stoker_error_exit(j_common_ptr cinfo) {
  longjmp(((struct stoker_error *)cinfo->err)->back, 1);
}

static void stoker_output_message(j_common_ptr cinfo) { (void)cinfo; }

/* What one decode holds, released by release() whichever way it ends. */
struct decode_state {
  struct jpeg_decompress_struct cinfo;
  struct stoker_error error;
  int created;
  unsigned char *input;
  unsigned char *row; /* the rectangle's rows, each the crop's width */
};

static void release(struct decode_state *s) {
  if (s->created) {
    jpeg_destroy_decompress(&s->cinfo);
    s->created = 0;
  }
  free(s->input);
  s->input = NULL;
  free(s->row);
  s->row = NULL;
}

static void throw_new(JNIEnv *env, const char *class_name, const char *message) {
  jclass type = (*env)->FindClass(env, class_name);
  if (type != NULL) {
    (*env)->ThrowNew(env, type, message);
  }
}

/*
 * NativeJpeg.decode(byte[] data, int length, int scale, int left, int top, int width, int height,
 * int channels, byte[] out): decodes the rectangle [left, left + width) x [top, top + height) of
 * the image at 1/scale into out, row after row, channels (1 grey, 3 RGB) interleaved.
 */
JNIEXPORT void JNICALL Java_dev_stoker_loader_transform_NativeJpeg_decode(
    JNIEnv *env, jclass type, jbyteArray data, jint length, jint scale, jint left, jint top,
    jint width, jint height, jint channels, jbyteArray out) {
  (void)type;
  struct decode_state state;
  struct decode_state *s = &state;
  char message[JMSG_LENGTH_MAX + 64];
  memset(s, 0, sizeof(*s));
  if (data == NULL || out == NULL) {
    throw_new(env, "java/lang/NullPointerException", "libjpeg: data or out is null");
    return;
  }
  if (length <= 0 || length > (*env)->GetArrayLength(env, data) || left < 0 || top < 0
      || width <= 0 || height <= 0 || (channels != 1 && channels != 3)
      || (scale != 1 && scale != 2 && scale != 4 && scale != 8)
      || (long long)width * height * channels > (*env)->GetArrayLength(env, out)) {
    throw_new(env, "java/lang/IllegalArgumentException", "libjpeg: arguments out of range");
    return;
  }
  s->input = malloc((size_t)length);
  if (s->input == NULL) {
    throw_new(env, "java/lang/OutOfMemoryError", "libjpeg: no memory for the encoded bytes");
    return;
  }
  (*env)->GetByteArrayRegion(env, data, 0, length, (jbyte *)s->input);
  if ((*env)->ExceptionCheck(env)) {
    release(s);
    return;
  }
  s->cinfo.err = jpeg_std_error(&s->error.pub);
  s->error.pub.error_exit = stoker_error_exit;
  s->error.pub.output_message = stoker_output_message;
  if (setjmp(s->error.back)) {
    (*s->error.pub.format_message)((j_common_ptr)&s->cinfo, message);
    release(s);
    if (!(*env)->ExceptionCheck(env)) {
      char full[sizeof(message) + 16];
      snprintf(full, sizeof(full), "libjpeg: %s", message);
      throw_new(env, "java/lang/IllegalArgumentException", full);
    }
    return;
  }
  jpeg_create_decompress(&s->cinfo);
  s->created = 1;
  jpeg_mem_src(&s->cinfo, s->input, (unsigned long)length);
  jpeg_read_header(&s->cinfo, TRUE);
  J_COLOR_SPACE source = s->cinfo.jpeg_color_space;
  if (source == JCS_GRAYSCALE) {
    s->cinfo.out_color_space = JCS_GRAYSCALE;
  } else if (source == JCS_YCbCr || source == JCS_RGB) {
    s->cinfo.out_color_space = JCS_RGB;
  } else {
    snprintf(message, sizeof(message), "libjpeg: colour space %d (expected: grey, YCbCr or RGB)",
             (int)source);
    release(s);
    throw_new(env, "java/lang/IllegalArgumentException", message);
    return;
  }
  if (s->cinfo.out_color_space == JCS_GRAYSCALE ? channels != 1 : channels != 3) {
    snprintf(message, sizeof(message), "libjpeg: %d colour components (expected: %s)",
             s->cinfo.num_components, channels == 1 ? "1, grey" : "3");
    release(s);
    throw_new(env, "java/lang/IllegalArgumentException", message);
    return;
  }
  s->cinfo.scale_num = 1;
  s->cinfo.scale_denom = (unsigned int)scale;
  jpeg_start_decompress(&s->cinfo);
  JDIMENSION full_width = s->cinfo.output_width;
  if ((long long)left + width > full_width || (long long)top + height > s->cinfo.output_height) {
    snprintf(message, sizeof(message),
             "libjpeg: region %d,%d %dx%d outside the decoded %ux%u", left, top, width, height,
             full_width, s->cinfo.output_height);
    release(s);
    throw_new(env, "java/lang/IllegalArgumentException", message);
    return;
  }
  /*
   * One pixel beyond the rectangle on each side: the iMCU-aligned crop then has the neighbours
   * that fancy upsampling reads at the rectangle's edges.
   */
  JDIMENSION crop_left = left > 0 ? (JDIMENSION)left - 1 : 0;
  JDIMENSION crop_right = (JDIMENSION)(left + width) < full_width ? (JDIMENSION)(left + width) + 1
                                                                   : full_width;
  JDIMENSION crop_width = crop_right - crop_left;
  if (crop_left > 0 || crop_width < full_width) {
    jpeg_crop_scanline(&s->cinfo, &crop_left, &crop_width);
  }
  size_t stride = (size_t)crop_width * channels;
  s->row = malloc(stride * (size_t)height);
  if (s->row == NULL) {
    release(s);
    throw_new(env, "java/lang/OutOfMemoryError", "libjpeg: no memory for the rectangle");
    return;
  }
  if (top > 0) {
    jpeg_skip_scanlines(&s->cinfo, (JDIMENSION)top);
  }
  for (jint y = 0; y < height;) {
    JSAMPROW rows[4];
    JDIMENSION wanted = height - y < 4 ? (JDIMENSION)(height - y) : 4;
    for (JDIMENSION i = 0; i < wanted; i++) {
      rows[i] = s->row + (size_t)(y + i) * stride;
    }
    JDIMENSION read = jpeg_read_scanlines(&s->cinfo, rows, wanted);
    if (read == 0) {
      release(s);
      throw_new(env, "java/lang/IllegalArgumentException", "libjpeg: a row did not decode");
      return;
    }
    y += (jint)read;
  }
  /* One pass into the Java array: a copy of the rectangle's bytes, the collector held briefly. */
  size_t offset = (size_t)(left - (jint)crop_left) * channels;
  size_t row_bytes = (size_t)width * channels;
  unsigned char *target = (*env)->GetPrimitiveArrayCritical(env, out, NULL);
  if (target == NULL) {
    release(s);
    return; /* OutOfMemoryError pending */
  }
  for (jint y = 0; y < height; y++) {
    memcpy(target + (size_t)y * row_bytes, s->row + (size_t)y * stride + offset, row_bytes);
  }
  (*env)->ReleasePrimitiveArrayCritical(env, out, target, 0);
  jpeg_abort_decompress(&s->cinfo);
  release(s);
}
