package io.github.verbs4j.tca.peach2;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.verbs4j.fabric.DropReason;
import io.github.verbs4j.tca.peach2.Peach2Counters.Link;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Frames that reach a board over the fabric but are not link frames (random bytes with a wrong
 * version, a frame shorter than any link frame, a frame of a DLLP's length with no valid type) are
 * rejected through the fabric node, so they are counted as {@code malformed} and paid from the
 * sending connection's reject budget (docs/security.md), like the ib provider's; the link stays up
 * and a write behind them still lands.
 */
class MalformedLinkFramesTest {
  private final Boards b = Boards.eight();

  @AfterEach
  void close() {
    b.close();
  }

  private void sendRaw(byte[] bytes) {
    ByteBuf f = Unpooled.directBuffer(bytes.length).writeBytes(bytes);
    b.nodes[1].send(2, FabricLink.TAG, 0, f);
  }

  @Test
  void framesThatAreNotLinkFramesAreRejectedThroughTheFabric() {
    Random r = new Random(7);
    byte[] random = new byte[200];
    r.nextBytes(random);
    random[0] = (byte) (LinkFrame.VERSION + 1); // whatever the bytes, not this version
    sendRaw(random);
    sendRaw(new byte[] {LinkFrame.VERSION}); // shorter than any link frame
    byte[] shortTlp = new byte[LinkFrame.DLLP_FRAME_LENGTH];
    shortTlp[0] = LinkFrame.VERSION;
    sendRaw(shortTlp); // a DLLP's length, but no valid type and no room for a TLP and its LCRC
    b.run();

    assertEquals(3, b.nodes[2].metrics().drops(DropReason.MALFORMED));
    assertEquals(3, b.board(2).counters().link(Link.BAD_FRAMES));

    TcaMallocPool.Block dst = b.board(2).hostPool().allocate(64, 64);
    b.board(1).pio().writeLong(dst.address(), 0x1122334455667788L);
    b.run();
    assertEquals(0x1122334455667788L, dst.buffer().getLong(0), "the link still carries writes");
    assertEquals(3, b.nodes[2].metrics().drops(DropReason.MALFORMED), "and only those were rejected");
  }
}
