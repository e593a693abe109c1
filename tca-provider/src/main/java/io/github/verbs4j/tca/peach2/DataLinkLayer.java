package io.github.verbs4j.tca.peach2;

import io.github.verbs4j.fabric.FrameBufferPool;
import io.github.verbs4j.fabric.topo.Peach2Topology;
import io.github.verbs4j.tca.peach2.Peach2Counters.Link;
import io.netty.buffer.ByteBuf;
import java.util.zip.CRC32;

/**
 * The PCIe data link layer of a PEACH2 board (PCIe Base Specification 2.0 §3.5), one instance per
 * board between the board's memory writes and the fabric. PEACH2's cables are PCIe links, whose
 * data link layer replays a lost or corrupted TLP from the sender's replay buffer, so TCA Verbs
 * above never sees a loss — only delay. Each directed pair of boards, as the fabric delivers frames
 * between them, is one link here:
 *
 * <ul>
 *   <li><b>Transmitter</b>: gives each TLP a 12-bit sequence number (a frame of {@code n} TLPs
 *       takes {@code n}), adds the LCRC ({@link LinkFrame}), keeps the frame in the link's {@link
 *       ReplayBuffer} until an Ack covers it, and makes a sender wait while the buffer is full
 *       (back-pressure). A Nak, or the replay timer running out without an Ack, sends every
 *       unacknowledged frame again (a replay); the fourth replay without progress first retrains
 *       the link ({@link DataLinkParams#retrainNs()}); a link that acknowledges nothing for {@link
 *       DataLinkParams#linkDownNs()} is taken down (its unacknowledged TLPs are discarded) and
 *       probes for its partner with the initialisation handshake ({@link PcieLink}).
 *   <li><b>Receiver</b>: accepts only the next sequence number, after checking the LCRC; a frame
 *       with a bad LCRC or ahead of the sequence (a frame before it was lost, or the fabric reordered
 *       them) is discarded and answered by one Nak; a frame already received (a duplicate, or a
 *       replay of a frame whose Ack was lost) is discarded and acknowledged again, by an Ack
 *       DLLP of its own (PCIe §3.5.3.1 schedules one: an Ack riding a TLP frame is lost with it
 *       when the partner discards that frame, and a partner replaying to this end usually does,
 *       which kept two ends replaying to each other without an Ack for seconds). Acks are
 *       coalesced: an Ack rides in the next TLP frame to the peer, goes alone when {@link
 *       DataLinkParams#ackCoalesceTlps()} TLPs are unacknowledged, or when the AckNak latency
 *       timer ({@link DataLinkParams#ackDelayNs}) runs out.
 * </ul>
 *
 * <p>Timers: one replay timer and one Ack timer per link, each a deadline plus at most one
 * scheduled task (re-armed for the remainder when it fires early), so a stream of frames schedules
 * one task per timeout period, not one per frame. The costs are the wire's: replays, Naks and Acks
 * are frames the fabric serialises and delays like any other (modelled time), a retrain holds the
 * link's transmissions. In a wall-clock run the timers are at least the {@code wall*} floors of
 * {@link DataLinkParams}, and the replay timeout follows the measured round trips (RFC 6298's
 * estimator; it doubles on each expiry until an Ack comes), because there host threads, not a
 * wire, decide how long an Ack takes: a fixed timeout either replays spuriously on a loaded
 * machine or recovers a lost frame slowly on an idle one.
 *
 * <p>A cut cable of the board ({@link Peach2Link#cablesUp()}) is a physical link down: every link
 * goes down at once, discarding what it held, and initialises again when the cables are back.
 * TLPs discarded by a link going down are lost: TCA Verbs' requesters time out
 * ({@code RETRY_EXC_ERR}).
 *
 * <p>Thread-safe: a link's transmitter and receiver share the link's monitor ({@link PcieLink});
 * frames are received on the link thread, which also runs the timers.
 */
public final class DataLinkLayer implements AutoCloseable {
  /**
   * A link's state (PCIe: DL_Active, a retrain in the physical layer, DL_Init, DL_Inactive after
   * DL_Down).
   */
  public enum State {
    /** Frames flow. */
    ACTIVE,
    /** Retraining after four replays without progress: nothing is sent until it ends. */
    RETRAIN,
    /** Initialising after it went down: InitFC DLLPs only; TLPs wait (a replay buffer's worth). */
    INIT,
    /** Down (a cut cable, or the partner left the fabric): frames are dropped. */
    DOWN
  }

  /** Where TLPs received in sequence go (the board). */
  @FunctionalInterface
  public interface Upper {
    /**
     * @param srcNode the sending board
     * @param hops links the frame crossed
     * @param tlp the TLP ({@link Peach2Tlp}) between reader and writer index; the callee releases it
     */
    void onTlp(int srcNode, int hops, ByteBuf tlp);
  }

