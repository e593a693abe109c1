package io.github.verbs4j.examples.flood;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.github.verbs4j.fabric.FrameHeader;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

/**
 * {@code flood-bench} with a small flood: what it checks holds (no connection dies, every frame is
 * counted on arrival by reason, none reaches the engine); its timings are not asserted.
 */
class FloodBenchTest {
  @Test
  void aSmallFloodIsCountedByReasonAndNeverReachesTheEngine() throws Exception {
    int flood = 1_000;
    FloodBench.Result r = FloodBench.run(flood, 2, 25, 20, null);
    StringWriter out = new StringWriter();
    FloodBench.report(new PrintWriter(out), r, flood, 2);
    assertEquals(2 * flood, r.counted(), out.toString());
    assertEquals(2 * flood / MalformedFrames.KINDS, r.badVersion(), out.toString());
    assertEquals(0, r.engineDrops(), out.toString());
    assertTrue(r.connected(), out.toString());
    assertTrue(r.ok(2 * flood), out.toString());
    assertEquals(50, r.before().count());
    assertEquals(25, r.after().count());
    assertTrue(out.toString().contains("malformed 1600, bad_version 400"), out.toString());
  }

  @Test
  void everyFrameHasAHeaderAndItsDeclaredLength() {
    MalformedFrames f = new MalformedFrames(1, 2, 0x123, 5);
    ByteBuf b = Unpooled.buffer();
    for (int i = 0; i < 1000; i++) {
      f.write(i, b);
    }
    int frames = 0;
    int badVersion = 0;
    while (b.isReadable()) {
      int at = b.readerIndex();
      if (FrameHeader.version(b, at) != FrameHeader.VERSION) {
        badVersion++;
      }
      assertEquals(1, b.getUnsignedShort(at + FrameHeader.SRC_OFFSET));
      assertEquals(2, b.getUnsignedShort(at + FrameHeader.DST_OFFSET));
      long len = FrameHeader.length(b, at);
      assertTrue(len >= 1 && len <= 120, "length " + len);
      b.skipBytes(FrameHeader.LENGTH + (int) len);
      frames++;
    }
    assertEquals(1000, frames);
    assertEquals(200, badVersion);
  }
}
