package dev.stoker.loader.pipeline;

import dev.stoker.loader.device.Device;
import dev.stoker.loader.device.TransferEngine;
import dev.stoker.loader.device.TransferSpec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The transfer thread of a loader, {@code <name>-transfer}: it opens the device's transfer engine
 * on itself (so a device that binds a context per thread sees one thread), runs each epoch's {@link
 * TransferStage} in turn, and closes the engine on itself when the loader closes. An engine that
 * fails to open fails the epoch at batch 0 and is tried again at the next one.
 */
final class TransferAgent {
  private static final Logger LOG = LoggerFactory.getLogger(TransferAgent.class);

  private final String name;
  private final Device device;
  private final TransferSpec spec;
  private final LoaderThreads threads;
  private final Carriers carriers = new Carriers();
  private final WorkerStatus status;
  private volatile TransferEngine engine;
  private Thread thread;
  private TransferStage job;
  private boolean shutdown;

  TransferAgent(String name, Device device, TransferSpec spec, LoaderThreads threads) {
    this.name = name;
    this.device = device;
    this.spec = spec;
    this.threads = threads;
    this.status = new WorkerStatus(name + "-transfer");
  }

  /** Runs {@code stage} on the transfer thread, starting the thread if it is not running. */
  synchronized void submit(TransferStage stage) {
    if (shutdown) {
      throw new IllegalStateException("the transfer thread of loader '" + name + "' is shut down");
    }
    if (thread == null || !thread.isAlive()) {
      thread = threads.start(name + "-transfer", this::serve);
    }
    job = stage;
    notifyAll();
  }

  private void serve() {
    try {
      while (true) {
        TransferStage stage;
        synchronized (this) {
          while (!shutdown && job == null) {
            try {
              wait();
            } catch (InterruptedException e) {
              // meant for a stage that has ended; the agent is stopped through shutdown
            }
          }
          if (job == null) {
            return;
          }
          stage = job;
        }
        Thread.interrupted();
        try {
          runStage(stage);
        } finally {
          synchronized (this) {
            if (job == stage) {
              job = null;
            }
          }
        }
      }
    } finally {
      closeEngine();
    }
  }

  private void runStage(TransferStage stage) {
    if (engine == null) {
      try {
        engine = device.openTransfer(spec);
      } catch (Throwable t) {
        stage.failOpen(device.name(), t);
        return;
      }
    }
    stage.run(engine, carriers, status);
  }

  private void closeEngine() {
    TransferEngine open = engine;
    engine = null;
    carriers.clear(); // the engine's buffers: a closed loader keeps none reachable
    if (open != null) {
      try {
        open.close();
      } catch (Throwable t) {
        LOG.warn(
            "loader '{}': closing the transfer engine of device '{}' failed",
            name,
            device.name(),
            t);
      }
    }
  }

  /** Gives a device batch's buffer back to the engine; any thread. */
  void release(StagedBatch onDevice) {
    TransferEngine open = engine;
    if (open != null) {
      open.release(onDevice.device());
    }
  }

  /** What the transfer thread is doing now. */
  String describe() {
    return status.describe();
  }

  /** Interrupts the transfer thread, to free it from a wait that does not end. */
  synchronized void interrupt() {
    if (thread != null) {
      thread.interrupt();
    }
  }

  /** Asks the thread to close the engine and end once its stage is done; returns it, or null. */
  synchronized Thread shutdown() {
    shutdown = true;
    notifyAll();
    return thread;
  }
}
