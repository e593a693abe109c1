package io.github.verbs4j.ib.wire;

import io.github.verbs4j.verbs.spi.RnrTimer;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.verbs.spi.wire.Psn;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.Map;
import org.junit.jupiter.api.Test;

class WireTest {
  /** Opcode values, header sets and total header lengths from ib_pack.h / rxe_opcode.c. */
  @Test
  void opcodeValuesAndHeaderLengthsMatchTheIbtaTable() {
    Map<Opcode, int[]> expect = Map.ofEntries(
        Map.entry(Opcode.RC_SEND_FIRST, new int[] {0x00, 12}),
        Map.entry(Opcode.RC_SEND_LAST_WITH_IMMEDIATE, new int[] {0x03, 16}),
        Map.entry(Opcode.RC_SEND_ONLY, new int[] {0x04, 12}),
        Map.entry(Opcode.RC_RDMA_WRITE_FIRST, new int[] {0x06, 28}),
        Map.entry(Opcode.RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE, new int[] {0x0B, 32}),
        Map.entry(Opcode.RC_RDMA_READ_REQUEST, new int[] {0x0C, 28}),
        Map.entry(Opcode.RC_RDMA_READ_RESPONSE_FIRST, new int[] {0x0D, 16}),
        Map.entry(Opcode.RC_RDMA_READ_RESPONSE_MIDDLE, new int[] {0x0E, 12}),
        Map.entry(Opcode.RC_ACKNOWLEDGE, new int[] {0x11, 16}),
        Map.entry(Opcode.RC_ATOMIC_ACKNOWLEDGE, new int[] {0x12, 24}),
        Map.entry(Opcode.RC_COMPARE_SWAP, new int[] {0x13, 40}),
        Map.entry(Opcode.RC_FETCH_ADD, new int[] {0x14, 40}),
        Map.entry(Opcode.UC_SEND_ONLY, new int[] {0x24, 12}),
        Map.entry(Opcode.UC_RDMA_WRITE_ONLY, new int[] {0x2A, 28}),
        Map.entry(Opcode.UD_SEND_ONLY, new int[] {0x64, 20}),
        Map.entry(Opcode.UD_SEND_ONLY_WITH_IMMEDIATE, new int[] {0x65, 24}),
        Map.entry(Opcode.DC_SEND_ONLY, new int[] {0xC4, 28}),
        Map.entry(Opcode.DC_RDMA_WRITE_FIRST, new int[] {0xC6, 44}),
        Map.entry(Opcode.DC_ACKNOWLEDGE, new int[] {0xD1, 16}));
    expect.forEach((op, v) -> {
      assertEquals(v[0], op.value(), op.name());
      assertEquals(v[1] + Lrh.LENGTH, op.headerLength(), op.name() + " BTH + extension headers");
      assertEquals(op, Opcode.fromValue(v[0]));
    });
    assertNull(Opcode.fromValue(0x15));
    assertNull(Opcode.fromValue(0x2C), "UC has no READ");
    assertNull(Opcode.fromValue(0x60), "UD has only SEND_ONLY");
  }

  @Test
  void extensionHeadersAppearInIbtaOrder() {
    Opcode op = Opcode.RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE;
    assertEquals(20, op.offset(HeaderType.RETH));
    assertEquals(36, op.offset(HeaderType.IMM_DT));
    Opcode ud = Opcode.UD_SEND_ONLY_WITH_IMMEDIATE;
    assertEquals(20, ud.offset(HeaderType.DETH));
    assertEquals(28, ud.offset(HeaderType.IMM_DT));
    Opcode ack = Opcode.RC_ATOMIC_ACKNOWLEDGE;
    assertEquals(20, ack.offset(HeaderType.AETH));
    assertEquals(24, ack.offset(HeaderType.ATOMIC_ACK_ETH));
    Opcode dc = Opcode.DC_RDMA_WRITE_FIRST;
    assertEquals(20, dc.offset(HeaderType.DCETH));
    assertEquals(36, dc.offset(HeaderType.RETH));
    assertEquals(-1, Opcode.RC_SEND_ONLY.offset(HeaderType.RETH));
  }

  @Test
  void semanticBitsFollowRxe() {
    assertTrue(Opcode.RC_SEND_FIRST.is(Opcode.Flag.RWR));
    assertFalse(Opcode.RC_SEND_FIRST.is(Opcode.Flag.COMP));
    assertTrue(Opcode.RC_SEND_LAST.is(Opcode.Flag.COMP));
    assertTrue(Opcode.RC_RDMA_WRITE_LAST_WITH_IMMEDIATE.is(Opcode.Flag.RWR));
    assertFalse(Opcode.RC_RDMA_WRITE_LAST.is(Opcode.Flag.RWR));
    assertTrue(Opcode.RC_RDMA_READ_RESPONSE_ONLY.is(Opcode.Flag.ACK));
    assertTrue(Opcode.DC_FETCH_ADD.is(Opcode.Flag.REQ));
    assertTrue(Opcode.DC_FETCH_ADD.has(HeaderType.DCETH));
    assertFalse(Opcode.DC_ACKNOWLEDGE.has(HeaderType.DCETH));
    assertEquals(Opcode.UC_RDMA_WRITE_MIDDLE, Opcode.of(Opcode.Transport.UC, Opcode.Op.WRITE_MIDDLE));
  }

