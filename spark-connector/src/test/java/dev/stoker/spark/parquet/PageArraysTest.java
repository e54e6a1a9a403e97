package dev.stoker.spark.parquet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Page arrays handed from reader to reader: large enough, each to one reader, a bounded few. */
class PageArraysTest {

  @Test
  void shouldHandOnAnArrayLargeEnoughOnceOnly() {
    PageArrays arrays = new PageArrays(4);
    byte[] small = new byte[10];
    byte[] large = new byte[100];
    arrays.give(small);
    arrays.give(large);
    assertThat(arrays.take(50)).isSameAs(large);
    assertThat(arrays.take(50)).as("handed on once").isNull();
    assertThat(arrays.take(10)).isSameAs(small);
    assertThat(arrays.kept()).isZero();
  }

  @Test
  void shouldKeepTheLargestFewAndNoEmptyArray() {
    PageArrays arrays = new PageArrays(2);
    arrays.give(new byte[0]);
    assertThat(arrays.kept()).isZero();
    byte[] a = new byte[10];
    byte[] b = new byte[20];
    byte[] c = new byte[30];
    arrays.give(a);
    arrays.give(b);
    arrays.give(c);
    assertThat(arrays.kept()).isEqualTo(2);
    assertThat(arrays.take(1)).isIn(b, c);
    assertThat(arrays.take(1)).isIn(b, c);
    assertThat(arrays.take(1)).as("the smallest was dropped").isNull();
    PageArrays none = new PageArrays(0);
    none.give(a);
    assertThat(none.kept()).isZero();
    assertThatThrownBy(() -> new PageArrays(-1)).hasMessageContaining("most -1");
  }
}
