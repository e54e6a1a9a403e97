package dev.stoker.loader.state;

/**
 * A state was taken on other input than the one it is resumed on: its order would not be the order
 * it was taken in. The message names each file added, removed or rewritten.
 */
public final class InputChangedException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  public InputChangedException(String message) {
    super(message);
  }
}