  final Peach2Link link;
  final Peach2Params params;
  final Peach2Counters counters;
  final HostClock clock;
  final HostScheduler scheduler;
  /** Frame buffers of DLLPs, PIO writes and low-latency ring packets: at most 4,096 of 256 B. */
  static final FrameBufferPool.Size SMALL_FRAMES = new FrameBufferPool.Size(256, 4096);
  /** A high-bandwidth ring packet of the largest size: at most 256 (4 MiB). */
  static final FrameBufferPool.Size MEDIUM_FRAMES = new FrameBufferPool.Size(LinkFrame.capacity(16 * 1024), 256);
  /** A frame of the most data a board puts in one ({@link Peach2Board#MAX_FRAME_DATA}): at most 64. */
  static final FrameBufferPool.Size LARGE_FRAMES =
      new FrameBufferPool.Size(LinkFrame.capacity(Peach2Board.MAX_FRAME_DATA), 64);

  /** The board's frame buffers (every frame this board sends is built in one). */
  final FrameBufferPool frames;
  final int nodeId;
  private final Peach2Topology topology;
  private final PcieLink[] links;
  private final CRC32 rxCrc = new CRC32();
  private final Upper upper;
  private final Peach2Link.CableListener cables = this::onCables;
  private volatile boolean cablesUp;
  private volatile boolean closed;

  /**
   * @param link the fabric underneath (this layer becomes its receiver)
   * @param params the board's parameters (with {@link Peach2Params#dataLink()})
   * @param counters where events are counted
   * @param upper where TLPs received in sequence go
   */
  public DataLinkLayer(Peach2Link link, Peach2Params params, Peach2Counters counters, Upper upper) {
    this.link = link;
    this.params = params;
    this.counters = counters;
    this.clock = link.clock();
    this.scheduler = link.scheduler();
    this.frames = new FrameBufferPool(link.alloc(), SMALL_FRAMES, MEDIUM_FRAMES, LARGE_FRAMES);
    this.topology = link.topology();
    this.nodeId = link.nodeId();
    this.links = new PcieLink[topology.maxNodes() + 1];
    this.upper = upper;
    this.cablesUp = link.cablesUp();
    link.addCableListener(cables);
    link.setReceiver(this::onFrame);
  }

  boolean closed() {
    return closed;
  }

  int tlps(ByteBuf tlp, int offset) {
    return (int) Peach2Tlp.tlpCount(Peach2Tlp.length(tlp, offset), params.tlpPayloadBytes());
  }

  private PcieLink peer(int node) {
    if (node < 1 || node >= links.length || node == nodeId) {
      return null;
    }
    PcieLink p = links[node];
    if (p == null) {
      synchronized (links) {
        p = links[node];
        if (p == null) {
          p = new PcieLink(this, node, Math.max(1, topology.hops(nodeId, node)), cablesUp);
          links[node] = p;
        }
      }
    }
    return p;
  }

  /**
   * Sends a TLP frame built by the board: {@code frame} holds {@link LinkFrame#BODY_OFFSET} bytes
   * for the link header, then the TLP up to the writer index, and room for the LCRC and a DLLP
   * ({@link LinkFrame#capacity}). Waits while the link's replay buffer is full unless the caller may
   * not wait ({@link HostScheduler#canWait()}: then the frame queues behind the full buffer); while
   * the link initialises, the frame waits for it (up to a replay buffer's worth). Ownership passes
   * in every case.
   *
   * @param dstNode the destination board
   * @param frame the frame
   * @param tlps TLPs the burst counts ({@link Peach2Tlp#tlpCount})
   * @return false if it was dropped: the link is down or this layer closed
   * @throws IllegalArgumentException if {@code dstNode} is not another board of the sub-cluster
   */
  public boolean transmit(int dstNode, ByteBuf frame, int tlps) {
    return transmit(dstNode, frame, tlps, Long.MIN_VALUE);
  }

  /**
   * Like {@link #transmit(int, ByteBuf, int)}, for a frame that a board engine with its own
   * timeline (a DMA channel) sends at modelled time {@code sendTimeNanos}; a frame that must wait
   * for room leaves when there is room instead.
   *
   * @param dstNode the destination board
   * @param frame the frame
   * @param tlps TLPs the burst counts
   * @param sendTimeNanos the modelled send time, or {@link Long#MIN_VALUE} for the clock's now
   * @return false if it was dropped
   */
  public boolean transmit(int dstNode, ByteBuf frame, int tlps, long sendTimeNanos) {
    PcieLink p = peer(dstNode);
    if (p == null) {
      frame.release();
      throw new IllegalArgumentException("node " + dstNode + " is not another board of the sub-cluster");
    }
    return p.transmit(frame, tlps, sendTimeNanos);
  }

