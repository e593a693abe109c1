package io.github.verbs4j.tca.peach2;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A TLP's ECRC is optional, as PCIe's TLP digest: {@link Peach2Tlp#FLAG_DIGEST} says it is there.
 * With it a changed byte is caught; without it the field is 0 and nothing is computed; an undefined
 * flag bit is refused.
 */
class Peach2TlpTest {
  private final CRC32C crc = new CRC32C();
  private final ByteBuf frame = Unpooled.directBuffer(Peach2Tlp.HEADER_LENGTH + 64);

  @AfterEach
  void release() {
    frame.release();
  }

  private void build(boolean digest) {
    frame.clear();
    Peach2Tlp.writeHeader(frame, 3, 0x1_0000_0040L, 64);
    for (int i = 0; i < 64; i++) {
      frame.writeByte(i * 7);
    }
    Peach2Tlp.seal(frame, 0, crc, digest);
  }

  @Test
  void aDigestCatchesAChangedDataByte() {
    build(true);
    assertEquals(Peach2Tlp.FLAG_DIGEST, frame.getUnsignedByte(Peach2Tlp.FLAGS_OFFSET));
    assertEquals(Peach2Tlp.compute(frame, 0, crc), frame.getInt(Peach2Tlp.ECRC_OFFSET));
    assertNull(Peach2Tlp.check(frame, 0, frame.readableBytes(), crc));
    frame.setByte(Peach2Tlp.HEADER_LENGTH + 5, frame.getByte(Peach2Tlp.HEADER_LENGTH + 5) ^ 0x10);
    assertEquals("ecrc", Peach2Tlp.check(frame, 0, frame.readableBytes(), crc));
  }

  @Test
  void withoutADigestTheFieldIsZeroAndNotChecked() {
    build(false);
    assertEquals(0, frame.getUnsignedByte(Peach2Tlp.FLAGS_OFFSET));
    assertEquals(0, frame.getInt(Peach2Tlp.ECRC_OFFSET));
    assertNull(Peach2Tlp.check(frame, 0, frame.readableBytes(), crc));
    assertEquals(64, Peach2Tlp.length(frame, 0));
    assertEquals(0x1_0000_0040L, Peach2Tlp.address(frame, 0));
  }

  @Test
  void anUndefinedFlagBitIsRefused() {
    build(true);
    frame.setByte(Peach2Tlp.FLAGS_OFFSET, Peach2Tlp.FLAG_DIGEST | 0x80);
    assertEquals("bad_flags", Peach2Tlp.check(frame, 0, frame.readableBytes(), crc));
  }
}
