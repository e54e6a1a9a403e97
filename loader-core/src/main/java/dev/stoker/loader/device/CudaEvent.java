package dev.stoker.loader.device;

/**
 * The completion of the last copy into a {@link CudaBuffer}: a {@code cudaEvent_t} (timing
 * disabled) that the engine records after each copy. A consumer's stream may wait on {@link
 * #handle()}; {@link #isComplete()} is {@code cudaEventQuery} and {@link #awaitOnHost()} {@code
 * cudaEventSynchronize}. Once the loader has closed, the event is destroyed and both methods throw
 * instead of touching it.
 */
final class CudaEvent implements DeviceEvent {
  private final CudaTransferEngine engine;
  private final long handle;
  private final String what;

  CudaEvent(CudaTransferEngine engine, long handle, String what) {
    this.engine = engine;
    this.handle = handle;
    this.what = what;
  }

  @Override
  public long handle() {
    return handle;
  }

  @Override
  public boolean isComplete() {
    engine.beginEventCall(what);
    try {
      int code = engine.runtime().eventQuery(handle);
      if (code == CudaRuntime.NOT_READY) {
        return false;
      }
      engine.check(code, "cudaEventQuery", what);
      return true;
    } finally {
      engine.endEventCall();
    }
  }

  @Override
  public void awaitOnHost() throws InterruptedException {
    if (Thread.interrupted()) {
      throw new InterruptedException("interrupted before waiting for " + what);
    }
    engine.beginEventCall(what);
    try {
      engine.check(engine.runtime().eventSynchronize(handle), "cudaEventSynchronize", what);
    } finally {
      engine.endEventCall();
    }
  }

  @Override
  public String toString() {
    return String.format("cudaEvent 0x%x (%s on %s)", handle, what, engine.where());
  }
}
