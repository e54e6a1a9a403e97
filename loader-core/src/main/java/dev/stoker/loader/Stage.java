package dev.stoker.loader;

/** The step of the pipeline where a batch failed. */
public enum Stage {
  /** Opening the epoch: its source, stream or transfer engine. */
  OPEN("open"),
  /** Taking a host slot for the batch: allocating it can fail. */
  ALLOCATE("allocate"),
  /** Writing the batch's rows into its slot: the dataset or stream. */
  FILL("fill"),
  /** Copying the batch to the device. */
  TRANSFER("transfer");

  private final String label;

  Stage(String label) {
    this.label = label;
  }

  public String label() {
    return label;
  }
}
