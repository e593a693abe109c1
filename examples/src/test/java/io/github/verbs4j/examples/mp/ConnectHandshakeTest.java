package io.github.verbs4j.examples.mp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;

/**
 * The on-demand CONNECT handshake's named states ({@link ConnectionManager#onConnect}) and the
 * flags that decide whether a CONNECT is answered.
 */
class ConnectHandshakeTest {
  @Test
  void aConnectMovesThePeerUpToOpenAndNeverBack() {
    assertEquals(Peer.State.RTS, ConnectionManager.onConnect(Peer.State.IDLE, false), "accepting");
    assertEquals(Peer.State.OPEN, ConnectionManager.onConnect(Peer.State.CONNECTING, true), "the answer");
    assertEquals(Peer.State.RTS, ConnectionManager.onConnect(Peer.State.CONNECTING, false), "both at once");
    assertEquals(Peer.State.RTS, ConnectionManager.onConnect(Peer.State.RTS, false), "the peer's first, again");
    assertEquals(Peer.State.OPEN, ConnectionManager.onConnect(Peer.State.RTS, true), "the peer is at RTS");
    for (Peer.State s : new Peer.State[] {Peer.State.OPEN, Peer.State.DRAINING, Peer.State.CLOSE_SENT}) {
      assertEquals(s, ConnectionManager.onConnect(s, true), "a repeated CONNECT(RTS) in " + s);
      assertEquals(s, ConnectionManager.onConnect(s, false), "a late CONNECT in " + s);
    }
  }

  /**
   * An OPEN side's CONNECT carries CONFIRMED, so the peer does not answer it; an RTS side's does
   * not, so an OPEN side answers its repeated CONNECT(RTS) (the answer it missed was lost).
   */
  @Test
  void onlyAConfirmedConnectGoesUnanswered() {
    ByteBuffer b = ByteBuffer.allocate(ControlWire.LENGTH).order(ByteOrder.LITTLE_ENDIAN);
    ControlWire.writeConnect(b, 0, true, false, 3, 7, 1, 2, 3, 4096, 1, 9);
    assertEquals(ControlWire.FLAG_RTS, b.get(ControlWire.FLAGS_OFFSET), "from RTS: answered");
    ControlWire.writeConnect(b, 0, true, true, 3, 7, 1, 2, 3, 4096, 1, 9);
    assertEquals(ControlWire.FLAG_RTS | ControlWire.FLAG_CONFIRMED, b.get(ControlWire.FLAGS_OFFSET),
        "from OPEN: not answered");
    ControlWire.writeConnect(b, 0, false, false, 3, 7, 1, 2, 3, 4096, 1, 9);
    assertEquals(0, b.get(ControlWire.FLAGS_OFFSET), "from CONNECTING: answered");
    assertEquals(7, b.getInt(ControlWire.EPOCH_OFFSET));
  }
}
