package dev.stoker.spark.parquet;

import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import org.apache.hadoop.conf.Configuration;

/**
 * A Hadoop {@link Configuration} that travels to executors (as Spark's own file sources send it).
 */
public final class HadoopConf implements Serializable {
  private static final long serialVersionUID = 1L;

  private transient Configuration conf;

  public HadoopConf(Configuration conf) {
    this.conf = conf;
  }

  public Configuration get() {
    return conf;
  }

  private void writeObject(ObjectOutputStream out) throws IOException {
    out.defaultWriteObject();
    conf.write(out);
  }

  private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
    in.defaultReadObject();
    conf = new Configuration(false);
    conf.readFields(in);
  }
}
