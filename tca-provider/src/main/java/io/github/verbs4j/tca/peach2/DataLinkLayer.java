package io.github.verbs4j.tca.peach2;

import io.github.verbs4j.fabric.topo.Peach2Topology;
import io.github.verbs4j.tca.peach2.Peach2Counters.Link;
import io.netty.buffer.ByteBuf;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 *       DataLinkParams#linkDownNs()} is taken down ({@link State#DOWN}).
 *   <li><b>Receiver</b>: accepts only the next sequence number, after checking the LCRC; a frame
 *       with a bad LCRC or ahead of the sequence (a frame before it was lost, or the fabric reordered
 *       them) is discarded and answered by one Nak; a frame already received (a duplicate, or a
 *       replay of a frame whose Ack was lost) is discarded and acknowledged again. Acks are
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
 * <p>Thread-safe: a link's transmitter and receiver share the link's monitor; frames are received
 * on the link thread, which also runs the timers.
 */
public final class DataLinkLayer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(DataLinkLayer.class);
  private static final int SEQ_MASK = DataLinkParams.SEQ_MODULUS - 1;
  private static final int HALF = DataLinkParams.SEQ_MODULUS / 2;
  private static final long WAIT_SLICE_MS = 1;

  /** A link's state (PCIe: DL_Active, a retrain in the physical layer, DL_Down). */
  public enum State {
    /** Frames flow. */
    ACTIVE,
    /** Retraining after four replays without progress: nothing is sent until it ends. */
    RETRAIN,
    /** Taken down (no acknowledgement for the link-down timeout, or the peer left): frames are dropped. */
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

  private final Peach2Link link;
  private final Peach2Params params;
  private final DataLinkParams dl;
  private final Peach2Counters counters;
  private final HostClock clock;
  private final HostScheduler scheduler;
  private final Peach2Topology topology;
  private final int nodeId;
  private final Peer[] peers;
  private final CRC32 rxCrc = new CRC32();
  private final Upper upper;
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
    this.dl = params.dataLink();
    this.counters = counters;
    this.clock = link.clock();
    this.scheduler = link.scheduler();
    this.topology = link.topology();
    this.nodeId = link.nodeId();
    this.peers = new Peer[topology.maxNodes() + 1];
    this.upper = upper;
    link.setReceiver(this::onFrame);
  }

  /** One link: the transmitter towards a peer and the receiver of what it sends. Guarded by itself. */
  private final class Peer {
    final int node;
    final int hops;
    final boolean wall;
    final long minTimeout;
    final long maxTimeout;
    final long ackDelay;
    final long downAfter;
    final ReplayBuffer replay;
    final ArrayDeque<ByteBuf> pending = new ArrayDeque<>();
    final CRC32 txCrc = new CRC32();
    final Runnable txTimer = this::onTxTimer;
    final Runnable ackTimer = this::onAckTimer;
    State state = State.ACTIVE;
    // transmitter (PCIe names)
    int nextTransmitSeq;
    int ackdSeq = SEQ_MASK;
    int replayNum;
    long replayTimeout; // the current limit: fixed (modelled time) or adaptive (wall clock)
    long srtt;
    long rttvar;
    long replayDeadline; // 0: timer stopped
    boolean graced; // wall clock: the timer ran out once; it replays if it is still out after a grace
    long lastProgress;
    long retrainEnd;
    boolean txTimerScheduled;
    int waiters;
    // receiver
    int nextRcvSeq;
    boolean nakScheduled;
    boolean ackPending;
    int unackedTlps;
    boolean ackTimerScheduled;

    Peer(int node) {
      this.node = node;
      this.hops = Math.max(1, topology.hops(nodeId, node));
      this.wall = !clock.isModelled();
      this.minTimeout = dl.replayTimeoutNs(params, hops, wall);
      this.replayTimeout = minTimeout;
      this.ackDelay = dl.ackDelayNs(wall);
      this.downAfter = dl.linkDownNs(wall);
      this.maxTimeout = Math.max(minTimeout, downAfter / 8);
      this.replay = new ReplayBuffer(dl.replayBufferTlps());
    }

    int outstandingTlps() {
      return (nextTransmitSeq - 1 - ackdSeq) & SEQ_MASK;
    }

    boolean blocked(int tlps) {
      return state == State.RETRAIN || !pending.isEmpty() || !replay.hasRoom(tlps)
          || outstandingTlps() + tlps >= DataLinkParams.MAX_OUTSTANDING_TLPS && !replay.isEmpty();
    }

    /**
     * Wall clock only: the replay timeout follows the measured round trips (RFC 6298's estimator,
     * at least the wall floor), since host threads, not a wire, set how long an Ack takes.
     */
    void sample(long rtt) {
      if (srtt == 0) {
        srtt = Math.max(1, rtt);
        rttvar = rtt / 2;
      } else {
        rttvar = (3 * rttvar + Math.abs(srtt - rtt)) / 4;
        srtt = (7 * srtt + rtt) / 8;
      }
      replayTimeout = Math.min(maxTimeout, Math.max(minTimeout, srtt + 4 * rttvar));
    }

    void onTxTimer() {
      synchronized (this) {
        txTimerScheduled = false;
        if (closed || state == State.DOWN) {
          return;
        }
        long now = clock.nowNanos();
        if (state == State.RETRAIN) {
          if (now < retrainEnd) {
            armTx(this, retrainEnd - now);
            return;
          }
          state = State.ACTIVE;
          resend(this, now);
          drainPending(this);
          return;
        }
        if (replayDeadline == 0) {
          return;
        }
        if (now - lastProgress >= downAfter) {
          down(this, "no acknowledgement for " + TimeUnit.NANOSECONDS.toMillis(now - lastProgress) + " ms");
          return;
        }
        if (now < replayDeadline) {
          armTx(this, Math.min(replayDeadline, lastProgress + downAfter) - now);
          return;
        }
        if (wall && !graced) {
          // host threads, not a wire: the Ack may be waiting behind this timer in the same thread's
          // queue (or socket). Look again after the thread has taken what arrived.
          graced = true;
          armTx(this, ackDelay);
          return;
        }
        graced = false;
        counters.link(Link.REPLAY_TIMEOUTS, 1);
        if (wall) {
          replayTimeout = Math.min(maxTimeout, replayTimeout * 2); // back off until an Ack comes
        }
        replay(this, now);
      }
    }

    void onAckTimer() {
      synchronized (this) {
        ackTimerScheduled = false;
        if (ackPending && !closed && state != State.DOWN) {
          sendDllp(this, Peach2Dllp.ACK);
        }
      }
    }
  }

  private Peer peer(int node) {
    if (node < 1 || node >= peers.length || node == nodeId) {
      return null;
    }
    Peer p = peers[node];
    if (p == null) {
      synchronized (peers) {
        p = peers[node];
        if (p == null) {
          p = new Peer(node);
          peers[node] = p;
        }
      }
    }
    return p;
  }

  // ================================================================== transmit

  /**
   * Sends a TLP frame built by the board: {@code frame} holds {@link LinkFrame#BODY_OFFSET} bytes
   * for the link header, then the TLP up to the writer index, and room for the LCRC and a DLLP
   * ({@link LinkFrame#capacity}). Waits while the link's replay buffer is full unless the caller may
   * not wait ({@link HostScheduler#canWait()}: then the frame queues behind the full buffer).
   * Ownership passes in every case.
   *
   * @param dstNode the destination board
   * @param frame the frame
   * @param tlps TLPs the burst counts ({@link Peach2Tlp#tlpCount})
   * @return false if it was dropped: the link is down or this layer closed
   */
  public boolean transmit(int dstNode, ByteBuf frame, int tlps) {
    Peer p = peer(dstNode);
    if (p == null) {
      frame.release();
      throw new IllegalArgumentException("node " + dstNode + " is not another board of the sub-cluster");
    }
    synchronized (p) {
      if (p.blocked(tlps) && !closed && p.state != State.DOWN) {
        if (!scheduler.canWait()) {
          p.pending.add(frame);
          return true;
        }
        counters.link(Link.STALLS, 1);
        p.waiters++;
        try {
          while (p.blocked(tlps) && !closed && p.state != State.DOWN) {
            p.wait(WAIT_SLICE_MS);
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          counters.drop("interrupted");
          frame.release();
          return false;
        } finally {
          p.waiters--;
        }
      }
      if (closed || p.state == State.DOWN) {
        counters.drop(closed ? "closed" : "link_down");
        frame.release();
        return false;
      }
      send(p, frame, tlps, clock.nowNanos());
      return true;
    }
  }

  /** First transmission of a frame: sequence number, LCRC, a copy kept for replay, a shared Ack. */
  private void send(Peer p, ByteBuf frame, int tlps, long now) {
    int seq = p.nextTransmitSeq;
    p.nextTransmitSeq = (seq + tlps) & SEQ_MASK;
    int off = frame.readerIndex();
    LinkFrame.writeTlpHeader(frame, off, seq);
    int lcrcAt = frame.writerIndex() - off;
    boolean checked = link.mayCorrupt();
    frame.setInt(off + lcrcAt, checked ? LinkFrame.lcrc(frame, off, lcrcAt, p.txCrc) : 0);
    frame.writerIndex(off + lcrcAt + LinkFrame.LCRC_LENGTH);
    if (p.replay.isEmpty()) {
      p.lastProgress = now;
    }
    // the replay buffer keeps its own view (same bytes): replays never carry the Ack appended below
    p.replay.add(frame.retainedDuplicate(), seq, tlps, checked, now);
    if (p.ackPending && frame.writableBytes() >= LinkFrame.DLLP_TRAILER) {
      Peach2Dllp.write(frame, frame.writerIndex(), Peach2Dllp.ACK, p.nextRcvSeq - 1);
      frame.writerIndex(frame.writerIndex() + LinkFrame.DLLP_TRAILER);
      acked(p);
      counters.link(Link.ACKS_SHARED, 1);
    }
    put(p, frame, !checked);
    if (p.replayDeadline == 0) {
      p.replayDeadline = now + p.replayTimeout;
      armTx(p, p.replayTimeout);
    }
  }

  /** Hands a frame to the fabric and counts it. */
  private void put(Peer p, ByteBuf frame, boolean unchecked) {
    int bytes = frame.readableBytes();
    if (link.transmit(p.node, frame, unchecked)) {
      counters.frameSent(bytes, p.hops);
    } else {
      counters.drop("link_refused"); // lost like a frame the wire dropped: the replay recovers it
    }
  }

  private void armTx(Peer p, long delay) {
    if (!p.txTimerScheduled && !closed) {
      p.txTimerScheduled = true;
      scheduler.schedule(Math.max(0, delay), p.txTimer);
    }
  }

  /** A replay: every unacknowledged frame again, in order; the fourth in a row retrains first. */
  private void replay(Peer p, long now) {
    if (p.replay.isEmpty()) {
      p.replayDeadline = 0;
      return;
    }
    p.replayNum = (p.replayNum + 1) % DataLinkParams.REPLAY_NUM_ROLLOVER;
    if (p.replayNum == 0) {
      counters.link(Link.RETRAINS, 1);
      p.state = State.RETRAIN;
      p.retrainEnd = now + dl.retrainNs();
      armTx(p, dl.retrainNs());
      return;
    }
    resend(p, now);
  }

  private void resend(Peer p, long now) {
    int n = p.replay.size();
    if (n == 0) {
      p.replayDeadline = 0;
      return;
    }
    counters.link(Link.REPLAYS, 1);
    p.replay.markResent();
    for (int k = 0; k < n; k++) {
      put(p, p.replay.frame(k).retainedDuplicate(), !p.replay.checked(k));
    }
    counters.link(Link.REPLAYED_FRAMES, n);
    p.replayDeadline = now + p.replayTimeout;
    armTx(p, p.replayTimeout);
  }

  /** Sends what waited for room (callers that could not wait), while there is room. */
  private void drainPending(Peer p) {
    ByteBuf f;
    while (p.state == State.ACTIVE && (f = p.pending.peek()) != null) {
      int tlps = tlps(f, f.readerIndex() + LinkFrame.BODY_OFFSET);
      if (!p.replay.hasRoom(tlps) || (p.outstandingTlps() + tlps >= DataLinkParams.MAX_OUTSTANDING_TLPS
          && !p.replay.isEmpty())) {
        break;
      }
      p.pending.poll();
      send(p, f, tlps, clock.nowNanos());
    }
    if (p.waiters > 0) {
      p.notifyAll();
    }
  }

  private int tlps(ByteBuf tlp, int offset) {
    return (int) Peach2Tlp.tlpCount(Peach2Tlp.length(tlp, offset), params.tlpPayloadBytes());
  }

  /** An Ack or Nak from the peer's receiver. */
  private void onAckNak(Peer p, int type, int seq) {
    counters.link(type == Peach2Dllp.NAK ? Link.NAKS_RECEIVED : Link.ACKS_RECEIVED, 1);
    int outstanding = p.outstandingTlps();
    int reach = (seq - p.ackdSeq) & SEQ_MASK;
    if (reach > outstanding) {
      counters.link(Link.DLLP_OUT_OF_RANGE, 1); // PCIe: a Data Link Protocol Error, the DLLP is ignored
      return;
    }
    long now = clock.nowNanos();
    if (reach > 0) {
      int freed = p.replay.purge(reach);
      p.ackdSeq = (p.ackdSeq + freed) & SEQ_MASK;
      if (p.wall && p.replay.sampleSentAt() >= 0) {
        p.sample(now - p.replay.sampleSentAt());
      }
      p.replayNum = 0;
      p.graced = false;
      p.lastProgress = now;
      p.replayDeadline = p.replay.isEmpty() ? 0 : now + p.replayTimeout;
    }
    if (type == Peach2Dllp.NAK && p.state == State.ACTIVE) {
      replay(p, now);
    }
    drainPending(p);
  }

  // ================================================================== receive

  private void onFrame(int srcNode, int hops, boolean unchecked, ByteBuf frame) {
    Peer p = peer(srcNode);
    int off = frame.readerIndex();
    int n = frame.readableBytes();
    if (p == null || closed) {
      counters.drop(p == null ? "unknown_source" : "closed");
      frame.release();
      return;
    }
    boolean deliver = false;
    int lcrcAt = -1;
    synchronized (p) {
      if (p.state == State.DOWN) {
        counters.drop("link_down");
      } else if (n < LinkFrame.DLLP_FRAME_LENGTH || LinkFrame.version(frame, off) != LinkFrame.VERSION) {
        counters.link(Link.BAD_FRAMES, 1);
        nak(p);
      } else if (LinkFrame.type(frame, off) == LinkFrame.TYPE_DLLP) {
        int d = off + LinkFrame.dllpOffset();
        if (n != LinkFrame.DLLP_FRAME_LENGTH || !Peach2Dllp.check(frame, d)) {
          counters.link(Link.BAD_FRAMES, 1);
        } else {
          onAckNak(p, Peach2Dllp.type(frame, d), Peach2Dllp.seq(frame, d));
        }
      } else if (LinkFrame.type(frame, off) != LinkFrame.TYPE_TLP
          || (lcrcAt = LinkFrame.lcrcOffset(frame, off, n)) < 0) {
        counters.link(Link.BAD_FRAMES, 1);
        nak(p);
      } else if (!unchecked && frame.getInt(off + lcrcAt) != LinkFrame.lcrc(frame, off, lcrcAt, rxCrc)) {
        counters.link(Link.LCRC_ERRORS, 1);
        nak(p);
      } else {
        deliver = received(p, frame, off, lcrcAt, n);
      }
    }
    if (!deliver) {
      frame.release();
      return;
    }
    frame.readerIndex(off + LinkFrame.BODY_OFFSET);
    frame.writerIndex(off + lcrcAt);
    upper.onTlp(srcNode, hops, frame);
  }

  /** A well-formed TLP frame: in sequence (deliver it), a duplicate, or ahead of the sequence. */
  private boolean received(Peer p, ByteBuf frame, int off, int lcrcAt, int n) {
    int seq = LinkFrame.seq(frame, off);
    if (seq != p.nextRcvSeq) {
      if (((p.nextRcvSeq - 1 - seq) & SEQ_MASK) < HALF) {
        counters.link(Link.DUPLICATES, 1); // PCIe: discard, and schedule an Ack
        ackLater(p);
      } else {
        counters.link(Link.OUT_OF_SEQUENCE, 1);
        nak(p);
      }
      return false;
    }
    int tlps = tlps(frame, off + LinkFrame.BODY_OFFSET);
    p.nextRcvSeq = (seq + tlps) & SEQ_MASK;
    p.nakScheduled = false;
    p.unackedTlps += tlps;
    if (p.unackedTlps >= dl.ackCoalesceTlps()) {
      sendDllp(p, Peach2Dllp.ACK);
    } else {
      ackLater(p);
    }
    int d = off + lcrcAt + LinkFrame.LCRC_LENGTH;
    if (n - (lcrcAt + LinkFrame.LCRC_LENGTH) == LinkFrame.DLLP_TRAILER) {
      // an Ack sharing the frame; only a frame taken in sequence is fresh enough to trust it
      if (Peach2Dllp.check(frame, d)) {
        onAckNak(p, Peach2Dllp.type(frame, d), Peach2Dllp.seq(frame, d));
      } else {
        counters.link(Link.BAD_FRAMES, 1);
      }
    }
    return true;
  }

  private void ackLater(Peer p) {
    p.ackPending = true;
    if (!p.ackTimerScheduled && !closed) {
      p.ackTimerScheduled = true;
      scheduler.schedule(p.ackDelay, p.ackTimer);
    }
  }

  /** One Nak per loss: none again until the expected frame arrives (PCIe NAK_SCHEDULED). */
  private void nak(Peer p) {
    if (!p.nakScheduled) {
      p.nakScheduled = true;
      sendDllp(p, Peach2Dllp.NAK);
    }
  }

  private void acked(Peer p) {
    p.ackPending = false;
    p.unackedTlps = 0;
  }

  /** A DLLP in a frame of its own, acknowledging everything up to the last TLP received in sequence. */
  private void sendDllp(Peer p, int type) {
    ByteBuf f = link.alloc().directBuffer(LinkFrame.DLLP_FRAME_LENGTH);
    LinkFrame.writeDllpFrame(f, type, p.nextRcvSeq - 1);
    acked(p);
    counters.link(type == Peach2Dllp.NAK ? Link.NAKS_SENT : Link.ACKS_SENT, 1);
    put(p, f, false);
  }

  // ================================================================== link state

  private void down(Peer p, String why) {
    if (p.state == State.DOWN) {
      return;
    }
    if (why != null) {
      counters.link(Link.DOWNS, 1);
      LOG.warn("node {}: PEACH2 link to node {} taken down ({}); {} unacknowledged TLPs discarded", nodeId, p.node,
          why, p.replay.totalTlps());
    }
    p.state = State.DOWN;
    p.replay.clear();
    ByteBuf f;
    while ((f = p.pending.poll()) != null) {
      counters.drop("link_down");
      f.release();
    }
    p.replayDeadline = 0;
    p.notifyAll();
  }

  /**
   * The peer left the fabric: its link goes down without counting a failure.
   *
   * @param node the node
   */
  public void peerGone(int node) {
    Peer p = peer(node);
    if (p != null) {
      synchronized (p) {
        down(p, null);
      }
    }
  }

  /**
   * @param node another board
   * @return the state of the link to it ({@link State#ACTIVE} if never used)
   */
  public State state(int node) {
    Peer p = node >= 1 && node < peers.length ? peers[node] : null;
    if (p == null) {
      return State.ACTIVE;
    }
    synchronized (p) {
      return p.state;
    }
  }

  /**
   * @param node another board
   * @return TLPs sent to it and not yet acknowledged
   */
  public int unacknowledgedTlps(int node) {
    Peer p = node >= 1 && node < peers.length ? peers[node] : null;
    if (p == null) {
      return 0;
    }
    synchronized (p) {
      return p.replay.totalTlps();
    }
  }

  /** Releases every frame held and stops the timers; waiting senders return. Idempotent. */
  @Override
  public void close() {
    closed = true;
    for (Peer p : peers) {
      if (p != null) {
        synchronized (p) {
          p.replay.clear();
          ByteBuf f;
          while ((f = p.pending.poll()) != null) {
            f.release();
          }
          p.notifyAll();
        }
      }
    }
  }
}
