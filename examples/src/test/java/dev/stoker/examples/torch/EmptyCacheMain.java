package dev.stoker.examples.torch;

import org.bytedeco.javacpp.Loader;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.global.torch;

/**
 * Loads PyTorch in a JVM of its own and runs one op: through {@link TorchNatives} (argument {@code
 * natives}), or straight through JavaCPP's loader as a program that does not know the trap would
 * ({@code plain}).
 */
public final class EmptyCacheMain {
  private EmptyCacheMain() {}

  public static void main(String[] args) {
    if (args[0].equals("natives")) {
      TorchNatives.Availability loaded = TorchNatives.load();
      if (!loaded.available()) {
        System.out.println("unavailable: " + loaded.reason());
        System.exit(3);
      }
    } else {
      Loader.load(torch.class);
    }
    Tensor ones = torch.ones(2, 3);
    System.out.println("sum " + ones.sum().item_float());
  }
}
