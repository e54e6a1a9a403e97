package dev.stoker.loader.metrics;

/** A sample left out under {@code onBadSample=skip}: where it was and why. */
public record SkippedSample(int epoch, int batch, int sampleIndex, String reason) {
  @Override
  public String toString() {
    return "epoch " + epoch + " batch " + batch + " sample " + sampleIndex + ": " + reason;
  }
}
