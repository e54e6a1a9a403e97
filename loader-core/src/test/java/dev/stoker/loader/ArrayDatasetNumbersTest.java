package dev.stoker.loader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.memory.DirectAllocator;
import dev.stoker.loader.memory.HostMemory;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.DoubleAdder;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** A Number for a one-element field is held exactly or refused, for every kind of Number. */
class ArrayDatasetNumbersTest {
  private static final Schema SCHEMA =
      Schema.of(
          Field.scalar("u8", DType.UINT8),
          Field.scalar("i32", DType.INT32),
          Field.scalar("i64", DType.INT64),
          Field.scalar("f32", DType.FLOAT32),
          Field.scalar("f64", DType.FLOAT64));
  private static final int ROW = 1;
  private static final String INT64_RANGE = "-9223372036854775808..9223372036854775807";
  private static final String FLOAT32_RANGE =
      "a number in -3.4028235E38..3.4028235E38 for float32, or NaN or an infinity";
  private static final String FLOAT64_RANGE =
      "a number in "
          + "-1.7976931348623157E308..1.7976931348623157E308 for float64, or NaN or an infinity";

  private final BatchLayout layout = new BatchLayout(SCHEMA, 2);
  private HostMemory slot;
  private SampleWriter writer;

  @BeforeEach
  void openSlot() {
    slot = DirectAllocator.INSTANCE.allocate(layout.slotBytes());
    slot.zero(0, slot.size());
    writer = new SampleWriter(layout);
    writer.bind(slot, ROW);
  }

  @AfterEach
  void closeSlot() {
    slot.close();
    assertThat(slot.isClosed()).as("slot freed").isTrue();
  }

  /** Writes sample 7 with {@code value} in field {@code field} and fitting values elsewhere. */
  private void write(int field, Number value) throws Exception {
    Object[] values = {0, 0, 0L, 0f, 0.0};
    values[field] = value;
    ArrayDataset.of(SCHEMA, 8, i -> values).write(7, writer);
  }

  private ByteBuffer bytes() {
    return slot.bytes();
  }

  private int offset(int field) {
    return layout.rowOffset(field, ROW);
  }

  static Stream<Arguments> heldExactly() {
    return Stream.of(
        Arguments.of(0, (byte) 7, 7L),
        Arguments.of(0, (short) 255, 255L),
        Arguments.of(0, 0, 0L),
        Arguments.of(0, 200L, 200L),
        Arguments.of(0, 255.0, 255L),
        Arguments.of(0, -0.0, 0L),
        Arguments.of(0, -0.0f, 0L),
        Arguments.of(0, new BigInteger("255"), 255L),
        Arguments.of(0, new BigDecimal("12.000"), 12L),
        Arguments.of(0, new AtomicInteger(9), 9L),
        Arguments.of(0, new AtomicLong(254), 254L),
        Arguments.of(1, Integer.MIN_VALUE, (long) Integer.MIN_VALUE),
        Arguments.of(1, 2147483647.0, (long) Integer.MAX_VALUE),
        Arguments.of(1, -2147483648L, (long) Integer.MIN_VALUE),
        Arguments.of(1, new BigDecimal("-1E+3"), -1000L),
        Arguments.of(1, longAdder(42), 42L),
        Arguments.of(1, doubleAdder(2.0), 2L),
        Arguments.of(2, Long.MAX_VALUE, Long.MAX_VALUE),
        Arguments.of(2, Long.MIN_VALUE, Long.MIN_VALUE),
        Arguments.of(2, -0x1p63, Long.MIN_VALUE),
        Arguments.of(2, 0x1p62f, 1L << 62),
        Arguments.of(2, new BigInteger("9223372036854775807"), Long.MAX_VALUE),
        Arguments.of(2, new BigDecimal("-9223372036854775808.0"), Long.MIN_VALUE),
        Arguments.of(2, new AtomicLong(Long.MIN_VALUE), Long.MIN_VALUE));
  }

  @ParameterizedTest(name = "field {0} <- {1}")
  @MethodSource("heldExactly")
  void shouldHoldAWholeNumberInRangeOfEveryKind(int field, Number value, long expected)
      throws Exception {
    write(field, value);
    long stored =
        switch (field) {
          case 0 -> Byte.toUnsignedLong(bytes().get(offset(0)));
          case 1 -> bytes().getInt(offset(1));
          default -> bytes().getLong(offset(2));
        };
    assertThat(stored).isEqualTo(expected);
  }

