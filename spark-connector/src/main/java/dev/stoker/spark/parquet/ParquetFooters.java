package dev.stoker.spark.parquet;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.util.HadoopInputFile;

/**
 * Reads the footers of a read's files on the driver, a few at once (remote file systems answer
 * slowly, one file at a time), and keeps them by path, length and modification time, so that the
 * runner's planning of a read the DataSource planned before, or a read planned again for the next
 * epoch, reads no footer twice. A file that is not Parquet, or is cut short, is an error naming it.
 */
public final class ParquetFooters {
  /** Footers read at once. */
  private static final int THREADS = 8;

  /** Most footers kept. */
  private static final int CACHED = 4096;

  /**
   * A file as its listing describes it: a file rewritten in place has another length or
   * modification time, so its old footer is never used for it.
   */
  private record Key(String path, long length, long modified) {}

  /** Footers read, the least recently used dropped first beyond {@link #CACHED}. */
  private static final Map<Key, ParquetFile> CACHE =
      new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Key, ParquetFile> eldest) {
          return size() > CACHED;
        }
      };

  private ParquetFooters() {}

  static List<ParquetFile> read(List<FileStatus> files, Configuration conf) {
    if (files.isEmpty()) {
      return List.of();
    }
    if (files.size() == 1) {
      return List.of(read(files.get(0), conf));
    }
    AtomicInteger ids = new AtomicInteger();
    ExecutorService pool =
        Executors.newFixedThreadPool(
            Math.min(THREADS, files.size()),
            r -> {
              Thread thread = new Thread(r, "stoker-footers-" + ids.incrementAndGet());
              thread.setDaemon(true);
              return thread;
            });
    try {
      List<Future<ParquetFile>> pending = new ArrayList<>();
      for (FileStatus file : files) {
        pending.add(pool.submit(() -> read(file, conf)));
      }
      List<ParquetFile> footers = new ArrayList<>();
      for (Future<ParquetFile> footer : pending) {
        footers.add(footer.get());
      }
      return footers;
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException runtime) {
        throw runtime;
      }
      throw new IllegalStateException(e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while reading Parquet footers", e);
    } finally {
      pool.shutdownNow();
    }
  }

  static ParquetFile read(FileStatus file, Configuration conf) {
    String path = file.getPath().toString();
    Key key = new Key(path, file.getLen(), file.getModificationTime());
    ParquetFile cached = cached(key);
    if (cached != null) {
      return cached;
    }
    ParquetFile read = readFooter(file, conf, path);
    synchronized (CACHE) {
      CACHE.put(key, read);
    }
    return read;
  }

  private static ParquetFile cached(Key key) {
    synchronized (CACHE) {
      return CACHE.get(key);
    }
  }

  private static ParquetFile readFooter(FileStatus file, Configuration conf, String path) {
    try (ParquetFileReader reader =
        ParquetFileReader.open(HadoopInputFile.fromStatus(file, conf))) {
      ParquetFile read = ParquetFile.of(path, reader.getFooter());
      // a local file costs a rank nothing to open; a remote one costs round trips each run
      boolean local = "file".equals(file.getPath().toUri().getScheme());
      return local ? read : read.withFooter(FileFooter.of(file, reader.getFooter()));
    } catch (Exception e) {
      throw new IllegalArgumentException(
          "file '"
              + path
              + "' is not a readable Parquet file ("
              + e.getMessage()
              + ") (expected: Parquet files only, written to the end; remove it, or "
              + "rename it with a leading '_' or '.' so that it is skipped)",
          e);
    }
  }
}