  private void onFrame(int srcNode, int hops, boolean unchecked, ByteBuf received, long arrival) {
    PcieLink p = peer(srcNode);
    ByteBuf frame = LinkFrame.raw(received); // fields only: ownership stays with received
    int off = frame.readerIndex();
    int n = frame.readableBytes();
    if (p == null) {
      counters.drop("unknown_source");
      link.reject(received);
      return;
    }
    if (closed) {
      counters.drop("closed");
      received.release();
      return;
    }
    int lcrcAt = -1;
    boolean deliver = false;
    boolean malformed = false;
    if (n < LinkFrame.DLLP_FRAME_LENGTH || LinkFrame.version(frame, off) != LinkFrame.VERSION) {
      counters.link(Link.BAD_FRAMES, 1);
      malformed = true;
      p.onBadTlp(arrival);
    } else if (LinkFrame.type(frame, off) == LinkFrame.TYPE_DLLP) {
      int d = off + LinkFrame.dllpOffset();
      if (n != LinkFrame.DLLP_FRAME_LENGTH || !Peach2Dllp.check(frame, d)) {
        counters.link(Link.BAD_FRAMES, 1);
      } else if (Peach2Dllp.type(frame, d) == Peach2Dllp.ACK || Peach2Dllp.type(frame, d) == Peach2Dllp.NAK) {
        p.onAckNak(Peach2Dllp.type(frame, d), Peach2Dllp.seq(frame, d));
      } else {
        p.onInit(Peach2Dllp.type(frame, d), Peach2Dllp.epoch(frame, d), Peach2Dllp.seenEpoch(frame, d));
      }
    } else if (LinkFrame.type(frame, off) != LinkFrame.TYPE_TLP || (lcrcAt = LinkFrame.lcrcOffset(frame, off, n)) < 0) {
      counters.link(Link.BAD_FRAMES, 1);
      malformed = true;
      p.onBadTlp(arrival);
    } else if (!p.expects(LinkFrame.seq(frame, off))) {
      // out of sequence or a duplicate: discarded whatever its LCRC (a corrupted sequence number
      // lands here too, and is discarded as well), so it costs no CRC
      p.onTlp(frame, off, lcrcAt, n, arrival);
    } else if (!unchecked && frame.getInt(off + lcrcAt) != lcrc(frame, off, lcrcAt)) {
      counters.link(Link.LCRC_ERRORS, 1);
      p.onBadTlp(arrival);
    } else {
      deliver = p.onTlp(frame, off, lcrcAt, n, arrival);
    }
    if (malformed) {
      link.reject(received);
      return;
    }
    if (!deliver) {
      received.release();
      return;
    }
    frame.readerIndex(off + LinkFrame.BODY_OFFSET);
    frame.writerIndex(off + lcrcAt);
    upper.onTlp(srcNode, hops, received);
  }

  private int lcrc(ByteBuf frame, int off, int lcrcAt) {
    synchronized (rxCrc) {
      return LinkFrame.lcrc(frame, off, lcrcAt, rxCrc);
    }
  }

  /** The board's cables went down (every link down) or are all up again (every link initialises). */
  private void onCables(boolean up) {
    cablesUp = up;
    for (PcieLink p : links) {
      if (p != null) {
        if (up) {
          p.cableUp();
        } else {
          p.cableDown();
        }
      }
    }
  }

  /**
   * The peer left the fabric: its link goes down for good, without counting a failure.
   *
   * @param node the node
   */
  public void peerGone(int node) {
    PcieLink p = peer(node);
    if (p != null) {
      p.gone();
    }
    // Its board may have been relaying frames of other links (store and forward through an
    // intermediate board): what it held is lost with it, so every other link sends again what its
    // partner has not acknowledged (duplicates are discarded by sequence number).
    for (PcieLink l : links) {
      if (l != null && l != p) {
        l.routeLost();
      }
    }
  }

  /**
   * @param node another board
   * @return the state of the link to it ({@link State#ACTIVE} if never used)
   */
  public State state(int node) {
    PcieLink p = node >= 1 && node < links.length ? links[node] : null;
    return p == null ? (cablesUp ? State.ACTIVE : State.DOWN) : p.state();
  }

  /**
   * Modelled time: whether a link holds a DMA frame until the clock reaches its send time. Its
   * release is this node's next event, a timer: a host that claims to be busy must not keep it
   * from firing.
   *
   * @return true if some link holds a frame ahead of the clock
   */
  public boolean holdsFramesAhead() {
    for (PcieLink p : links) {
      if (p != null && p.holdsFrameAhead()) {
        return true;
      }
    }
    return false;
  }

  /**
   * @param node another board
   * @return TLPs sent to it and not yet acknowledged
   */
  public int unacknowledgedTlps(int node) {
    PcieLink p = node >= 1 && node < links.length ? links[node] : null;
    return p == null ? 0 : p.unacknowledgedTlps();
  }

  /** Releases every frame held, frees the frame buffers and stops the timers; waiting senders return. Idempotent. */
  @Override
  public void close() {
    closed = true;
    link.removeCableListener(cables);
    for (PcieLink p : links) {
      if (p != null) {
        p.close();
      }
    }
    frames.close();
  }
}
