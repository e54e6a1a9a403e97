package dev.stoker.loader.pipeline;

import java.util.ArrayList;
import java.util.List;

/**
 * The worker threads of a loader, named {@code <name>-worker-<i>}: member {@code i} runs its share
 * of one {@link FillStage} at a time and waits in between, so that with persistent workers one crew
 * serves every epoch. A member that died, or is still stuck in an earlier epoch's dataset code, is
 * replaced when the next epoch starts: the crew never silently shrinks. A replaced member ends on
 * its own once it comes back.
 */
final class WorkerCrew {
  private final String name;
  private final LoaderThreads threads;
  private final Thread[] members;
  private FillStage stage;
  private long generation;
  private boolean shutdown;

  WorkerCrew(String name, int size, LoaderThreads threads) {
    if (size <= 0) {
      throw new IllegalArgumentException("size: " + size + " (expected: > 0)");
    }
    this.name = name;
    this.threads = threads;
    this.members = new Thread[size];
  }

  int size() {
    return members.length;
  }

  String memberName(int index) {
    return name + "-worker-" + index;
  }

  /**
   * Starts every member on {@code next}, replacing members that are gone or still busy with the
   * stage before.
   *
   * @throws IllegalStateException if the crew was shut down
   */
  synchronized void start(FillStage next) {
    if (shutdown) {
      throw new IllegalStateException("the workers of loader '" + name + "' are shut down");
    }
    FillStage previous = stage;
    Thread[] replacements = new Thread[members.length];
    for (int i = 0; i < members.length; i++) {
      Thread member = members[i];
      boolean stillBusy = previous != null && !previous.workerDone(i);
      if (member == null || !member.isAlive() || stillBusy) {
        // Until start returns they wait on this monitor; if it throws, they find they are not
        // members and end.
        replacements[i] = spawn(i, generation);
      }
    }
    for (int i = 0; i < members.length; i++) {
      if (replacements[i] != null) {
        members[i] = replacements[i];
      }
    }
    stage = next;
    generation++;
    notifyAll();
  }

  private Thread spawn(int index, long seen) {
    return threads.start(memberName(index), () -> serve(index, seen));
  }

  /** A member's life: run each new stage's share until shut down or replaced. */
  private void serve(int index, long seenAtStart) {
    long seen = seenAtStart;
    Thread me = Thread.currentThread();
    while (true) {
      FillStage current;
      synchronized (this) {
        while (!shutdown && members[index] == me && generation == seen) {
          try {
            wait();
          } catch (InterruptedException e) {
            // meant for a stage that has ended; the crew is stopped through shutdown
          }
        }
        if (members[index] != me || generation == seen) {
          return; // replaced, or shut down with no stage left to run
        }
        seen = generation;
        current = stage;
      }
      Thread.interrupted(); // a stale interrupt from cancelling the stage before
      current.work(index);
    }
  }

  /** Interrupts the members still working on {@code of}, to free them from dataset code. */
  synchronized void interrupt(FillStage of) {
    if (stage != of) {
      return;
    }
    for (int i = 0; i < members.length; i++) {
      if (members[i] != null && !of.workerDone(i)) {
        members[i].interrupt();
      }
    }
  }

  /** Asks every member to end once it is done with its stage; returns them to be joined. */
  synchronized List<Thread> shutdown() {
    shutdown = true;
    notifyAll();
    List<Thread> all = new ArrayList<>();
    for (Thread member : members) {
      if (member != null) {
        all.add(member);
      }
    }
    return all;
  }
}
