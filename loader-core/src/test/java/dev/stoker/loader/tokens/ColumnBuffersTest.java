package dev.stoker.loader.tokens;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.ColumnChunk;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

class ColumnBuffersTest {
  @Test
  void shouldHandASetBackOnceWhateverTimesItsChunkIsClosed() throws Exception {
    ColumnBuffers buffers = new ColumnBuffers(64, 32);
    ByteBuffer[] set = buffers.take();
    assertThat(set).hasSize(2);
    assertThat(set[0].capacity()).isEqualTo(64);
    assertThat(set[1].capacity()).isEqualTo(32);
    ColumnChunk chunk = buffers.chunk(2, set);
    assertThat(chunk.rows()).isEqualTo(2);
    chunk.close();
    chunk.close();
    assertThat(buffers.take()).isSameAs(set);
    assertThat(buffers.take()).as("a second close gave nothing back").isNotSameAs(set);
  }

  @Test
  void shouldRefuseACopyFromAClosedChunk() throws Exception {
    ColumnBuffers buffers = new ColumnBuffers(16);
    ColumnChunk chunk = buffers.chunk(1, buffers.take());
    chunk.close();
    assertThatThrownBy(() -> chunk.copyTo(0, 0, null))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("after it was closed");
  }

  @Test
  void shouldRefuseAColumnTooLargeForOneBuffer() {
    assertThatThrownBy(() -> new ColumnBuffers(8, 1L << 31))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("2147483648 bytes for one column");
  }
}
