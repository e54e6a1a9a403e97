package dev.stoker.loader;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.Collectors;

/** Checks that a loader gave back everything: slots and threads. */
final class LoaderLeaks {
  private LoaderLeaks() {}

  /** Threads alive whose name starts with the loader's name. */
  static List<String> threadsOf(String loaderName) {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(Thread::isAlive)
        .map(Thread::getName)
        .filter(n -> n.startsWith(loaderName + "-"))
        .collect(Collectors.toList());
  }

  /** Closes the loader and asserts no slot is out and no thread of it is alive. */
  static void closeAndCheck(DataLoader loader) {
    loader.close();
    assertThat(loader.pool().outstanding()).as("slots out after close").isZero();
    assertThat(loader.pool().allocated()).as("slots still allocated after close").isZero();
    assertThat(threadsOf(loader.name())).as("threads alive after close").isEmpty();
    assertThat(loader.threadsRunning()).as("threads the loader still counts").isZero();
  }
}
