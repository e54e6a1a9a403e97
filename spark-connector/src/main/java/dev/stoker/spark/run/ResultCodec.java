package dev.stoker.spark.run;

import java.nio.ByteBuffer;
import org.apache.spark.SparkEnv;
import org.apache.spark.serializer.SerializerInstance;
import scala.reflect.ClassTag;
import scala.reflect.ClassTag$;

/**
 * A rank's result as bytes, with the session's serializer (Java or Kryo, as configured): made on
 * the rank before its task ends, so that a result that cannot be sent fails there, with a clear
 * message, and not after every rank has finished.
 */
public final class ResultCodec {
  private static final ClassTag<Object> ANY = ClassTag$.MODULE$.AnyRef();

  private ResultCodec() {}

  static byte[] encode(Object result) {
    ByteBuffer buffer = serializer().serialize(result, ANY);
    byte[] bytes = new byte[buffer.remaining()];
    buffer.get(bytes);
    return bytes;
  }

  @SuppressWarnings("unchecked")
  static <R> R decode(byte[] bytes) {
    return (R) serializer().deserialize(ByteBuffer.wrap(bytes), ANY);
  }

  private static SerializerInstance serializer() {
    return SparkEnv.get().serializer().newInstance();
  }
}
