package dev.stoker.examples.torch;

import java.io.File;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicReference;
import org.bytedeco.javacpp.Loader;
import org.bytedeco.openblas.global.openblas_full;
import org.bytedeco.pytorch.global.torch;

/**
 * Loads PyTorch's native libraries once per JVM, so that the first load on a fresh machine works
 * whatever else is installed, and sizes the framework's threads.
 *
 * <p>The trap: JavaCPP extracts each library from its jar into its cache only when it loads it, and
 * loads {@code libtorch.so} before it has extracted {@code libtorch_cpu.so}, which it needs. The
 * dynamic linker then looks for {@code libtorch_cpu.so} elsewhere; where Debian's {@code
 * libtorch-dev} (from {@code python3-torch}) is installed it finds PyTorch 1.13's in {@code
 * /usr/lib}, which drags in its own {@code libc10}, and the JVM dies in {@code pthread_mutex_lock}
 * (every first run with an empty cache; later runs, with every file already extracted, worked). So
 * every library of the platform's folder is extracted into the cache first, in one step, and only
 * then loaded: each finds its neighbours beside it.
 */
public final class TorchNatives {
  private static final AtomicReference<Availability> LOADED = new AtomicReference<>();

  private TorchNatives() {}

  /**
   * Whether the natives load here, and if not why.
   *
   * @param available whether the framework can be used
   * @param reason what failed and what to do, when not available
   */
  public record Availability(boolean available, String reason) {
    /** Throws {@link IllegalStateException} with the reason when not available. */
    public void require() {
      if (!available) {
        throw new IllegalStateException(reason);
      }
    }
  }

  /** Loads the natives on the first call (extracting them first); later calls answer at once. */
  public static Availability load() {
    Availability known = LOADED.get();
    if (known != null) {
      return known;
    }
    synchronized (TorchNatives.class) {
      if (LOADED.get() == null) {
        LOADED.set(tryLoad());
      }
      return LOADED.get();
    }
  }

  private static Availability tryLoad() {
    String platform = Loader.getPlatform();
    try {
      extractAll(platform);
      Loader.load(torch.class);
      return new Availability(true, "");
    } catch (IOException | RuntimeException | LinkageError e) {
      return new Availability(
          false,
          "PyTorch's natives (org.bytedeco:pytorch, platform "
              + platform
              + ") could not be loaded: "
              + e
              + ". Add the jar with the natives of this "
              + "platform (classifier "
              + platform
              + ") to the classpath, or check the JavaCPP "
              + "cache folder (org.bytedeco.javacpp.cachedir, default ~/.javacpp/cache) is "
              + "writable");
    }
  }

  /**
   * Extracts every file of the platform's native folder into JavaCPP's cache (a no-op for files
   * already there), before any of them is loaded; the class named is not initialized.
   */
  static File[] extractAll(String platform) throws IOException {
    Class<?> presets;
    try {
      presets =
          Class.forName(
              "org.bytedeco.pytorch.global.torch", false, TorchNatives.class.getClassLoader());
    } catch (ClassNotFoundException e) {
      throw new IOException("org.bytedeco.pytorch is not on the classpath", e);
    }
    File[] folders = Loader.cacheResources(presets, platform + "/");
    if (folders.length == 0) {
      throw new IOException(
          "no native folder '"
              + platform
              + "/' next to "
              + presets.getName()
              + " (the jar with classifier "
              + platform
              + " is missing)");
    }
    return folders;
  }

  /**
   * The intra-op threads for a task given {@code taskCpus} cores: one per core it was given, at
   * least 1. Spark gives each task {@code spark.task.cpus} cores and runs as many tasks side by
   * side as the executor has cores for, so ranks sized this way never oversubscribe the executor;
   * the loader's workers fill batches ahead while the step runs (mostly waiting).
   */
  public static int threadsFor(int taskCpus) {
    return Math.max(1, taskCpus);
  }

  /**
   * Sets the framework's intra-op threads of this process, and those of the BLAS library under it,
   * to {@link #threadsFor(int)}. PyTorch keeps one intra-op pool per process: ranks sharing a JVM
   * share it, and each sets the same number.
   *
   * <p>The BLAS threads are set too because they change the figures: OpenBLAS splits a product over
   * its threads, and its thread count would otherwise follow the environment, which differs by host
   * layout (Spark sets {@code OMP_NUM_THREADS} to the executor's cores on a cluster, and not at all
   * on {@code local[N]}), so the same seed trained to a loss that differed in its fourth digit. Set
   * from the task's CPUs, the figures are the same bits on any layout.
   */
  public static int useThreads(int taskCpus) {
    load().require();
    int threads = threadsFor(taskCpus);
    torch.set_num_threads(threads); // also each new thread's OpenMP team size, on its first op
    openblas_full.openblas_set_num_threads(threads);
    return threads;
  }
}