  @Test
  void psnComparisonIsCorrectAcrossTheWrap() {
    assertTrue(Psn.compare(0, 0xFFFFFF) > 0);
    assertTrue(Psn.compare(0xFFFFFF, 0) < 0);
    assertTrue(Psn.compare(5, 3) > 0);
    assertEquals(0, Psn.compare(0x123456, 0x123456));
    assertTrue(Psn.compare(0x7FFFFF, 0) > 0, "within half the space");
    assertEquals(0, Psn.next(0xFFFFFF));
    assertEquals(0xFFFFFE, Psn.add(1, -3));
    assertEquals(17, Psn.distance(0xFFFFF0, 1));
  }

  @Test
  void headersRoundTripBigEndian() {
    ByteBuf b = Unpooled.buffer(64).writeZero(64);
    Lrh.write(b, 0, 3, 5, 0x1234, 0x0042, 52, false);
    assertEquals(0x30, b.getUnsignedByte(0), "VL in the high nibble, LVer 0 in the low");
    assertEquals(0x12, b.getUnsignedByte(2), "DLID big-endian");
    assertEquals(3, Lrh.vl(b, 0));
    assertEquals(5, Lrh.sl(b, 0));
    assertEquals(0x1234, Lrh.dlid(b, 0));
    assertEquals(0x42, Lrh.slid(b, 0));
    assertEquals(52, Lrh.packetBytes(b, 0));
    Bth.write(b, 8, 0x0A, true, 3, 0xFFFF, 0xABCDEF, true, 0xFFFFFE);
    assertEquals(0x0A, Bth.opcode(b, 8));
    assertTrue(Bth.solicited(b, 8));
    assertEquals(3, Bth.padCount(b, 8));
    assertEquals(0, Bth.tver(b, 8));
    assertEquals(0xABCDEF, Bth.destQp(b, 8));
    assertTrue(Bth.ackReq(b, 8));
    assertEquals(0xFFFFFE, Bth.psn(b, 8));
    assertEquals(0x80, b.getUnsignedByte(8 + 8), "AckReq is the top bit of the PSN word");
    Reth.write(b, 20, 0x0102030405060708L, 0xCAFEBABE, 0xFFFFFFF0);
    assertEquals(0x01, b.getUnsignedByte(20));
    assertEquals(0x0102030405060708L, Reth.va(b, 20));
    assertEquals(0xCAFEBABE, Reth.rkey(b, 20));
    assertEquals(0xFFFFFFF0L, Reth.length(b, 20), "DMA length is unsigned");
    Aeth.write(b, 36, Aeth.rnrNak(14), 0x123456);
    assertEquals(Aeth.TYPE_RNR_NAK, Aeth.type(Aeth.syndrome(b, 36)));
    assertEquals(14, Aeth.value(Aeth.syndrome(b, 36)));
    assertEquals(0x123456, Aeth.msn(b, 36));
    DcEth.write(b, 40, 0xbadc0deL, 7, 0x345, 0xFFFFF0);
    assertEquals(0xbadc0deL, DcEth.dcKey(b, 40));
    assertEquals(7, DcEth.generation(b, 40));
    assertEquals(0x345, DcEth.srcQp(b, 40));
    assertEquals(0xFFFFF0, DcEth.epochPsn(b, 40));
  }

  @Test
  void icrcDetectsAnyFlippedBit() {
    ByteBuf b = Unpooled.directBuffer(68).writeZero(68);
    for (int i = 0; i < 64; i++) {
      b.setByte(i, i * 31);
    }
    Icrc icrc = new Icrc();
    icrc.write(b, 0, 64);
    assertTrue(icrc.check(b, 0, 64));
    for (int bit = 0; bit < 64 * 8; bit += 7) {
      b.setByte(bit / 8, b.getByte(bit / 8) ^ (1 << (bit % 8)));
      assertFalse(icrc.check(b, 0, 64), "bit " + bit);
      b.setByte(bit / 8, b.getByte(bit / 8) ^ (1 << (bit % 8)));
    }
    b.release();
  }

  @Test
  void timerEncodingsFollowIbta() {
    assertEquals(655_360_000L, RnrTimer.nanos(0));
    assertEquals(10_000L, RnrTimer.nanos(1));
    assertEquals(640_000L, RnrTimer.nanos(12));
    assertEquals(61_440_000L, RnrTimer.nanos(25), "not rxe's 61.41 ms typo");
    assertEquals(491_520_000L, RnrTimer.nanos(31));
    assertEquals(0, RnrTimer.ackTimeoutNanos(0), "0 = infinite");
    assertEquals(4096L << 14, RnrTimer.ackTimeoutNanos(14), "4.096 us * 2^14 = 67.1 ms");
    assertThrows(IllegalArgumentException.class, () -> RnrTimer.nanos(32));
  }
}