  static Stream<Arguments> notHeld() {
    return Stream.of(
        Arguments.of(0, 256, "0..255 for uint8"),
        Arguments.of(0, (byte) -1, "0..255 for uint8"),
        Arguments.of(0, 3.7, "0..255 for uint8"),
        Arguments.of(0, Double.NaN, "0..255 for uint8"),
        Arguments.of(0, Float.POSITIVE_INFINITY, "0..255 for uint8"),
        Arguments.of(0, new BigInteger("18446744073709551623"), "0..255 for uint8"),
        Arguments.of(0, new BigInteger("-18446744073709551361"), "0..255 for uint8"),
        Arguments.of(0, new BigDecimal("1.5"), "0..255 for uint8"),
        Arguments.of(0, new AtomicInteger(300), "0..255 for uint8"),
        Arguments.of(0, doubleAdder(2.5), "0..255 for uint8"),
        Arguments.of(1, 2147483648L, "-2147483648..2147483647 for int32"),
        Arguments.of(1, 2147483648.0, "-2147483648..2147483647 for int32"),
        Arguments.of(1, -2147483649.0, "-2147483648..2147483647 for int32"),
        Arguments.of(1, 0.5f, "-2147483648..2147483647 for int32"),
        Arguments.of(1, new BigDecimal("1E+10"), "-2147483648..2147483647 for int32"),
        Arguments.of(2, 1e19, INT64_RANGE + " for int64"),
        Arguments.of(2, 0x1p63, INT64_RANGE + " for int64"),
        Arguments.of(2, -0x1p64, INT64_RANGE + " for int64"),
        Arguments.of(2, Double.NEGATIVE_INFINITY, INT64_RANGE + " for int64"),
        Arguments.of(2, Float.NaN, INT64_RANGE + " for int64"),
        Arguments.of(2, new BigInteger("9223372036854775808"), INT64_RANGE + " for int64"),
        Arguments.of(2, new BigDecimal("9223372036854775807.5"), INT64_RANGE + " for int64"),
        Arguments.of(2, new BigDecimal("1E+999999999"), INT64_RANGE + " for int64"),
        Arguments.of(2, new BigDecimal("1E-999999999"), INT64_RANGE + " for int64"));
  }

  @ParameterizedTest(name = "field {0} <- {1}")
  @MethodSource("notHeld")
  void shouldRefuseANumberAnIntegerFieldCannotHoldExactly(int field, Number value, String range) {
    assertThatThrownBy(() -> write(field, value))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "field '"
                + SCHEMA.field(field).name()
                + "' sample 7: "
                + value
                + " (expected: a whole number in "
                + range
                + ")");
  }

  @Test
  void shouldRoundFiniteValuesToFloat32AndKeepNaNAndInfinities() throws Exception {
    write(3, 0.1);
    assertThat(bytes().getFloat(offset(3))).isEqualTo(0.1f);
    write(3, 3.4028235e38); // above Float.MAX_VALUE, rounds down to it
    assertThat(bytes().getFloat(offset(3))).isEqualTo(Float.MAX_VALUE);
    write(3, 1e-300); // rounds to zero
    assertThat(bytes().getFloat(offset(3))).isZero();
    write(3, Long.MAX_VALUE);
    assertThat(bytes().getFloat(offset(3))).isEqualTo(0x1p63f);
    write(3, new BigDecimal("1.5"));
    assertThat(bytes().getFloat(offset(3))).isEqualTo(1.5f);
    write(3, Double.NaN);
    assertThat(bytes().getFloat(offset(3))).isNaN();
    write(3, Double.NEGATIVE_INFINITY);
    assertThat(bytes().getFloat(offset(3))).isEqualTo(Float.NEGATIVE_INFINITY);
    write(3, Float.POSITIVE_INFINITY);
    assertThat(bytes().getFloat(offset(3))).isEqualTo(Float.POSITIVE_INFINITY);
    write(3, doubleAdder(Double.POSITIVE_INFINITY));
    assertThat(bytes().getFloat(offset(3))).isEqualTo(Float.POSITIVE_INFINITY);
  }

  @Test
  void shouldRefuseAFiniteValueBeyondFloat32() {
    assertThatThrownBy(() -> write(3, 1e300))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("field 'f32' sample 7: 1.0E300 (expected: " + FLOAT32_RANGE + ")");
    assertThatThrownBy(() -> write(3, -3.5e38))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("field 'f32' sample 7: -3.5E38 (expected: " + FLOAT32_RANGE + ")");
    assertThatThrownBy(() -> write(3, new BigInteger("1" + "0".repeat(40))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "field 'f32' sample 7: 1" + "0".repeat(40) + " (expected: " + FLOAT32_RANGE + ")");
    assertThatThrownBy(() -> write(3, doubleAdder(1e300)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("field 'f32' sample 7: 1.0E300 (expected: " + FLOAT32_RANGE + ")");
  }

  @Test
  void shouldHoldEveryDoubleInFloat64AndRefuseBigNumbersBeyondIt() throws Exception {
    write(4, Math.PI);
    assertThat(bytes().getDouble(offset(4))).isEqualTo(Math.PI);
    write(4, Double.NaN);
    assertThat(bytes().getDouble(offset(4))).isNaN();
    write(4, new BigDecimal("1E+308"));
    assertThat(bytes().getDouble(offset(4))).isEqualTo(1e308);
    assertThatThrownBy(() -> write(4, new BigDecimal("1E+309")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("field 'f64' sample 7: 1E+309 (expected: " + FLOAT64_RANGE + ")");
    assertThatThrownBy(() -> write(4, BigInteger.ONE.shiftLeft(1024).negate()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("field 'f64' sample 7: -1797693134862315907729305190789")
        .hasMessageEndingWith(" (expected: " + FLOAT64_RANGE + ")");
  }

  private static LongAdder longAdder(long value) {
    LongAdder adder = new LongAdder();
    adder.add(value);
    return adder;
  }

  private static DoubleAdder doubleAdder(double value) {
    DoubleAdder adder = new DoubleAdder();
    adder.add(value);
    return adder;
  }
}
